// Command serveload measures `rlmc serve` on a generated catalog: compile
// throughput and latency at a number of concurrent clients, correctness
// while the catalog is edited under load, the time to serve a new state
// after one edit, and memory, goroutines and open files across many
// reloads. The server runs in this process and every request goes to
// loopback; each phase is bounded in count and time.
//
//	go run ./bench/serveload [-skills 1000] [-clients 16] [-duration 10s] [-edits 20] [-reload-samples 20] [-reloads 1000] [-timeout 2s]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/gctune"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/serveload"
	"github.com/rlmc-dev/rlmc/internal/server"
	"github.com/rlmc-dev/rlmc/ir"
)

func main() {
	skills := flag.Int("skills", 1000, "skills in the generated catalog")
	clients := flag.Int("clients", 16, "concurrent clients")
	duration := flag.Duration("duration", 10*time.Second, "length of the throughput phase")
	edits := flag.Int("edits", 20, "edits during the edit phase")
	samples := flag.Int("reload-samples", 20, "single edits timed until served")
	reloads := flag.Int("reloads", 1000, "forced reloads in the memory phase")
	timeout := flag.Duration("timeout", server.DefaultTimeout, "the server's per-compile deadline (rlmc serve --timeout)")
	flag.Parse()
	if err := run(*skills, *clients, *duration, *edits, *samples, *reloads, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

func run(skills, clients int, duration time.Duration, edits, samples, reloads int, timeout time.Duration) error {
	dir, err := os.MkdirTemp("", "serveload")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	defer gctune.Start(gctune.Serve)() // as `rlmc serve` does
	cat, err := serveload.NewCatalog(dir, skills)
	if err != nil {
		return err
	}
	s, err := server.New(server.Config{Roots: []string{cat.Root}, PolicyFile: cat.Policy, MaxInflight: clients, Timeout: timeout,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	start := time.Now()
	if err := s.Watch(context.Background()); err != nil {
		return err
	}
	defer s.Close()
	live := s.Live()
	// A catalog with errors (a scan limit, say) is served as far as it
	// was read: measuring it would measure another catalog.
	if ds := live.Current().Diagnostics(); ds.HasErrors() {
		return fmt.Errorf("the generated catalog has %d errors:\n%v", ds.Count(ir.SeverityError), ds)
	}
	gc := fmt.Sprintf("GC headroom %d MiB", gctune.Serve>>20)
	if v := os.Getenv("GOGC"); v != "" {
		gc = "GOGC=" + v
	}
	fmt.Printf("catalog: %d skills, first load %v, %d paths watched, GOMAXPROCS %d, %s\n", skills, time.Since(start).Round(time.Millisecond), live.Watched(), runtime.GOMAXPROCS(0), gc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s.Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	reqs := cat.Requests()

	// Throughput and latency, no edits.
	serveload.Run(context.Background(), url, "", clients, 20, 0, reqs) // warm up
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	rec := serveload.Run(ctx, url, "", clients, 1<<30, 0, reqs)
	cancel()
	fmt.Printf("throughput: %d compiles in %v at %d clients: %.0f compiles/s, p50 %v, p99 %v, %d failed\n",
		rec.Requests, duration, clients, float64(rec.Requests)/duration.Seconds(), rec.Quantile(0.5).Round(10*time.Microsecond), rec.Quantile(0.99).Round(10*time.Microsecond), rec.Failed)

	if edits > 0 {
		if err := editPhase(url, cat, clients, edits, reqs); err != nil {
			return err
		}
	}
	return reloadPhases(live, cat, samples, reloads)
}

// editPhase runs the clients while the catalog is edited: every answer
// must come from a state that existed.
func editPhase(url string, cat *serveload.Catalog, clients, edits int, reqs []serveload.Request) error {
	var err error
	existed := map[string]bool{}
	state := func() (string, error) {
		p, err := compiler.LoadPolicy(cat.Policy)
		if err != nil {
			return "", err
		}
		c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{cat.Root}}, p)
		if err != nil {
			return "", err
		}
		existed[c.CatalogFingerprint()] = true
		return c.CatalogFingerprint(), nil
	}
	if _, err := state(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	done := make(chan *serveload.Record, 1)
	go func() { done <- serveload.Run(ctx, url, "", clients, 1<<30, 0, reqs) }()
	var final string
	editStart := time.Now()
	for i := 1; i <= edits; i++ {
		if _, err := cat.Edit(i); err != nil {
			cancel()
			return err
		}
		if final, err = state(); err != nil {
			cancel()
			return err
		}
	}
	last := time.Now()
	var converged time.Duration
	for {
		fp, err := serveload.CatalogFingerprint(ctx, url, "")
		if err != nil {
			cancel()
			return err
		}
		if fp == final {
			converged = time.Since(last)
			break
		}
		if time.Since(last) > time.Minute {
			cancel()
			return fmt.Errorf("not converged a minute after the last edit")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	rec := <-done
	foreign := 0
	for fp, n := range rec.Fingerprints {
		if !existed[fp] {
			foreign += n
		}
	}
	fmt.Printf("edits under load: %d edits in %v, %d compiles, %d failed, %d from a catalog that never existed, %d catalogs served of %d states, converged %v after the last edit, p50 %v, p99 %v\n",
		edits, last.Sub(editStart).Round(time.Millisecond), rec.Requests, rec.Failed, foreign, len(rec.Fingerprints), len(existed), converged.Round(time.Millisecond),
		rec.Quantile(0.5).Round(10*time.Microsecond), rec.Quantile(0.99).Round(10*time.Microsecond))
	for _, f := range rec.Failures[:min(len(rec.Failures), 3)] {
		fmt.Printf("  failure: %q\n", f)
	}
	return nil
}

// reloadPhases times single edits until served, then forces reloads and
// watches memory, goroutines and open files.
func reloadPhases(live *compiler.Live, cat *serveload.Catalog, samples, reloads int) error {

	// Reload time: one body edit, timed until the new catalog serves.
	var times []time.Duration
	for k := range samples {
		before := live.Current()
		if _, err := cat.Edit(4*(1000+k) + 1); err != nil {
			return err
		}
		t0 := time.Now()
		for live.Current() == before {
			if time.Since(t0) > time.Minute {
				return fmt.Errorf("an edit not served after a minute")
			}
			time.Sleep(500 * time.Microsecond)
		}
		times = append(times, time.Since(t0))
		time.Sleep(100 * time.Millisecond)
	}
	slices.Sort(times)
	if len(times) > 0 {
		fmt.Printf("reload after one edit (%d samples, %v debounce included): median %v, max %v\n",
			len(times), compiler.DefaultDebounce, times[len(times)/2].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond))
	}

	// Memory, goroutines and open files across forced reloads.
	measure := func(label string) {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fds, _ := os.ReadDir("/proc/self/fd")
		fmt.Printf("  %-16s heap %6.1f MiB, goroutines %3d, open files %3d, watched %d\n", label, float64(m.HeapAlloc)/(1<<20), runtime.NumGoroutine(), len(fds), live.Watched())
	}
	fmt.Printf("memory across %d reloads:\n", reloads)
	measure("before")
	reloadStart := time.Now()
	for i := 1; i <= reloads; i++ {
		g := live.Generation()
		live.Reload()
		for live.Generation() == g {
			time.Sleep(200 * time.Microsecond)
		}
		if i == reloads/10 || i == reloads/2 || i == reloads {
			measure(fmt.Sprintf("after %d", i))
		}
	}
	fmt.Printf("  %d reloads in %v, %v each\n", reloads, time.Since(reloadStart).Round(time.Millisecond), (time.Since(reloadStart) / time.Duration(max(reloads, 1))).Round(time.Millisecond))
	return nil
}
