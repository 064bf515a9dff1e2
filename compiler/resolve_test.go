package compiler

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestResolvePolicy: compiler.Resolve hands the policy file's roots:,
// exclude: and limits: to loader.Resolve (whose table test covers every
// source of roots), relative roots resolved against the file's folder.
func TestResolvePolicy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	testkit.WriteFile(t, file, "roots: [skills, /abs]\nexclude: [old]\nlimits:\n  max_depth: 2\n  max_folders: 9\n")
	p, err := LoadPolicy(file)
	if err != nil {
		t.Fatal(err)
	}
	limits := loader.DefaultLimits
	limits.MaxDepth, limits.MaxFolders = 2, 9
	want := Resolved{
		Roots:   []Root{{Dir: filepath.Join(dir, "skills"), Origin: loader.FromPolicy}, {Dir: "/abs", Origin: loader.FromPolicy}},
		Exclude: []string{"new", "old"},
		Limits:  limits,
	}
	got := Resolve(Options{Exclude: []string{"new"}}, p, Env{})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve (-want +got):\n%s", diff)
	}
	// A --root wins, and the policy's limits still apply.
	got = Resolve(Options{Roots: []string{"/flag"}}, p, Env{})
	if got.Origin() != loader.FromFlag || got.Limits != limits {
		t.Errorf("with a flag: got %+v; want /flag with the policy's limits", got)
	}
}
