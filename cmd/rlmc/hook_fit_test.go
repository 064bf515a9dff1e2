package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// TestFitHook: the hook's whole output stays within --max-chars; bodies
// that fit stay inline, the rest become references, none is dropped.
func TestFitHook(t *testing.T) {
	dir := t.TempDir()
	write := func(name, desc string, lines int) {
		body := strings.Repeat(fmt.Sprintf("Follow the %s procedure step by step and check each result.\n", name), lines)
		p := filepath.Join(dir, name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("release-pipeline", "Deploy the service to production with the release pipeline.", 300) // ~20,000 characters
	write("database-migration", "Write and run database schema migrations safely.", 100)          // ~6,000
	write("commit-message", "Write a conventional commit message for staged changes.", 3)
	// 6,000 emoji: 6,160 code points, 12,160 UTF-16 units, which is what
	// Claude Code, a Node program, measures.
	if err := os.MkdirAll(filepath.Join(dir, "emoji-reactions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "emoji-reactions", "SKILL.md"),
		[]byte("---\nname: emoji-reactions\ndescription: Pick emoji reactions for chat messages.\n---\n"+strings.Repeat("\U0001F600", 6000)), 0o644); err != nil {
		t.Fatal(err)
	}
	// 8,000 spaces: 8,000 characters and about 70 tokens. The budget
	// shrunk in proportion to the characters was below the reference's
	// own cost, and the skill was dropped.
	if err := os.MkdirAll(filepath.Join(dir, "spacey-layout"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "spacey-layout", "SKILL.md"),
		[]byte("---\nname: spacey-layout\ndescription: Zebra crossing layout helper.\n---\n# spacey\n"+strings.Repeat(" ", 8000)+"x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{dir}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, task   string
		inline, refs []string
		maxChars     int
	}{
		{name: "small body inline", task: "write a conventional commit message for my staged changes", inline: []string{"commit-message"}, maxChars: hookMaxChars},
		{name: "body over the limit as reference", task: "deploy the service to production with the release pipeline", refs: []string{"release-pipeline"}, maxChars: hookMaxChars},
		{name: "a body that fits stays inline", task: "write and run database schema migrations safely", inline: []string{"database-migration"}, maxChars: hookMaxChars},
		{name: "a lower limit makes it a reference", task: "write and run database schema migrations safely", refs: []string{"database-migration"}, maxChars: 2000},
		{name: "an emoji counts twice", task: "pick emoji reactions for chat messages", refs: []string{"emoji-reactions"}, maxChars: hookMaxChars},
		{name: "long in characters, cheap in tokens", task: "zebra crossing layout helper", refs: []string{"spacey-layout"}, maxChars: 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, out, err := fitHook(context.Background(), c, compiler.Request{Task: tt.task}, tt.maxChars)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(utf16.Encode([]rune(string(out)))); n == 0 || n > tt.maxChars {
				t.Errorf("output: got %d UTF-16 units; want 1 to %d", n, tt.maxChars)
			}
			var inline, refs []string
			for _, s := range res.Selected {
				if s.Rendering == compiler.RenderingReference {
					refs = append(refs, s.Name)
				} else {
					inline = append(inline, s.Name)
				}
			}
			if fmt.Sprint(inline) != fmt.Sprint(tt.inline) || fmt.Sprint(refs) != fmt.Sprint(tt.refs) {
				t.Errorf("got inline %v, references %v; want inline %v, references %v", inline, refs, tt.inline, tt.refs)
			}
		})
	}
}

// TestFitHookDropsNone: when --max-chars fits the references of some of
// the selected skills but not all, the prompt goes without skills, with
// the reason, rather than with some of them: a skill the task asked for
// is never dropped to make room.
func TestFitHookDropsNone(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"emoji-widgets", "plain-widgets"} {
		p := filepath.Join(dir, name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := strings.Repeat("Check each widget gadget by hand. ", 300)
		if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+strings.Replace(name, "-", " ", 1)+" gadget skill\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{dir}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	req := compiler.Request{Task: "emoji widgets gadget and plain widgets gadget"}
	res, _, err := fitHook(context.Background(), c, req, hookMaxChars)
	if err != nil || len(res.Selected) != 2 {
		t.Fatalf("at the default limit: got %v, %v; want both skills", res, err)
	}
	for _, maxChars := range []int{1500, 600, 300, 50} {
		res, out, err := fitHook(context.Background(), c, req, maxChars)
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), "does not fit") {
				t.Errorf("--max-chars %d: got error %v; want one saying the output does not fit", maxChars, err)
			}
		case len(res.Selected) != 2 || len(out) > maxChars:
			t.Errorf("--max-chars %d: got %v in %d characters; want both skills within the limit, or no skill and the reason", maxChars, res.Names(), len(out))
		}
	}
}
