package compiler

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCarried: a selected unit whose block the conversation carries, to
// the byte (Request.Carried), is rendered as given, a short block naming
// it and its SKILL.md, and costs the budget that block's tokens: a unit
// the budget made a reference beside it comes inline. Any other block is
// given as it is.
func TestCarried(t *testing.T) {
	long := strings.Repeat("Check the review item against the diff and the tests.\n", 40)
	c := build(t, map[string]string{
		"code-review/SKILL.md":   skill("code-review", "Review code changes for bugs. Use when asked to review a diff.", "", "# Review\n"+long),
		"release-notes/SKILL.md": skill("release-notes", "Write release notes. Use when asked for release notes.", "", "# Notes\n"+long),
	}, Policy{})
	compile := func(carried []string, budget int) *Result {
		t.Helper()
		req := Request{Task: "review my diff and write the release notes", Select: []string{"code-review", "release-notes"}, Budget: budget}
		if carried != nil {
			req.Carried = func(b string) bool { return slices.Contains(carried, b) }
		}
		res, err := c.Compile(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain := compile(nil, 0)
	blocks := SkillBlocks(plain.Prompt)
	if len(blocks) != 2 || len(plain.Selected) != 2 {
		t.Fatalf("got %d blocks, %d selected; want 2", len(blocks), len(plain.Selected))
	}
	renderings := func(res *Result) map[string]Rendering {
		out := map[string]Rendering{}
		for _, s := range res.Selected {
			out[s.Name] = s.Rendering
		}
		return out
	}
	review := blocks[slices.IndexFunc(plain.Selected, func(s Selected) bool { return s.Name == "code-review" })]

	t.Run("one carried", func(t *testing.T) {
		res := compile([]string{review}, 0)
		if got := renderings(res); got["code-review"] != RenderingGiven || got["release-notes"] != RenderingInline {
			t.Fatalf("renderings: got %v; want code-review given, release-notes inline", got)
		}
		for _, want := range []string{`<skill name="code-review" rendering="given">`, "code-review: its instructions were given with an earlier prompt", "code-review/SKILL.md before acting on this task", "# Notes"} {
			if !strings.Contains(res.Prompt, want) {
				t.Errorf("prompt: got %q; want it to contain %q", res.Prompt, want)
			}
		}
		if strings.Count(res.Prompt, "Check the review item") != 40 {
			t.Errorf("prompt: got %q; want release-notes' body alone", res.Prompt)
		}
		if res.Budget.Used >= plain.Budget.Used {
			t.Errorf("budget used: got %d; want less than the %d of both bodies", res.Budget.Used, plain.Budget.Used)
		}
		if !strings.Contains(explanation(t, res), "given with an earlier prompt") {
			t.Errorf("explanation: got %q; want it to say given with an earlier prompt", explanation(t, res))
		}
	})
	t.Run("other bytes", func(t *testing.T) {
		if res := compile([]string{review + " "}, 0); res.Prompt != plain.Prompt {
			t.Errorf("got %q; want the prompt as without Carried", res.Prompt)
		}
	})
	t.Run("a body shorter than the short block is sent again", func(t *testing.T) {
		c := build(t, map[string]string{"terse/SKILL.md": skill("terse", "Answer tersely. Use when asked for short answers.", "", "Be terse.")}, Policy{})
		req := Request{Task: "answer tersely", Select: []string{"terse"}, Budget: 20}
		plain, err := c.Compile(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		req.Carried = func(b string) bool { return b == SkillBlocks(plain.Prompt)[0] }
		res, err := c.Compile(context.Background(), req)
		if err != nil {
			t.Fatalf("got %v; want terse sent again within the budget", err)
		}
		if res.Prompt != plain.Prompt || res.Selected[0].Rendering != RenderingInline {
			t.Errorf("got %q (%s); want the body again, as without Carried", res.Prompt, res.Selected[0].Rendering)
		}
	})
	t.Run("the budget goes to what is sent", func(t *testing.T) {
		one := plain.Selected[0].Tokens + 60 // one body and a short block
		if got := renderings(compile(nil, one)); got["code-review"] != RenderingReference && got["release-notes"] != RenderingReference {
			t.Fatalf("without Carried at budget %d: got %v; want one a reference", one, got)
		}
		if got := renderings(compile([]string{review}, one)); got["code-review"] != RenderingGiven || got["release-notes"] != RenderingInline {
			t.Errorf("with code-review carried at budget %d: got %v; want code-review given, release-notes inline", one, got)
		}
	})
}
