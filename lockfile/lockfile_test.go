package lockfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			if got := Matches([]string{tt.pattern}, tt.path); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

// shared is the pinned copy beside the repository.
const shared = "../../shared/third_party/mattpocock-skills"

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
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("skipping: the pinned copy %s is absent", shared)
	}
	l, err := Read("../THIRD_PARTY/mattpocock-skills/skills.lock.json")
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
	r, err = Verify(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(r.Changed, ",") + "|" + strings.Join(r.Missing, ",") + "|" + strings.Join(r.Extra, ",")
	want := "skills/engineering/tdd/SKILL.md|LICENSE|skills/engineering/NEW.md"
	if got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}
