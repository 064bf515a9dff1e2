package loader

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestOverlappingRootsLoadEachFolderOnce loads roots that reach the same
// skill folders twice: the same folder given twice (as the default roots
// are when rlmc runs from the home directory), a root inside another, and
// a symlinked alias of a root. Each skill must be loaded once, from the
// first root, and never reported as shadowing itself.
func TestOverlappingRootsLoadEachFolderOnce(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "skills", "team", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy.\n---\n")
	testkit.WriteFile(t, filepath.Join(dir, "skills", "tdd", "SKILL.md"), "---\nname: tdd\ndescription: TDD.\n---\n")
	testkit.WriteFile(t, filepath.Join(dir, "other", "tdd", "SKILL.md"), "---\nname: tdd\ndescription: Other TDD.\n---\n")
	if err := os.Symlink(filepath.Join(dir, "skills"), filepath.Join(dir, "alias")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	// A SKILL.md that leaves its root: one problem, reported once however
	// many roots reach it.
	testkit.WriteFile(t, filepath.Join(dir, "outside.md"), "---\nname: esc\ndescription: Out.\n---\n")
	if err := os.MkdirAll(filepath.Join(dir, "skills", "team", "esc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "outside.md"), filepath.Join(dir, "skills", "team", "esc", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	skills, team, alias, other := filepath.Join(dir, "skills"), filepath.Join(dir, "skills", "team"), filepath.Join(dir, "alias"), filepath.Join(dir, "other")
	tests := []struct {
		name     string
		roots    []string
		units    int
		shadowed int
	}{
		{"same root twice", []string{skills, skills}, 2, 0},
		{"inner root after outer", []string{skills, team}, 2, 0},
		{"inner root before outer", []string{team, skills}, 2, 0},
		{"symlinked alias", []string{alias, skills}, 2, 0},
		// A different folder with the same name still shadows.
		{"real shadowing kept", []string{skills, skills, other}, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat, err := Load(context.Background(), Options{Roots: tt.roots})
			if err != nil {
				t.Fatal(err)
			}
			if len(cat.Units) != tt.units {
				t.Errorf("got %d units; want %d", len(cat.Units), tt.units)
			}
			shadowed, errs := 0, 0
			for _, d := range cat.Diagnostics {
				if d.Code == ir.CodeShadowed {
					shadowed++
				}
				if d.Severity == ir.SeverityError {
					errs++
				}
			}
			if errs != 1 {
				t.Errorf("got %d errors; want the SKILL.md that leaves its root once (%v)", errs, cat.Diagnostics)
			}
			if shadowed != tt.shadowed {
				t.Errorf("got %d shadowed diagnostics; want %d (%v)", shadowed, tt.shadowed, cat.Diagnostics)
			}
			for _, u := range cat.Units {
				if u.Name == "deploy" && u.Precedence != 0 {
					t.Errorf("got deploy from root %d; want it from the first root that reaches it", u.Precedence)
				}
			}
		})
	}
}

// TestExcludedFolderStaysOutThroughAnInnerRoot excludes a folder relative
// to the outer root: the inner root, where the folder has another relative
// path, must not bring it back.
func TestExcludedFolderStaysOutThroughAnInnerRoot(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "skills", "deprecated", "old", "SKILL.md"), "---\nname: old\ndescription: Old.\n---\n")
	roots := []string{filepath.Join(dir, "skills"), filepath.Join(dir, "skills", "deprecated")}
	cat, err := Load(context.Background(), Options{Roots: roots, Exclude: []string{"deprecated"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Units) != 0 {
		t.Errorf("got %d units; want the excluded folder left out", len(cat.Units))
	}
}

func TestRootOverlaps(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/b/c", "x"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a, b, c, x := filepath.Join(dir, "a"), filepath.Join(dir, "a", "b"), filepath.Join(dir, "a", "b", "c"), filepath.Join(dir, "x")
	missing := filepath.Join(dir, "nope")
	got := RootOverlaps([]string{b, x, a, missing, b + "/", c})
	want := []Overlap{
		{Outer: 2, Inner: 0},
		{Outer: 0, Inner: 4, Same: true},
		{Outer: 2, Inner: 4},
		{Outer: 0, Inner: 5},
		{Outer: 2, Inner: 5},
		{Outer: 4, Inner: 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RootOverlaps (-want +got):\n%s", diff)
	}
}
