package compiler

import (
	"bytes"
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
