// Package testkit holds helpers shared by rlmc's tests: materializing txtar
// archives into folders, golden-file comparison, and generated catalogs.
package testkit

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite golden files under testdata")

// WriteArchive writes every file of a txtar archive below dir. Files whose
// name starts with "skills/" (or any other prefix) land at that path.
func WriteArchive(t testing.TB, dir string, ar *txtar.Archive) {
	t.Helper()
	for _, f := range ar.Files {
		WriteFile(t, filepath.Join(dir, filepath.FromSlash(f.Name)), string(f.Data))
	}
}

// WriteFile writes data to file, creating folders.
func WriteFile(t testing.TB, file, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Golden compares got with the golden file, or rewrites it under -update.
func Golden(t testing.TB, file string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", file, diff)
	}
}

// Words is a generic vocabulary for generated skills; it has nothing to do
// with any benchmark.
var Words = strings.Fields(`alpha beta gamma delta epsilon zeta theta kappa lambda sigma
parse render deploy audit migrate index cache stream queue schedule backup restore
invoice ledger payroll report chart graph table schema query vector search crawl
image audio video caption translate summarize review lint format compile bundle
docker kubernetes terraform ansible python golang rust typescript java kotlin
security privacy billing support onboarding analytics metrics logging tracing alerts`)

// SkillsPerRoot keeps generated roots under the loader's 2,000-folder bound.
const SkillsPerRoot = 1000

// GenerateCatalog writes n valid skills below dir, deterministically from
// seed, in roots of at most SkillsPerRoot skills laid out as
// rootK/category/name/SKILL.md, and returns the roots. Every tenth skill
// requires the previous one, so closures are exercised too.
func GenerateCatalog(t testing.TB, dir string, n int, seed int64) (roots []string) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	names := make([]string, n)
	for i := 0; i < n; i++ {
		w1, w2 := Words[rng.Intn(len(Words))], Words[rng.Intn(len(Words))]
		name := fmt.Sprintf("%s-%s-%d", w1, w2, i)
		names[i] = name
		var desc []string
		for j := 0; j < 12; j++ {
			desc = append(desc, Words[rng.Intn(len(Words))])
		}
		meta := ""
		if i%10 == 9 {
			meta = fmt.Sprintf("metadata:\n  prolog-rlm: '{\"schema\": 1, \"requires\": [{\"kind\": \"skill\", \"name\": \"%s\"}]}'\n", names[i-1])
		}
		body := fmt.Sprintf("# %s %s\n\nUse this skill to %s the %s. %s\n\n## Steps\n\n1. %s\n2. %s\n",
			w1, w2, w1, w2, strings.Join(desc, " "), strings.Join(desc[:6], " "), strings.Join(desc[6:], " "))
		content := fmt.Sprintf("---\nname: %s\ndescription: %s %s - %s.\n%s---\n\n%s", name, w1, w2, strings.Join(desc, " "), meta, body)
		root := filepath.Join(dir, fmt.Sprintf("root%d", i/SkillsPerRoot))
		if i%SkillsPerRoot == 0 {
			roots = append(roots, root)
		}
		WriteFile(t, filepath.Join(root, fmt.Sprintf("cat%02d", i%37), name, "SKILL.md"), content)
	}
	return roots
}

// Backdate sets the modification time of every file and folder below dir
// (dir included, symlinks not followed) to when. A cache trusts no file
// modified within the last seconds (see loader.Record), so a test of a
// cached load writes its catalog, then backdates it.
func Backdate(t testing.TB, dir string, when time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(path, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}
