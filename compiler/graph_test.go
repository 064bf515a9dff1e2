package compiler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/ir"
)

func rel(kind, names string) string {
	return `"` + kind + `": [{"kind": "skill", "name": "` + names + `"}]`
}

func TestGraphProblems(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		policy Policy
		want   []string // "path code"
	}{
		{"clean", map[string]string{
			"a/SKILL.md": skill("a", "A.", `{"schema": 1, `+rel("requires", "b")+`}`, "A"),
			"b/SKILL.md": skill("b", "B.", "", "B"),
		}, Policy{}, nil},
		{"missing", map[string]string{
			"deploy/SKILL.md": skill("deploy", "Deploy.", `{"schema": 1, `+rel("requires", "smoke-tests")+`}`, "D"),
		}, Policy{}, []string{"deploy/SKILL.md missing_dependency"}},
		{"cycle of two", map[string]string{
			"cyc-a/SKILL.md": skill("cyc-a", "A.", `{"schema": 1, `+rel("requires", "cyc-b")+`}`, "A"),
			"cyc-b/SKILL.md": skill("cyc-b", "B.", `{"schema": 1, `+rel("requires", "cyc-a")+`}`, "B"),
			"user/SKILL.md":  skill("user", "U.", `{"schema": 1, `+rel("requires", "cyc-b")+`}`, "U"),
		}, Policy{}, []string{"cyc-a/SKILL.md dependency_cycle"}},
		{"policy self loop", map[string]string{
			"tdd/SKILL.md": skill("tdd", "TDD.", "", "T"),
		}, Policy{Requires: map[string][]string{"tdd": {"tdd"}}}, []string{"tdd/SKILL.md dependency_cycle"}},
		{"policy missing", map[string]string{
			"tdd/SKILL.md": skill("tdd", "TDD.", "", "T"),
		}, Policy{Requires: map[string][]string{"tdd": {"nope"}}}, []string{"policy missing_dependency"}},
		{"explicit-only and invalid dependencies", map[string]string{
			"a/SKILL.md":   skill("a", "A.", `{"schema": 1, "requires": [{"kind": "skill", "name": "exp"}, {"kind": "skill", "name": "bad"}]}`, "A"),
			"exp/SKILL.md": skill("exp", "E.", "", "E", "disable-model-invocation: true"),
			"bad/SKILL.md": "---\nname: bad\n---\nno description\n",
		}, Policy{}, []string{"a/SKILL.md unusable_dependency", "a/SKILL.md unusable_dependency"}},
		{"an invalid unit's own edges do not count", map[string]string{
			"bad/SKILL.md": "---\nname: bad\nmetadata:\n  prolog-rlm: '{\"schema\": 1, " + rel("requires", "nope") + "}'\n---\nno description\n",
		}, Policy{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := build(t, tt.files, tt.policy)
			var got []string
			for _, d := range GraphProblems(c.Catalog(), tt.policy) {
				if d.Severity != ir.SeverityError {
					t.Errorf("got severity %s for %s; want error", d.Severity, d.Code)
				}
				got = append(got, d.Path+" "+string(d.Code))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GraphProblems (-want +got):\n%s", diff)
			}
			// Every unit flagged is one a compile rejects when the host
			// selects it: the check and the compiler agree.
			for _, d := range GraphProblems(c.Catalog(), tt.policy) {
				for _, u := range c.Catalog().Units {
					if u.Path != d.Path || d.Code == ir.CodeUnusableDependency {
						continue
					}
					if _, err := c.Compile(context.Background(), Request{Task: "x", Select: []string{u.Name}}); err == nil {
						t.Errorf("compile selecting %s succeeded; want it rejected (%s)", u.Name, d.Code)
					}
				}
			}
		})
	}
}

func TestGraphProblemsCycleMessage(t *testing.T) {
	c := build(t, map[string]string{
		"a/SKILL.md": skill("a", "A.", `{"schema": 1, `+rel("requires", "b")+`}`, "A"),
		"b/SKILL.md": skill("b", "B.", `{"schema": 1, `+rel("requires", "c")+`}`, "B"),
		"c/SKILL.md": skill("c", "C.", `{"schema": 1, `+rel("requires", "a")+`}`, "C"),
	}, Policy{})
	ds := GraphProblems(c.Catalog(), Policy{})
	want := `requires edges form a cycle: "a" -> "b" -> "c" -> "a"; none of "a", "b", "c" can ever be loaded`
	if len(ds) != 1 || ds[0].Message != want {
		t.Errorf("got %v; want one cycle diagnostic %q", ds, want)
	}
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
