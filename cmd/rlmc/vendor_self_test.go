package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/lockfile"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestLockPinsItself: a lock redirected into the checkout it pins is
// refused (it pinned its own empty start, and never verified); one
// written elsewhere is not.
func TestLockPinsItself(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "skills", "foo", "SKILL.md"), "---\nname: foo\ndescription: Foo.\n---\nBody\n")
	inside, err := os.Create(filepath.Join(dir, "skills.lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer inside.Close()
	outside, err := os.Create(filepath.Join(t.TempDir(), "skills.lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	tree, err := lockfile.Scan(dir, []string{"**"})
	if err != nil {
		t.Fatal(err)
	}
	if got := pinsItself(&writeTracker{w: inside}, dir, tree.Files); got != "skills.lock.json" {
		t.Errorf("written into the checkout: got %q; want skills.lock.json", got)
	}
	if got := pinsItself(outside, dir, tree.Files); got != "" {
		t.Errorf("written outside: got %q; want none", got)
	}
}
