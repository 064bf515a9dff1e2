package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/fakeapi"
	"github.com/rlmc-dev/rlmc/internal/proxy"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestDocsProxyExample checks the outputs docs/proxy.md shows for its
// example, whose servers (the fake upstream and rlmc proxy, on fixed
// ports) TestDocCommands does not start: the same proxy, on the
// repository's skills, in front of the same fake API, each on a port of
// its own, answers examples/proxy/curl.sh with the status and headers the
// document shows, and the upstream receives bodies of the sizes it shows.
// -update rewrites both.
func TestDocsProxyExample(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("examples/proxy/curl.sh is POSIX shell")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("examples/proxy/curl.sh needs curl")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docPath := filepath.Join(repo, "docs", "proxy.md")
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docBlocks("docs/proxy.md", string(data))
	if err != nil {
		t.Fatal(err)
	}
	// The two blocks after the one that runs curl.sh.
	i := slices.IndexFunc(blocks, func(b docBlock) bool {
		return slices.Contains(b.body, "sh examples/proxy/curl.sh")
	})
	if i < 0 || i+2 >= len(blocks) {
		t.Fatal("docs/proxy.md: no block running sh examples/proxy/curl.sh followed by its two outputs")
	}
	headers, received := blocks[i+1], blocks[i+2]

	var mu sync.Mutex
	var seen []string
	upstream := httptest.NewServer(&fakeapi.Server{Seen: func(r *http.Request, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		// As examples/proxy/upstream prints it.
		seen = append(seen, fmt.Sprintf("upstream received %s %s (%d bytes)", r.Method, r.URL.Path, len(body)))
	}})
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	p, err := proxy.New(proxy.Config{
		Upstream: u,
		Roots:    []string{filepath.Join(repo, ".agents", "skills")},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := p.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	front := httptest.NewServer(p)
	defer front.Close()

	cmd := exec.Command("sh", "examples/proxy/curl.sh")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "RLMC_PROXY="+front.URL, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("sh examples/proxy/curl.sh: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.ReplaceAll(out.String(), "\r", ""), "\n")
	if len(lines) < len(headers.body) {
		t.Fatalf("curl.sh printed %d lines; docs/proxy.md shows %d:\n%s", len(lines), len(headers.body), out.String())
	}
	gotHeaders := lines[:len(headers.body)]

	var wantSeen []int // the lines of the received block the upstream prints first
	for j, l := range received.body {
		if strings.HasPrefix(l, "upstream received ") {
			wantSeen = append(wantSeen, j)
		}
	}
	mu.Lock()
	gotSeen := slices.Clone(seen)
	mu.Unlock()
	if len(gotSeen) != len(wantSeen) {
		t.Fatalf("the upstream received %d calls; docs/proxy.md shows %d:\n%s", len(gotSeen), len(wantSeen), strings.Join(gotSeen, "\n"))
	}
	newReceived := slices.Clone(received.body)
	for j, at := range wantSeen {
		newReceived[at] = gotSeen[j]
	}

	stale := false
	for _, c := range []struct {
		b   docBlock
		got []string
	}{{headers, gotHeaders}, {received, newReceived}} {
		if diff := cmp.Diff(c.b.body, c.got); diff != "" {
			stale = true
			if !*testkit.Update {
				t.Errorf("%s: not what the example prints (-doc +run; go test ./cmd/rlmc -run TestDocsProxyExample -update rewrites it):\n%s", c.b.where(), diff)
			}
		}
	}
	if stale && *testkit.Update {
		doc := strings.Split(string(data), "\n")
		// The later block first, so that the earlier keeps its lines.
		doc = slices.Concat(doc[:received.start], newReceived, doc[received.start+len(received.body):])
		doc = slices.Concat(doc[:headers.start], gotHeaders, doc[headers.start+len(headers.body):])
		if err := os.WriteFile(docPath, []byte(strings.Join(doc, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote the proxy example's outputs in docs/proxy.md")
	}
}
