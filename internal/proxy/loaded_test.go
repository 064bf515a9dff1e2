package proxy

import (
	"context"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestLoadedLineMeansReady: once "catalog loaded" is logged the proxy
// compiles the requests it forwards. It logged the line before it took
// the catalog, so a client that started on the line was answered 503.
func TestLoadedLineMeansReady(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", "Write the failing test first.")
	var p *Proxy
	seen := false
	log := testkit.OnLog("catalog loaded", func() {
		seen = true
		if p.Live() == nil {
			t.Error("got no catalog when the proxy logged it loaded; want it serving")
		}
	})
	up, _ := url.Parse("http://127.0.0.1:1")
	var err error
	if p, err = New(Config{Upstream: up, Roots: []string{root}, Logger: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal(`got no "catalog loaded" line`)
	}
}

// TestEmptyCatalogWarned: a proxy whose roots hold no skill says so once
// loaded; every call went on without skills, and only an INFO line's
// "units": 0 said why.
func TestEmptyCatalogWarned(t *testing.T) {
	warned := false
	log := testkit.OnLog("the catalog has no skills; every call goes on without skills until one is added", func() { warned = true })
	up, _ := url.Parse("http://127.0.0.1:1")
	p, err := New(Config{Upstream: up, Roots: []string{t.TempDir()}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !warned {
		t.Fatal("got no warning for an empty catalog; want one")
	}
}

// TestCatalogErrorsWarned: a proxy whose catalog has a skill that cannot
// load says so when it loads; the calls that skill would answer went on
// without it, and the proxy has no endpoint that lists the catalog.
func TestCatalogErrorsWarned(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "broken", "SKILL.md"), "---\nname: broken\ndescription: [unclosed\n---\nBody.\n")
	warned := false
	log := testkit.OnLog("the catalog has errors; the skills they name never load (rlmc validate lists them all)", func() { warned = true })
	up, _ := url.Parse("http://127.0.0.1:1")
	p, err := New(Config{Upstream: up, Roots: []string{root}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !warned {
		t.Fatal("got no warning for a catalog with an invalid skill; want one")
	}
}
