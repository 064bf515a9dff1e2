package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestTokenCountsKept: list and doctor count every body's tokens, and keep
// the counts beside the catalog cache as compile does, so that the next
// run tokenizes nothing (a catalog of thousands took seconds at every
// run).
func TestTokenCountsKept(t *testing.T) {
	for _, cmd := range []string{"list", "doctor"} {
		t.Run(cmd, func(t *testing.T) {
			skills := t.TempDir()
			testkit.WriteFile(t, filepath.Join(skills, "a", "SKILL.md"), "---\nname: a\ndescription: Extract tables from PDF files.\n---\nUse pdftotext.\n")
			cache := filepath.Join(t.TempDir(), "cache")
			if err := os.Mkdir(cache, 0o700); err != nil {
				t.Fatal(err)
			}
			t.Setenv(catcache.EnvDir, cache)
			var stdout, stderr bytes.Buffer
			if code := Main([]string{cmd, "--root", skills}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("rlmc %s: exit %d: %s", cmd, code, stderr.String())
			}
			if got, _ := filepath.Glob(filepath.Join(cache, "*.counts")); len(got) != 1 {
				t.Errorf("got token count files %v; want one", got)
			}
		})
	}
}
