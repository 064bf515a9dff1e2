// Package server is `rlmc serve`: a warm, watched catalog (compiler.Watch)
// answering compiles over HTTP, for completion pipelines not written in Go.
//
// Whoever can reach the server is the host: a request's select and deny
// are trusted, as --select and --deny are on the command line. It must
// never be reachable by model output. It listens on loopback (or a unix
// socket created 0600) unless a bearer token is configured.
package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/httpsafe"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/reqjson"
	"github.com/rlmc-dev/rlmc/internal/strictjson"
	"github.com/rlmc-dev/rlmc/ir"
)

// Defaults of Config.
const (
	DefaultAddr         = "127.0.0.1:8787"
	DefaultTimeout      = 2 * time.Second
	DefaultMaxInflight  = 64
	DefaultDrainTimeout = 10 * time.Second
)

// MaxBodyBytes caps a request body: a task may be MaxTaskBytes (1 MiB)
// long in any JSON spelling, six bytes for each of its bytes at most
// (\u001b for a log's escape character; a pasted file's quotes and line
// breaks take two, a client that writes non-ASCII text as \u escapes
// three), and 64 KiB for the rest of the request. A cap of the task plus
// 64 KiB refused a pasted 600 KB of JSON as too large.
const MaxBodyBytes = 6*compiler.MaxTaskBytes + 64<<10

// bodyShare is what each of MaxInflight bodies being read may hold on
// average (a task of plain text at the cap, and the rest of the request):
// the bodies' budget is MaxInflight times it, so that the larger cap on
// one body does not raise what all of them hold; one body at the cap
// always fits.
const bodyShare = compiler.MaxTaskBytes + 64<<10

// bodyBudget is the budget of bytes the bodies being read hold (see
// bodyShare).
func bodyBudget(maxInflight int) *httpsafe.Budget {
	if b := httpsafe.NewBudgetOf(int64(maxInflight), bodyShare); b.Left() >= MaxBodyBytes {
		return b
	}
	return httpsafe.NewBudget(MaxBodyBytes)
}

// Error codes of the server itself, beside the compiler's, shared with
// `rlmc proxy` (httpsafe); each comes in the compile error object, with
// stage "serve".
const (
	ErrNotReady     = httpsafe.CodeNotReady     // 503: the first catalog is not loaded yet
	ErrOverloaded   = httpsafe.CodeOverloaded   // 429: MaxInflight compiles are running
	ErrUnauthorized = httpsafe.CodeUnauthorized // 401: a token is configured and the request lacks it
	ErrInternal     = httpsafe.CodeInternal     // 500: the compile failed inside rlmc (a bug)
)

// StageServe is the stage of an error raised by the server, not a compile.
const StageServe compiler.Stage = "serve"

// Config configures a server. Roots, PolicyFile and Debounce say what to
// watch; the rest how to serve.
type Config struct {
	Addr       string // host:port; DefaultAddr when neither Addr nor Socket is set
	Socket     string // a unix socket path, created 0600, instead of Addr
	Roots      []string
	PolicyFile string
	Debounce   time.Duration
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every request. Without it, only a loopback address or a socket
	// is accepted.
	Token        string
	Timeout      time.Duration // per compile; DefaultTimeout when zero
	MaxInflight  int           // concurrent compiles; DefaultMaxInflight when zero
	DrainTimeout time.Duration // how long shutdown waits for requests in flight
	LogTasks     bool          // log each task's text (never logged otherwise)
	Logger       *slog.Logger  // slog.Default() when nil
	// Reload forces a reload at each value received (SIGHUP).
	Reload <-chan os.Signal
	// Listening, when set, is called with the address once the server
	// listens (tests use it to learn a port chosen by the system).
	Listening func(net.Addr)
}

// ConfigError is a configuration the server refuses before it starts.
type ConfigError = httpsafe.ConfigError

// Server answers compiles against a live catalog. Handler serves HTTP;
// Run also listens, watches the catalog and shuts down gracefully.
type Server struct {
	cfg      Config
	log      *slog.Logger
	live     atomic.Pointer[compiler.Live]
	sem      chan struct{}
	cores    turns            // compiles running at once: one a core
	bodies   *httpsafe.Budget // bytes of request bodies held at once
	refusals refusalCounts    // refused requests by code, to pace their log lines
	token    httpsafe.Token
	reg      *prometheus.Registry
	m        *metrics
	handler  http.Handler
	loads    *httpsafe.CatalogLog // what each load tells the operator
}

// New checks cfg and returns a server with no catalog yet: it answers 503
// until Watch (or Run) loads one.
func New(cfg Config) (*Server, error) {
	if cfg.Addr != "" && cfg.Socket != "" {
		return nil, &ConfigError{Msg: "give --addr or --socket, not both"}
	}
	if cfg.Addr == "" && cfg.Socket == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxInflight <= 0 {
		cfg.MaxInflight = DefaultMaxInflight
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Addr != "" {
		if err := httpsafe.CheckAddr(cfg.Addr, cfg.Token != ""); err != nil {
			return nil, err
		}
	}
	s := &Server{cfg: cfg, log: cfg.Logger, sem: make(chan struct{}, cfg.MaxInflight), cores: newTurns(runtime.GOMAXPROCS(0)), token: httpsafe.NewToken(cfg.Token),
		bodies: bodyBudget(cfg.MaxInflight)}
	s.loads = &httpsafe.CatalogLog{Log: s.log, Consequence: "every compile answers no_route"}
	s.reg, s.m = newMetrics()
	s.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "rlmc_compiles_from_memory_total", Help: "Compiles answered from the catalog's memory of requests answered before (counted in rlmc_compiles_total too).",
	}, func() float64 { return float64(s.live.Load().MemoHits()) }))
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/compile", s.compile)
	mux.HandleFunc("GET /v1/catalog", s.catalog)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.metricsHandler())
	// Any other method on a route, and any other path, is the JSON error
	// object every other failure is, not net/http's text.
	for path, allow := range map[string]string{"/v1/compile": "POST", "/v1/catalog": "GET, HEAD", "/healthz": "GET, HEAD", "/readyz": "GET, HEAD", "/metrics": "GET, HEAD"} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			s.fail(w, http.StatusMethodNotAllowed, &compiler.Error{Stage: StageServe, Code: compiler.ErrInvalidRequest, Message: fmt.Sprintf("%s takes %s, not %s", path, allow, r.Method)})
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, http.StatusNotFound, &compiler.Error{Stage: StageServe, Code: compiler.ErrInvalidRequest, Message: fmt.Sprintf("no such route: %s (the routes are POST /v1/compile, GET /v1/catalog, /healthz, /readyz and /metrics)", ir.Printable(r.URL.Path))})
	})
	// A path that is not clean ("//v1/compile", "/v1/./compile") is not
	// redirected, as ServeMux does, with a bare 307 that a client
	// posting JSON does not follow: it is no route.
	routes := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p != "" && p != "/" && path.Clean(p) != p {
			s.fail(w, http.StatusNotFound, &compiler.Error{Stage: StageServe, Code: compiler.ErrInvalidRequest, Message: fmt.Sprintf("no such route: %s (not a clean path; the routes are POST /v1/compile, GET /v1/catalog, /healthz, /readyz and /metrics)", ir.Printable(p))})
			return
		}
		mux.ServeHTTP(w, r)
	})
	s.handler = s.authorize(httpsafe.Guard(routes, s.token.Set(), cfg.Socket != "", func(w http.ResponseWriter, req *http.Request, r httpsafe.Refusal) {
		s.refuse(w, req, r.Status, &compiler.Error{Stage: StageServe, Code: compiler.ErrorCode(r.Code), Message: r.Msg})
	}))
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Live returns the live catalog, nil before the first load.
func (s *Server) Live() *compiler.Live { return s.live.Load() }

// Watch loads the catalog and keeps it current until ctx ends or Close.
func (s *Server) Watch(ctx context.Context) error {
	start := time.Now()
	l, err := compiler.Watch(ctx, loader.Options{Roots: s.cfg.Roots}, compiler.Policy{}, compiler.LiveOptions{
		PolicyFile: s.cfg.PolicyFile,
		Debounce:   s.cfg.Debounce,
		OnReload:   s.reloaded,
		Memo:       compiler.ServeMemo,
	})
	if err != nil {
		return err
	}
	c := l.Current()
	s.m.units.Set(float64(len(c.Catalog().Units)))
	s.m.loadedAt.Set(float64(l.LoadedAt().UnixNano()) / 1e9)
	// Serving first, then the line: a client that starts on it is
	// answered.
	s.live.Store(l)
	s.log.Info("catalog loaded", "units", len(c.Catalog().Units), "catalog_fingerprint", c.CatalogFingerprint(), "policy_fingerprint", c.PolicyFingerprint(),
		"watched", l.Watched(), "duration_ms", ms(time.Since(start)))
	s.loads.Loaded(c)
	return nil
}

// reloaded records one reload in the metrics and the log.
func (s *Server) reloaded(r compiler.Reload) {
	s.m.reloadSeconds.Observe(r.Duration.Seconds())
	if r.Err != nil {
		s.m.reloadFailures.Inc()
		s.log.Error("catalog reload failed; the previous catalog keeps serving", "trigger", r.Trigger, "error", r.Err.Error(), "duration_ms", ms(r.Duration))
		return
	}
	s.m.reloads.Inc()
	s.m.units.Set(float64(len(r.Compiler.Catalog().Units)))
	s.m.loadedAt.Set(float64(r.At.UnixNano()) / 1e9)
	attrs := []any{"trigger", r.Trigger, "units", len(r.Compiler.Catalog().Units), "catalog_fingerprint", r.Compiler.CatalogFingerprint(), "policy_fingerprint", r.Compiler.PolicyFingerprint(),
		"watched", r.Watched, "duration_ms", ms(r.Duration)}
	if r.WatchErr != nil {
		attrs = append(attrs, "watch_error", r.WatchErr.Error())
	}
	s.log.Info("catalog reloaded", attrs...)
	s.loads.Loaded(r.Compiler)
}

// Close stops watching the catalog.
func (s *Server) Close() {
	if l := s.live.Load(); l != nil {
		l.Close()
	}
}

// authorize checks the bearer token, when one is configured, on every
// request (in constant time: see httpsafe.Token).
func (s *Server) authorize(next http.Handler) http.Handler {
	if !s.token.Set() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The probes tell only that the process answers and that a
		// catalog serves, and an orchestrator's probe cannot always send
		// a header (Kubernetes does not expand a secret in one). A HEAD
		// is a GET without its body, as load balancers' checks send it.
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz") {
			next.ServeHTTP(w, r)
			return
		}
		given, ok := httpsafe.Bearer(r.Header.Get("Authorization"))
		if !s.token.Matches(given) || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rlmc"`)
			s.refuse(w, r, http.StatusUnauthorized, &compiler.Error{Stage: StageServe, Code: ErrUnauthorized, Message: "a valid bearer token is required"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers a request refused before any route saw it (no token, a
// Host or Origin a browser page sends), and counts and logs it: an
// operator sees a page probing the server (DNS rebinding) or a client
// that lost its token, which only the client saw before.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, ce *compiler.Error) {
	s.m.refused.WithLabelValues(string(ce.Code)).Inc()
	// A page refused once is refused at the rate it sends: the 1st, 2nd,
	// 4th, 8th ... refusal of each code is logged, with its count, and
	// the counter counts them all.
	if n := s.refusals.add(string(ce.Code)); n&(n-1) == 0 {
		s.log.Warn("request refused", "status", status, "code", ce.Code, "count", n, "method", ir.Printable(r.Method), "path", ir.Printable(ir.Clip(r.URL.Path, 128)),
			"host", ir.Printable(ir.Clip(r.Host, 128)), "remote", r.RemoteAddr)
	}
	s.fail(w, status, ce)
}

// refusalCounts counts refused requests by code, for the log's pacing.
type refusalCounts struct {
	mu sync.Mutex
	n  map[string]uint64
}

// add counts one refusal of code and returns how many there were.
func (c *refusalCounts) add(code string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]uint64{}
	}
	c.n[code]++
	return c.n[code]
}

// compile answers POST /v1/compile with the compile JSON contract.
func (s *Server) compile(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	l := s.live.Load()
	if l == nil {
		w.Header().Set("Retry-After", "1")
		s.compileFailed(w, r, start, http.StatusServiceUnavailable, &compiler.Error{Stage: StageServe, Code: ErrNotReady, Message: "the catalog is not loaded yet"}, nil)
		return
	}
	// The body is read before a compile slot is taken, so that clients
	// sending slowly hold a connection and some of the body budget,
	// never a slot; the budget bounds the memory bodies hold.
	req, release, status, err := s.readRequest(w, r)
	defer release()
	if err != nil {
		defer httpsafe.Refusing(w, r, status)()
		code := compiler.ErrInvalidRequest
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
			code = ErrOverloaded
		}
		s.compileFailed(w, r, start, status, &compiler.Error{Stage: StageServe, Code: code, Message: err.Error()}, nil)
		return
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		w.Header().Set("Retry-After", "1")
		s.compileFailed(w, r, start, http.StatusTooManyRequests, &compiler.Error{Stage: StageServe, Code: ErrOverloaded,
			Message: fmt.Sprintf("%d compiles are running, the bound; retry later", s.cfg.MaxInflight)}, nil)
		return
	}
	s.m.inflight.Inc()
	defer s.m.inflight.Dec()
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	// A compile is work for a core from start to end: it waits for a core
	// of its own rather than share one (turns). A compile that runs out of
	// time while it waits is answered as canceled, by CompileIn.
	res, c, err := s.compileTurn(ctx, l, req.CompileRequest())
	if err != nil {
		var ce *compiler.Error
		if !errors.As(err, &ce) {
			ce = &compiler.Error{Stage: StageServe, Code: compiler.ErrInvalidRequest, Message: err.Error()}
		}
		status := httpsafe.StatusOf(ce, err)
		if s.loads.PolicyFault(c, ce) {
			status = http.StatusInternalServerError
		}
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		s.compileFailed(w, r, start, status, ce, &req)
		return
	}
	elapsed := time.Since(start)
	s.m.latency.Observe(elapsed.Seconds())
	s.m.decisions.WithLabelValues(string(res.Decision)).Inc()
	attrs := []any{"status", http.StatusOK, "decision", res.Decision, "selected", res.Names(), "catalog_fingerprint", res.CatalogFingerprint,
		"task_bytes", len(req.TaskText()), "duration_ms", ms(elapsed)}
	if s.cfg.LogTasks {
		attrs = append(attrs, "task", req.TaskText())
	}
	s.log.Info("compile", attrs...)
	w.Header().Set("Content-Type", "application/json")
	// The answer is written whole with its length: net/http then sends it
	// in one write instead of as chunks of its own buffer's size.
	buf := answers.Get().(*bytes.Buffer)
	defer answers.Put(buf)
	buf.Reset()
	if err := compiler.WriteJSON(buf, res); err != nil {
		s.log.Warn("writing a compile response", "error", err.Error())
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	if _, err := w.Write(buf.Bytes()); err != nil {
		s.log.Warn("writing a compile response", "error", err.Error())
	}
}

// answers holds buffers for compile answers: a few KB by default, more
// with all_rejected (about 210 KB for 1,000 units).
var answers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Request is the body of POST /v1/compile, as an `rlmc test` case's
// request is: each key spelt exactly and given once.
type Request = reqjson.Request

// bodyTimeout bounds how long a request body may take to arrive: a
// MaxBodyBytes body takes milliseconds on loopback.
const bodyTimeout = 10 * time.Second

// readRequest reads and decodes the request body: one JSON object whose
// keys are Request's exactly, each once (a misspelt or repeated deny must
// not pass for none, nor "SELECT" for select), at most MaxBodyBytes. The
// release gives the body's bytes back to the budget.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) (Request, func(), int, error) {
	var req Request
	// A compressed body is not decoded: read as JSON it would fail with
	// a message about its bytes, or, worse, a client might think it was.
	if enc := httpsafe.Encoding(r.Header); enc != "" {
		return req, func() {}, http.StatusUnsupportedMediaType, fmt.Errorf("the request body is encoded (Content-Encoding: %s); send it as plain JSON", ir.EscapeText(enc))
	}
	body, release, err := httpsafe.ReadBody(w, r, MaxBodyBytes, bodyTimeout, s.bodies)
	if err != nil {
		status := httpsafe.BodyStatus(err)
		if status == http.StatusRequestEntityTooLarge {
			err = fmt.Errorf("the request body is over %d bytes (a task is at most %d bytes: clip a longer one, as compiler.ClipTask does)", MaxBodyBytes, compiler.MaxTaskBytes)
		}
		return req, release, status, err
	}
	if err := strictjson.Unmarshal(body, &req); err != nil {
		return req, release, http.StatusBadRequest, fmt.Errorf("the request body is not a compile request: %w", strictjson.Explain(body, err))
	}
	if err := req.Check(); err != nil {
		return req, release, http.StatusBadRequest, fmt.Errorf("the request %w", err)
	}
	return req, release, 0, nil
}

// compileFailed answers a compile with an error object, and records it.
func (s *Server) compileFailed(w http.ResponseWriter, _ *http.Request, start time.Time, status int, ce *compiler.Error, req *Request) {
	elapsed := time.Since(start)
	s.m.latency.Observe(elapsed.Seconds())
	s.m.decisions.WithLabelValues("error").Inc()
	s.m.errors.WithLabelValues(string(ce.Code)).Inc()
	attrs := []any{"status", status, "code", ce.Code, "stage", string(ce.Stage), "duration_ms", ms(elapsed)}
	if ce.Unit != "" {
		attrs = append(attrs, "unit", ce.Unit)
	}
	if req != nil {
		attrs = append(attrs, "task_bytes", len(req.TaskText()))
		if s.cfg.LogTasks {
			attrs = append(attrs, "task", req.TaskText())
		}
	}
	s.log.Warn("compile failed", attrs...)
	s.fail(w, status, ce)
}

// fail writes the compile error object with status.
func (s *Server) fail(w http.ResponseWriter, status int, ce *compiler.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	compiler.WriteJSON(w, compiler.ErrorDocument(ce))
}

// catalogDoc is GET /v1/catalog.
type catalogDoc struct {
	Schema             int            `json:"schema"`
	CatalogFingerprint string         `json:"catalog_fingerprint"`
	PolicyFingerprint  string         `json:"policy_fingerprint"`
	LoadedAt           time.Time      `json:"loaded_at"`
	Generation         uint64         `json:"generation"`
	LastReloadError    string         `json:"last_reload_error,omitempty"`
	Units              []ir.Summary   `json:"units"`
	Diagnostics        ir.Diagnostics `json:"diagnostics"`
}

func (s *Server) catalog(w http.ResponseWriter, _ *http.Request) {
	l := s.live.Load()
	if l == nil {
		w.Header().Set("Retry-After", "1")
		s.fail(w, http.StatusServiceUnavailable, &compiler.Error{Stage: StageServe, Code: ErrNotReady, Message: "the catalog is not loaded yet"})
		return
	}
	// One read of the current state, so that every field describes the
	// same catalog.
	c, at, gen := l.Snapshot()
	doc := catalogDoc{Schema: compiler.Schema, CatalogFingerprint: c.CatalogFingerprint(), PolicyFingerprint: c.PolicyFingerprint(), LoadedAt: at.UTC(), Generation: gen,
		Units: []ir.Summary{}, Diagnostics: c.Diagnostics()}
	if err := l.LastError(); err != nil {
		doc.LastReloadError = err.Error()
	}
	if doc.Diagnostics == nil {
		doc.Diagnostics = ir.Diagnostics{}
	}
	for _, u := range c.Catalog().Units {
		doc.Units = append(doc.Units, c.Summary(u))
	}
	w.Header().Set("Content-Type", "application/json")
	compiler.WriteJSON(w, doc)
}

func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	l := s.live.Load()
	if l == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		compiler.WriteJSON(w, map[string]any{"ready": false})
		return
	}
	// A root that vanished leaves the last good catalog serving, but not
	// its bodies when the folder they were read from went with it: every
	// compile that selects a skill would fail, so a balancer should send
	// the traffic elsewhere until the root is back. A root link left
	// dangling while its old target stays, or any other failed reload (a
	// policy that no longer parses), leaves a catalog that serves.
	var re *loader.RootError
	if err := l.LastError(); errors.As(err, &re) && !bodiesThere(l.Current().Catalog()) {
		w.WriteHeader(http.StatusServiceUnavailable)
		compiler.WriteJSON(w, map[string]any{"ready": false, "error": err.Error()})
		return
	}
	c := l.Current()
	if why := httpsafe.Unselectable(c); why != "" {
		// Every compile would answer no_route: a replica whose skills
		// volume is missing or empty, or whose skills all broke, must not
		// take traffic as if it served them. It is ready once a skill
		// can be selected.
		w.WriteHeader(http.StatusServiceUnavailable)
		compiler.WriteJSON(w, map[string]any{"ready": false, "error": why, "catalog_fingerprint": c.CatalogFingerprint()})
		return
	}
	if why := s.loads.FailingFor(c); why != "" {
		// Every compile would fail (a mandatory unit renamed away, say):
		// no more ready than a catalog that selects nothing.
		w.WriteHeader(http.StatusServiceUnavailable)
		compiler.WriteJSON(w, map[string]any{"ready": false, "error": why, "catalog_fingerprint": c.CatalogFingerprint()})
		return
	}
	compiler.WriteJSON(w, map[string]any{"ready": true, "catalog_fingerprint": c.CatalogFingerprint()})
}

// bodiesThere reports whether every folder cat's units were read from
// (their roots, symlinks resolved) is still a folder: the bodies a compile
// reads again are there to read.
func bodiesThere(cat *ir.Catalog) bool {
	seen := map[string]bool{}
	for _, u := range cat.Units {
		if u.RootDir == "" || seen[u.RootDir] {
			continue
		}
		seen[u.RootDir] = true
		if info, err := os.Stat(u.RootDir); err != nil || !info.IsDir() {
			return false
		}
	}
	return true
}

func ms(d time.Duration) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64), 64)
	return f
}

// compileTurn compiles req on a core's turn (turns), which it gives back
// however the compile ends. A compile that panics is answered as an
// internal error: net/http recovered the panic, but the turn was never
// given back, and with one lost per core every later compile waited out
// its timeout while /readyz said ready.
func (s *Server) compileTurn(ctx context.Context, l *compiler.Live, req compiler.Request) (res *compiler.Result, c *compiler.Compiler, err error) {
	done := s.cores.take(ctx)
	defer done()
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("compile panicked; answered as an internal error", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			res, err = nil, &compiler.Error{Stage: StageServe, Code: ErrInternal, Message: fmt.Sprintf("internal error: %v (a bug in rlmc: please report it, with the request)", v)}
		}
	}()
	if testHookCompile != nil {
		testHookCompile()
	}
	return l.CompileIn(ctx, req)
}

// testHookCompile, when set by a test, runs in each compile's turn.
var testHookCompile func()

// turns lets a bounded number of goroutines run at once and queues the
// others in the order they came. Compiles use all of a core while they
// run and never wait on anything: more of them at once than there are
// cores only share the cores, every compile in flight then takes as long
// as all of them, and the last to finish waits longest. Measured with 16
// clients at 5,000 skills on 2 cores (internal/bench/startup): the same
// 550 compiles/s, p50 10.9 ms and p99 168 ms sharing, p50 27 ms and p99
// 69 ms taking turns.
type turns chan struct{}

func newTurns(n int) turns { return make(turns, max(n, 1)) }

// take waits for a turn and returns the function that gives it back, or,
// when ctx ends first, a function that does nothing.
func (t turns) take(ctx context.Context) (done func()) {
	select {
	case t <- struct{}{}:
		return func() { <-t }
	case <-ctx.Done():
		return func() {}
	}
}
