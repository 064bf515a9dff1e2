package compiler_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/loader"
)

// writeFileAtomic replaces path the way editors save: a new file renamed
// over the old one.
func writeFileAtomic(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), "new")
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func liveSkill(name, body string) string {
	return "---\nname: " + name + "\ndescription: Helps with " + name + " work.\n---\n" + body + "\n"
}

// eventually polls cond until it holds, failing after a generous bound.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func names(c *compiler.Compiler) []string {
	var out []string
	for _, u := range c.Catalog().Units {
		out = append(out, u.Name)
	}
	return out
}

type reloads struct {
	mu  sync.Mutex
	all []compiler.Reload
}

func (r *reloads) add(x compiler.Reload) { r.mu.Lock(); r.all = append(r.all, x); r.mu.Unlock() }
func (r *reloads) failed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.all {
		if x.Err != nil {
			n++
		}
	}
	return n
}

// TestLiveFollowsEdits edits, adds (in a new nested folder), removes and
// re-policies a watched catalog, and checks each change is served.
func TestLiveFollowsEdits(t *testing.T) {
	root := t.TempDir()
	writeFileAtomic(t, filepath.Join(root, "alpha", "SKILL.md"), liveSkill("alpha", "Alpha body."))
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	writeFileAtomic(t, policy, "budget: 4000\n")
	var rec reloads
	l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{},
		compiler.LiveOptions{PolicyFile: policy, Debounce: 10 * time.Millisecond, OnReload: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	first := l.Current()
	if got := l.Generation(); got != 1 {
		t.Fatalf("generation: got %d; want 1", got)
	}

	writeFileAtomic(t, filepath.Join(root, "alpha", "SKILL.md"), liveSkill("alpha", "Alpha body, edited."))
	eventually(t, "an edited body is a new catalog", func() bool { return l.Current().CatalogFingerprint() != first.CatalogFingerprint() })

	watchedBefore := l.Watched()
	writeFileAtomic(t, filepath.Join(root, "group", "beta", "SKILL.md"), liveSkill("beta", "Beta body."))
	eventually(t, "a skill added in a new folder is served", func() bool { return slices.Contains(names(l.Current()), "beta") })
	eventually(t, "the new folders are watched", func() bool { return l.Watched() > watchedBefore })
	// The new folder is watched itself: an edit inside it is seen.
	fp := l.Current().CatalogFingerprint()
	writeFileAtomic(t, filepath.Join(root, "group", "beta", "SKILL.md"), liveSkill("beta", "Beta body, edited."))
	eventually(t, "an edit in the new folder is seen", func() bool { return l.Current().CatalogFingerprint() != fp })

	if err := os.RemoveAll(filepath.Join(root, "group")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a removed skill is gone", func() bool { return !slices.Contains(names(l.Current()), "beta") })
	eventually(t, "the removed folders are no longer watched", func() bool { return l.Watched() == watchedBefore })

	writeFileAtomic(t, policy, "budget: 5000\n")
	eventually(t, "a rewritten policy is served", func() bool { return l.Current().Policy().Budget == 5000 })

	// A policy that does not parse keeps the last good catalog serving.
	good := l.Current()
	writeFileAtomic(t, policy, "budget: [\n")
	eventually(t, "a broken policy is reported", func() bool { return l.LastError() != nil && rec.failed() > 0 })
	if l.Current() != good {
		t.Fatalf("a failed load replaced the catalog")
	}
	writeFileAtomic(t, policy, "budget: 6000\n")
	eventually(t, "a repaired policy is served", func() bool { return l.Current().Policy().Budget == 6000 && l.LastError() == nil })
}

// TestLiveRootVanishes removes the root: the last catalog keeps serving,
// the failure is reported as a *loader.RootError, and the catalog comes
// back when the root does (its parent is watched).
func TestLiveRootVanishes(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "skills")
	writeFileAtomic(t, filepath.Join(root, "alpha", "SKILL.md"), liveSkill("alpha", "Alpha."))
	l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{}, compiler.LiveOptions{Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	good := l.Current()
	if err := os.Rename(root, filepath.Join(parent, "moved")); err != nil {
		t.Fatal(err)
	}
	var re *loader.RootError
	eventually(t, "a vanished root is reported", func() bool { return errors.As(l.LastError(), &re) })
	if l.Current() != good {
		t.Fatalf("a failed load replaced the catalog")
	}
	writeFileAtomic(t, filepath.Join(root, "beta", "SKILL.md"), liveSkill("beta", "Beta."))
	eventually(t, "a root that comes back is served", func() bool {
		return l.LastError() == nil && slices.Equal(names(l.Current()), []string{"beta"})
	})
}

// TestLiveBodyChangedRetries: a compile that meets a body changed since
// the catalog was loaded waits for the reload and succeeds on the new
// catalog, where a plain compiler fails with body_changed. The debounce is
// long, so only the compile's own request for a reload can help.
func TestLiveBodyChangedRetries(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "alpha", "SKILL.md")
	writeFileAtomic(t, file, liveSkill("alpha", "Alpha body."))
	ctx := context.Background()
	l, err := compiler.Watch(ctx, loader.Options{Roots: []string{root}}, compiler.Policy{}, compiler.LiveOptions{Debounce: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	stale := l.Current()
	writeFileAtomic(t, file, liveSkill("alpha", "Alpha body, edited."))
	req := compiler.Request{Task: "anything", Select: []string{"alpha"}}
	var ce *compiler.Error
	if _, err := stale.Compile(ctx, req); !errors.As(err, &ce) || ce.Code != compiler.ErrBodyChanged {
		t.Fatalf("plain compile: got %v; want %s", err, compiler.ErrBodyChanged)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := l.Compile(cctx, req)
	if err != nil {
		t.Fatalf("live compile: got %v; want success after the reload", err)
	}
	if res.CatalogFingerprint == stale.CatalogFingerprint() {
		t.Fatalf("live compile ran on the stale catalog")
	}
	if res.CatalogFingerprint != l.Current().CatalogFingerprint() {
		t.Fatalf("result catalog %s is not the current one", res.CatalogFingerprint)
	}
}

// TestLiveReleasesEverything forces many reloads and closes the catalog:
// the goroutine count stays flat across reloads and returns to where it
// was once closed, and closing the context closes the catalog.
func TestLiveReleasesEverything(t *testing.T) {
	root := t.TempDir()
	for i := range 20 {
		writeFileAtomic(t, filepath.Join(root, fmt.Sprintf("s%02d", i), "SKILL.md"), liveSkill(fmt.Sprintf("s%02d", i), "Body."))
	}
	// settle returns the goroutine count once it is at most want, or
	// after a generous bound; with want < 0, after a short pause.
	settle := func(want int) int {
		deadline := time.Now().Add(5 * time.Second)
		if want < 0 {
			deadline = time.Now().Add(50 * time.Millisecond)
		}
		for {
			runtime.GC()
			n := runtime.NumGoroutine()
			if n <= want || time.Now().After(deadline) {
				return n
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	base := settle(-1)
	ctx, cancel := context.WithCancel(context.Background())
	l, err := compiler.Watch(ctx, loader.Options{Roots: []string{root}}, compiler.Policy{}, compiler.LiveOptions{Debounce: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	reload := func(n int) {
		for range n {
			g := l.Generation()
			l.Reload()
			eventually(t, "a forced reload", func() bool { return l.Generation() > g })
		}
	}
	reload(5)
	during := settle(-1)
	reload(50)
	if got := settle(during); got > during {
		t.Fatalf("goroutines after 50 more reloads: got %d; want at most %d", got, during)
	}
	cancel() // closes l
	if got := settle(base); got > base {
		t.Fatalf("goroutines after the context ended: got %d; want at most %d (before Watch)", got, base)
	}
	// Close after the context closed it is harmless.
	if err := l.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

// TestWatchFailsLikeLoad: a first load that fails is Watch's error, with
// nothing left running.
func TestWatchFailsLikeLoad(t *testing.T) {
	base := runtime.NumGoroutine()
	_, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{filepath.Join(t.TempDir(), "missing")}}, compiler.Policy{}, compiler.LiveOptions{})
	var re *loader.RootError
	if !errors.As(err, &re) {
		t.Fatalf("got %v; want a *loader.RootError", err)
	}
	eventually(t, "no goroutine left", func() bool { return runtime.NumGoroutine() <= base })
}
