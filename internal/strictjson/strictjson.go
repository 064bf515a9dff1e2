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
	"reflect"
	"strings"
)

// ErrNotObject is data that holds a JSON value other than an object.
var ErrNotObject = errors.New("the body is not a JSON object")

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
// data must hold one JSON value and nothing after it.
func Unmarshal(data []byte, v any) error {
	unknown, known, err := members(data, v)
	if err != nil {
		return err
	}
	if len(unknown) > 0 {
		return &KeyError{Key: unknown[0]}
	}
	return decode(data, known, v)
}

// UnmarshalKnown is Unmarshal that leaves out the keys that are none of
// v's fields' exact names, and returns them in the object's order, rather
// than refusing them: a data file's records carry keys of their own (a
// source, a note), which the caller may report. A key spelt otherwise
// ("TASK") is one of them, never read as the field; a repeated key is
// still refused.
func UnmarshalKnown(data []byte, v any) (unknown []string, err error) {
	unknown, known, err := members(data, v)
	if err != nil {
		return nil, err
	}
	if len(unknown) == 0 {
		return nil, decode(data, known, v)
	}
	return unknown, decode(nil, known, v)
}

// members reads the object in data: the keys that are none of v's
// fields' names, and the members whose keys are (nil when data holds no
// other: then data itself is decoded). A repeated key is a *KeyError.
func members(data []byte, v any) (unknown []string, known map[string]json.RawMessage, err error) {
	names := fieldNames(reflect.TypeOf(v).Elem())
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if tok != json.Delim('{') {
		return nil, nil, ErrNotObject
	}
	seen := map[string]bool{}
	known = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key := tok.(string) // an object's member starts with its key
		if seen[key] {
			return nil, nil, &KeyError{Key: key, Repeated: true}
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, nil, err
		}
		if !names[key] {
			unknown = append(unknown, key)
			continue
		}
		known[key] = value
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("the body holds more than one JSON value")
	}
	return unknown, known, nil
}

// decode decodes data into v, or, when data is nil, the members known.
func decode(data []byte, known map[string]json.RawMessage, v any) error {
	if data == nil {
		var err error
		if data, err = json.Marshal(known); err != nil {
			return err
		}
	}
	return json.Unmarshal(data, v)
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
