package suite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestCaseLinksConfined checks that a case's symlinks lines can only create
// links inside the case folder: a case that tries to plant a link or a file
// anywhere else fails, and leaves nothing behind.
func TestCaseLinksConfined(t *testing.T) {
	const skill = "-- skills/planted/SKILL.md --\n---\nname: planted\ndescription: Planted skill.\n---\nBody.\n"
	tests := []struct {
		name  string
		links string
	}{
		{"link to the sibling relocated folder", "../relocated -> ../../../outside"},
		{"link two levels up", "../../x -> /etc/passwd"},
		{"absolute link", "/tmp/rlmc-planted-link -> /etc/passwd"},
		{"link through an earlier link", "skills2 -> ../../../outside\nskills2/deep -> /etc/passwd"},
		{"link through an earlier absolute link", "up -> /\nup/tmp/rlmc-planted-via-up -> /etc/passwd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			outside := filepath.Join(parent, "outside")
			if err := os.Mkdir(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(parent, "case.txtar")
			data := "Plants files outside the case folder.\n-- request.json --\n{\"task\": \"planted\"}\n-- want.json --\n{}\n" + skill + "-- symlinks --\n" + tt.links + "\n"
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Parse(file)
			if err != nil {
				t.Fatal(err)
			}
			r := &Runner{TempDir: func() (string, error) { return os.MkdirTemp(filepath.Join(parent, "tmp"), "case") }}
			if err := os.Mkdir(filepath.Join(parent, "tmp"), 0o755); err != nil {
				t.Fatal(err)
			}
			out := r.Run(context.Background(), c)
			if out.Passed() {
				t.Error("got PASS; want the case to fail")
			}
			if !strings.Contains(strings.Join(out.Failures, "\n"), "case folder") {
				t.Errorf("got failures %q; want one saying the link leaves the case folder", out.Failures)
			}
			for _, p := range []string{"/tmp/rlmc-planted-link", "/tmp/rlmc-planted-via-up", filepath.Join(parent, "tmp", "x")} {
				if _, err := os.Lstat(p); err == nil {
					os.Remove(p)
					t.Errorf("got %s created; want nothing outside the case folder", p)
				}
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) > 0 {
				t.Errorf("got %d entries planted in a folder outside the case; want none", len(entries))
			}
		})
	}
}

// TestLinkedSectionRefused: a link named as a section the run reads from
// the case file (policy.yaml, request.json, want.json, symlinks) fails the
// case; a linked policy.yaml was created and never read, so the case ran
// without the policy it meant.
func TestLinkedSectionRefused(t *testing.T) {
	for _, name := range []string{"policy.yaml", "request.json", "./want.json", "symlinks"} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			file := filepath.Join(parent, "case.txtar")
			data := "Links a section.\n-- request.json --\n{\"task\": \"x\"}\n-- want.json --\n{}\n" +
				"-- skills/a/SKILL.md --\n---\nname: a\ndescription: A.\n---\nbody\n" +
				"-- symlinks --\n" + name + " -> ../elsewhere\n"
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Parse(file)
			if err != nil {
				t.Fatal(err)
			}
			out := (&Runner{}).Run(context.Background(), c)
			if out.Passed() {
				t.Fatal("got PASS; want the case to fail")
			}
			if !strings.Contains(strings.Join(out.Failures, "\n"), "read from the case file itself") {
				t.Errorf("got failures %q; want one saying the section is read from the case file", out.Failures)
			}
		})
	}
}

// TestLoadReadsTheFolderNamed: a case folder whose name is a glob pattern
// ("cases[1]") runs its own cases (it ran cases1's), and a case file over
// MaxCaseBytes is a failed case, not gigabytes read.
func TestLoadReadsTheFolderNamed(t *testing.T) {
	base := t.TempDir()
	const c = "one line\n-- request.json --\n[{\"task\": \"x\"}]\n-- want.json --\n[{\"decision\": \"no_route\"}]\n"
	for _, f := range []string{"cases[1]/mine.txtar", "cases1/other.txtar"} {
		testkit.WriteFile(t, filepath.Join(base, filepath.FromSlash(f)), c)
	}
	cases, err := Load(filepath.Join(base, "cases[1]"))
	if err != nil || len(cases) != 1 || cases[0].Name != "mine" {
		t.Fatalf("got %v, %v; want the one case mine", cases, err)
	}
	huge := filepath.Join(base, "huge", "big.txtar")
	testkit.WriteFile(t, huge, c)
	if err := os.Truncate(huge, MaxCaseBytes+1); err != nil {
		t.Fatal(err)
	}
	cases, err = Load(filepath.Dir(huge))
	var tooLarge *safefs.TooLargeError
	if err != nil || len(cases) != 1 || !errors.As(cases[0].Err, &tooLarge) {
		t.Fatalf("got %v, %v; want one case failing as too large", cases, err)
	}
}

// TestSyntaxErrorLineIsTheFiles: a JSON syntax error in a case names the
// case file's line, as an editor shows it; it named the line within the
// section.
func TestSyntaxErrorLineIsTheFiles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.txtar")
	testkit.WriteFile(t, file, "A case.\n-- request.json --\n{\"task\": \"x\",, }\n-- want.json --\n{\"decision\": \"no_route\"}\n")
	_, err := Parse(file)
	if err == nil || !strings.Contains(err.Error(), "line 3, column") {
		t.Errorf("got %v; want the error at line 3 of the file", err)
	}
}
