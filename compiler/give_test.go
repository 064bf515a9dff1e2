package compiler

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestGiveOnce: a block a conversation carries, to the byte, stands as a
// short block naming the unit and its SKILL.md; any other block, and a
// reference, is given as it is and reported as given in full.
func TestGiveOnce(t *testing.T) {
	long := strings.Repeat("Run the pipeline, check the canary and watch the dashboards.\n", 60)
	c := build(t, map[string]string{
		"code-review/SKILL.md":      skill("code-review", "Review code changes for bugs. Use when asked to review a diff.", "", "# Review\nRead the diff."),
		"release-notes/SKILL.md":    skill("release-notes", "Write release notes. Use when asked for release notes.", "", "# Notes\nGroup by feature."),
		"release-pipeline/SKILL.md": skill("release-pipeline", "Deploy the service to production with the release pipeline.", "", long),
	}, Policy{})
	compile := func(task string, budget int) *Result {
		t.Helper()
		res, err := c.Compile(context.Background(), Request{Task: task, Select: []string{"code-review", "release-notes"}, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := compile("review my diff and write the release notes", 0)
	blocks := SkillBlocks(res.Prompt)
	if len(blocks) != 2 {
		t.Fatalf("got %d blocks; want 2", len(blocks))
	}
	notes, review := blocks[0], blocks[1] // in selection order
	if !strings.Contains(review, "# Review") {
		t.Fatalf("got blocks %q; want release-notes, then code-review", blocks)
	}
	tests := []struct {
		name     string
		carried  []string
		earlier  []string
		full     []string
		contains []string
	}{
		{name: "none carried", full: []string{review, notes}},
		{name: "one carried", carried: []string{review}, earlier: []string{"code-review"}, full: []string{notes},
			contains: []string{`<skill name="code-review" rendering="given">`, "code-review: its instructions were given with an earlier prompt", "code-review/SKILL.md before acting on this task", "# Notes"}},
		{name: "other bytes", carried: []string{review + " "}, full: []string{review, notes}},
		{name: "both carried", carried: []string{review, notes}, earlier: []string{"release-notes", "code-review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := GiveOnce(res, func(b string) bool { return slices.Contains(tt.carried, b) })
			if !slices.Equal(g.Earlier, tt.earlier) {
				t.Errorf("earlier: got %q; want %q", g.Earlier, tt.earlier)
			}
			if len(g.Full) != len(tt.full) {
				t.Errorf("full: got %d blocks; want %d", len(g.Full), len(tt.full))
			}
			for _, b := range tt.full {
				if !slices.Contains(g.Full, b) {
					t.Errorf("full: got %q; want it to hold %q", g.Full, b)
				}
			}
			if len(tt.earlier) == 0 && g.Prompt != res.Prompt {
				t.Errorf("prompt: got %q; want the result's, unchanged", g.Prompt)
			}
			for _, want := range tt.contains {
				if !strings.Contains(g.Prompt, want) {
					t.Errorf("prompt: got %q; want it to contain %q", g.Prompt, want)
				}
			}
			if len(tt.earlier) > 0 && strings.Contains(g.Prompt, "Read the diff.") {
				t.Errorf("prompt: got the carried body %q; want the short block", g.Prompt)
			}
			if n := len(SkillBlocks(g.Prompt)); n != 2 {
				t.Errorf("prompt: got %d blocks; want 2, one per unit", n)
			}
		})
	}
	t.Run("reference", func(t *testing.T) {
		res, err := c.Compile(context.Background(), Request{Task: "deploy the service to production with the release pipeline", Budget: 200})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Selected) != 1 || res.Selected[0].Rendering != RenderingReference {
			t.Fatalf("got %+v; want one reference", res.Selected)
		}
		g := GiveOnce(res, func(string) bool { return true })
		if g.Prompt != res.Prompt || len(g.Earlier) != 0 || len(g.Full) != 1 {
			t.Errorf("got %+v; want the reference given as it is", g)
		}
	})
}
