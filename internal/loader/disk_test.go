//go:build unix

package loader

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

const diskSkill = "---\nname: s\ndescription: Inside skill.\n---\nInside body.\n"

// loadPromptly loads opts, failing the test instead of hanging when the
// load blocks (a FIFO opened for reading waits for a writer forever).
func loadPromptly(t *testing.T, opts Options) *ir.Catalog {
	t.Helper()
	type result struct {
		cat *ir.Catalog
		err error
	}
	done := make(chan result, 1)
	go func() {
		cat, err := Load(context.Background(), opts)
		done <- result{cat, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.cat
	case <-time.After(5 * time.Second):
		t.Fatal("Load still blocked after 5s")
		return nil
	}
}

// wantInvalid fails unless the unit named s is invalid with the code among
// its diagnostics.
func wantInvalid(t *testing.T, cat *ir.Catalog, code ir.Code) {
	t.Helper()
	u, ok := cat.Lookup("s")
	if !ok {
		t.Fatalf("got no unit s; want it invalid with %s (diagnostics %v)", code, cat.Diagnostics)
	}
	if u.Status != ir.StatusInvalid {
		t.Errorf("got status %s; want %s", u.Status, ir.StatusInvalid)
	}
	for _, d := range cat.Diagnostics {
		if d.Code == code {
			return
		}
	}
	t.Errorf("got diagnostics %v; want %s", cat.Diagnostics, code)
}

func mkfifo(t *testing.T, file string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
}

func TestSpecialFiles(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, dir string) // dir is the skill folder
		code ir.Code                        // read_error when empty
	}{
		{name: "FIFO at manifest.json", make: func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, ManifestFile)) }},
		{name: "FIFO at agents/openai.yaml", make: func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, CodexPolicyFile)) }},
		{name: "symlink to a FIFO at manifest.json", make: func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "pipe"))
			if err := os.Symlink("pipe", filepath.Join(dir, ManifestFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "symlink to a FIFO at agents/openai.yaml", make: func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "agents", "pipe"))
			if err := os.Symlink("pipe", filepath.Join(dir, CodexPolicyFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "socket at manifest.json", make: func(t *testing.T, dir string) {
			l, err := net.Listen("unix", filepath.Join(dir, ManifestFile))
			if err != nil {
				t.Skipf("cannot make a socket here: %v", err)
			}
			t.Cleanup(func() { l.Close() })
		}},
		{name: "device at agents/openai.yaml", make: func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
				t.Fatal(err)
			}
			// 1,5 is /dev/zero: reading it never ends on its own.
			if err := syscall.Mknod(filepath.Join(dir, CodexPolicyFile), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
				t.Skipf("cannot make a device node here: %v", err)
			}
		}},
		{name: "folder at manifest.json", make: func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, ManifestFile), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "symlink to /dev/zero at manifest.json", make: func(t *testing.T, dir string) {
			if err := os.Symlink("/dev/zero", filepath.Join(dir, ManifestFile)); err != nil {
				t.Fatal(err)
			}
		}, code: ir.CodePathEscape}, // refused before any read: it leaves the folder
		// A dangling link is no escape: said as a dangling SKILL.md is.
		{name: "dangling symlink at agents/openai.yaml", make: func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("nope.yaml", filepath.Join(dir, CodexPolicyFile)); err != nil {
				t.Fatal(err)
			}
		}, code: ir.CodeSymlinkLoop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFile(t, filepath.Join(root, "s", SkillFile), diskSkill)
			tt.make(t, filepath.Join(root, "s"))
			cat := loadPromptly(t, Options{Roots: []string{root}})
			code := tt.code
			if code == "" {
				code = ir.CodeReadError
			}
			wantInvalid(t, cat, code)
		})
	}
}

// TestDiskChangesAfterDiscovery swaps files and folders between discovery
// and reading, where a hostile disk races the loader.
func TestDiskChangesAfterDiscovery(t *testing.T) {
	const outsideSkill = "---\nname: s\ndescription: Outside skill.\n---\nOutside body.\n"
	tests := []struct {
		name  string
		skill string // the skill folder, relative to the root
		swap  func(t *testing.T, root, outside string)
	}{
		{"SKILL.md replaced by a FIFO", "s", func(t *testing.T, root, _ string) {
			file := filepath.Join(root, "s", SkillFile)
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			mkfifo(t, file)
		}},
		{"skill folder swapped for a symlink out", "s", func(t *testing.T, root, outside string) {
			swapForLink(t, filepath.Join(root, "s"), filepath.Join(outside, "s"))
		}},
		{"parent folder swapped for a symlink out", "group/s", func(t *testing.T, root, outside string) {
			swapForLink(t, filepath.Join(root, "group"), outside)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			testkit.WriteFile(t, filepath.Join(root, filepath.FromSlash(tt.skill), SkillFile), diskSkill)
			testkit.WriteFile(t, filepath.Join(outside, "s", SkillFile), outsideSkill)
			testHookAfterDiscover = func() { tt.swap(t, root, outside) }
			defer func() { testHookAfterDiscover = nil }()
			cat := loadPromptly(t, Options{Roots: []string{root}})
			wantInvalid(t, cat, ir.CodeReadError)
			if u, ok := cat.Lookup("s"); ok && u.Description == "Outside skill." {
				t.Error("got the unit read from outside its root; want it refused")
			}
		})
	}
}

// swapForLink moves dir aside and puts a symlink to target in its place.
func swapForLink(t *testing.T, dir, target string) {
	t.Helper()
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadableSideFile checks that a side file that could restrict the
// unit, and that exists but cannot be read, makes the unit invalid instead
// of being taken as absent.
func TestUnreadableSideFile(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, dir string)
	}{
		{"agents is a symlink loop", func(t *testing.T, dir string) {
			if err := os.Symlink("agents", filepath.Join(dir, "agents")); err != nil {
				t.Fatal(err)
			}
		}},
		{"agents is a file", func(t *testing.T, dir string) {
			testkit.WriteFile(t, filepath.Join(dir, "agents"), "policy:\n  allow_implicit_invocation: false\n")
		}},
		{"agents cannot be searched", func(t *testing.T, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("permissions do not restrict root")
			}
			testkit.WriteFile(t, filepath.Join(dir, CodexPolicyFile), "policy:\n  allow_implicit_invocation: false\n")
			if err := os.Chmod(filepath.Join(dir, "agents"), 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(filepath.Join(dir, "agents"), 0o755) })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFile(t, filepath.Join(root, "s", SkillFile), diskSkill)
			tt.make(t, filepath.Join(root, "s"))
			cat := loadPromptly(t, Options{Roots: []string{root}})
			wantInvalid(t, cat, ir.CodeReadError)
		})
	}
}

// TestExcludeResolved checks that exclusion applies to the folder a path
// resolves to, whichever name reaches it.
func TestExcludeResolved(t *testing.T) {
	tests := []struct {
		name    string
		link    string // symlink created in the root, to "deprecated/old"
		exclude string
	}{
		{"symlink into an excluded folder", "aaa", "deprecated"},
		{"symlink to the excluded skill itself", "aaa", "deprecated/old"},
		{"excluded pattern is a symlink", "zzz", "zzz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFile(t, filepath.Join(root, "deprecated", "old", SkillFile), "---\nname: old\ndescription: Old.\n---\n")
			if err := os.Symlink(filepath.Join("deprecated", "old"), filepath.Join(root, tt.link)); err != nil {
				t.Fatal(err)
			}
			cat := loadPromptly(t, Options{Roots: []string{root}, Exclude: []string{tt.exclude}})
			if len(cat.Units) != 0 {
				t.Errorf("got unit %s at %s; want the excluded folder left out under every name", cat.Units[0].Name, cat.Units[0].Path)
			}
		})
	}
}

func TestReadBodySpecialFile(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "s", SkillFile)
	testkit.WriteFile(t, file, diskSkill)
	cat := loadPromptly(t, Options{Roots: []string{root}})
	u, _ := cat.Lookup("s")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, file)
	done := make(chan error, 1)
	go func() {
		_, err := ReadBody(u)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrChanged) {
			t.Errorf("got %v; want ErrChanged", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadBody still blocked on a FIFO after 5s")
	}
}

// TestSwapRace loads a root while another goroutine keeps swapping a skill
// folder for a symlink to an outside folder holding a skill of the same
// name; no load may ever return the outside skill.
func TestSwapRace(t *testing.T) {
	const outsideSkill = "---\nname: s\ndescription: Outside skill.\n---\nOutside body.\n"
	root, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(root, "s")
	testkit.WriteFile(t, filepath.Join(dir, SkillFile), diskSkill)
	testkit.WriteFile(t, filepath.Join(outside, "s", SkillFile), outsideSkill)
	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Rename(dir, dir+".real")
			os.Symlink(filepath.Join(outside, "s"), dir)
			os.Remove(dir)
			os.Rename(dir+".real", dir)
		}
	}()
	const tries = 1000
	leaks := 0
	for range tries {
		cat, err := Load(context.Background(), Options{Roots: []string{root}})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range cat.Units {
			if u.Description == "Outside skill." {
				leaks++
			}
		}
	}
	close(stop)
	<-swapped
	if leaks > 0 {
		t.Errorf("got the outside skill in %d of %d loads; want none", leaks, tries)
	}
}
