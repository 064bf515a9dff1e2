package main

import (
	"bytes"
	"errors"
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

// TestInitRefusesReadOnlySettings: a settings file made read-only is
// left as it is, and nothing is made; init replaced it by a rename,
// which its mode does not stop, and root wrote it anyway.
func TestInitRefusesReadOnlySettings(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	const old = `{"model":"x"}`
	if err := os.WriteFile(settings, []byte(old), 0o444); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"init", "--claude-code", dir}, nil, &stdout, &stderr); code == 0 {
		t.Fatalf("exit 0; want a failure: %s", stderr.String())
	}
	if got, _ := os.ReadFile(settings); string(got) != old {
		t.Errorf("got settings %s; want them unchanged", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".agents")); err == nil {
		t.Errorf("the skills folder was made although the settings are read-only")
	}
	if !bytes.Contains(stderr.Bytes(), []byte("read-only")) {
		t.Errorf("got stderr %q; want it to say the settings are read-only", stderr.String())
	}
}

// TestInitKeepsHardLinkedSettings: settings kept as a hard link to a
// dotfile get the hook under both names; a rename gave the project a new
// file and left the dotfile without it.
func TestInitKeepsHardLinkedSettings(t *testing.T) {
	dir, dotfile, settings := hardLinkedSettings(t, `{"model":"x"}`)
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"init", "--claude-code", dir}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, _ := os.ReadFile(dotfile)
	if !bytes.Contains(got, []byte("hook claude-code")) || !bytes.Contains(got, []byte(`"model"`)) {
		t.Errorf("got the dotfile %s; want the hook added beside its settings", got)
	}
	a, _ := os.Stat(dotfile)
	b, _ := os.Stat(settings)
	if !os.SameFile(a, b) {
		t.Errorf("the settings are no longer the dotfile's other name")
	}
}

// TestInitPutsBackHardLinkedSettingsOnAFailedWrite: a write in place that
// fails (a full disk, a file size limit) leaves the settings as they
// were under every name; it left them cut short, half a JSON document.
func TestInitPutsBackHardLinkedSettingsOnAFailedWrite(t *testing.T) {
	const old = `{"model":"x","permissions":{"allow":["Bash(go test:*)"]}}`
	dir, dotfile, _ := hardLinkedSettings(t, old)
	write := writeSynced
	writeSynced = func(f *os.File, data []byte) error {
		f.Write(data[:len(data)/2])
		return errors.New("file too large")
	}
	t.Cleanup(func() { writeSynced = write })
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"init", "--claude-code", dir}, nil, &stdout, &stderr); code == 0 {
		t.Fatalf("exit 0; want the failed write reported")
	}
	if got, _ := os.ReadFile(dotfile); string(got) != old {
		t.Errorf("got the settings %q after a failed write; want them as they were", got)
	}
}

// hardLinkedSettings makes a project whose .claude/settings.json is a
// hard link to a dotfile holding content; it returns the project, the
// dotfile and the settings file.
func hardLinkedSettings(t *testing.T, content string) (dir, dotfile, settings string) {
	t.Helper()
	dir = t.TempDir()
	dotfile = filepath.Join(t.TempDir(), "claude-settings.json")
	if err := os.WriteFile(dotfile, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	settings = filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(dotfile, settings); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	return dir, dotfile, settings
}
