package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/serveload"
)

// TestLoadAndFault runs 16 clients against a server on loopback while its
// 200-skill catalog is edited 20 times (bodies rewritten, skills added and
// removed, the policy rewritten), each edit one atomic step. Every request
// must succeed; every response's catalog_fingerprint must be that of a
// state the folders were really in (each state is loaded on its own, after
// its edit, to learn it); and after the last edit the server must come
// to serve the final state (how soon is logged, not asserted). The
// clients stop by themselves: at convergence, or at a bounded count or
// time.
func TestLoadAndFault(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const skills, clients, edits = 200, 16, 20
	cat, err := serveload.NewCatalog(t.TempDir(), skills)
	if err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Config{Roots: []string{cat.Root}, PolicyFile: cat.Policy, Debounce: 20 * time.Millisecond, Timeout: 10 * time.Second, MaxInflight: clients})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	existed := map[string]string{}
	state := func(what string) string {
		t.Helper()
		p, err := compiler.LoadPolicy(cat.Policy)
		if err != nil {
			t.Fatal(err)
		}
		c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{cat.Root}}, p)
		if err != nil {
			t.Fatal(err)
		}
		existed[c.CatalogFingerprint()] = what
		return c.CatalogFingerprint()
	}
	state("initial")

	ctx, stop := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop()
	done := make(chan *serveload.Record, 1)
	// Under the race detector a compile costs ten times as much: the
	// clients pause between requests, or the edits' own loads (and the
	// test) would take half a minute on two cores.
	var pause time.Duration
	if raceEnabled {
		pause = 100 * time.Millisecond
	}
	go func() { done <- serveload.Run(ctx, ts.URL, "", clients, 5000, pause, cat.Requests()) }()

	var final string
	for i := 1; i <= edits; i++ {
		what, err := cat.Edit(i)
		if err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
		// Learning the state takes a load, which spaces the edits by
		// about the time the server takes to reload.
		final = state(fmt.Sprintf("after edit %d (%s)", i, what))
	}
	last := time.Now()
	// The bound catches a server that never converges, not a slow one:
	// how fast it converges is logged, and a loaded machine (a full test
	// run beside another on two cores) took more than a second.
	bound := 15 * time.Second
	if raceEnabled {
		bound = 60 * time.Second // the race detector slows a load five- to tenfold
	}
	var converged time.Duration
	for {
		fp, err := serveload.CatalogFingerprint(ctx, ts.URL, "")
		if err != nil {
			t.Fatal(err)
		}
		if fp == final {
			converged = time.Since(last)
			break
		}
		if time.Since(last) > bound {
			t.Fatalf("not serving the final state %s %s after the last edit; serving %s (%s)", final, bound, fp, existed[fp])
		}
		time.Sleep(2 * time.Millisecond)
	}
	// Let the clients see the final state, then stop them.
	time.Sleep(50 * time.Millisecond)
	stop()
	rec := <-done
	if rec.Failed > 0 {
		t.Errorf("%d of %d requests failed; first: %q", rec.Failed, rec.Requests, rec.Failures)
	}
	for fp, n := range rec.Fingerprints {
		if _, ok := existed[fp]; !ok {
			t.Errorf("%d responses carry catalog %s, which never existed", n, fp)
		}
	}
	if rec.Fingerprints[final] == 0 {
		t.Errorf("no response from the final catalog")
	}
	t.Logf("%d requests, %d catalogs served of %d states, converged %v after the last edit, p50 %v p99 %v",
		rec.Requests, len(rec.Fingerprints), len(existed), converged, rec.Quantile(0.5), rec.Quantile(0.99))
}
