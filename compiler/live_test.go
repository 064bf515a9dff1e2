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
	"github.com/rlmc-dev/rlmc/internal/loader"
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
	eventuallyWithin(t, 10*time.Second, what, cond)
}

// eventuallyWithin is eventually with a deadline of its own, for a
// condition that depends on how the machine schedules a test's goroutines.
func eventuallyWithin(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after %v", what, d)
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

// watchAlpha watches a catalog of one skill, alpha, with a debounce so
// long that only a compile's own request for a reload can bring one, and
// returns it with alpha's SKILL.md.
func watchAlpha(t *testing.T) (*compiler.Live, string) {
	t.Helper()
	root := t.TempDir()
	file := filepath.Join(root, "alpha", "SKILL.md")
	writeFileAtomic(t, file, liveSkill("alpha", "Alpha body."))
	l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{}, compiler.LiveOptions{Debounce: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return l, file
}

// TestLiveBodyChangedRetries: a compile that meets a body changed since
// the catalog was loaded waits for the reload and succeeds on the new
// catalog, where a plain compiler fails with body_changed. The debounce is
// long, so only the compile's own request for a reload can help.
func TestLiveBodyChangedRetries(t *testing.T) {
	l, file := watchAlpha(t)
	ctx := context.Background()
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
	// CompileIn names the compiler the result came from, for what a
	// front-end says beside it (serve's unknown denials).
	res, c, err := l.CompileIn(cctx, req)
	if err != nil || c == nil || res.CatalogFingerprint != c.CatalogFingerprint() {
		t.Fatalf("CompileIn: got %v, a compiler of %v; want the result's catalog", err, c)
	}
}

// TestLiveBodyChangedClosed: a closed catalog has no reload to wait for;
// its compile that meets a changed body returns the body_changed error,
// which says why no newer catalog came (ErrClosed was documented and never
// returned).
func TestLiveBodyChangedClosed(t *testing.T) {
	l, file := watchAlpha(t)
	ctx := context.Background()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	writeFileAtomic(t, file, liveSkill("alpha", "Alpha body, edited."))
	_, err := l.Compile(ctx, compiler.Request{Task: "anything", Select: []string{"alpha"}})
	var ce *compiler.Error
	if !errors.As(err, &ce) || ce.Code != compiler.ErrBodyChanged || !errors.Is(err, compiler.ErrClosed) {
		t.Fatalf("got %v; want %s wrapping ErrClosed", err, compiler.ErrBodyChanged)
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

// invocationOf returns the invocation of the unit named name in c, "" when
// it has none.
func invocationOf(c *compiler.Compiler, name string) string {
	for _, u := range c.Catalog().Units {
		if u.Name == name {
			return string(u.Invocation)
		}
	}
	return ""
}

// flipLink points the link at path to target the way release tools do: a
// new link renamed over the old one.
func flipLink(t *testing.T, target, path string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestLiveFollowsLinks: a change reached through a symbolic link is
// served: the policy file's target replaced (a dotfile manager's link),
// a release link above the root flipped, and a side file's target in a
// hidden folder of the skill rewritten. None was seen before.
func TestLiveFollowsLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	t.Run("policy target replaced", func(t *testing.T) {
		root := t.TempDir()
		writeFileAtomic(t, filepath.Join(root, "deploy", "SKILL.md"), liveSkill("deploy", "Deploy."))
		dotfiles, config := t.TempDir(), t.TempDir()
		writeFileAtomic(t, filepath.Join(dotfiles, "policy.yaml"), "budget: 4000\n")
		policy := filepath.Join(config, "policy.yaml")
		if err := os.Symlink(filepath.Join(dotfiles, "policy.yaml"), policy); err != nil {
			t.Fatal(err)
		}
		l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{},
			compiler.LiveOptions{PolicyFile: policy, Debounce: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		writeFileAtomic(t, filepath.Join(dotfiles, "policy.yaml"), "deny: [deploy]\n")
		eventually(t, "the target's deny is served", func() bool { return slices.Contains(l.Current().Policy().Deny, "deploy") })
		// And the link itself pointed elsewhere.
		writeFileAtomic(t, filepath.Join(dotfiles, "other.yaml"), "budget: 4321\n")
		flipLink(t, filepath.Join(dotfiles, "other.yaml"), policy)
		eventually(t, "the flipped link's policy is served", func() bool { return l.Current().Policy().Budget == 4321 })
	})
	t.Run("release link above the root flipped", func(t *testing.T) {
		base := t.TempDir()
		writeFileAtomic(t, filepath.Join(base, "releases", "v1", "skills", "deploy", "SKILL.md"), liveSkill("deploy", "Deploy."))
		writeFileAtomic(t, filepath.Join(base, "releases", "v2", "skills", "deploy", "SKILL.md"),
			"---\nname: deploy\ndescription: Helps with deploy work.\ndisable-model-invocation: true\n---\nDeploy.\n")
		if err := os.Symlink(filepath.Join("releases", "v1"), filepath.Join(base, "current")); err != nil {
			t.Fatal(err)
		}
		l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{filepath.Join(base, "current", "skills")}}, compiler.Policy{},
			compiler.LiveOptions{Debounce: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if got := invocationOf(l.Current(), "deploy"); got != "automatic" {
			t.Fatalf("before the flip: got %q; want automatic", got)
		}
		flipLink(t, filepath.Join("releases", "v2"), filepath.Join(base, "current"))
		eventually(t, "the new release is served", func() bool { return invocationOf(l.Current(), "deploy") == "explicit_user" })
		// An edit in the new release is seen too: its folders are watched.
		writeFileAtomic(t, filepath.Join(base, "releases", "v2", "skills", "deploy", "SKILL.md"), liveSkill("deploy", "Deploy, v2 edited."))
		eventually(t, "an edit in the new release is served", func() bool { return invocationOf(l.Current(), "deploy") == "automatic" })
	})
	t.Run("side file target rewritten", func(t *testing.T) {
		root := t.TempDir()
		skill := filepath.Join(root, "deploy")
		writeFileAtomic(t, filepath.Join(skill, "SKILL.md"), liveSkill("deploy", "Deploy."))
		writeFileAtomic(t, filepath.Join(skill, ".variants", "openai.yaml"), "policy:\n  allow_implicit_invocation: true\n")
		if err := os.MkdirAll(filepath.Join(skill, "agents"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", ".variants", "openai.yaml"), filepath.Join(skill, "agents", "openai.yaml")); err != nil {
			t.Fatal(err)
		}
		l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{},
			compiler.LiveOptions{Debounce: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if got := invocationOf(l.Current(), "deploy"); got != "automatic" {
			t.Fatalf("before the edit: got %q; want automatic", got)
		}
		writeFileAtomic(t, filepath.Join(skill, ".variants", "openai.yaml"), "policy:\n  allow_implicit_invocation: false\n")
		eventually(t, "the side file's target is served", func() bool { return invocationOf(l.Current(), "deploy") == "explicit_user" })
	})
}

// TestLiveStormKeepsLastCatalog: folders that keep changing under every
// load past MaxStale get no catalog swapped in (it would mix two states):
// the reload fails with ErrUnsettled, the last catalog serves, and once
// the storm ends the settled state is served.
func TestLiveStormKeepsLastCatalog(t *testing.T) {
	root := t.TempDir()
	writeFileAtomic(t, filepath.Join(root, "alpha", "SKILL.md"), liveSkill("alpha", "Alpha."))
	writeFileAtomic(t, filepath.Join(root, "beta", "SKILL.md"), liveSkill("beta", "Beta."))
	var rec reloads
	l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{},
		compiler.LiveOptions{Debounce: 5 * time.Millisecond, MaxStale: 300 * time.Millisecond, OnReload: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	first := l.Current()
	// Two skills rewritten without pause: every load sees two changes.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			writeFileAtomic(t, filepath.Join(root, "alpha", "SKILL.md"), roundSkill("alpha", i))
			writeFileAtomic(t, filepath.Join(root, "beta", "SKILL.md"), roundSkill("beta", i))
		}
	}()
	// A load is unsettled only while the writer keeps pace with it: on a
	// machine busy with other tests that can take a while to happen.
	eventuallyWithin(t, 60*time.Second, "an unsettled reload is reported", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, r := range rec.all {
			if errors.Is(r.Err, compiler.ErrUnsettled) {
				return true
			}
		}
		return false
	})
	close(stop)
	<-done
	// Every catalog swapped in holds a moment of the folders: alpha is
	// written first, so it is at beta's round or one ahead, never more
	// and never behind.
	rec.mu.Lock()
	for _, r := range rec.all {
		if r.Err != nil {
			if !errors.Is(r.Err, compiler.ErrUnsettled) {
				t.Errorf("a reload failed with %v; want ErrUnsettled", r.Err)
			}
			continue
		}
		a, b := round(t, r.Compiler, "alpha"), round(t, r.Compiler, "beta")
		if a != b && a != b+1 {
			t.Errorf("a catalog the folders never held was swapped in: alpha at round %d, beta at %d", a, b)
		}
	}
	rec.mu.Unlock()
	_ = first
	eventually(t, "the settled state is served after the storm", func() bool {
		res, err := l.Current().Compile(context.Background(), compiler.Request{Select: []string{"alpha", "beta"}})
		if err != nil {
			return false
		}
		return l.LastError() == nil && len(res.Selected) == 2
	})
}

// round returns the round number in the description of the unit name
// (read at load time, unlike a body), -1 for the one it started with.
func round(t *testing.T, c *compiler.Compiler, name string) int {
	t.Helper()
	n := -1
	for _, u := range c.Catalog().Units {
		if u.Name == name {
			fmt.Sscanf(u.Description, "Round %d", &n)
		}
	}
	return n
}

func roundSkill(name string, i int) string {
	return fmt.Sprintf("---\nname: %s\ndescription: Round %d of %s.\n---\nBody.\n", name, i, name)
}

// TestLiveFollowsSwappedAncestor: a folder above the root swapped for
// another by renames (a blue/green release without links) is served.
func TestLiveFollowsSwappedAncestor(t *testing.T) {
	base := t.TempDir()
	writeFileAtomic(t, filepath.Join(base, "cur", "skills", "tdd", "SKILL.md"), liveSkill("tdd", "TDD."))
	writeFileAtomic(t, filepath.Join(base, "next", "skills", "deploy", "SKILL.md"), liveSkill("deploy", "Deploy."))
	l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{filepath.Join(base, "cur", "skills")}}, compiler.Policy{},
		compiler.LiveOptions{Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Rename(filepath.Join(base, "cur"), filepath.Join(base, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(base, "next"), filepath.Join(base, "cur")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the swapped-in release is served", func() bool {
		n := names(l.Current())
		return slices.Equal(n, []string{"deploy"})
	})
}

// TestLiveFollowsReplacedFolders: a folder above the root replaced by
// another at the same path (the grandparent moved away, a new one made
// and the release moved into it) is watched again: the new catalog is
// served, and so are edits in it.
func TestLiveFollowsReplacedFolders(t *testing.T) {
	base := t.TempDir()
	writeFileAtomic(t, filepath.Join(base, "f4", "a", "skills", "tdd", "SKILL.md"), liveSkill("tdd", "TDD."))
	writeFileAtomic(t, filepath.Join(base, "f4", "g2", "a", "skills", "deploy", "SKILL.md"), liveSkill("deploy", "Deploy."))
	l, err := compiler.Watch(context.Background(), loader.Options{Roots: []string{filepath.Join(base, "f4", "a", "skills")}}, compiler.Policy{},
		compiler.LiveOptions{Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Rename(filepath.Join(base, "f4"), filepath.Join(base, "f4old")))
	must(os.Mkdir(filepath.Join(base, "f4"), 0o755))
	must(os.Rename(filepath.Join(base, "f4old", "g2", "a"), filepath.Join(base, "f4", "a")))
	eventually(t, "the release moved into the new folder is served", func() bool {
		return slices.Equal(names(l.Current()), []string{"deploy"})
	})
	writeFileAtomic(t, filepath.Join(base, "f4", "a", "skills", "beta", "SKILL.md"), liveSkill("beta", "Beta."))
	eventually(t, "a skill added in it is served", func() bool { return slices.Contains(names(l.Current()), "beta") })
}

// TestRelativeRootsOutliveChdir: a catalog loaded from a relative root
// reads its bodies, and a live one reloads, wherever the process has
// moved to since (a red team's host: every compile failed body_changed
// after an os.Chdir).
func TestRelativeRootsOutliveChdir(t *testing.T) {
	dir := t.TempDir()
	writeFileAtomic(t, filepath.Join(dir, "skills", "alpha", "SKILL.md"), liveSkill("alpha", "Alpha body."))
	t.Chdir(dir)
	ctx := context.Background()
	opts := loader.Options{Roots: []string{"skills"}}
	c, err := compiler.Load(ctx, opts, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := compiler.Watch(ctx, opts, compiler.Policy{}, compiler.LiveOptions{Debounce: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t.Chdir(t.TempDir())
	req := compiler.Request{Task: "anything", Select: []string{"alpha"}}
	for name, src := range map[string]compiler.Source{"loaded": c, "live": l} {
		if res, err := src.Compile(ctx, req); err != nil || len(res.Selected) != 1 {
			t.Errorf("%s: got %v; want alpha selected", name, err)
		}
	}
	gen := l.Generation()
	l.Reload()
	for deadline := time.Now().Add(10 * time.Second); l.Generation() == gen && l.LastError() == nil && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if err := l.LastError(); err != nil || l.Generation() == gen {
		t.Errorf("reload: got %v; want the catalog loaded again", err)
	}
}

// TestCompileFromOnReload: OnReload may compile on its Live. A compile
// that met a body changed since the last load waited for a reload that
// only the goroutine running OnReload, its caller, would run, and never
// returned; now it answers body_changed at once.
func TestCompileFromOnReload(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "alpha", "SKILL.md")
	writeFileAtomic(t, file, liveSkill("alpha", "Alpha body."))
	req := compiler.Request{Task: "anything", Select: []string{"alpha"}}
	var l *compiler.Live
	ready, done := make(chan struct{}), make(chan error, 1)
	var once sync.Once
	l, err := compiler.Watch(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{},
		compiler.LiveOptions{Debounce: time.Hour, OnReload: func(compiler.Reload) {
			<-ready
			once.Do(func() {
				// The body changes after the load the callback hears of.
				writeFileAtomic(t, file, liveSkill("alpha", "Alpha body, edited in the callback."))
				_, err := l.Compile(context.Background(), req)
				done <- err
			})
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	close(ready)
	l.Reload()
	select {
	case err := <-done:
		var ce *compiler.Error
		if !errors.As(err, &ce) || ce.Code != compiler.ErrBodyChanged {
			t.Errorf("Compile from OnReload: got %v; want %s", err, compiler.ErrBodyChanged)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Compile called from OnReload did not return")
	}
	// Once the callback has returned, a compile waits for the reload
	// again. (Until then, a compile from any goroutine answers at once.)
	eventually(t, "a compile after OnReload succeeds after the reload", func() bool {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := l.Compile(cctx, req)
		return err == nil
	})
}

// TestWatchCanceled: a first load stopped by Watch's context ends as
// Load's does, an ErrCanceled *Error that unwraps to the context's error
// (a second red team: Watch returned a bare context.Canceled, for a
// deadline too).
func TestWatchCanceled(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "SKILL.md"), []byte("---\nname: a\ndescription: A.\n---\n# a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := compiler.Watch(ctx, loader.Options{Roots: []string{root}}, compiler.Policy{}, compiler.LiveOptions{})
	var ce *compiler.Error
	if l != nil || !errors.As(err, &ce) || ce.Code != compiler.ErrCanceled || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, %v; want no Live and an ErrCanceled error unwrapping to context.DeadlineExceeded", l, err)
	}
}

// TestZeroLive: a Live that Watch did not make answers as a nil one does
// (a second red team: Compile, Generation and Close panicked).
func TestZeroLive(t *testing.T) {
	l := &compiler.Live{}
	if c, at, gen := l.Snapshot(); c != nil || !at.IsZero() || gen != 0 || l.Generation() != 0 || !l.LoadedAt().IsZero() || l.Current() != nil {
		t.Errorf("got %v %v %d; want nothing", c, at, gen)
	}
	var ce *compiler.Error
	if _, err := l.Compile(context.Background(), compiler.Request{Task: "x"}); !errors.As(err, &ce) || ce.Code != compiler.ErrInvalidRequest {
		t.Errorf("Compile: got %v; want invalid_request, as a nil Live's", err)
	}
	l.Reload()
	if err := l.Close(); err != nil {
		t.Errorf("Close: got %v; want nil", err)
	}
}
