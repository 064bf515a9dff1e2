package loader

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectDir: the built-in project roots are found up from a
// subfolder, as git finds a repository, but not past a repository's root
// nor at the home folder.
func TestProjectDir(t *testing.T) {
	base := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	proj := filepath.Dir(mk("home/u/proj/.agents/skills"))
	proj = filepath.Dir(proj)
	mk("home/u/proj/.git")
	sub := mk("home/u/proj/src/db")
	mk("home/u/.claude/skills")
	loose := mk("home/u/notes/2026")
	mk("home/u/outer/.claude/skills")
	mk("home/u/outer/repo/.git")
	inRepo := mk("home/u/outer/repo/pkg")
	home := filepath.Join(base, "home", "u")
	for _, tt := range []struct {
		name, cwd, want string
	}{
		{"the project folder itself", proj, proj},
		{"a subfolder of the project", sub, proj},
		{"no project up to the home folder", loose, loose},
		{"the home folder", home, home},
		{"not past a repository's root", inRepo, inRepo},
		{"a folder that does not exist", filepath.Join(base, "nowhere"), filepath.Join(base, "nowhere")},
	} {
		if got := ProjectDir(tt.cwd, home); got != tt.want {
			t.Errorf("%s: ProjectDir(%s): got %s; want %s", tt.name, tt.cwd, got, tt.want)
		}
	}
}
