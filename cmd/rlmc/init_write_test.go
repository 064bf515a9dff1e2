package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestInitRefusesUnwritableSettingsFirst: settings that cannot be
// written are refused before the skills folder is made; it was made, and
// the write failed after, naming a temporary file. Root writes anywhere,
// so the check runs as any other user.
func TestInitRefusesUnwritableSettingsFirst(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes in a read-only folder")
	}
	dir := t.TempDir()
	claude := filepath.Join(dir, ".claude")
	if err := os.MkdirAll(claude, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claude, "settings.json"), []byte(`{"model":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(claude, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(claude, 0o755) })
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"init", "--claude-code", dir}, nil, &stdout, &stderr); code == 0 {
		t.Fatalf("exit 0; want a failure: %s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".agents")); err == nil {
		t.Errorf("the skills folder was made although the settings cannot be written:\n%s", stderr.String())
	}
}
