package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/safefs"
)

// hookSession is what the hook remembers of the conversation a prompt
// belongs to: the skill blocks it gave with the session's earlier prompts
// that the session's transcript shows reached the conversation (Claude
// Code keeps a hook's context with its prompt, until it compacts the
// conversation). A prompt whose skill the conversation holds gets a short
// block pointing to it, not the whole block again (Request.Carried).
type hookSession struct {
	cache *catcache.Cache
	id    string
	known bool // the cache knew the session before this prompt
	mem   *catcache.Session
	// changed says mem differs from what the cache holds.
	changed bool
}

// compactMark is what Claude Code writes in a session's transcript when it
// compacts the conversation: every block given before is gone from it,
// summarised at best.
var compactMark = []byte(`"subtype":"compact_boundary"`)

// maxTranscriptScan bounds what the hook reads of a transcript, the part
// written since the last prompt: past it, the conversation is taken as
// holding none of the blocks (they are given again), rather than read.
const maxTranscriptScan = 64 << 20

// openSession returns the conversation of in, or nil when the hook has
// nowhere to remember it: no catalog cache, no session id or transcript in
// the input (an older client, a hand-run hook), or a transcript that is
// not a file. The blocks given with the last prompt that the transcript
// written since holds, as Claude Code writes a hook's context, are carried
// from now on; one it does not hold never reached the conversation
// (another hook blocked the prompt, the hook was killed after it
// answered), and a transcript that was compacted since, is another, or is
// shorter than it was, holds none of the blocks.
func openSession(cache *catcache.Cache, in hookInput) *hookSession {
	id, _ := in.SessionID.(string)
	path, _ := in.TranscriptPath.(string)
	if cache == nil || id == "" || path == "" {
		return nil
	}
	size, err := transcriptSize(path)
	if err != nil {
		return nil
	}
	mem, known := cache.Session(id)
	if !known {
		mem = &catcache.Session{}
	}
	s := &hookSession{cache: cache, id: id, known: known, mem: mem}
	s.changed = mem.Transcript != path || mem.Size != size || len(mem.Pending) > 0
	if mem.Transcript != path || mem.Size > size {
		mem.Forget()
	} else if seen, compacted := scanTranscript(path, mem.Size, size, mem.Pending); compacted {
		mem.Forget()
	} else {
		mem.Carry(seen...)
	}
	mem.Transcript, mem.Size, mem.Pending = path, size, nil
	return s
}

// carried is the compile's Request.Carried: the blocks the conversation
// holds; nil without a session or a block carried, so that the compile
// reads no SKILL.md it need not.
func (s *hookSession) carried() func(block string) bool {
	if s == nil || !s.mem.Carrying() {
		return nil
	}
	return s.mem.Carries
}

// save stores the session with the blocks res gives in full (inline) as
// pending: the next prompt carries those its transcript shows.
func (s *hookSession) save(res *compiler.Result) {
	if s == nil {
		return
	}
	s.mem.Pending = append(s.mem.Pending, compiler.InlineBlocks(res)...)
	s.changed = s.changed || len(s.mem.Pending) > 0
	if s.changed {
		s.cache.StoreSession(s.id, s.mem, s.known)
	}
}

// givenUnits names, as notes print them, the units res gives as given
// with an earlier prompt.
func givenUnits(res *compiler.Result) []string {
	var out []string
	if res != nil {
		for _, u := range res.Selected {
			if u.Rendering == compiler.RenderingGiven {
				out = append(out, noteName(u.Name))
			}
		}
	}
	return out
}

// transcriptSize returns the size of the transcript at path: 0 when it
// does not exist yet (a session's first prompt, or a client that keeps
// none, whose blocks are then never seen to reach the conversation), an
// error when it is not a regular file.
func transcriptSize(path string) (int64, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, err
	case !info.Mode().IsRegular():
		return 0, &fs.PathError{Op: "stat", Path: path, Err: safefs.ErrNotRegular}
	}
	return info.Size(), nil
}

// scanTranscript reads the transcript at path from byte from to byte to
// and returns the blocks of pending it holds as Claude Code writes a
// hook's context (a JSON string), and whether the conversation was
// compacted there, or may have been: what cannot be read, or is longer
// than maxTranscriptScan, counts as compacted.
func scanTranscript(path string, from, to int64, pending []string) (seen []string, compacted bool) {
	if from >= to {
		return nil, false
	}
	if to-from > maxTranscriptScan {
		return nil, true
	}
	f, err := os.OpenFile(path, safefs.ReadOnly, 0)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, true
	}
	marks := make([][]byte, len(pending))
	keep := len(compactMark) - 1
	for i, b := range pending {
		marks[i] = jsonText(b)
		keep = max(keep, len(marks[i])-1)
	}
	found := make([]bool, len(pending))
	// Read in pieces that overlap by the longest mark's length less
	// one, so that no mark is cut in two.
	buf := make([]byte, 0, keep+1<<20)
	r := io.NewSectionReader(f, from, to-from)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if bytes.Contains(buf, compactMark) {
			return nil, true
		}
		for i, m := range marks {
			found[i] = found[i] || bytes.Contains(buf, m)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, true
		}
		if len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
	}
	for i, b := range pending {
		if found[i] {
			seen = append(seen, b)
		}
	}
	return seen, false
}

// jsonText is s as a JSON string's content is written by JavaScript's
// JSON.stringify, which writes Claude Code's transcript: '"' and '\'
// escaped, the control characters below U+0020 as their short escapes or
// \u00xx, everything else (U+2028 included) as it is.
func jsonText(s string) []byte {
	out := make([]byte, 0, len(s)+len(s)/8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		case c < 0x20:
			out = fmt.Appendf(out, "\\u%04x", c)
		default:
			out = append(out, c)
		}
	}
	return out
}
