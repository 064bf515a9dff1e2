package compiler

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/realcat"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
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
	memoized.memo = newMemo(len(memoRequests), nil)
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
	m := newMemo(1, nil)
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

// TestMemoKeepsWhatItShould: a canceled context is answered canceled, a
// request with Carried and a result over memoMaxBytes are compiled each
// time.
func TestMemoKeepsWhatItShould(t *testing.T) {
	files := map[string]string{"big/SKILL.md": skill("big", "A very large skill.", "", strings.Repeat("Do the big thing well. ", memoMaxBytes/20))}
	for k, v := range standard {
		files[k] = v
	}
	c := build(t, files, Policy{})
	c.memo = newMemo(4, nil)
	tdd := Request{Select: []string{"tdd"}}
	if _, err := c.Compile(context.Background(), tdd); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Compile(ctx, tdd); err == nil || err.(*Error).Code != ErrCanceled {
		t.Errorf("canceled context: got %v; want %s", err, ErrCanceled)
	}
	long := strings.Repeat("x", 4<<10)
	for _, req := range []Request{
		{Select: []string{"big"}, Budget: 1 << 20},
		{Select: []string{"checklist"}, Carried: func(string) bool { return false }},
		// Evidence words are pieces of the task, which a kept result
		// holds whole (a red team kept 256 MiB of 1 MiB tasks).
		{Task: "review the code " + strings.Repeat("and the diff ", memoMaxBytes/12)},
		// Each name no unit bears is a warning quoting it.
		{Task: "review the code", Why: slices.Repeat([]string{long}, 20)},
	} {
		if _, err := c.Compile(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.memo.kept.Len(); got != 1 {
		t.Errorf("got %d results kept; want 1 (the first request's)", got)
	}
}

// TestMemoCostCountsDiagnostics: a catalog's diagnostics, copied into
// every result, count toward what a kept result holds (a red team kept
// 74 MiB for a catalog of 3,000 warnings).
func TestMemoCostCountsDiagnostics(t *testing.T) {
	res := &Result{Diagnostics: make(ir.Diagnostics, memoMaxBytes/memoEntryBytes)}
	if got := memoCost(&Request{}, res); got <= memoMaxBytes {
		t.Errorf("got cost %d for %d diagnostics; want over %d", got, len(res.Diagnostics), memoMaxBytes)
	}
}

// TestUnknownNameClipped: a warning about a name no unit bears quotes at
// most maxQuotedName bytes of it.
func TestUnknownNameClipped(t *testing.T) {
	c := build(t, standard, Policy{})
	res, err := c.Compile(context.Background(), Request{Task: "review", Why: []string{strings.Repeat("\u00ad", 10000)}, Deny: []string{strings.Repeat("y", 10000)}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range res.Diagnostics {
		if d.Code == ir.CodeUnknownPolicyUnit {
			n++
			if len(d.Message) > 4*maxQuotedName+200 {
				t.Errorf("got a warning of %d bytes; want at most %d", len(d.Message), 4*maxQuotedName+200)
			}
		}
	}
	if n != 2 {
		t.Errorf("got %d unknown-name warnings; want 2", n)
	}
}

// TestMemoCostBoundsMemory: what memoCost counts for a result is at least
// what keeping the result keeps on the heap, within a factor of two (a
// reviewer measured 350 KB kept for 61 KB counted, for a 20 KB task).
func TestMemoCostBoundsMemory(t *testing.T) {
	cat, err := realcat.Write(t.TempDir(), 300, realcat.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(context.Background(), loader.Options{Roots: cat.Roots}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	const kept = 16
	var tasks []string
	for i := range kept {
		var b strings.Builder
		for j := i; b.Len() < 20<<10; j += 7 {
			b.WriteString(realcat.Prompt(cat.Skills[j%len(cat.Skills)]) + "\n")
		}
		tasks = append(tasks, b.String())
	}
	results := make([]*Result, kept)
	cost := 0
	for i, task := range tasks {
		req := Request{Task: task}
		res, err := c.Compile(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		results[i] = res
		cost += memoCost(&req, res) - requestBytes(&req) // the tasks are held apart
	}
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	runtime.KeepAlive(results)
	results = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	runtime.KeepAlive(tasks)
	runtime.KeepAlive(c)
	held := int(with.HeapAlloc) - int(without.HeapAlloc)
	t.Logf("counted %d, held %d", cost, held)
	if cost < held/2 {
		t.Errorf("got %d bytes counted for %d results holding %d; want at least half of it", cost, kept, held)
	}
}
