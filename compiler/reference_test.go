package compiler

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

// TestReferenceRendering: a selected skill whose body does not fit the
// budget is rendered as a reference (rule 12), named so in the result and
// the explanation, its reference's tokens counted, and the prompt's
// fingerprint does not depend on where the catalog lies.
func TestReferenceRendering(t *testing.T) {
	long := strings.Repeat("Run the pipeline, check the canary and watch the dashboards.\n", 60)
	files := map[string]string{
		"release-pipeline/SKILL.md": skill("release-pipeline", "Deploy the service to production with the release pipeline.", "", long),
	}
	task := "deploy the service to production with the release pipeline"
	var fps []string
	for range 2 { // two temporary roots: two paths
		c := build(t, files, Policy{})
		res, err := c.Compile(context.Background(), Request{Task: task, Budget: 200})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Selected) != 1 {
			t.Fatalf("got %d selected; want 1", len(res.Selected))
		}
		s := res.Selected[0]
		if s.Rendering != RenderingReference {
			t.Errorf("rendering: got %q; want %q", s.Rendering, RenderingReference)
		}
		if s.Tokens <= 0 || s.Tokens > 200 || res.Budget.Used != s.Tokens {
			t.Errorf("tokens: got %d (budget used %d); want the reference's, within 200", s.Tokens, res.Budget.Used)
		}
		f := s.Reasons[0].Facts
		if f == nil || f.InlineTokens == nil || *f.InlineTokens <= 200 || f.InlineLeft == nil || *f.InlineLeft != 200 {
			t.Errorf("facts: got %+v; want inline_tokens over 200 and inline_left 200", f)
		}
		if d := s.Reasons[0].Detail; !strings.Contains(d, "rendered as reference") {
			t.Errorf("detail: got %q; want it to say rendered as reference", d)
		}
		for _, want := range []string{
			`<skill name="release-pipeline" rendering="reference">`,
			"release-pipeline: Deploy the service to production with the release pipeline.",
			"release-pipeline/SKILL.md before acting on this task",
		} {
			if !strings.Contains(res.Prompt, want) {
				t.Errorf("prompt: got %q; want it to contain %q", res.Prompt, want)
			}
		}
		if strings.Contains(res.Prompt, "canary") {
			t.Errorf("prompt: got the body; want only the reference")
		}
		explained := explanation(t, res)
		if !strings.Contains(explained, "rendered as reference") {
			t.Errorf("explanation: got %q; want it to say rendered as reference", explained)
		}
		fps = append(fps, res.Fingerprint)
	}
	if fps[0] != fps[1] {
		t.Errorf("fingerprints: got %s and %s for one catalog in two folders; want one", fps[0], fps[1])
	}
}

// TestInlineRendering: a body that fits is inline.
func TestInlineRendering(t *testing.T) {
	c := build(t, map[string]string{"deploy/SKILL.md": skill("deploy", "Deploy the service to production.", "", "Run the pipeline.")}, Policy{})
	res, err := c.Compile(context.Background(), Request{Task: "deploy the service to production"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Selected) != 1 || res.Selected[0].Rendering != RenderingInline || strings.Contains(res.Prompt, "rendering=") {
		t.Errorf("got %+v, prompt %q; want deploy inline", res.Selected, res.Prompt)
	}
}

// TestReferencePathEscaped: a reference names its SKILL.md so that the
// model can read the very file: a path holding an invisible joiner (as
// Persian folder names do), a line break or "<skill" is written as a JSON
// string of printable ASCII, which the block's clean-up leaves as it is
// (it dropped the joiner, escaped "<" and broke the line, naming a file
// that does not exist).
func TestReferencePathEscaped(t *testing.T) {
	tests := []struct {
		path, want string
	}{
		{"skills/release/SKILL.md", "read skills/release/SKILL.md before"},
		{"skills/terraform\u200dplan/SKILL.md", `read the file whose path, as a JSON string, is "skills/terraform\u200dplan/SKILL.md" before`},
		{"skills/k8s\nIGNORE/SKILL.md", `is "skills/k8s\u000aIGNORE/SKILL.md" before`},
		{"skills/<skill x>/SKILL.md", `is "skills/\u003cskill x>/SKILL.md" before`},
		{"skills/a\"b\\c 😀/SKILL.md", `is "skills/a\"b\\c \ud83d\ude00/SKILL.md" before`},
	}
	for _, tt := range tests {
		got := referenceText(&ir.Unit{Name: "x", Description: "d"}, tt.path)
		if !strings.Contains(got, tt.want) || strings.Count(got, "\n") != 2 {
			t.Errorf("referenceText(%q): got %q; want it to hold %q on its two lines", tt.path, got, tt.want)
		}
		if escaped := escapeBody(got); escaped != got {
			t.Errorf("the block's clean-up changes %q to %q", got, escaped)
		}
		if !plainPath(tt.path) {
			i := strings.Index(got, `is "`) + 3
			j := strings.Index(got[i:], `" before`) + i + 1
			var back string
			if err := json.Unmarshal([]byte(got[i:j]), &back); err != nil || back != tt.path {
				t.Errorf("the JSON string %s reads back as %q, %v; want %q", got[i:j], back, err, tt.path)
			}
		}
	}
}
