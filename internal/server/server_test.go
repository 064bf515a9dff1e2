package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/rlmc-dev/rlmc/schema"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

func writeSkill(t testing.TB, root, name, desc, body string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// smallCatalog writes three skills and a policy that denies one of them.
func smallCatalog(t *testing.T) (root, policy string) {
	root = t.TempDir()
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", "Write the failing test first.")
	writeSkill(t, root, "deploy", "Deploy the service to production.", "Run the deploy script.")
	writeSkill(t, root, "risky", "A risky skill the host denies.", "Risky.")
	policy = filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte("deny: [risky]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, policy
}

func newTestServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

func post(t *testing.T, url, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

func errorCode(t *testing.T, body []byte) compiler.ErrorCode {
	t.Helper()
	var doc struct {
		Schema int             `json:"schema"`
		Error  *compiler.Error `json:"error"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Error == nil || doc.Schema != compiler.Schema {
		t.Fatalf("not an error document: %s", body)
	}
	// The server's own errors are answered in the published shape too.
	if err := schema.Validate(schema.CompileError, body); err != nil {
		t.Errorf("error document %s: %v", body, err)
	}
	return doc.Error.Code
}

// TestCompileStatuses checks each answer of POST /v1/compile: its status
// and error code.
func TestCompileStatuses(t *testing.T) {
	root, policy := smallCatalog(t)
	// A generous deadline: a task at the cap takes seconds under the race
	// detector on a loaded machine, and this test is about statuses, not
	// speed (the deadline's own answer is TestCompileDeadline's).
	s, ts := newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy, MaxInflight: 2, Timeout: time.Minute})
	url := ts.URL + "/v1/compile"

	// Before the first catalog: 503 not_ready.
	status, body := post(t, url, "", `{"task": "write the failing test first"}`)
	if status != http.StatusServiceUnavailable || errorCode(t, body) != ErrNotReady {
		t.Fatalf("before the catalog: got %d %s; want 503 %s", status, body, ErrNotReady)
	}
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	huge := `{"task": "` + strings.Repeat("a", MaxBodyBytes) + `"}`
	atCap := `{"task": "` + strings.Repeat("a", compiler.MaxTaskBytes-1) + "\\n" + `"}`
	overTask := `{"task": "` + strings.Repeat("a", compiler.MaxTaskBytes+1) + `"}`
	// A task at the cap in any JSON spelling fits the body: quotes (two
	// bytes each), a log's escape characters as \u001b (six).
	quotes := `{"task": "` + strings.Repeat(`\"`, compiler.MaxTaskBytes) + `"}`
	escapes := `{"task": "` + strings.Repeat(`\u001b`, compiler.MaxTaskBytes) + `"}`
	for _, tc := range []struct {
		name, body string
		status     int
		code       compiler.ErrorCode
	}{
		{name: "route", body: `{"task": "write the failing test first, test-driven development"}`, status: 200},
		{name: "task at the cap with an escape", body: atCap, status: 200},
		{name: "task at the cap, all quotes", body: quotes, status: 200},
		{name: "task at the cap, all \\u escapes", body: escapes, status: 200},
		{name: "not JSON", body: `{"task": `, status: 400, code: compiler.ErrInvalidRequest},
		// JSON is UTF-8: a Latin-1 body is refused where it is not, not
		// read with U+FFFD for its accents.
		{name: "not UTF-8", body: "{\"task\": \"caf\xe9\"}", status: 400, code: compiler.ErrInvalidRequest},
		{name: "no task", body: `{}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "a null task", body: `{"task": null}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "an empty task with a selection", body: `{"task": "", "select": ["tdd"]}`, status: 200},
		// encoding/json reads a null element as the name "".
		{name: "a null selection", body: `{"task": "x", "select": [null]}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "a null deny among names", body: `{"task": "x", "deny": ["tdd", null]}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "a null why", body: `{"task": "x", "why": [null]}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "a null list is none", body: `{"task": "write the failing test first, test-driven development", "deny": null}`, status: 200},
		{name: "a number where a name goes", body: `{"task": "x", "deny": [1]}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "unknown field", body: `{"task": "x", "dney": ["tdd"]}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "a budget of 0 is no default", body: `{"task": "x", "budget": 0}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "a budget written as a float", body: `{"task": "write the failing test first, test-driven development", "budget": 5000.0}`, status: 200},
		{name: "a budget with an exponent", body: `{"task": "write the failing test first, test-driven development", "budget": 5e3}`, status: 200},
		{name: "a budget with a fraction", body: `{"task": "x", "budget": 50.5}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "a negative budget", body: `{"task": "x", "budget": -3}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "two values", body: `{"task": "x"} {"task": "y"}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "negative budget", body: `{"task": "x", "budget": -1}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "unknown tokenizer", body: `{"task": "x", "tokenizer": "gpt2"}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "task over the cap", body: overTask, status: 400, code: compiler.ErrInvalidRequest},
		{name: "body over the cap", body: huge, status: 413, code: compiler.ErrInvalidRequest},
		// Keys are spelt exactly and given once: encoding/json alone
		// takes "SELECT" and "ſelect" for select and lets a second deny
		// replace the first.
		{name: "key in capitals", body: `{"task": "x", "SELECT": ["risky"]}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "key with long s", body: `{"task": "x", "ſelect": ["tdd"]}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "task in capitals", body: `{"task": "x", "TASK": "deploy"}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "repeated deny", body: `{"task": "x", "deny": ["tdd"], "deny": []}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "deny beside Deny", body: `{"task": "x", "deny": ["tdd"], "Deny": []}`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "not an object", body: `["task"]`, status: 400, code: compiler.ErrInvalidRequest},
		{name: "unknown unit", body: `{"task": "x", "select": ["nope"]}`, status: 422, code: compiler.ErrUnknownUnit},
		{name: "denied selection", body: `{"task": "x", "select": ["risky"]}`, status: 422, code: compiler.ErrSelectionRejected},
		{name: "selection over budget", body: `{"task": "x", "select": ["tdd"], "budget": 1}`, status: 422, code: compiler.ErrSelectionRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, url, "", tc.body)
			if status != tc.status {
				t.Fatalf("status: got %d; want %d (%.300s)", status, tc.status, body)
			}
			if tc.code != "" {
				if got := errorCode(t, body); got != tc.code {
					t.Fatalf("code: got %s; want %s", got, tc.code)
				}
			}
		})
	}

	// Over the bound of compiles in flight: 429. Both places are taken.
	s.sem <- struct{}{}
	s.sem <- struct{}{}
	status, body = post(t, url, "", `{"task": "x"}`)
	<-s.sem
	<-s.sem
	if status != http.StatusTooManyRequests || errorCode(t, body) != ErrOverloaded {
		t.Fatalf("over the bound: got %d %s; want 429 %s", status, body, ErrOverloaded)
	}
}

// TestCompileDeadline: a compile past its deadline is 504 canceled.
func TestCompileDeadline(t *testing.T) {
	root, _ := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, Timeout: time.Nanosecond})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	status, body := post(t, ts.URL+"/v1/compile", "", `{"task": "write the failing test first"}`)
	if status != http.StatusGatewayTimeout || errorCode(t, body) != compiler.ErrCanceled {
		t.Fatalf("got %d %s; want 504 %s", status, body, compiler.ErrCanceled)
	}
}

// TestCompileContract: the server's answer is byte for byte what
// `rlmc compile --format json` prints for the same request and catalog.
func TestCompileContract(t *testing.T) {
	root, policy := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	p, err := compiler.LoadPolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{root}}, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compile(context.Background(), compiler.Request{Task: "deploy it", Select: []string{"tdd"}, Budget: 5000})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := compiler.WriteJSON(&want, res); err != nil {
		t.Fatal(err)
	}
	status, got := post(t, ts.URL+"/v1/compile", "", `{"task": "deploy it", "select": ["tdd"], "budget": 5000}`)
	if status != 200 || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("got %d:\n%s\nwant:\n%s", status, got, want.Bytes())
	}
	// The answer goes out whole, with its length, not in chunks.
	resp, err := http.Post(ts.URL+"/v1/compile", "application/json", strings.NewReader(`{"task": "deploy it", "select": ["tdd"], "budget": 5000}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ContentLength != int64(want.Len()) || len(resp.TransferEncoding) > 0 {
		t.Errorf("got Content-Length %d, transfer encoding %v; want %d, none", resp.ContentLength, resp.TransferEncoding, want.Len())
	}
}

// TestCompileCarried: a request's "carried" texts are what the
// conversation holds; a skill whose block one of them holds is given, not
// sent again, and a null among them is refused.
func TestCompileCarried(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", strings.Repeat("Write the failing test first, run it, watch it fail, then make it pass.\n", 10))
	s, ts := newTestServer(t, Config{Roots: []string{root}})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	compile := func(body string) (int, *compiler.Result) {
		t.Helper()
		status, data := post(t, ts.URL+"/v1/compile", "", body)
		var res compiler.Result
		if status == http.StatusOK {
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
		}
		return status, &res
	}
	_, first := compile(`{"task": "add the parser with test-driven development"}`)
	if len(first.Selected) != 1 || first.Selected[0].Rendering != compiler.RenderingInline {
		t.Fatalf("got %+v; want tdd inline", first.Selected)
	}
	held, _ := json.Marshal(first.Prompt)
	tests := []struct {
		name, carried string
		status        int
		want          compiler.Rendering
	}{
		{name: "its prompt", carried: `[` + string(held) + `]`, status: 200, want: compiler.RenderingGiven},
		{name: "another text", carried: `["hello"]`, status: 200, want: compiler.RenderingInline},
		{name: "a null", carried: `[null]`, status: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, res := compile(`{"task": "now the lexer, test-driven development", "carried": ` + tt.carried + `}`)
			if status != tt.status {
				t.Fatalf("got status %d; want %d", status, tt.status)
			}
			if status == 200 && (len(res.Selected) != 1 || res.Selected[0].Rendering != tt.want) {
				t.Errorf("got %+v; want tdd %s", res.Selected, tt.want)
			}
		})
	}
}

// TestAnswersFromMemory: the server answers a request it answered before
// from its catalog's memo, with the same bytes, and never answers an
// edited SKILL.md from memory.
func TestAnswersFromMemory(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", "Write the failing test first.")
	s, ts := newTestServer(t, Config{Roots: []string{root}})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	req := compiler.Request{Task: "add the parser with test-driven development"}
	a, errA := s.Live().Compile(context.Background(), req)
	b, errB := s.Live().Compile(context.Background(), req)
	if errA != nil || errB != nil || a != b {
		t.Fatalf("got %p, %v and %p, %v; want one result, answered the second time from memory", a, errA, b, errB)
	}
	body := `{"task": "add the parser with test-driven development"}`
	_, first := post(t, ts.URL+"/v1/compile", "", body)
	_, again := post(t, ts.URL+"/v1/compile", "", body)
	if !bytes.Equal(first, again) || !bytes.Contains(first, []byte("Write the failing test first.")) {
		t.Fatalf("got %s and %s; want the same answer with the body", first, again)
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The second Live compile and both requests, the same request as
	// those.
	if !bytes.Contains(metrics, []byte("rlmc_compiles_from_memory_total 3\n")) {
		t.Errorf("got metrics without 3 compiles from memory:\n%s", metrics)
	}
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", "Edited: run the whole suite.")
	status, edited := post(t, ts.URL+"/v1/compile", "", body)
	if status != http.StatusOK || !bytes.Contains(edited, []byte("Edited: run the whole suite.")) {
		t.Fatalf("after an edit: got %d %s; want the edited body", status, edited)
	}
}

// TestToken: with a token, every endpoint requires it; a wrong one, or
// one of another length, is refused.
func TestToken(t *testing.T) {
	root, _ := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, Token: "s3cret-token"})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method, path, header string
		status                     int
	}{
		{name: "no header", path: "/v1/compile", status: 401},
		{name: "wrong token", path: "/v1/compile", header: "Bearer s3cret-tokeN", status: 401},
		{name: "prefix of the token", path: "/v1/compile", header: "Bearer s3cret", status: 401},
		{name: "not bearer", path: "/v1/compile", header: "Basic s3cret-token", status: 401},
		{name: "right token", path: "/v1/compile", header: "Bearer s3cret-token", status: 200},
		{name: "scheme in lower case", path: "/v1/compile", header: "bearer s3cret-token", status: 200},
		{name: "healthz answers without it", path: "/healthz", status: 200},
		{name: "readyz answers without it", path: "/readyz", status: 200},
		{name: "a HEAD of readyz answers without it", method: http.MethodHead, path: "/readyz", status: 200},
		{name: "a HEAD of healthz answers without it", method: http.MethodHead, path: "/healthz", status: 200},
		{name: "an OPTIONS of readyz needs it", method: http.MethodOptions, path: "/readyz", status: 401},
		{name: "metrics needs it too", path: "/metrics", status: 401},
		{name: "metrics with it", path: "/metrics", header: "Bearer s3cret-token", status: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodGet
			if tc.method != "" {
				method = tc.method
			}
			var body io.Reader
			if tc.path == "/v1/compile" {
				method, body = http.MethodPost, strings.NewReader(`{"task": "x"}`)
			}
			req, _ := http.NewRequest(method, ts.URL+tc.path, body)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("got %d; want %d", resp.StatusCode, tc.status)
			}
		})
	}
}

// TestAddrNeedsToken: only a loopback address is served without a token.
func TestAddrNeedsToken(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{addr: "127.0.0.1:8787", ok: true},
		{addr: "127.0.0.2:8787", ok: true},
		{addr: "[::1]:8787", ok: true},
		{addr: "localhost:8787", ok: true},
		{addr: "0.0.0.0:8787"},
		{addr: ":8787"},
		{addr: "[::]:8787"},
		{addr: "192.0.2.1:8787"},
		{addr: "example.com:8787"},
		{addr: "no-port"},
		{addr: "0.0.0.0:8787", token: "t", ok: true},
	} {
		t.Run(tc.addr+"/"+tc.token, func(t *testing.T) {
			_, err := New(Config{Addr: tc.addr, Token: tc.token, Logger: quietLogger()})
			var ce *ConfigError
			if tc.ok && err != nil || !tc.ok && !errors.As(err, &ce) {
				t.Fatalf("got %v; want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestSocket: the unix socket is 0600, serves, and is removed at shutdown;
// Run returns nil once its context ends.
func TestSocket(t *testing.T) {
	root, _ := smallCatalog(t)
	dir, err := os.MkdirTemp("", "rlmc") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Socket: sock, Roots: []string{root}, Logger: quietLogger()})
	}()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := client.Get("http://rlmc/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 10s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	info, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("socket mode: got %o; want 600", perm)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: got %v; want nil after the context ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10s after its context ended")
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// TestCatalogAndProbes: /v1/catalog describes the catalog serving, the
// probes answer, and /metrics holds the documented series.
func TestCatalogAndProbes(t *testing.T) {
	root, policy := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy})
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	if status, _ := get("/readyz"); status != 503 {
		t.Fatalf("readyz before the catalog: got %d; want 503", status)
	}
	if status, _ := get("/healthz"); status != 200 {
		t.Fatalf("healthz: got %d; want 200", status)
	}
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	status, body := get("/readyz")
	var ready struct {
		Ready              bool   `json:"ready"`
		CatalogFingerprint string `json:"catalog_fingerprint"`
		PolicyFingerprint  string `json:"policy_fingerprint"`
	}
	// The probes answer without the token: the policy's fingerprint, a
	// hash of what it denies, is for those who hold it (/v1/catalog).
	if err := json.Unmarshal([]byte(body), &ready); err != nil || status != 200 || !ready.Ready {
		t.Fatalf("readyz: got %d %s; want 200, ready", status, body)
	}
	if c := s.Live().Current(); ready.CatalogFingerprint != c.CatalogFingerprint() || ready.PolicyFingerprint != "" {
		t.Fatalf("readyz: got %s; want the catalog's fingerprint and not the policy's", body)
	}
	status, body = get("/v1/catalog")
	var doc catalogDoc
	if err := json.Unmarshal([]byte(body), &doc); err != nil || status != 200 {
		t.Fatalf("catalog: got %d %v", status, err)
	}
	if doc.CatalogFingerprint != s.Live().Current().CatalogFingerprint() || doc.PolicyFingerprint != s.Live().Current().PolicyFingerprint() || len(doc.Units) != 3 || doc.LoadedAt.IsZero() || doc.Generation != 1 {
		t.Fatalf("catalog: got %+v", doc)
	}
	post(t, ts.URL+"/v1/compile", "", `{"task": "write the failing test first, test-driven development"}`)
	post(t, ts.URL+"/v1/compile", "", `{"task": "x", "select": ["nope"]}`)
	s.Live().Reload()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, metrics := get("/metrics")
		if strings.Contains(metrics, "rlmc_catalog_reloads_total 1") {
			for _, want := range []string{
				"rlmc_compile_duration_seconds_count 2",
				`rlmc_compiles_total{decision="route"} 1`,
				`rlmc_compiles_total{decision="error"} 1`,
				`rlmc_compile_errors_total{code="unknown_unit"} 1`,
				"rlmc_catalog_reload_failures_total 0",
				"rlmc_catalog_units 3",
			} {
				if !strings.Contains(metrics, want) {
					t.Errorf("metrics lack %q", want)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no reload counted after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTasksNotLogged: a task's text reaches the log only with LogTasks.
func TestTasksNotLogged(t *testing.T) {
	root, _ := smallCatalog(t)
	for _, logTasks := range []bool{false, true} {
		var log lockedBuffer
		s, ts := newTestServer(t, Config{Roots: []string{root}, LogTasks: logTasks, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
		if err := s.Watch(context.Background()); err != nil {
			t.Fatal(err)
		}
		post(t, ts.URL+"/v1/compile", "", `{"task": "secret-words-of-the-user"}`)
		post(t, ts.URL+"/v1/compile", "", `{"task": "secret-words-of-the-user", "select": ["nope"]}`)
		// Each compile is logged before its answer is written.
		if got := strings.Contains(log.String(), "secret-words-of-the-user"); got != logTasks {
			t.Fatalf("LogTasks %v: task in the log: got %v; want %v", logTasks, got, logTasks)
		}
	}
}

// lockedBuffer is a bytes.Buffer that handlers may write while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRunReloadsOnSignal: each value on Config.Reload (SIGHUP in rlmc
// serve) forces a reload, and Run returns nil when its context ends.
func TestRunReloadsOnSignal(t *testing.T) {
	root, _ := smallCatalog(t)
	hup := make(chan os.Signal, 1)
	addr := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Addr: "127.0.0.1:0", Roots: []string{root}, Reload: hup, Logger: quietLogger(),
			Listening: func(a net.Addr) { addr <- a }})
	}()
	url := "http://" + (<-addr).String()
	metric := func(name string) string {
		resp, err := http.Get(url + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				return v
			}
		}
		return ""
	}
	deadline := time.Now().Add(10 * time.Second)
	for metric("rlmc_catalog_units") != "3" {
		if time.Now().After(deadline) {
			t.Fatal("no catalog after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	hup <- os.Interrupt // any value: rlmc serve sends SIGHUP
	for metric("rlmc_catalog_reloads_total") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("no reload 10s after the signal")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v; want nil", err)
	}
}

// TestRunDrains: a compile in flight when the context ends (SIGTERM)
// finishes and is answered before Run returns nil.
func TestRunDrains(t *testing.T) {
	root, _ := smallCatalog(t)
	addr := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Addr: "127.0.0.1:0", Roots: []string{root}, Logger: quietLogger(),
			Listening: func(a net.Addr) { addr <- a }})
	}()
	url := "http://" + (<-addr).String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("not ready after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The request's body arrives in two parts; the shutdown starts
	// between them, while the handler is reading it.
	body, w := io.Pipe()
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/v1/compile", "application/json", body)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	io.WriteString(w, `{"task": "write the failing`)
	time.Sleep(100 * time.Millisecond) // the handler is reading the body
	cancel()
	time.Sleep(100 * time.Millisecond) // Shutdown is waiting for it
	select {
	case err := <-done:
		t.Fatalf("Run returned %v with a request in flight", err)
	default:
	}
	io.WriteString(w, ` test first"}`)
	w.Close()
	if status := <-answered; status != 200 {
		t.Fatalf("the request in flight: got status %d; want 200", status)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v; want nil", err)
	}
}

// TestKeyNamedInError: a refused key is named, so the client can fix it.
func TestKeyNamedInError(t *testing.T) {
	root, _ := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, body := post(t, ts.URL+"/v1/compile", "", `{"task": "x", "deny": ["tdd"], "deny": []}`)
	if !strings.Contains(string(body), `\"deny\"`) {
		t.Errorf("got %s; want the message to name the key \"deny\"", body)
	}
}

// TestRebindingRefused: without a token, a request whose Host is a name a
// web page rebound to 127.0.0.1 reads no catalog and compiles nothing;
// a page of another origin is refused too.
func TestRebindingRefused(t *testing.T) {
	root, _ := smallCatalog(t)
	var logs lockedBuffer
	s, ts := newTestServer(t, Config{Roots: []string{root}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method, path, host, origin string
		code                             compiler.ErrorCode
	}{
		{"catalog by a rebound name", http.MethodGet, "/v1/catalog", "rebind.attacker.example:8787", "", "forbidden_host"},
		{"compile by a rebound name", http.MethodPost, "/v1/compile", "rebind.attacker.example:8787", "", "forbidden_host"},
		{"compile from another origin", http.MethodPost, "/v1/compile", "", "https://attacker.example", "cross_origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(`{"task": "deploy the service", "select": ["deploy"]}`))
			req.Header.Set("Content-Type", "text/plain")
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || errorCode(t, data) != tc.code {
				t.Fatalf("got %d %s; want 403 %s", resp.StatusCode, data, tc.code)
			}
		})
	}
	// The operator sees the probing: counted by code, and logged.
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`rlmc_requests_refused_total{code="forbidden_host"} 2`, `rlmc_requests_refused_total{code="cross_origin"} 1`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics: got no line %q", want)
		}
	}
	if got := strings.Count(logs.String(), "msg=\"request refused\""); got != 3 {
		t.Errorf("got %d refusals logged; want 3:\n%s", got, logs.String())
	}
}

// TestSlowUploadsHoldNoSlot: clients that send half a body and stall do
// not take the compile slots; a real compile beside them is answered.
func TestSlowUploadsHoldNoSlot(t *testing.T) {
	root, _ := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, MaxInflight: 2})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(ts.URL, "http://")
	for range 8 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST /v1/compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{\"task\": \"")
	}
	time.Sleep(100 * time.Millisecond) // let the handlers start reading
	status, body := post(t, ts.URL+"/v1/compile", "", `{"task": "write the failing test first, test-driven development"}`)
	if status != http.StatusOK {
		t.Fatalf("a compile beside stalled uploads: got %d %.200s; want 200", status, body)
	}
}

// TestUnknownDenyWarned: a deny naming no unit is answered with an
// unknown_policy_unit warning; it was silently ignored.
func TestUnknownDenyWarned(t *testing.T) {
	root, _ := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	status, body := post(t, ts.URL+"/v1/compile", "", `{"task": "write the failing test first, test-driven development", "deny": ["TDD", "deploy"]}`)
	if status != http.StatusOK {
		t.Fatalf("got %d %s; want 200", status, body)
	}
	var res struct {
		Diagnostics []struct {
			Code    string `json:"code"`
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range res.Diagnostics {
		if d.Code == "unknown_policy_unit" && d.Path == "deny" {
			n++
			if !strings.Contains(d.Message, "TDD") {
				t.Errorf("the warning does not name TDD: %q", d.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("unknown_policy_unit warnings for deny: got %d; want 1 (TDD; deploy is a unit)", n)
	}
}

// TestCompileListing: by default an answer lists the rejected units a rule
// decided about and counts the others; why lists the units it names (an
// unknown name is warned about, as a deny's), all_rejected every unit,
// and neither changes the decision.
func TestCompileListing(t *testing.T) {
	root, policy := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		Schema      int    `json:"schema"`
		Fingerprint string `json:"fingerprint"`
		Rejected    []struct {
			Name    string `json:"name"`
			Reasons []struct {
				Code string `json:"code"`
			} `json:"reasons"`
		} `json:"rejected"`
		Unlisted    map[string]int `json:"unlisted"`
		Diagnostics []struct {
			Code string `json:"code"`
			Path string `json:"path"`
		} `json:"diagnostics"`
	}
	tests := []struct {
		name, body string
		rejected   string // name:code of each listed entry
		unlisted   map[string]int
		warned     int // unknown_policy_unit warnings with path why
	}{
		{"default", `{"task": "write the failing test first, test-driven development"}`, "risky:denied", map[string]int{"no_evidence": 1}, 0},
		{"why", `{"task": "write the failing test first, test-driven development", "why": ["deploy", "nope"]}`, "deploy:no_evidence risky:denied", map[string]int{}, 1},
		{"all rejected", `{"task": "write the failing test first, test-driven development", "all_rejected": true}`, "deploy:no_evidence risky:denied", map[string]int{}, 0},
		{"all rejected false", `{"task": "write the failing test first, test-driven development", "all_rejected": false}`, "risky:denied", map[string]int{"no_evidence": 1}, 0},
		{"why repeated", `{"task": "x", "why": ["deploy"], "why": []}`, "", nil, 0},
	}
	var fingerprint string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, ts.URL+"/v1/compile", "", tt.body)
			if tt.unlisted == nil {
				if status != http.StatusBadRequest {
					t.Fatalf("got %d %s; want 400", status, body)
				}
				return
			}
			if status != http.StatusOK {
				t.Fatalf("got %d %s; want 200", status, body)
			}
			var a answer
			if err := json.Unmarshal(body, &a); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range a.Rejected {
				got = append(got, r.Name+":"+r.Reasons[0].Code)
			}
			if strings.Join(got, " ") != tt.rejected {
				t.Errorf("got rejected %q; want %q", got, tt.rejected)
			}
			if a.Schema != compiler.Schema || a.Unlisted == nil || len(a.Unlisted) != len(tt.unlisted) || a.Unlisted["no_evidence"] != tt.unlisted["no_evidence"] {
				t.Errorf("got schema %d, unlisted %v; want schema %d, unlisted %v", a.Schema, a.Unlisted, compiler.Schema, tt.unlisted)
			}
			warned := 0
			for _, d := range a.Diagnostics {
				if d.Code == "unknown_policy_unit" && d.Path == "why" {
					warned++
				}
			}
			if warned != tt.warned {
				t.Errorf("got %d unknown_policy_unit warnings for why; want %d", warned, tt.warned)
			}
			if fingerprint == "" {
				fingerprint = a.Fingerprint
			} else if a.Fingerprint != fingerprint {
				t.Errorf("got fingerprint %s; want %s, the default's", a.Fingerprint, fingerprint)
			}
		})
	}
}

// TestReadyWithoutRoot: a root that vanished leaves the last good catalog
// serving without its bodies, so the server says it is not ready, with
// why, until the root is back.
func TestReadyWithoutRoot(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "skills")
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", "Write the failing test first.")
	s, ts := newTestServer(t, Config{Roots: []string{root}})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	ready := func(want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := http.Get(ts.URL + "/readyz")
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == want {
				if want == 503 && !strings.Contains(string(data), "does not exist") {
					t.Errorf("readyz: got %s; want the reload's error", data)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("readyz: got %d %s; want %d", resp.StatusCode, data, want)
			}
			s.Live().Reload()
			time.Sleep(50 * time.Millisecond)
		}
	}
	ready(200)
	if err := os.Rename(root, root+".gone"); err != nil {
		t.Fatal(err)
	}
	ready(503)
	if err := os.Rename(root+".gone", root); err != nil {
		t.Fatal(err)
	}
	ready(200)
}

// TestReadyRootLinkDangling: a root that is a link pointed at nothing
// fails the reload, but the folder the catalog was read from is still
// there, so its bodies are: the server stays ready.
func TestReadyRootLinkDangling(t *testing.T) {
	parent := t.TempDir()
	writeSkill(t, filepath.Join(parent, "r1"), "tdd", "Test-driven development: write the failing test first.", "Write the failing test first.")
	link := filepath.Join(parent, "cur")
	if err := os.Symlink("r1", link); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	s, ts := newTestServer(t, Config{Roots: []string{link}})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nothere", link); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.Live().LastError() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the reload did not fail within 10s")
		}
		s.Live().Reload()
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Get(ts.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("readyz: got %d; want 200, the bodies still there", resp.StatusCode)
	}
}

// TestWrongRoutes: another method on a route is a 405 naming the method it
// takes, and an unknown path a 404, both as the JSON error object every
// other failure is (net/http answered them in text).
func TestWrongRoutes(t *testing.T) {
	root, policy := smallCatalog(t)
	_, ts := newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy})
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/v1/compile", http.StatusMethodNotAllowed, "POST"},
		{"OPTIONS", "/v1/compile", http.StatusMethodNotAllowed, "POST"},
		{"POST", "/healthz", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"GET", "/v1/compiel", http.StatusNotFound, ""},
		// A path that is not clean is no route, not a bare 307 to one.
		{"POST", "//v1/compile", http.StatusNotFound, ""},
		{"POST", "/v1/./compile", http.StatusNotFound, ""},
		{"POST", "/v1/compile/", http.StatusNotFound, ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var doc struct{ Error struct{ Code string } }
			err = json.NewDecoder(resp.Body).Decode(&doc)
			if resp.StatusCode != tc.status || err != nil || doc.Error.Code != string(compiler.ErrInvalidRequest) || resp.Header.Get("Allow") != tc.allow {
				t.Errorf("got %d, Allow %q, %+v (%v); want %d, Allow %q, an invalid_request object", resp.StatusCode, resp.Header.Get("Allow"), doc, err, tc.status, tc.allow)
			}
		})
	}
}

// TestEncodedBodyRefused: a body sent with a Content-Encoding is answered
// 415, not read as JSON; "identity" is no encoding.
func TestEncodedBodyRefused(t *testing.T) {
	root, policy := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		encoding string
		status   int
	}{
		{"gzip", http.StatusUnsupportedMediaType},
		{"br", http.StatusUnsupportedMediaType},
		{"identity", http.StatusOK},
		{"", http.StatusOK},
	} {
		t.Run(tc.encoding, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/v1/compile", strings.NewReader(`{"task": "write the failing test first"}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.encoding != "" {
				req.Header.Set("Content-Encoding", tc.encoding)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("got %d (%s); want %d", resp.StatusCode, body, tc.status)
			}
			if tc.status != http.StatusOK {
				if got := errorCode(t, body); got != compiler.ErrInvalidRequest {
					t.Fatalf("code: got %s; want %s", got, compiler.ErrInvalidRequest)
				}
			}
		})
	}
}

func TestTurns(t *testing.T) {
	tr := newTurns(1)
	first := tr.take(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	tr.take(ctx)() // no turn is free: it waits until ctx ends, and gives back nothing
	if got := len(tr); got != 1 {
		t.Fatalf("got %d turns taken; want 1", got)
	}
	taken := make(chan func())
	go func() { taken <- tr.take(context.Background()) }()
	select {
	case <-taken:
		t.Fatal("got a second turn while the first was held; want it to wait")
	case <-time.After(10 * time.Millisecond):
	}
	first()
	(<-taken)()
	if got := len(tr); got != 0 {
		t.Errorf("got %d turns taken; want 0", got)
	}
	if got := cap(newTurns(0)); got != 1 {
		t.Errorf("got %d turns for 0; want 1", got)
	}
}

// TestLargestMaxInflight serves with --max-inflight as high as it goes, a
// user's "no limit": the bound on bodies read at once (MaxInflight bodies
// of MaxBodyBytes) wrapped to a negative budget, and every compile was
// answered 503 overloaded.
func TestLargestMaxInflight(t *testing.T) {
	root, policy := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy, MaxInflight: math.MaxInt})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if status, body := post(t, ts.URL+"/v1/compile", "", `{"task": "write the failing test first, test-driven development"}`); status != http.StatusOK {
		t.Fatalf("got %d %s; want 200", status, body)
	}
}

// TestCompilePanicGivesTurnBack: a compile that panics is answered 500
// internal_error, and gives its core's turn back: the turn was lost, and
// with one lost per core every later compile waited out its timeout.
func TestCompilePanicGivesTurnBack(t *testing.T) {
	root, _ := smallCatalog(t)
	s, ts := newTestServer(t, Config{Roots: []string{root}, Timeout: 20 * time.Second})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	testHookCompile = func() { panic("boom") }
	t.Cleanup(func() { testHookCompile = nil })
	for i := 0; i < cap(s.cores)+1; i++ {
		status, body := post(t, ts.URL+"/v1/compile", "", `{"task":"write the failing test first"}`)
		if code := errorCode(t, body); status != http.StatusInternalServerError || code != ErrInternal {
			t.Fatalf("compile %d: got %d %s; want 500 %s", i+1, status, code, ErrInternal)
		}
	}
	testHookCompile = nil
	if status, body := post(t, ts.URL+"/v1/compile", "", `{"task":"write the failing test first"}`); status != http.StatusOK {
		t.Fatalf("got %d %s after the panics; want 200", status, body)
	}
}

// TestRefusalsPaced: a page refused at the rate it sends is logged at the
// 1st, 2nd, 4th, 8th ... refusal of each code, not at every one.
func TestRefusalsPaced(t *testing.T) {
	var c refusalCounts
	var logged []uint64
	for range 20 {
		if n := c.add("forbidden_host"); n&(n-1) == 0 {
			logged = append(logged, n)
		}
	}
	if n := c.add("cross_origin"); n != 1 {
		t.Errorf("another code: got count %d; want 1", n)
	}
	if want := []uint64{1, 2, 4, 8, 16}; !slices.Equal(logged, want) {
		t.Errorf("got logged at %v; want %v", logged, want)
	}
}
