package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// WriteJSON writes v the way every JSON output of rlmc is written (the
// compile contract above all): indented by two spaces, HTML characters
// left as they are, one value per line. `rlmc compile --format json` and
// `rlmc serve` share it, so both print the same bytes for the same result.
//
// The bytes are those of a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false); the indenting is done here, in one pass that only
// tracks strings, because the encoder's own pass (a full JSON scanner)
// took a third of a server's CPU on results listing 1,000 units. A
// result's rejected entries were once written by hand, when every result
// listed every unit; since results list only what a compile decided
// (schema 2), encoding/json writes a default 5,000-skill result faster
// than that code did, and a full list (AllRejected) is the exception.
func WriteJSON(w io.Writer, v any) error {
	bufs := jsonBufs.Get().(*[2]bytes.Buffer)
	defer jsonBufs.Put(bufs)
	compact, out := &bufs[0], &bufs[1]
	compact.Reset()
	enc := json.NewEncoder(compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	out.Reset()
	out.Grow(compact.Len() * 2)
	out.Write(indentJSON(out.AvailableBuffer(), compact.Bytes()))
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

var jsonBufs = sync.Pool{New: func() any { return new([2]bytes.Buffer) }}

// indentJSON appends src, compact JSON as encoding/json writes it (no
// space outside strings but the final newline), indented as json.Indent
// does with no prefix and two spaces: a newline and the depth's indent
// after each opening bracket and comma and before each closing bracket,
// ": " after each key, empty objects and arrays left as {} and [].
func indentJSON(dst, src []byte) []byte {
	needIndent, inString, escaped := false, false, false
	depth := 0
	newline := func(dst []byte, depth int) []byte {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
		return dst
	}
	for _, c := range src {
		if inString {
			dst = append(dst, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			dst = newline(dst, depth)
		}
		switch c {
		case '"':
			inString = true
			dst = append(dst, c)
		case '{', '[':
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = newline(append(dst, c), depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				dst = newline(dst, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// ErrorDocument is the JSON document of a failed compile:
// {"schema": 2, "error": {...}}, the schema first, as a result's is, for a
// reader who checks it first. A nil e, which is no failure to report, is
// answered as an invalid_request naming the mistake, so that the
// document still has the published shape.
func ErrorDocument(e *Error) any {
	if e == nil {
		e = &Error{Stage: StageLoad, Code: ErrInvalidRequest, Message: "compiler.ErrorDocument: no error (nil)"}
	}
	return struct {
		Schema int    `json:"schema"`
		Error  *Error `json:"error"`
	}{Schema, e}
}
