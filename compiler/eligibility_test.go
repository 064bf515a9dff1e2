package compiler

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestKeptEligibility: a compiler keeps eligible/3's verdicts on the
// lexical candidates of plain requests (none selected, denied or
// negated), and what a compile answers is the same whether it asked the
// policy or took them kept: in whatever order requests come, each result
// is a fresh compiler's. A request that selects, denies or negates is
// judged afresh: a selected explicit-only dependency makes its dependent
// eligible, a negation rejects a unit found eligible before.
func TestKeptEligibility(t *testing.T) {
	files := map[string]string{
		"chart-report/SKILL.md": skill("chart-report", "Build quarterly chart reports.", `{"schema": 1, "requires": [{"kind": "skill", "name": "chart-style"}]}`, "# chart-report"),
		"chart-style/SKILL.md":  skill("chart-style", "House style for charts.", "", "# chart-style", "disable-model-invocation: true"),
		"deploy/SKILL.md":       skill("deploy", "Deploy the service to production.", "", "# deploy"),
	}
	requests := []Request{
		{Task: "build the quarterly chart reports"},
		{Task: "build the quarterly chart reports", Select: []string{"chart-style"}},
		{Task: "build the quarterly chart reports", Deny: []string{"chart-style"}},
		{Task: "deploy the service to production"},
		{Task: "deploy the service to production, but don't use deploy"},
		{Task: "deploy the service to production", Deny: []string{"deploy"}},
	}
	answer := func(c *Compiler, req Request) string {
		t.Helper()
		res, err := c.Compile(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, res); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	dir := t.TempDir()
	for path, content := range files {
		testkit.WriteFile(t, filepath.Join(dir, filepath.FromSlash(path)), content)
	}
	load := func() *Compiler {
		t.Helper()
		c, err := Load(context.Background(), Options{Roots: []string{dir}}, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	want := make([]string, len(requests))
	for i, req := range requests {
		want[i] = answer(load(), req)
	}
	kept := load()
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {0, 3, 1, 4, 2, 5, 0, 3}} {
		for _, i := range order {
			if got := answer(kept, requests[i]); got != want[i] {
				t.Errorf("request %d after others: got\n%s\nwant a fresh compiler's\n%s", i, got, want[i])
			}
		}
	}
	if _, ok := kept.eligibility.Load("chart-report"); !ok {
		t.Error("chart-report's verdict in a plain request was not kept")
	}
}
