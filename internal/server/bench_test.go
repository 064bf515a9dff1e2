package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/serveload"
)

// BenchmarkServeCompile measures POST /v1/compile over loopback on a
// 1,000-skill catalog at GOMAXPROCS x -cpu parallel clients (16 with
// -cpu 16 is not what it means: use bench/serveload for a fixed count).
func BenchmarkServeCompile(b *testing.B) {
	cat, err := serveload.NewCatalog(b.TempDir(), 1000)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Roots: []string{cat.Root}, PolicyFile: cat.Policy, Logger: quietLogger(), MaxInflight: 1024})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Watch(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	reqs := cat.Requests()
	bodies := make([][]byte, len(reqs))
	for i, r := range reqs {
		bodies[i], _ = json.Marshal(r)
	}
	b.ResetTimer()
	rec := serveload.Run(context.Background(), ts.URL, "", 16, max(1, b.N/16), 0, reqs)
	if rec.Failed > 0 {
		b.Fatalf("%d failed: %v", rec.Failed, rec.Failures)
	}
	b.ReportMetric(float64(rec.Quantile(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(rec.Quantile(0.99).Microseconds())/1000, "p99-ms")
}
