//go:build unix

package loader

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

// TestProjectDirRefusesOthersFolder: a skill folder above the working
// folder that anyone may write in (or, when the test runs as root, that
// another user owns) is not the project's: the search stops, and the
// load says why. Another user's .agents/skills in /tmp reached every
// project below it without one of its own.
func TestProjectDirRefusesOthersFolder(t *testing.T) {
	for _, tt := range []struct {
		name    string
		prepare func(t *testing.T, skills string)
		refused bool
	}{
		{"the user's own folder", func(*testing.T, string) {}, false},
		{"a folder anyone may write in", func(t *testing.T, skills string) {
			if err := os.Chmod(skills, 0o777); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"another user's folder", func(t *testing.T, skills string) {
			if os.Geteuid() != 0 {
				t.Skip("only root gives a folder to another user")
			}
			if err := os.Chown(skills, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shared := t.TempDir()
			skills := filepath.Join(shared, ".agents", "skills")
			if err := os.MkdirAll(filepath.Join(skills, "tdd"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(skills, "tdd", SkillFile), []byte("---\nname: tdd\ndescription: Test-driven development.\n---\nPlanted.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tt.prepare(t, skills)
			cwd := filepath.Join(shared, "myproj", "src")
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			want := shared
			if tt.refused {
				want = cwd
			}
			if got := ProjectDir(cwd, t.TempDir()); got != want {
				t.Errorf("got project %s; want %s", got, want)
			}
			res := Resolve(Options{}, Policy{}, Env{Cwd: cwd, Home: t.TempDir(), Getenv: func(string) string { return "" }})
			cat, _, err := LoadResolved(context.Background(), res)
			if err != nil {
				t.Fatal(err)
			}
			refused := false
			for _, d := range cat.Diagnostics {
				refused = refused || d.Code == ir.CodeUntrustedRoot
			}
			if loaded := len(cat.Units) > 0; refused != tt.refused || loaded == tt.refused {
				t.Errorf("got untrusted_root %v, %d units loaded; want untrusted_root %v", refused, len(cat.Units), tt.refused)
			}
		})
	}
}
