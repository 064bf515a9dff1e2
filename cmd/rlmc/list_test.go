package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// fullWriter fails every write, as a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestLostOutputFails: a command whose output could not be written exits
// 1 with the write's error, whether or not it checked its writes; a hook
// still exits 0.
func TestLostOutputFails(t *testing.T) {
	skills := t.TempDir()
	testkit.WriteFile(t, filepath.Join(skills, "a", "SKILL.md"), "---\nname: a\ndescription: Extract tables from PDF files.\n---\nUse pdftotext.\n")
	hookIn := `{"prompt": "extract tables from pdf files", "cwd": "` + skills + `"}`
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"validate", []string{"validate", skills}, exitFailure},
		{"doctor", []string{"doctor", "--root", skills}, exitFailure},
		{"list", []string{"list", "--root", skills}, exitFailure},
		{"compile", []string{"compile", "--root", skills, "extract tables from pdf files"}, exitFailure},
		// The hook's deadline counts from the process's start: this test
		// process's.
		{"hook", []string{"hook", "claude-code", "--root", skills, "--timeout", "1h"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got := Main(tt.args, strings.NewReader(hookIn), fullWriter{}, &stderr)
			if got != tt.want || !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("got exit %d, stderr %q; want exit %d and the write's error", got, stderr.String(), tt.want)
			}
		})
	}
}

// TestTrajectoryLostKeepsResult: a compile whose audit record cannot be
// written still prints its result, then exits 1 saying why.
func TestTrajectoryLostKeepsResult(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	skills := t.TempDir()
	testkit.WriteFile(t, filepath.Join(skills, "a", "SKILL.md"), "---\nname: a\ndescription: Extract tables from PDF files.\n---\nUse pdftotext.\n")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"compile", "--root", skills, "--format", "json", "--trajectory", "/dev/full", "extract tables from pdf files"}, nil, &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "--trajectory: ") {
		t.Errorf("got exit %d, stderr %q; want exit 1 naming --trajectory", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"decision": "route"`) {
		t.Errorf("got stdout %q; want the result", stdout.String())
	}
	// A failed compile whose record is not written says both: the trail
	// misses it either way (the write's error was dropped).
	stdout.Reset()
	stderr.Reset()
	code = Main([]string{"compile", "--root", skills, "--select", "nope", "--trajectory", "/dev/full", "x"}, nil, &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "--trajectory: ") || !strings.Contains(stderr.String(), "unknown_unit") {
		t.Errorf("got exit %d, stderr %q; want exit 1 naming --trajectory and the compile's error", code, stderr.String())
	}
}
