// Package strictjson decodes a JSON object whose keys must be spelt
// exactly. encoding/json matches a key to a field case-insensitively (and
// folds "ſ" to "s", "K" to "k"), and lets a repeated key override the
// first: a request reading "SELECT" or a second "deny" as something it is
// not would let a misspelt or smuggled field pass for another. Here a key
// is one of the fields' exact names, once, or the object is refused.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrNotObject is data that holds a JSON value other than an object.
var ErrNotObject = errors.New("the body is not a JSON object")

// EncodingError is data that is not UTF-8, as JSON text must be (RFC 8259,
// section 8.1). encoding/json would read each bad byte as U+FFFD without a
// word: a case file saved in Latin-1 would run with its accents replaced.
type EncodingError struct {
	Offset int64 // the first byte that is not UTF-8, from 0
}

func (e *EncodingError) Error() string {
	return fmt.Sprintf("not UTF-8 at byte %d", e.Offset)
}

// WithoutBOM returns data without the byte-order mark an editor on
// Windows writes first, which RFC 8259 lets a parser ignore and
// encoding/json calls "invalid character 'ï'". Explain reads the same
// text, so that places count from after it.
func WithoutBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte("\ufeff")) }

// ValidUTF8 returns an *EncodingError for data that is not UTF-8.
func ValidUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	off := 0
	for off < len(data) {
		r, n := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	return &EncodingError{Offset: int64(off)}
}

// KeyError is a key the object may not hold: unknown, or repeated.
type KeyError struct {
	Key      string
	Repeated bool
}

func (e *KeyError) Error() string {
	if e.Repeated {
		return fmt.Sprintf("key %q is given more than once", e.Key)
	}
	return fmt.Sprintf("unknown key %q", e.Key)
}

// Unmarshal decodes the JSON object in data into v, a pointer to a
// struct, after checking that every key of the object is the exact JSON
// name of one of v's fields, given once; a *KeyError says which is not.
// data must hold one JSON value and nothing after it, in UTF-8 (else an
// *EncodingError).
func Unmarshal(data []byte, v any) error {
	data = WithoutBOM(data)
	unknown, err := members(data, v, nil)
	if err != nil {
		return err
	}
	if len(unknown) > 0 {
		return &KeyError{Key: unknown[0]}
	}
	return json.Unmarshal(data, v)
}

// UnmarshalKnown is Unmarshal that leaves out the keys that are none of
// v's fields' exact names, and returns them in the object's order, rather
// than refusing them: a data file's records carry keys of their own (a
// source, a note), which the caller may report. A key spelt otherwise
// ("TASK") is one of them, never read as the field; a repeated key is
// still refused.
func UnmarshalKnown(data []byte, v any) (unknown []string, err error) {
	data = WithoutBOM(data)
	known := map[string]json.RawMessage{}
	if unknown, err = members(data, v, known); err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		// Decoded without them, so that encoding/json cannot take one
		// for a field spelt otherwise.
		if data, err = json.Marshal(known); err != nil {
			return nil, err
		}
	}
	return unknown, json.Unmarshal(data, v)
}

// members reads the object in data and returns the keys that are none of
// v's fields' names, in order; known, when not nil, gets the members whose
// keys are. A repeated key is a *KeyError.
func members(data []byte, v any, known map[string]json.RawMessage) (unknown []string, err error) {
	if err := ValidUTF8(data); err != nil {
		return nil, err
	}
	names := fieldNames(reflect.TypeOf(v).Elem())
	raw := rawFields(reflect.TypeOf(v).Elem())
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, ErrNotObject
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // an object's member starts with its key
		if seen[key] {
			return nil, &KeyError{Key: key, Repeated: true}
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if inner, ok := repeatedInside(value); ok && names[key] && !raw[key] {
			return nil, &KeyError{Key: key + "." + inner, Repeated: true}
		}
		switch {
		case !names[key]:
			unknown = append(unknown, key)
		case known != nil:
			known[key] = value
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the body holds more than one JSON value")
	}
	return unknown, nil
}

// repeatedInside returns a key that an object nested in value (at any
// depth) gives twice, for a field Go decodes (not raw JSON, see
// rawFields): a map field ("rejected": {"lint": "denied", "lint":
// "no_evidence"}) kept the last silently. value is valid JSON (Decode
// read it).
func repeatedInside(value json.RawMessage) (string, bool) {
	if !bytes.ContainsRune(value, '{') {
		return "", false // no object in it: a string, a number, a list of strings
	}
	// One set of keys per open object, nil for an open array.
	var open []map[string]bool
	dec := json.NewDecoder(bytes.NewReader(value))
	expectKey := false // the next string is an object's key
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				open = append(open, map[string]bool{})
				expectKey = true
				continue
			case '[':
				open = append(open, nil)
			default:
				open = open[:len(open)-1]
			}
		case string:
			if expectKey {
				keys := open[len(open)-1]
				if keys[t] {
					return t, true
				}
				keys[t] = true
				expectKey = false
				continue
			}
		}
		// A value ended: in an object, a key comes next.
		expectKey = len(open) > 0 && open[len(open)-1] != nil
	}
}

// fieldNames returns the JSON names of t's exported fields.
func fieldNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for f := range t.Fields() {
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			maps.Copy(names, fieldNames(f.Type)) // promoted, as encoding/json reads them
			continue
		}
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names[name] = true
	}
	return names
}

// rawMessage is the type of a field whose value the caller decodes itself.
var rawMessage = reflect.TypeFor[json.RawMessage]()

// rawFields returns the JSON names of t's fields that hold raw JSON
// (json.RawMessage, or a slice or map of them): the caller decodes those
// values itself, with its own checks, and says where a repeated key is.
func rawFields(t reflect.Type) map[string]bool {
	raw := map[string]bool{}
	for f := range t.Fields() {
		ft := f.Type
		if ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
			ft = ft.Elem()
		}
		if ft != rawMessage {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		raw[name] = true
	}
	return raw
}

// Explain returns err, from decoding data into Go values, said in the
// JSON's terms for the person who wrote the JSON: a value of the wrong
// kind names its key and both kinds ("budget: a number (1.5) where a whole
// number goes") rather than Go types, input that stops short says so
// rather than "EOF", and input that is no JSON says where, by line and
// column (in characters) when data has several lines (a file written by
// hand), else by column. Other errors are returned as they are. The
// result wraps err.
func Explain(data []byte, err error) error {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
		ee *EncodingError
	)
	data = WithoutBOM(data)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return &explained{"not UTF-8 at " + place(data, ee.Offset+1), err}
	case errors.As(err, &te):
		where := te.Field
		if where == "" {
			where = "the value"
		}
		return &explained{fmt.Sprintf("%s: %s where %s goes", where, kindOfValue(te.Value), kindOfType(te.Type)), err}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), err.Error() == "unexpected end of JSON input":
		return &explained{"the JSON ends before its value does", err}
	case errors.As(err, &se) && se.Offset > 0:
		// Go's own words ("invalid character 'o' in literal null")
		// say what the parser expected, not where. A json.Decoder's
		// offset counts from where its value began and stops a byte
		// short on some errors: the place is taken from a check of
		// the whole of data, which runs before anything is decoded.
		var whole *json.SyntaxError
		if errors.As(json.Unmarshal(data, new(any)), &whole) {
			se = whole
		}
		return &explained{"not JSON at " + place(data, se.Offset) + ": " + se.Error(), err}
	}
	return err
}

// place says where offset (as Position takes it) is in data: by line and
// column when data has several lines, else by column.
func place(data []byte, offset int64) string {
	line, col := Position(data, offset)
	if line > 1 || bytes.IndexByte(data, '\n') >= 0 {
		return fmt.Sprintf("line %d, column %d", line, col)
	}
	return fmt.Sprintf("column %d", col)
}

// Position is the 1-based line and column (in characters, as an editor
// counts them) of offset in data, where a JSON decoder stopped (a
// json.SyntaxError's Offset): the byte it read last.
func Position(data []byte, offset int64) (line, col int) {
	if len(data) == 0 {
		return 1, 1
	}
	offset = min(max(offset, 1), int64(len(data)))
	before := data[:offset-1]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
}

// explained is an error said again in the JSON's terms.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

// kindOfValue names a JSON value as encoding/json describes it in a type
// error ("string", "number 1.5", "object"), with an article.
func kindOfValue(v string) string {
	kind, literal, _ := strings.Cut(v, " ")
	switch kind {
	case "bool":
		kind = "true or false"
	case "object", "array", "string", "number":
		kind = "a " + kind
		if kind == "a array" || kind == "a object" {
			kind = "an" + kind[1:]
		}
	}
	if literal != "" {
		return fmt.Sprintf("%s (%s)", kind, literal)
	}
	return kind
}

// kindOfType names the JSON a Go type is decoded from.
func kindOfType(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	}
	return "another kind of value"
}

// Int is an int that JSON may write as any number without a fraction:
// 100, 100.0 or 1e2. A client that keeps every number as a float (Python's
// 100.0, a budget worked out as 0.8 of a window) sends the second, and a
// JSON Schema "integer" accepts all three. A fraction, a number beyond
// ±2^53, or anything but a number is an *json.UnmarshalTypeError, which
// Explain says in the JSON's terms.
type Int int

// Strings is a []string whose elements may not be null: encoding/json
// decodes null into a string as "", so ["nx", null] would name a unit
// "" (a select of it answered unknown_unit "", a deny warned about "").
// A null element is an *json.UnmarshalTypeError, which Explain says in
// the JSON's terms; a null list is no list, as for []string.
type Strings []string

// UnmarshalJSON decodes a JSON array of strings.
func (s *Strings) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		if string(r) == "null" {
			return &json.UnmarshalTypeError{Value: "null", Type: reflect.TypeFor[string]()}
		}
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return err
		}
	}
	*s = out
	return nil
}

// maxExact is 2^53: every whole number up to it is exact as a float64.
const maxExact = 1 << 53

// UnmarshalJSON decodes a JSON number without a fraction; null leaves n
// as it is, as encoding/json does for an int.
func (n *Int) UnmarshalJSON(b []byte) error {
	s := string(b)
	switch {
	case s == "null":
		return nil
	case !isNumber(s):
		return &json.UnmarshalTypeError{Value: jsonKind(s), Type: reflect.TypeFor[int]()}
	}
	if i, err := strconv.ParseInt(s, 10, 0); err == nil {
		*n = Int(i)
		return nil
	}
	// Exactly, as written: 99.99999999999999999 is no whole number,
	// though a float64 rounds it to 100. A literal of more than 64
	// characters, or an exponent beyond ±64, is no count anyone means,
	// and 1e1000000000 would take big.Rat gigabytes.
	r, ok := new(big.Rat), len(s) <= 64 && smallExponent(s)
	if ok {
		_, ok = r.SetString(s)
	}
	if !ok || !r.IsInt() || r.Num().CmpAbs(big.NewInt(maxExact)) > 0 {
		return &json.UnmarshalTypeError{Value: "number " + s, Type: reflect.TypeFor[int]()}
	}
	*n = Int(r.Num().Int64())
	return nil
}

// smallExponent reports whether the exponent of the JSON number s, if
// any, is within ±64.
func smallExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(s[i+1:])
	return err == nil && e >= -64 && e <= 64
}

// isNumber reports whether s, a JSON value, is a number.
func isNumber(s string) bool {
	return s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9')
}

// jsonKind names the kind of the JSON value s, as encoding/json does in
// an *json.UnmarshalTypeError.
func jsonKind(s string) string {
	switch {
	case strings.HasPrefix(s, `"`):
		return "string"
	case strings.HasPrefix(s, "{"):
		return "object"
	case strings.HasPrefix(s, "["):
		return "array"
	case s == "true" || s == "false":
		return "bool"
	}
	return "value"
}
