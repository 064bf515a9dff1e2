package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failingReader is standard input that cannot be read, as a folder given
// with < DIR is.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("is a directory") }

// TestTaskFromUnreadableStdin: standard input that cannot be read is a
// usage error (exit 2), said with the flag that asked for it; it was a
// compile failure (exit 1) quoting read /dev/stdin.
func TestTaskFromUnreadableStdin(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "tdd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tdd", "SKILL.md"), []byte("---\nname: tdd\ndescription: Test-driven development.\n---\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"compile", "--no-cache", "--root", root, "--task", "-"}, failingReader{}, &stdout, &stderr); code != exitUsage {
		t.Errorf("got exit %d; want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), "--task -") {
		t.Errorf("got stderr %q; want it to name --task -", stderr.String())
	}
}
