// Package layout holds tests of the module's shape: which packages are
// public, which are implementation.
package layout

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPublicPackages: a Go host imports compiler (load, compile, watch),
// ir (the units and diagnostics a result names), rlm (the planner wrapper)
// and schema (the published JSON Schemas). Everything else is an
// implementation package under internal/, free to change, so a new
// top-level package is a decision to widen the API, not an accident.
func TestPublicPackages(t *testing.T) {
	entries, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if goFiles, _ := filepath.Glob(filepath.Join("../..", e.Name(), "*.go")); len(goFiles) > 0 {
			got = append(got, e.Name())
		}
	}
	want := []string{"compiler", "ir", "rlm", "schema"}
	if !slices.Equal(got, want) {
		t.Errorf("public packages: got %v; want %v (move implementation packages under internal/)", got, want)
	}
}
