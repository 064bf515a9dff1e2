package compiler

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// scribble changes every value reachable from v in place: each string,
// number and bool, through every pointer, slice element and struct field.
// A result that shares any of them with the compiler, or with another
// result, shows the change in the next compile.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				scribble(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			scribble(v.Index(i))
		}
	case reflect.String:
		v.SetString(v.String() + " (edited)")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(v.Int() + 7)
	case reflect.Float64:
		v.SetFloat(v.Float() + 7)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	}
}

// TestResultsOwnTheirData edits every field of a result, then compiles
// the same request again: the second result must equal the one a fresh
// compiler gives, so a host that changes a result (rlm.OnCompile, the Go
// API) changes no later compile.
func TestResultsOwnTheirData(t *testing.T) {
	files := map[string]string{
		"broken/SKILL.md":     "---\nname: broken\n---\nno description\n",
		"csv-writer/SKILL.md": skill("csv-writer", "Write tables to CSV files.", "", "# csv-writer"),
		"csv-dumper/SKILL.md": skill("csv-dumper", "Write tables to CSV files.", "", "# csv-dumper"),
	}
	for k, v := range standard {
		files[k] = v
	}
	dir := t.TempDir()
	for path, content := range files {
		testkit.WriteFile(t, filepath.Join(dir, filepath.FromSlash(path)), content)
	}
	// Two compilers over one folder: a fresh one gives what an untouched
	// compiler says.
	load := func() *Compiler {
		c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, Policy{Deny: []string{"tdd"}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c, fresh := load(), load()
	var selected, events, ambiguous int
	for _, tt := range []struct {
		name string
		req  Request
	}{
		{"dependency and no evidence", Request{Task: "please review my code changes"}},
		{"denied and explicit", Request{Task: "test driven development", Select: []string{"deploy"}}},
		{"nothing matches", Request{Task: "what is the weather like"}},
		{"weak evidence", Request{Task: "a checklist for the service"}},
		{"ambiguous", Request{Task: "write the tables to CSV files"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			r1, err := c.Compile(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(r1.Rejected) == 0 || len(r1.Diagnostics) == 0 {
				t.Fatalf("got %d rejected, %d diagnostics; want some of each to edit", len(r1.Rejected), len(r1.Diagnostics))
			}
			selected += len(r1.Selected)
			events += len(r1.Events)
			ambiguous += len(r1.Ambiguous)
			want, err := fresh.Compile(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			// want's JSON, taken before the edit, also catches data
			// shared by every compiler, which the edit would change in
			// want as well.
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			scribble(reflect.ValueOf(r1))
			r2, err := c.Compile(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := json.Marshal(r2); err != nil || string(got) != string(wantJSON) {
				t.Errorf("got %s (%v) after a result was edited; want %s", got, err, wantJSON)
			}
			if diff := cmp.Diff(want, r2); diff != "" {
				t.Errorf("got a compile after a result was edited that differs from a fresh compiler's (-want +got):\n%s", diff)
			}
		})
	}
	if selected == 0 || events == 0 || ambiguous == 0 {
		t.Errorf("got %d selected, %d events, %d ambiguous over the requests; want some of each edited", selected, events, ambiguous)
	}
}
