package strictjson

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type inner struct {
	Budget int `json:"budget"`
}

type request struct {
	inner
	Task   string   `json:"task"`
	Select []string `json:"select,omitempty"`
	Skip   string   `json:"-"`
	Plain  int
	Labels map[string]string `json:"labels,omitempty"`
	Nested []map[string]any  `json:"nested,omitempty"`
}

func TestUnmarshal(t *testing.T) {
	tests := []struct {
		name, data string
		wantKey    string // the key refused; "" when none
		repeated   bool
		wantErr    bool
	}{
		{name: "exact keys", data: `{"task": "x", "select": ["a"], "budget": 3, "Plain": 1}`},
		{name: "empty object", data: `{}`},
		{name: "capitals", data: `{"TASK": "x"}`, wantKey: "TASK"},
		{name: "long s", data: `{"ſelect": ["a"]}`, wantKey: "ſelect"},
		{name: "kelvin sign", data: `{"tas\u212a": "x"}`, wantKey: "tas\u212a"},
		{name: "repeated", data: `{"select": ["a"], "select": []}`, wantKey: "select", repeated: true},
		// A map field kept the last of a repeated key silently.
		{name: "repeated in a map", data: `{"labels": {"lint": "denied", "lint": "no_evidence"}}`, wantKey: "labels.lint", repeated: true},
		{name: "repeated deeper", data: `{"nested": [{"a": {"b": 1, "b": 2}}]}`, wantKey: "nested.b", repeated: true},
		{name: "same key in two objects", data: `{"nested": [{"a": 1}, {"a": 2}], "labels": {"x": "{\"x\": 1, \"x\": 2}"}}`},
		{name: "field named -", data: `{"Skip": "x"}`, wantKey: "Skip"},
		{name: "dash key", data: `{"-": "x"}`, wantKey: "-"},
		{name: "plain field by lower case", data: `{"plain": 1}`, wantKey: "plain"},
		{name: "not an object", data: `[1]`, wantErr: true},
		{name: "after a byte-order mark", data: "\ufeff{\"task\": \"x\"}"},
		{name: "two values", data: `{} {}`, wantErr: true},
		{name: "wrong type", data: `{"task": 1}`, wantErr: true},
		{name: "truncated", data: `{"task": "x"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r request
			err := Unmarshal([]byte(tt.data), &r)
			var ke *KeyError
			switch {
			case tt.wantKey != "":
				if !errors.As(err, &ke) || ke.Key != tt.wantKey || ke.Repeated != tt.repeated {
					t.Fatalf("got %v; want a KeyError for %q (repeated %v)", err, tt.wantKey, tt.repeated)
				}
			case tt.wantErr:
				if err == nil {
					t.Fatal("got no error; want one")
				}
			case err != nil:
				t.Fatalf("got %v; want no error", err)
			}
		})
	}
}

// TestUnmarshalKnown: keys that are no field's exact name are left out and
// returned, never read as a field spelt otherwise; a repeated key is still
// refused.
func TestUnmarshalKnown(t *testing.T) {
	var r request
	unknown, err := UnmarshalKnown([]byte(`{"TASK": "smuggled", "task": "x", "source": "s", "budget": 2}`), &r)
	if err != nil {
		t.Fatal(err)
	}
	if r.Task != "x" || r.Budget != 2 || len(unknown) != 2 || unknown[0] != "TASK" || unknown[1] != "source" {
		t.Errorf("got %+v, unknown %q; want task x, budget 2, unknown [TASK source]", r, unknown)
	}
	r = request{}
	if unknown, err := UnmarshalKnown([]byte(`{"TASK": "smuggled"}`), &r); err != nil || r.Task != "" || len(unknown) != 1 {
		t.Errorf("got %+v, %q, %v; want no task and TASK unknown", r, unknown, err)
	}
	var ke *KeyError
	if _, err := UnmarshalKnown([]byte(`{"task": "x", "task": "y"}`), &r); !errors.As(err, &ke) || !ke.Repeated {
		t.Errorf("got %v; want a repeated-key error", err)
	}
}

// FuzzUnmarshalKnown: on an object with no unknown key, UnmarshalKnown and
// Unmarshal agree, value and error alike; with unknown keys, the known
// fields are those of the object without them.
func FuzzUnmarshalKnown(f *testing.F) {
	for _, s := range []string{`{"task": "x", "select": ["a"], "budget": 3}`, `{"TASK": "x", "task": "y"}`, `{"task": "x", "task": "y"}`, `[1]`, `{"source": {"a": [1, 2]}, "Plain": 2}`, `{}`, "{\"task\": \"\xff\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var strict, known request
		errStrict := Unmarshal([]byte(data), &strict)
		unknown, errKnown := UnmarshalKnown([]byte(data), &known)
		if errKnown == nil && len(unknown) == 0 {
			if errStrict != nil || !reflect.DeepEqual(strict, known) {
				t.Fatalf("got %+v, %v from Unmarshal; want %+v, no error, as UnmarshalKnown found no unknown key", strict, errStrict, known)
			}
		}
		if errStrict == nil && (errKnown != nil || len(unknown) > 0) {
			t.Fatalf("UnmarshalKnown: got %q, %v; want nothing unknown and no error, as Unmarshal took it", unknown, errKnown)
		}
	})
}

// TestExplain: a decoding error is said in the JSON's terms, naming the
// key, never a Go type.
func TestExplain(t *testing.T) {
	type ref struct {
		Kind string `json:"kind"`
	}
	type doc struct {
		Budget   int    `json:"budget"`
		Name     string `json:"name"`
		Requires []ref  `json:"requires"`
		On       *bool  `json:"on"`
	}
	tests := []struct {
		name, in, want string
	}{
		{"a fraction for a whole number", `{"budget": 1.5}`, "budget: a number (1.5) where a whole number goes"},
		{"a string for an object", `{"requires": ["x"]}`, "requires: a string where an object goes"},
		{"an object for a string", `{"name": {}}`, "name: an object where a string goes"},
		{"a number for a bool", `{"on": 1}`, "on: a number where true or false goes"},
		{"cut short", `{"budget": `, "the JSON ends before its value does"},
		{"not JSON", `not json`, "not JSON at column 2: invalid character 'o' in literal null (expecting 'u')"},
		{"not JSON after characters of several bytes", `{"task": "déploy ☃", x}`, "not JSON at column 22: invalid character 'x' looking for beginning of object key string"},
		{"not JSON, on a line of several", "{\n  \"budget\": 5,,\n}", "not JSON at line 2, column 15: invalid character ',' looking for beginning of object key string"},
		{"a literal cut at a line's end", "{\n  \"name\": nul\n}", "not JSON at line 2, column 14: invalid character '\\n' in literal null (expecting 'l')"},
		{"Latin-1", "{\"name\": \"caf\xe9\"}", "not UTF-8 at column 14"},
		{"Latin-1 on a second line", "{\n  \"name\": \"d\xe9j\xe0 \u2603\"\n}", "not UTF-8 at line 2, column 13"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Explain([]byte(tt.in), Unmarshal([]byte(tt.in), &d))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v; want %q", err, tt.want)
			}
			if strings.Contains(fmt.Sprint(err), "Go ") {
				t.Errorf("got %v; want no Go type", err)
			}
		})
	}
	if Explain(nil, nil) != nil {
		t.Error("Explain(nil): got an error; want nil")
	}
}

// TestExplainPlacesDecoderErrors: a syntax error the strict decoder meets
// is placed where it is in data, as a check of the whole text places it:
// the decoder's own offset counts from where its value began and stops a
// byte short on some errors.
func TestExplainPlacesDecoderErrors(t *testing.T) {
	type doc struct {
		Task   string   `json:"task"`
		Select []string `json:"select"`
	}
	tests := []struct {
		name, in, want string
	}{
		{"a trailing comma", "{\n  \"task\": \"use tdd\",\n  \"select\": [\"tdd\",]\n}", "not JSON at line 3, column 20"},
		{"a blank line first", "\n{\"task\": tdd}", "not JSON at line 2, column 11"},
		{"CRLF", "{\r\n  \"task\": \"a\"\r\n  \"select\": []\r\n}", "not JSON at line 3, column 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Explain([]byte(tt.in), Unmarshal([]byte(tt.in), &d))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want+":") {
				t.Errorf("got %v; want it to start %q", err, tt.want)
			}
		})
	}
}

func TestInt(t *testing.T) {
	type doc struct {
		Budget *Int `json:"budget"`
	}
	tests := []struct {
		name, in string
		want     int    // when err is ""
		err      string // Explain's
	}{
		{"an integer", `{"budget": 100}`, 100, ""},
		{"a float without a fraction", `{"budget": 100.0}`, 100, ""},
		{"an exponent", `{"budget": 1e2}`, 100, ""},
		{"a negative", `{"budget": -5}`, -5, ""},
		{"a fraction", `{"budget": 100.5}`, 0, "budget: a number (100.5) where a whole number goes"},
		{"a fraction a float64 rounds away", `{"budget": 99.99999999999999999}`, 0, "budget: a number (99.99999999999999999) where a whole number goes"},
		{"an exponent with a fraction", `{"budget": 1.5e0}`, 0, "budget: a number (1.5e0) where a whole number goes"},
		{"a negative exponent", `{"budget": 1000e-1}`, 100, ""},
		{"an exponent no count has", `{"budget": 1e1000000000}`, 0, "budget: a number (1e1000000000) where a whole number goes"},
		{"beyond 2^53", `{"budget": 1e30}`, 0, "budget: a number (1e30) where a whole number goes"},
		{"a string", `{"budget": "100"}`, 0, "budget: a string where a whole number goes"},
		{"true", `{"budget": true}`, 0, "budget: true or false where a whole number goes"},
		{"an array", `{"budget": [1]}`, 0, "budget: an array where a whole number goes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Explain([]byte(tt.in), Unmarshal([]byte(tt.in), &d))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("got %v; want %q", err, tt.err)
				}
				return
			}
			if err != nil || d.Budget == nil || int(*d.Budget) != tt.want {
				t.Errorf("got %v, %v; want %d", d.Budget, err, tt.want)
			}
		})
	}
	var d doc
	if err := Unmarshal([]byte(`{"budget": null}`), &d); err != nil || d.Budget != nil {
		t.Errorf("null: got %v, %v; want nil, nil", d.Budget, err)
	}
}

// TestStrings: a null element is refused where encoding/json would read
// it as "", and said in the JSON's terms; a null list is no list.
func TestStrings(t *testing.T) {
	type req struct {
		Deny Strings `json:"deny"`
	}
	tests := []struct {
		name, body string
		want       []string
		err        string
	}{
		{name: "names", body: `{"deny": ["a", "b"]}`, want: []string{"a", "b"}},
		{name: "a null list", body: `{"deny": null}`},
		{name: "a null element", body: `{"deny": ["a", null]}`, err: "deny: null where a string goes"},
		{name: "a number", body: `{"deny": [1]}`, err: "deny: a number where a string goes"},
		{name: "not a list", body: `{"deny": "a"}`, err: "deny: a string where an array goes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r req
			err := Explain([]byte(tt.body), Unmarshal([]byte(tt.body), &r))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("got error %v; want %q", err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(r.Deny, tt.want) {
				t.Fatalf("got %q, %v; want %q", r.Deny, err, tt.want)
			}
		})
	}
}

func TestPosition(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		offset    int64
		line, col int
	}{
		{"empty data", "", 5, 1, 1},
		{"first byte", "}", 1, 1, 1},
		{"second line", "{\n  x", 5, 2, 3},
		{"past the end", "ab", 9, 1, 2},
		{"characters, not bytes", "{\"ü✓\": x", 11, 1, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if l, c := Position([]byte(tt.data), tt.offset); l != tt.line || c != tt.col {
				t.Errorf("got %d:%d; want %d:%d", l, c, tt.line, tt.col)
			}
		})
	}
}
