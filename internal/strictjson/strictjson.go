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
	names := fieldNames(reflect.TypeOf(v).Elem())
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errors.New("the body is not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // an object's member starts with its key
		if !names[key] {
			return &KeyError{Key: key}
		}
		if seen[key] {
			return &KeyError{Key: key, Repeated: true}
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("the body holds more than one JSON value")
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
