package compiler

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/ir"
)

func rel(kind, names string) string {
	return `"` + kind + `": [{"kind": "skill", "name": "` + names + `"}]`
}

func TestBuildGraph(t *testing.T) {
	c := build(t, map[string]string{
		"a/SKILL.md": skill("a", "A.", `{"schema": 1, "requires": [{"kind": "skill", "name": "b"}, {"kind": "tool", "name": "bash"}], `+rel("conflicts", "c")+`, `+rel("supersedes", "old")+`}`, "A"),
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
