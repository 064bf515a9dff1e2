package server

import (
	"context"
	"testing"

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
}
