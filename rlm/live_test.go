package rlm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestWithSkillsLive: over a live catalog, each call compiles against the
// current catalog: a skill added after the wrapper was built is loaded,
// and a catalog emptied later makes a selecting call fail with
// ErrNoSkills, as an empty fixed catalog does.
func TestWithSkillsLive(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "deploy", "SKILL.md"), catalog["deploy/SKILL.md"])
	live, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{dir}}, compiler.Policy{}, compiler.LiveOptions{Debounce: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	rec := &recorder{}
	p := WithSkills(rec, live)
	task := "add a feature with test-driven development, red green refactor"
	if _, err := p.Plan(context.Background(), request(task)); err != nil {
		t.Fatal(err)
	}
	if got := rec.got[0].System; strings.Contains(got, "<skills>") {
		t.Fatalf("before tdd exists: got a skill block %q", got)
	}
	gen := live.Generation()
	// The skill arrives whole, as an editor's save does (write, then
	// rename): written in place, a loaded machine let the watcher read it
	// half-written, a second unit with no evidence, and the wait below
	// ended before the rest of it was read.
	tmp := filepath.Join(t.TempDir(), "SKILL.md")
	testkit.WriteFile(t, tmp, catalog["tdd/SKILL.md"])
	if err := os.MkdirAll(filepath.Join(dir, "tdd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "tdd", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return live.Generation() > gen && len(live.Current().Catalog().Units) == 2 })
	if _, err := p.Plan(context.Background(), request(task)); err != nil {
		t.Fatal(err)
	}
	if got := rec.got[1].System; !strings.Contains(got, `<skill name="tdd">`) {
		t.Fatalf("after tdd was added: got %q; want the tdd block", got)
	}
	for _, d := range []string{"tdd", "deploy"} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { return len(live.Current().Catalog().Units) == 0 })
	req := request(task)
	req.Skills = []string{"tdd"}
	if _, err := p.Plan(context.Background(), req); !errors.Is(err, ErrNoSkills) {
		t.Fatalf("selecting from an emptied catalog: got %v; want ErrNoSkills", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
