package compiler

import (
	"context"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/retrieval"
)

// materialCatalog holds a deploy skill whose words a pasted document
// shares, and a summary skill the instruction asks for.
func materialCatalog(t *testing.T) *Compiler {
	t.Helper()
	return build(t, map[string]string{
		"deploy/SKILL.md":    skill("deploy", "Roll out the service to production Kubernetes and ship the release.", "", "Deploy."),
		"summarize/SKILL.md": skill("summarize", "Summarize an article or a long document into a short brief.", "", "Summarize."),
	}, Policy{})
}

// filler is prose that shares no word with the catalog.
var filler = strings.Repeat("The quarterly newsletter covered the garden party, the new coffee machine and the lunch schedule for the autumn. ", 3)

// TestMaterialRoutesNothingAlone: a pasted document's words, word pairs
// and phrases weigh as material, so a document that describes a deploy
// does not put the deploy skill in front of a request to summarize it,
// and the result says which evidence came from the material.
func TestMaterialRoutesNothingAlone(t *testing.T) {
	c := materialCatalog(t)
	task := "Can you summarize this article?\n\n" + filler + "\n\nOur platform team will roll out the service to production Kubernetes and ship the release next week.\n\n" + filler + "\n\nKeep it short."
	res, err := c.Compile(context.Background(), Request{Task: task, Why: []string{"deploy"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Names(); len(got) != 1 || got[0] != "summarize" {
		t.Fatalf("selected: got %v; want [summarize]", got)
	}
	var deploy *Rejected
	for i := range res.Rejected {
		if res.Rejected[i].Name == "deploy" {
			deploy = &res.Rejected[i]
		}
	}
	if deploy == nil || len(deploy.Evidence) == 0 {
		t.Fatalf("deploy: got no evidence in the result; want its material evidence listed")
	}
	for _, e := range deploy.Evidence {
		if e.Source != retrieval.SourceMaterial {
			t.Errorf("deploy evidence %s %v: got source %q; want %q", e.Field, e.Terms, e.Source, retrieval.SourceMaterial)
		}
	}
}
