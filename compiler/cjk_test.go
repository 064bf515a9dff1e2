package compiler

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestCJKRefusalLoadsNothing: a task that refuses a skill in Chinese,
// Japanese or Korean, its name written against the text, does not load
// it. rlmc recognises refusals in English only; splitting CJK text into
// characters (measured and left out) made each of these load the skill
// it refuses.
func TestCJKRefusalLoadsNothing(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "sql-optimize", "SKILL.md"), "---\nname: sql-optimize\ndescription: Optimize slow SQL queries with indexes and rewrites.\n---\nBody.\n")
	c, err := Load(context.Background(), Options{Roots: []string{root}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{
		"不要使用sql-optimize技能",
		"别用sql-optimize",
		"sql-optimizeを使わないで",
		"sql-optimize는 쓰지 마세요",
	} {
		t.Run(task, func(t *testing.T) {
			res, err := c.Compile(context.Background(), Request{Task: task})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(res.Names(), "sql-optimize") {
				t.Errorf("got %v; want sql-optimize left out: the task refuses it", res.Names())
			}
		})
	}
}
