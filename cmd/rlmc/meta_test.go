package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestValidateJSONIsDeterministic runs `validate --format json` repeatedly
// on a skill whose metadata has an error in every relation list, and on a
// host policy with several bad priorities: the output must be the same
// every time, whatever order Go iterates maps in.
func TestValidateJSONIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	bad := `[{"kind": "capability", "name": "x"}]`
	meta := `{"schema": 1, "requires": ` + bad + `, "suggests": ` + bad + `, "conflicts": ` + bad + `, "supersedes": ` + bad + `}`
	testkit.WriteFile(t, filepath.Join(dir, "skills", "many", "SKILL.md"), "---\nname: many\ndescription: Many errors.\nmetadata:\n  prolog-rlm: '"+meta+"'\n---\nbody\n")
	testkit.WriteFile(t, filepath.Join(dir, "skills", "many", "manifest.json"), `{"conflicts_with": ["a", ""], "aliases": [""], "keywords": ["k"]}`)
	run := func() (string, int) {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"validate", "--root", filepath.Join(dir, "skills"), "--format", "json"}, nil, &stdout, &stderr)
		return stdout.String() + stderr.String(), code
	}
	first, code := run()
	if code != 1 {
		t.Fatalf("got exit code %d; want 1 (output %s)", code, first)
	}
	for i := 0; i < 30; i++ {
		if got, _ := run(); got != first {
			t.Fatalf("run %d: got\n%s\nwant\n%s", i+2, got, first)
		}
	}
}
