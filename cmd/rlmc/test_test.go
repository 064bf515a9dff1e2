package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestInterrupted: an interrupted run (its context done) says so and
// leaves no case folder behind; the signal's default ended the process
// with the running case's folder left in the temporary folder.
func TestTestInterrupted(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	data := "A case.\n-- request.json --\n{\"task\": \"x\"}\n-- want.json --\n{}\n-- skills/a/SKILL.md --\n---\nname: a\ndescription: A.\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(dir, "one.txtar"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	err := runTest(ctx, dir, catalogFlags{format: "text"}, "", &stdout, &stderr)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitFailure || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("got %v; want an interrupted run, exit %d", err, exitFailure)
	}
	if stdout.Len() > 0 {
		t.Errorf("got stdout %q; want no report of a cut-short run", stdout.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("got %d entries left in the temporary folder; want none", len(left))
	}
}
