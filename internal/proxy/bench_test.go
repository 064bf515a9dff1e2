package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/fakeapi"
	"github.com/rlmc-dev/rlmc/internal/serveload"
)

// BenchmarkProxyOverhead measures what the proxy adds to a Chat
// Completions call on a 1,000-skill catalog: each round times one call
// straight to the fake upstream and the same call through the proxy, one
// after the other over loopback; the added latency is reported at the
// median and the 99th percentile (proxied minus direct, at each quantile).
// The tasks are serveload's mix: two thirds route to a skill (one of them
// with a host selection), one third routes nowhere.
func BenchmarkProxyOverhead(b *testing.B) {
	cat, err := serveload.NewCatalog(b.TempDir(), 1000)
	if err != nil {
		b.Fatal(err)
	}
	up := httptest.NewServer(&fakeapi.Server{})
	defer up.Close()
	u, _ := url.Parse(up.URL)
	p, err := New(Config{Upstream: u, Roots: []string{cat.Root}, PolicyFile: cat.Policy, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Watch(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ts := httptest.NewServer(p)
	defer ts.Close()

	type call struct {
		body []byte
		sel  string
	}
	var calls []call
	for _, r := range cat.Requests() {
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{
			{"role": "system", "content": "You are careful."}, {"role": "user", "content": r.Task}}})
		c := call{body: body}
		if len(r.Select) > 0 {
			c.sel = r.Select[0]
		}
		calls = append(calls, c)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	send := func(base string, c call) time.Duration {
		req, _ := http.NewRequest("POST", base+"/v1/chat/completions", bytes.NewReader(c.body))
		if c.sel != "" && base == ts.URL {
			req.Header.Set(HeaderSelect, c.sel)
		}
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return time.Since(start)
	}
	for _, c := range calls[:min(len(calls), 50)] { // warm both paths
		send(up.URL, c)
		send(ts.URL, c)
	}
	direct := make([]time.Duration, 0, b.N)
	proxied := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		c := calls[i%len(calls)]
		direct = append(direct, send(up.URL, c))
		proxied = append(proxied, send(ts.URL, c))
	}
	b.StopTimer()
	q := func(d []time.Duration, f float64) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, int(f*float64(len(d))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(direct, 0.5), "direct-p50-ms")
	b.ReportMetric(q(proxied, 0.5), "proxied-p50-ms")
	b.ReportMetric(q(proxied, 0.5)-q(direct, 0.5), "added-p50-ms")
	b.ReportMetric(q(direct, 0.99), "direct-p99-ms")
	b.ReportMetric(q(proxied, 0.99), "proxied-p99-ms")
	b.ReportMetric(q(proxied, 0.99)-q(direct, 0.99), "added-p99-ms")
}
