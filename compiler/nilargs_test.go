package compiler

import (
	"bytes"
	"context"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
	"github.com/rlmc-dev/rlmc/schema"
)

// TestNilArguments: the package's functions given a nil catalog or error,
// or the empty tokenizer name, answer as documented; BuildGraph and
// GraphProblems panicked, ErrorDocument wrote {"error": null}, which the
// published schema refuses, and CountTokens refused "", which names the
// default everywhere else.
func TestNilArguments(t *testing.T) {
	if g := BuildGraph(nil, Policy{}); len(g.Nodes) != 0 || len(g.Edges) != 0 {
		t.Errorf("BuildGraph(nil): got %+v; want an empty graph", g)
	}
	if ds := GraphProblems(nil, Policy{Mandatory: []string{"tdd"}}); len(ds) != 1 || ds[0].Code != ir.CodeUnusableMandatory {
		t.Errorf("GraphProblems(nil) with a mandatory unit: got %v; want it unusable_mandatory", ds)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, ErrorDocument(nil)); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(schema.CompileError, buf.Bytes()); err != nil {
		t.Errorf("ErrorDocument(nil): %s: %v", buf.Bytes(), err)
	}
	want, err := CountTokens(DefaultTokenizer, "red green refactor")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := CountTokens("", "red green refactor"); err != nil || got != want {
		t.Errorf(`CountTokens(""): got %d, %v; want %d, as %s counts`, got, err, want, DefaultTokenizer)
	}
}

// TestEmptyDependencyName: a catalog a Go host built whose unit requires
// "" compiles, the unit rejected as missing a dependency; the empty name
// read as "none missing", and the compile that selected it crashed.
func TestEmptyDependencyName(t *testing.T) {
	cat := ir.NewCatalog(nil, []*ir.Unit{{
		Name: "tdd", Description: "Test-driven development.", Path: "tdd/SKILL.md", Status: ir.StatusOK,
		Requires: []ir.Ref{{Kind: ir.RefSkill, Name: ""}},
	}}, nil)
	c, err := New(cat, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compile(context.Background(), Request{Task: "test-driven development"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Selected) != 0 || len(res.Rejected) != 1 || res.Rejected[0].Reasons[0].Code != ReasonMissingDependency {
		t.Errorf("got selected %v, rejected %+v; want tdd rejected as missing a dependency", res.Names(), res.Rejected)
	}
}
