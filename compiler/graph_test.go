package compiler

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/ir"
)

func rel(kind, names string) string {
	return `"` + kind + `": [{"kind": "skill", "name": "` + names + `"}]`
}

func TestBuildGraph(t *testing.T) {
	c := build(t, map[string]string{
		"a/SKILL.md": skill("a", "A.", `{"schema": 1, "requires": [{"kind": "skill", "name": "b"}], "conflicts": [{"kind": "skill", "name": "c"}, {"kind": "tool", "name": "bash"}], `+rel("supersedes", "old")+`}`, "A"),
		"b/SKILL.md": skill("b", "B.", `{"schema": 1, `+rel("suggests", "a")+`}`, "B", "disable-model-invocation: true"),
		"c/SKILL.md": skill("c", "C.", `{"schema": 1, `+rel("conflicts", "a")+`}`, "C"),
	}, Policy{})
	p := Policy{Requires: map[string][]string{"a": {"b"}, "c": {"b"}, "ghost": {"a"}}}
	got := BuildGraph(c.Catalog(), p)
	want := &Graph{
		Nodes: []GraphNode{
			{Name: "a", Status: ir.StatusOK, Invocation: ir.InvocationAutomatic},
			{Name: "b", Status: ir.StatusOK, Invocation: ir.InvocationExplicitUser},
			{Name: "c", Status: ir.StatusOK, Invocation: ir.InvocationAutomatic},
			{Name: "old", Missing: true},
		},
		Edges: []GraphEdge{
			{From: "a", To: "b", Kind: EdgeRequires},
			{From: "a", To: "c", Kind: EdgeConflicts},
			{From: "a", To: "old", Kind: EdgeSupersedes},
			{From: "b", To: "a", Kind: EdgeSuggests},
			{From: "c", To: "b", Kind: EdgeRequires, Policy: true},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BuildGraph (-want +got):\n%s", diff)
	}
}

// TestDedupe: dedupe keeps the first of each name, in order, whether it
// scans a short list or maps a long one.
func TestDedupe(t *testing.T) {
	long := make([]string, 0, 3*dedupeScan)
	for i := range 3 * dedupeScan {
		long = append(long, fmt.Sprint(i%dedupeScan))
	}
	tests := []struct {
		name string
		in   []string
		want int
	}{
		{"none", nil, 0},
		{"short", []string{"b", "a", "b", "c", "a"}, 3},
		{"long", long, dedupeScan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dedupe(tt.in)
			if len(got) != tt.want {
				t.Fatalf("got %d names %v; want %d", len(got), got, tt.want)
			}
			for i := 1; i < len(got); i++ {
				if slices.Index(tt.in, got[i-1]) > slices.Index(tt.in, got[i]) {
					t.Errorf("got %v; want the input's order", got)
				}
			}
		})
	}
}
