package compiler

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"unsafe"
)

// A result lists every unit of the catalog, so its rejected entries are
// nearly all of its JSON (about 210 KB for 1,000 units), and encoding them
// through reflection was most of what `rlmc serve` spent on an answer
// beside the compile. They are written here by hand, already indented,
// with the bytes json.Encoder and indentJSON give: the rest of the result
// still goes through encoding/json, and whatever this file is not sure to
// write alike (a string that needs escaping, a score that is not finite,
// reasons other than the three rule 1 shares) goes through it too.
// TestWriteJSONResult holds the two to the same bytes.

// rejectedKey is how the indented encoding of a Result with no rejected
// entries shows the key: at depth 1, so at the start of a line indented by
// two spaces, which no nested key and no string (its newlines are escaped)
// can be.
var rejectedKey = []byte("\n  \"rejected\": []")

// writeResult appends the indented JSON of res to out, compact being
// scratch space. It returns false when res is not one it writes itself.
func writeResult(out, compact *bytes.Buffer, res *Result) (bool, error) {
	if len(res.Rejected) == 0 {
		return false, nil
	}
	for i := range res.Rejected {
		rj := &res.Rejected[i]
		if !finite(rj.Score) || rj.Confidence != nil && !finite(*rj.Confidence) {
			return false, nil // encoding/json refuses it; let it say so
		}
	}
	shell := *res
	shell.Rejected = []Rejected{}
	compact.Reset()
	enc := json.NewEncoder(compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&shell); err != nil {
		return true, err
	}
	head := indentJSON(out.AvailableBuffer(), compact.Bytes())
	at := bytes.Index(head, rejectedKey)
	if at < 0 {
		return false, nil // unreached: a Result always has the key
	}
	at += len(rejectedKey) - 1 // at the closing bracket
	out.Write(head[:at])
	// The tail is kept aside: writing the entries may grow out's buffer,
	// which head shares.
	tail := append([]byte(nil), head[at+1:]...)
	b := out.AvailableBuffer()
	for i := range res.Rejected {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRejected(b, &res.Rejected[i])
		if len(b) > 32<<10 {
			out.Write(b)
			b = out.AvailableBuffer()
		}
	}
	b = append(b, "\n  ]"...)
	out.Write(b)
	out.Write(tail)
	return true, nil
}

// appendRejected appends one entry of the rejected array, indented at
// depth 2 after the newline that starts it.
func appendRejected(b []byte, rj *Rejected) []byte {
	b = append(b, "\n    {\n      \"name\": "...)
	b = appendString(b, rj.Name)
	b = append(b, ",\n      \"root\": "...)
	b = appendString(b, rj.Root)
	b = append(b, ",\n      \"path\": "...)
	b = appendString(b, rj.Path)
	b = append(b, ",\n      \"score\": "...)
	b = appendFloat(b, rj.Score)
	if rj.Confidence != nil {
		b = append(b, ",\n      \"confidence\": "...)
		b = appendFloat(b, *rj.Confidence)
	}
	b = append(b, ",\n      \"reasons\": "...)
	b = appendReasons(b, rj.Reasons)
	if len(rj.Evidence) > 0 {
		b = append(b, ",\n      \"evidence\": "...)
		b = appendIndented(b, rj.Evidence, 3)
	}
	return append(b, "\n    }"...)
}

// sharedReasons holds the reasons rule 1 shares between units (goReasons)
// with their indented JSON at an entry's depth, told apart by identity.
var sharedReasons = func() (out [3]struct {
	first *Reason
	json  []byte
}) {
	for i, rs := range [][]Reason{noEvidenceReasons, outsideCapReasons, belowFloorReasons} {
		out[i].first, out[i].json = &rs[0], appendIndented(nil, rs, 3)
	}
	return out
}()

func appendReasons(b []byte, rs []Reason) []byte {
	if len(rs) == 1 {
		for i := range sharedReasons {
			if &rs[0] == sharedReasons[i].first {
				return append(b, sharedReasons[i].json...)
			}
		}
	}
	return appendIndented(b, rs, 3)
}

// appendIndented appends v as encoding/json writes it, indented as
// indentJSON does for a value nested depth levels deep.
func appendIndented(b []byte, v any, depth int) []byte {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Unreached for reasons and evidence, whose numbers are finite;
		// writeResult checked the rest.
		return append(b, "null"...)
	}
	src := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
	ind := indentJSON(nil, src)
	pad := bytes.Repeat([]byte("  "), depth)
	for len(ind) > 0 {
		line, rest, more := bytes.Cut(ind, []byte("\n"))
		b = append(b, line...)
		if more {
			b = append(b, '\n')
			b = append(b, pad...)
		}
		ind = rest
	}
	return b
}

// appendString appends s as encoding/json writes a string with HTML
// escaping off: as it is, quoted, when it holds only printable ASCII other
// than quote and backslash, else through encoding/json.
func appendString(b []byte, s string) []byte {
	if !plainJSON(s) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(s) // a string always encodes
		return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON reports whether s holds only bytes encoding/json writes as
// they are: 0x20 to 0x7e but quote and backslash. It looks at eight bytes
// at a time (a string of a result is a name, a root or a path, read for
// every unit of the catalog): a word has a byte below 0x20, or a quote, a
// backslash or DEL, exactly when the classic has-less and has-zero tests
// over it say so, and one at or above 0x80 when its high bits do.
func plainJSON(s string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	hasZero := func(x uint64) bool { return (x-ones)&^x&highs != 0 }
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		if x&highs != 0 || (x-ones*0x20)&^x&highs != 0 ||
			hasZero(x^(ones*'"')) || hasZero(x^(ones*'\\')) || hasZero(x^(ones*0x7f)) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendFloat appends a finite f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21, with a one-digit negative exponent not padded.
func appendFloat(b []byte, f float64) []byte {
	if f == 0 && !math.Signbit(f) {
		return append(b, '0') // most units' score
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
