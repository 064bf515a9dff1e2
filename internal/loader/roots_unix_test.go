//go:build unix

package loader

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

// TestProjectDirRefusesOthersFolder: a folder above the working folder
// whose skill folders someone else could have put there is not the
// project's: the search stops, and the load says why. Another user's
// .agents/skills in /tmp reached every project below it without one of
// its own. A reviewer got around a first version that looked at the first
// skill folder only, as its link led: another skill folder beside it, or
// a link of another user's to a folder of root's, was loaded.
func TestProjectDirRefusesOthersFolder(t *testing.T) {
	asRoot := func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only root gives a folder to another user")
		}
	}
	chown := func(t *testing.T, uid int, paths ...string) {
		for _, p := range paths {
			if err := os.Lchown(p, uid, uid); err != nil {
				t.Fatal(err)
			}
		}
	}
	chmod := func(t *testing.T, p string, mode os.FileMode) {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	const other = 65534
	for _, tt := range []struct {
		name    string
		prepare func(t *testing.T, shared, cwd string)
		refused bool
	}{
		{"the user's own folder", func(*testing.T, string, string) {}, false},
		{"a folder anyone may write in", func(t *testing.T, shared, _ string) {
			chmod(t, filepath.Join(shared, ".agents", "skills"), 0o777)
		}, true},
		// A user private group's umask (002) makes every folder so, and
		// a team's shared checkout is its group's to change.
		{"a folder its group may write in", func(t *testing.T, shared, _ string) {
			chmod(t, filepath.Join(shared, ".agents", "skills"), 0o775)
		}, false},
		{"a parent anyone may rename it in", func(t *testing.T, shared, _ string) {
			chmod(t, shared, 0o777)
		}, true},
		{"a sticky parent, as /tmp", func(t *testing.T, shared, _ string) {
			chmod(t, shared, os.ModeSticky|0o777)
		}, false},
		{"another user's folder", func(t *testing.T, shared, _ string) {
			asRoot(t)
			chown(t, other, filepath.Join(shared, ".agents", "skills"))
		}, true},
		{"another user's folder beside the user's", func(t *testing.T, shared, _ string) {
			asRoot(t)
			dir := filepath.Join(shared, ".claude", "skills", "deploy")
			writeSkillFile(t, dir)
			chown(t, other, filepath.Join(shared, ".claude"), filepath.Join(shared, ".claude", "skills"), dir)
		}, true},
		{"another user's link to root's folder", func(t *testing.T, shared, _ string) {
			asRoot(t)
			skills, _ := behindLink(t, shared)
			chown(t, other, skills)
		}, true},
		{"the user's link to another user's folder", func(t *testing.T, shared, _ string) {
			asRoot(t)
			_, target := behindLink(t, shared)
			chown(t, other, target)
		}, true},
		// A checkout a CI container's root works in belongs to the
		// runner's user: its skill folders are the project's.
		{"the working folder's owner's folder", func(t *testing.T, shared, cwd string) {
			asRoot(t)
			chown(t, other, filepath.Join(shared, ".agents"), filepath.Join(shared, ".agents", "skills"), cwd)
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shared := t.TempDir()
			writeSkillFile(t, filepath.Join(shared, ".agents", "skills", "tdd"))
			cwd := filepath.Join(shared, "myproj", "src")
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.prepare(t, shared, cwd)
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

// behindLink moves shared's .agents/skills elsewhere and leaves a link to
// it in its place; it returns the link and the folder it leads to.
func behindLink(t *testing.T, shared string) (link, target string) {
	t.Helper()
	link = filepath.Join(shared, ".agents", "skills")
	target = filepath.Join(t.TempDir(), "skills")
	if err := os.Rename(link, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link, target
}

// writeSkillFile writes a skill in dir, named after it.
func writeSkillFile(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(dir)
	if err := os.WriteFile(filepath.Join(dir, SkillFile), []byte("---\nname: "+name+"\ndescription: The "+name+" skill.\n---\nPlanted.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
