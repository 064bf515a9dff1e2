package strictjson

import (
	"errors"
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
		{name: "field named -", data: `{"Skip": "x"}`, wantKey: "Skip"},
		{name: "dash key", data: `{"-": "x"}`, wantKey: "-"},
		{name: "plain field by lower case", data: `{"plain": 1}`, wantKey: "plain"},
		{name: "not an object", data: `[1]`, wantErr: true},
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
