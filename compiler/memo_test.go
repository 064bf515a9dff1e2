package compiler

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// memoRequests are requests that differ in each field a memo keys on.
var memoRequests = []struct {
	name string
	req  Request
}{
	{"task", Request{Task: "review the diff for bugs"}},
	{"task_and_select", Request{Task: "review the diff for bugs", Select: []string{"tdd"}}},
	{"deny", Request{Task: "review the diff for bugs", Deny: []string{"code-review"}}},
	{"budget", Request{Task: "review the diff for bugs", Budget: 5}},
	{"tokenizer", Request{Task: "review the diff for bugs", Tokenizer: "cl100k_base"}},
	{"why", Request{Task: "review the diff for bugs", Why: []string{"deploy"}}},
	{"all_rejected", Request{Task: "review the diff for bugs", AllRejected: true}},
	{"no_route", Request{Task: "bake a cake"}},
	{"select_only", Request{Select: []string{"tdd"}}},
}

// TestMemoAnswersAsACompile: a memo's answer is, to the byte and the
// event, what a compiler without one answers, and the second asking of a
// request is the memo's.
func TestMemoAnswersAsACompile(t *testing.T) {
	dir := t.TempDir()
	for path, content := range standard {
		testkit.WriteFile(t, filepath.Join(dir, filepath.FromSlash(path)), content)
	}
	load := func() *Compiler {
		c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	plain, memoized := load(), load()
	memoized.memo = newMemo(len(memoRequests))
	encode := func(r *Result) string {
		var b bytes.Buffer
		if err := WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, tc := range memoRequests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := plain.Compile(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			first, err := memoized.Compile(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := memoized.Compile(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if again != first {
				t.Error("the second compile of the request was not answered by the memo")
			}
			if diff := cmp.Diff(encode(want), encode(again)); diff != "" {
				t.Errorf("answer differs from a compile's (-compile +memo):\n%s", diff)
			}
			if diff := cmp.Diff(want.Events, again.Events); diff != "" {
				t.Errorf("events differ from a compile's (-compile +memo):\n%s", diff)
			}
		})
	}
}

// TestMemoKeyTellsEveryField: requests that differ in any field, or only
// in where one string of a list ends, have different keys.
func TestMemoKeyTellsEveryField(t *testing.T) {
	m := newMemo(1)
	reqs := append(memoRequests, []struct {
		name string
		req  Request
	}{
		{"one_name", Request{Select: []string{"ab"}}},
		{"two_names", Request{Select: []string{"a", "b"}}},
		{"name_in_deny", Request{Deny: []string{"ab"}}},
		{"name_in_why", Request{Why: []string{"ab"}}},
		{"empty", Request{}},
		{"negative_budget", Request{Budget: -5}},
	}...)
	seen := map[memoKey]string{}
	for _, tc := range reqs {
		k, ok := m.keyOf(&tc.req)
		if !ok {
			t.Fatalf("%s: not memoized", tc.name)
		}
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s have the same key", tc.name, other)
		}
		seen[k] = tc.name
	}
	if _, ok := (*memo)(nil).keyOf(&Request{}); ok {
		t.Error("a nil memo keys a request; got true, want false")
	}
	if _, ok := m.keyOf(&Request{Carried: func(string) bool { return false }}); ok {
		t.Error("a request with Carried is keyed; got true, want false")
	}
}

// TestMemoBodyChanged: a SKILL.md changed on disk after its result was
// kept is not answered from memory: the compile says body_changed, as
// it would have without a memo.
func TestMemoBodyChanged(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tdd", "SKILL.md")
	testkit.WriteFile(t, file, standard["tdd/SKILL.md"])
	c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	c.memo = newMemo(4)
	req := Request{Select: []string{"tdd"}}
	if _, err := c.Compile(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, file, standard["tdd/SKILL.md"]+"injected")
	_, err = c.Compile(context.Background(), req)
	if ce, ok := err.(*Error); !ok || ce.Code != ErrBodyChanged {
		t.Errorf("got %v; want body_changed", err)
	}
}

// TestMemoKeepsWhatItShould: a canceled context is answered canceled, a
// request with Carried and a result over memoMaxBytes are compiled each
// time.
func TestMemoKeepsWhatItShould(t *testing.T) {
	files := map[string]string{"big/SKILL.md": skill("big", "A very large skill.", "", strings.Repeat("Do the big thing well. ", memoMaxBytes/20))}
	for k, v := range standard {
		files[k] = v
	}
	c := build(t, files, Policy{})
	c.memo = newMemo(4)
	tdd := Request{Select: []string{"tdd"}}
	if _, err := c.Compile(context.Background(), tdd); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Compile(ctx, tdd); err == nil || err.(*Error).Code != ErrCanceled {
		t.Errorf("canceled context: got %v; want %s", err, ErrCanceled)
	}
	for _, req := range []Request{
		{Select: []string{"big"}, Budget: 1 << 20},
		{Select: []string{"checklist"}, Carried: func(string) bool { return false }},
	} {
		if _, err := c.Compile(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.memo.lru.Len(); got != 1 {
		t.Errorf("got %d results kept; want 1 (the first request's)", got)
	}
}
