package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestLoadedLineMeansReady: once "catalog loaded" is logged the server
// answers compiles. It logged the line before it took the catalog, so a
// client that started on the line (the start-up harness, a supervisor
// reading the log) had its first requests answered 503 not_ready.
func TestLoadedLineMeansReady(t *testing.T) {
	root, policy := smallCatalog(t)
	var s *Server
	seen := false
	log := testkit.OnLog("catalog loaded", func() {
		seen = true
		if s.Live() == nil {
			t.Error("got no catalog when the server logged it loaded; want it serving")
		}
	})
	s, _ = newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy, Logger: log})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal(`got no "catalog loaded" line`)
	}
}

// TestEmptyCatalogWarned: a server whose roots hold no skill says so once
// loaded; it answered no_route to everything with an INFO line of
// "units": 0 as the only sign.
func TestEmptyCatalogWarned(t *testing.T) {
	warned := false
	log := testkit.OnLog("the catalog has no skills; every compile answers no_route until one is added", func() { warned = true })
	s, _ := newTestServer(t, Config{Roots: []string{t.TempDir()}, Logger: log})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !warned {
		t.Fatal("got no warning for an empty catalog; want one")
	}
	// Nor does it say it is ready: a replica whose skills volume is
	// missing took traffic and answered no_route to every compile.
	rec := httptest.NewRecorder()
	s.readyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "the catalog has no skills") {
		t.Fatalf("readyz of an empty catalog: got %d %s; want 503 saying it has no skills", rec.Code, rec.Body)
	}
}

// TestCatalogErrorsWarned: a server whose catalog has a skill that cannot
// load says so at load and at every reload that keeps it broken; its log
// said only "catalog loaded" with the count of units, and the skill
// answered no_route from then on.
func TestCatalogErrorsWarned(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "broken", "SKILL.md"), "---\nname: broken\ndescription: [unclosed\n---\nBody.\n")
	var first []string
	warned := 0
	log := testkit.OnLogRecord("the catalog has errors; the skills they name never load (rlmc validate lists them all)", func(r slog.Record) {
		warned++
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "first" {
				first, _ = a.Value.Any().([]string)
			}
			return true
		})
	})
	s, _ := newTestServer(t, Config{Roots: []string{root}, Logger: log})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if warned != 1 || len(first) != 1 || !strings.Contains(first[0], filepath.ToSlash(filepath.Join(root, "broken", "SKILL.md"))) {
		t.Fatalf("got %d warnings quoting %q; want one quoting broken/SKILL.md under its root", warned, first)
	}
	s.reloaded(compiler.Reload{Compiler: s.Live().Current()})
	if warned != 2 {
		t.Fatalf("got %d warnings after a reload that kept the error; want 2", warned)
	}
}
