package proxy

import "encoding/json"

// idFinder finds the string at key "id" of the JSON object under path
// (path[0]'s object in the text's, and so on; none: the text's) in a text
// given a piece at a time (feed), as soon as it has arrived, keeping its
// place between pieces: each byte is read once. Decoding the whole text
// again at every piece (idref_test.go's idIn, which it is held to), a
// 64 KiB answer an upstream sent 16 bytes at a time, its id after a long
// member, cost a second of CPU. It follows the text's nesting, strings
// and escapes, and keeps only the keys of the objects on the path and the
// id; it does not check the rest of the text, which the client reads.
type idFinder struct {
	path    []string
	stack   []byte // '{' or '[' for each open container
	onPath  int    // stack[:onPath] are objects of path: the text's, then path's
	started bool
	// Inside a string: esc, after a backslash; keep, the string is
	// collected in raw (a key of an object on the path, or the id).
	inStr, esc, keep bool
	raw              []byte
	isKey            bool // the string is a key
	expectKey        bool // in an object, the next string is a key
	// next is what the value after the key just read is to be: wantNone,
	// wantObject (the next object of path) or wantID.
	next  int
	value bool // the value after next's key has not started yet
	done  bool
	id    string
}

const (
	wantNone = iota
	wantObject
	wantID
)

// maxKept bounds a key or an id kept raw: no key of a path, and no id
// remembered (maxResponseID), is longer, each of its bytes written as an
// escape (\u0061) of six.
const maxKept = 6 * maxResponseID

// feed reads the next piece of the text and says the id, once it has
// arrived, and whether the text shows there is none.
func (f *idFinder) feed(b []byte) (id string, final bool) {
	for i := 0; i < len(b) && !f.done; i++ {
		c := b[i]
		if f.inStr {
			f.strByte(c)
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if !f.started {
			f.started = true
			if c != '{' {
				f.finish("") // not an object
				break
			}
			f.stack, f.onPath, f.expectKey = append(f.stack, c), 1, true
			continue
		}
		if f.value {
			// The first byte of the value after a key of the path.
			f.value = false
			switch {
			case f.next == wantObject && c == '{':
				f.onPath = len(f.stack) + 1
			case f.next == wantID && c == '"':
				f.inStr, f.keep, f.isKey, f.raw = true, true, false, f.raw[:0]
				continue
			default:
				f.finish("") // not an object, or an id that is no string
				continue
			}
		}
		switch c {
		case '{', '[':
			f.stack = append(f.stack, c)
			f.expectKey = c == '{'
		case '}', ']':
			if len(f.stack) <= f.onPath {
				f.finish("") // an object of the path ended without its key
				continue
			}
			f.stack = f.stack[:len(f.stack)-1]
			f.expectKey = false
		case ',':
			f.expectKey = len(f.stack) > 0 && f.stack[len(f.stack)-1] == '{'
		case ':':
			f.expectKey = false
			f.value = f.next != wantNone
		case '"':
			f.isKey = f.expectKey && len(f.stack) > 0 && f.stack[len(f.stack)-1] == '{'
			f.keep = f.isKey && len(f.stack) == f.onPath
			f.inStr, f.raw, f.next = true, f.raw[:0], wantNone
		}
	}
	return f.id, f.done
}

// strByte reads one byte of a string.
func (f *idFinder) strByte(c byte) {
	switch {
	case f.esc:
		f.esc = false
	case c == '\\':
		f.esc = true
	case c == '"':
		f.inStr = false
		if f.keep {
			f.ended()
		}
		return
	}
	if f.keep && len(f.raw) <= maxKept {
		f.raw = append(f.raw, c)
	}
}

// ended takes the string kept: a key of an object of the path, or the id.
func (f *idFinder) ended() {
	var s string
	if len(f.raw) > maxKept || json.Unmarshal(append(append([]byte{'"'}, f.raw...), '"'), &s) != nil {
		s = "" // too long to be a key of path or an id kept, or not JSON
	}
	if !f.isKey {
		f.finish(s)
		return
	}
	depth := len(f.stack) // the object the key is in is the depth-th of path
	switch {
	case depth <= len(f.path) && s == f.path[depth-1]:
		f.next = wantObject
	case depth == len(f.path)+1 && s == "id":
		f.next = wantID
	}
}

func (f *idFinder) finish(id string) { f.done, f.id = true, id }

// sseFinder finds the response id of a Responses stream's first event
// (idref_test.go's sseResponseID) in a stream given a piece at a time:
// the data lines of the first event that has any are its payload, read
// by an idFinder as they come.
type sseFinder struct {
	json idFinder // path "response"
	// line is the start of the current line while it may still open
	// "data:"; kind says what the line is once that is known.
	line    []byte
	kind    int
	space   bool // a data line's first byte after "data:", dropped when a space
	payload bool // the current event has data
	// cr: a data line's piece ended with "\r", held back: before "\n" it
	// is the line's end, not its data (a string cut across data lines
	// kept it, and no longer matched).
	cr bool
}

const (
	lineOpen = iota // the line may still open "data:"
	lineData
	lineOther
)

func newSSEFinder() *sseFinder { return &sseFinder{json: idFinder{path: []string{"response"}}} }

// feed reads the next piece of the stream and says the id, once it has
// arrived, and whether the stream shows there is none.
func (f *sseFinder) feed(b []byte) (id string, final bool) {
	for i := 0; i < len(b) && !f.json.done; {
		c := b[i]
		if f.cr {
			f.cr = false
			if c != '\n' {
				f.json.feed([]byte{'\r'})
				continue
			}
		}
		if c == '\n' {
			f.endLine()
			i++
			continue
		}
		switch f.kind {
		case lineOpen:
			f.line = append(f.line, c)
			switch {
			case string(f.line) == "\r":
				// Blank, if a "\n" follows.
			case string(f.line) == "data:":
				f.kind, f.space = lineData, true
			case len(f.line) > len("data:") || string(f.line) != "data:"[:len(f.line)]:
				f.kind = lineOther
			}
			i++
		case lineData:
			end := i
			for end < len(b) && b[end] != '\n' {
				end++
			}
			run := b[i:end]
			if f.space && len(run) > 0 {
				f.space = false
				if run[0] == ' ' {
					run = run[1:]
				}
			}
			if n := len(run); n > 0 && run[n-1] == '\r' {
				// "\r\n" ends the line: the "\r" is no data. At the
				// piece's end, whether "\n" follows is not known yet.
				run = run[:n-1]
				f.cr = end == len(b)
			}
			if len(run) > 0 {
				f.payload = true
				f.json.feed(run)
			}
			i = end
		default:
			for i < len(b) && b[i] != '\n' {
				i++
			}
		}
	}
	return f.json.id, f.json.done
}

// endLine ends the current line; a blank one (a lone "\r" before the
// "\n" is one too) ends the event: one with data shows there is no id,
// one without (a comment, a keep-alive) is passed over.
func (f *sseFinder) endLine() {
	blank := f.kind == lineOpen && (len(f.line) == 0 || string(f.line) == "\r")
	f.line, f.kind = f.line[:0], lineOpen
	if blank && f.payload {
		f.json.finish(f.json.id)
	}
}
