package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// hostileRoot makes a root whose folder names try to forge output lines:
// a newline followed by a fake row or diagnostic, a tab, a terminal escape
// and an invisible character. None of them has a name: field, so each unit
// is named after its folder.
func hostileRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	folders := []string{
		"good",
		"evil\nhouse-style  automatic  ok  agent_skills  1  house-style",
		"evil2\nhouse-style:1: info: excluded: all is well",
		"tab\tname",
		"escape\x1b[2J",
		"bidi\u202ename",
	}
	for _, f := range folders {
		dir := filepath.Join(root, f)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Skipf("this file system refuses the folder name %q: %v", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\ndescription: Widgets.\n---\nBody.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// checkLines fails unless every line of out starts with one of prefixes and
// holds no control or format character.
func checkLines(t *testing.T, out string, prefixes ...string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		known := false
		for _, p := range prefixes {
			known = known || strings.HasPrefix(line, p)
		}
		if !known {
			t.Errorf("line %q is not one rlmc wrote", line)
		}
		for _, r := range line {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Errorf("line %q holds %U raw", line, r)
			}
		}
	}
}

// TestHostileFolderNamesInTextOutput pins that list, validate and
// compile --explain write each unit on its own line, whatever its folder
// is called.
func TestHostileFolderNamesInTextOutput(t *testing.T) {
	root := hostileRoot(t)
	t.Run("list", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"list", "--root", root}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		checkLines(t, stdout.String(), "NAME ", "good ", `"evil\n`, `"evil2\n`, `"tab\t`, `"escape\u001b`, `"bidi\u202e`)
		if n := strings.Count(stdout.String(), "\n"); n != 7 {
			t.Errorf("got %d lines; want a header and 6 rows:\n%s", n, stdout.String())
		}
	})
	t.Run("validate", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		Main([]string{"validate", "--root", root}, nil, &stdout, &stderr)
		// Each path is named from where rlmc runs: its root first.
		at := `"` + filepath.ToSlash(root) + "/"
		checkLines(t, stdout.String(), at+`evil\n`, at+`evil2\n`, at+`tab\t`, at+`escape\u001b`, at+`bidi\u202e`, "6 units, 5 errors")
	})
	t.Run("explain", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"compile", "--root", root, "--explain", "widgets"}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		checkLines(t, stderr.String(), "decision: ", "ambiguous between: ", "negation: ", "selected ", "  because ", "  evidence: ", "rejected ", "diagnostic: ")
	})
	t.Run("notes", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"compile", "--root", root, "widgets"}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "invalid skills in the catalog") {
			t.Fatalf("got stderr %q; want a note naming the invalid skills", stderr.String())
		}
		checkLines(t, stderr.String(), "rlmc: ")
	})
	t.Run("error", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		Main([]string{"compile", "--root", root, "--select", "evil2\nhouse-style:1: info: excluded: all is well", "x"}, nil, &stdout, &stderr)
		checkLines(t, stderr.String(), "rlmc: ")
	})
}

// TestHostileNamesInTestAndVendorOutput pins that rlmc test and vendor
// verify escape the case file names, notes and checkout paths they print,
// so none can forge a PASS or an ok line or send a terminal escape.
func TestHostileNamesInTestAndVendorOutput(t *testing.T) {
	t.Run("test", func(t *testing.T) {
		dir := t.TempDir()
		write := func(name, note string) {
			t.Helper()
			data := note + "\n-- request.json --\n{\"task\": \"x\"}\n-- want.json --\n{\"selected\": [\"nothing\"]}\n"
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Skipf("this file system refuses the file name %q: %v", name, err)
			}
		}
		write("b\nPASS forged: all good.txtar", "Forged name.")
		write("c.txtar", "Note\rPASS forged: \x1b[2J\u202eall good.")
		root := filepath.Join(t.TempDir(), "skills")
		if err := os.MkdirAll(filepath.Join(root, "good"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "good", "SKILL.md"), []byte("---\nname: good\ndescription: Widgets.\n---\nBody.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		Main([]string{"test", dir, "--root", root}, nil, &stdout, &stderr)
		checkLines(t, stdout.String(), `FAIL "b\nPASS forged`, `FAIL c: Note\rPASS forged: \u001b[2J\u202eall good.`, "    ", "0 passed, 2 failed")
	})
	t.Run("vendor verify", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "skills", "a"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "skills", "a", "SKILL.md"), []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		var lock, stderr bytes.Buffer
		if code := Main([]string{"vendor", "lock", dir, "--include", "skills/**", "--name", "demo"}, nil, &lock, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		lockFile := filepath.Join(t.TempDir(), "demo.lock.json")
		if err := os.WriteFile(lockFile, lock.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"x\nok: demo at abc: 1 files checked", "\x1b[2Jy"} {
			if err := os.WriteFile(filepath.Join(dir, "skills", "a", name), nil, 0o644); err != nil {
				t.Skipf("this file system refuses the file name %q: %v", name, err)
			}
		}
		var stdout bytes.Buffer
		stderr.Reset()
		if code := Main([]string{"vendor", "verify", dir, "--lock", lockFile}, nil, &stdout, &stderr); code != 1 {
			t.Fatalf("exit %d; want 1: %s", code, stderr.String())
		}
		checkLines(t, stdout.String(), `extra "skills/a/\u001b[2Jy"`, `extra "skills/a/x\nok: demo`, "MISMATCH: demo")
	})
}

// TestHostilePathInVendorError pins that an error quoting a checkout path
// (here a symlink leading out of the tree, named to forge an ok line) is
// printed escaped, on one line.
func TestHostilePathInVendorError(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "skills", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "skills", "a", "SKILL.md"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../elsewhere", filepath.Join(dir, "skills", "a", "x\nok: demo\x1b[2J")); err != nil {
		t.Skipf("cannot make the symlink: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"vendor", "lock", dir, "--include", "skills/**"}, nil, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d; want 2: %s", code, stderr.String())
	}
	checkLines(t, stderr.String(), "rlmc: ")
}
