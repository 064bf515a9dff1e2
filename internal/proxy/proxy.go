// Package proxy is `rlmc proxy`: an HTTP proxy in front of an OpenAI- or
// Anthropic-compatible API that puts the skills each completion needs into
// it, so that any client that lets its user set a base URL gets skills
// without a line of code.
//
// It edits three calls: OpenAI Chat Completions, OpenAI Responses and
// Anthropic Messages. Each user turn's skill block is attached to that
// turn (PlacementTurn), so that what a provider caches of a conversation
// is sent again unchanged, or put in front of the system prompt
// (PlacementSystem). It only inserts bytes into the request as the client
// wrote it; every other path, and every call for which nothing is
// selected, reaches the upstream byte for byte. It never adds, removes or
// changes tools, and offers the model no tool to load a skill: the skills
// are chosen by the compiler and the host, never by the model.
//
// Whoever can reach the proxy is the host: its X-Rlmc-Select and
// X-Rlmc-Deny headers are trusted, as --select and --deny are on the
// command line. Like `rlmc serve`, it listens on loopback (or a unix
// socket created 0600) unless a token is configured.
package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/httpsafe"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/lru"
)

// Defaults of Config.
const (
	DefaultAddr    = "127.0.0.1:8788"
	DefaultTimeout = 2 * time.Second
	// DefaultMaxBodyBytes caps a request body the proxy reads to edit:
	// completions carry images and documents inline, so the cap is far
	// above the compile server's. Paths the proxy does not edit stream
	// through without a cap.
	DefaultMaxBodyBytes = 32 << 20
	DefaultDrainTimeout = 10 * time.Second
	// DefaultBodyTimeout bounds how long a completion body may take to
	// arrive: 32 MiB takes well under a second on loopback, and a client
	// that stalls must not hold its share of the body budget for long.
	DefaultBodyTimeout = 30 * time.Second
	// bodyBudgetFactor: the bodies read at once may hold this many
	// MaxBodyBytes in all; past it a completion is a 503 until one ends.
	bodyBudgetFactor = 8
)

// Request headers the host sets. The proxy removes every X-Rlmc-* header
// before forwarding a request.
const (
	// HeaderSelect names skills the host selects, comma separated
	// (trusted, as --select): a selection that cannot be honored is a
	// 422, never a call without it.
	HeaderSelect = "X-Rlmc-Select"
	// HeaderDeny names skills the host denies for this call.
	HeaderDeny = "X-Rlmc-Deny"
	// HeaderSkip, set to 1 (or true), forwards the call without skills.
	HeaderSkip = "X-Rlmc-Skip"
	// HeaderToken carries the proxy's token when one is configured.
	// Authorization is not used for it: it belongs to the upstream.
	HeaderToken = "X-Rlmc-Token"
)

// Response headers the proxy sets on the calls it edits.
const (
	HeaderDecision    = "X-Rlmc-Decision"    // route, no_route, ambiguous, or one of the Decision* below
	HeaderSelected    = "X-Rlmc-Selected"    // the skills in the block, comma separated, in block order
	HeaderFingerprint = "X-Rlmc-Fingerprint" // the compile's fingerprint
	HeaderAmbiguous   = "X-Rlmc-Ambiguous"   // on ambiguous: the rivals, comma separated
	// HeaderTaskClipped says, as "N of M bytes", that the task (the last
	// user message) was over compiler.MaxTaskBytes and the skills were
	// compiled from N bytes of its start and end (compiler.ClipTask).
	HeaderTaskClipped = "X-Rlmc-Task-Clipped"
	// HeaderPlacement says "system" when a call under turn placement had
	// its block put in the system prompt instead: a conversation too long
	// to place turn by turn within the compile deadline (--timeout, for
	// all of the call's compiles) or whose body with every turn's block
	// would be over --max-body.
	HeaderPlacement = "X-Rlmc-Placement"
	// HeaderUnknownDeny names, comma separated, the X-Rlmc-Deny names no
	// unit answers to (names are exact: a misspelt denial denies nothing).
	HeaderUnknownDeny = "X-Rlmc-Unknown-Deny"
)

// Decisions of calls that were not compiled; each reaches the upstream
// byte for byte.
const (
	DecisionSkipped   = "skipped"    // X-Rlmc-Skip
	DecisionNoCatalog = "no_catalog" // the first catalog is not loaded yet
	DecisionUnread    = "unread"     // the body is not a JSON object, or is compressed in a way the proxy does not read
	// DecisionCount: a token count (countEdits), compiled for nothing.
	DecisionCount = "count"
)

// StageProxy is the stage of an error raised by the proxy itself.
const StageProxy compiler.Stage = "proxy"

// ErrUpstream is the code of a 502: the upstream could not be reached or
// gave no response.
const ErrUpstream = "upstream_unreachable"

// Config configures a proxy.
type Config struct {
	// Upstream is the API the proxy forwards to; a request's path is
	// appended to its path.
	Upstream   *url.URL
	Addr       string // host:port; DefaultAddr when neither Addr nor Socket is set
	Socket     string // a unix socket path, created 0600, instead of Addr
	Roots      []string
	PolicyFile string
	Debounce   time.Duration
	// Token, when set, is required in the X-Rlmc-Token header of every
	// request. Without it, only a loopback address or a socket is
	// accepted.
	Token        string
	Timeout      time.Duration // per compile (never the upstream call); DefaultTimeout when zero
	MaxBodyBytes int64         // DefaultMaxBodyBytes when zero
	BodyTimeout  time.Duration // how long a completion body may take to arrive; DefaultBodyTimeout when zero
	DrainTimeout time.Duration
	// Placement says where the skill block goes; PlacementTurn when
	// empty.
	Placement Placement
	// Memory caps each of the proxy's memories (earlier turns' blocks,
	// Responses conversations by response id); DefaultMemory when zero.
	Memory int
	// Audit, when set, records each compile of a call's task (the
	// trajectory); earlier turns compiled again under PlacementTurn are
	// not recorded again.
	Audit  *compiler.Audit
	Logger *slog.Logger // slog.Default() when nil
	// Transport carries requests to the upstream; a clone of
	// http.DefaultTransport when nil.
	Transport http.RoundTripper
	// Reload forces a catalog reload at each value received (SIGHUP).
	Reload <-chan os.Signal
	// Listening, when set, is called with the address once Run listens.
	Listening func(net.Addr)
}

// Proxy forwards completions with skills. It is an http.Handler.
type Proxy struct {
	cfg     Config
	log     *slog.Logger
	live    atomic.Pointer[compiler.Live]
	rp      *httputil.ReverseProxy
	token   httpsafe.Token
	bodies  *httpsafe.Budget // bytes of completion bodies held at once
	handler http.Handler
	seed    maphash.Seed
	blocks  *lru.Cache[blockKey, string]      // earlier user turns' blocks (PlacementTurn)
	convs   *lru.Cache[string, *conversation] // Responses conversations, by response id
	loads   *httpsafe.CatalogLog              // what each load tells the operator
	misses  sync.Map                          // near-miss paths warned about (warnNearMiss)
	nmisses atomic.Int32                      // how many misses holds
	sockets sync.Once                         // a WebSocket completion warned about (warnSocket)
	epoch   atomic.Pointer[epoch]             // the catalog earlier turns' blocks were compiled from (epochOf)
}

// epoch numbers the catalogs blocks are compiled from: a Live's
// generation, but kept across a reload that changes nothing a compile
// reads (compiler.Compiler.Equivalent), so that earlier turns' blocks stay
// remembered when a file written under a root (a log, a trajectory)
// reloads the catalog.
type epoch struct {
	gen uint64
	c   *compiler.Compiler
	n   uint64
}

// epochOf returns the number of live's current catalog (see epoch).
func (p *Proxy) epochOf(live *compiler.Live) uint64 {
	c, _, gen := live.Snapshot()
	for {
		old := p.epoch.Load()
		if old != nil && old.gen == gen {
			return old.n
		}
		next := &epoch{gen: gen, c: c, n: 1}
		if old != nil {
			next.n = old.n + 1
			if c != nil && old.c != nil && old.c.Equivalent(c) {
				next.n = old.n
			}
		}
		if p.epoch.CompareAndSwap(old, next) {
			return next.n
		}
	}
}

// New checks cfg and returns a proxy with no catalog yet: until Watch (or
// Run) loads one, calls are forwarded without skills (a selection is a
// 503).
func New(cfg Config) (*Proxy, error) {
	if cfg.Upstream == nil || cfg.Upstream.Scheme == "" || cfg.Upstream.Host == "" {
		return nil, &httpsafe.ConfigError{Msg: "--upstream must be an absolute URL, such as https://api.openai.com"}
	}
	if cfg.Upstream.Scheme != "http" && cfg.Upstream.Scheme != "https" {
		return nil, &httpsafe.ConfigError{Msg: fmt.Sprintf("--upstream %s: the scheme must be http or https", Redact(cfg.Upstream))}
	}
	if cfg.Upstream.User != nil {
		// The reverse proxy sends no user info: the credentials would be
		// dropped, and calls made without them.
		return nil, &httpsafe.ConfigError{Msg: fmt.Sprintf("--upstream %s: credentials in the URL are not sent; the client's own Authorization (or x-api-key) header goes through", Redact(cfg.Upstream))}
	}
	if path := strings.TrimSuffix(cfg.Upstream.Path, "/"); endpointPath(path) {
		// Every call's path is put after the upstream's: an endpoint
		// there would send each to ".../chat/completions/v1/chat/completions".
		return nil, &httpsafe.ConfigError{Msg: fmt.Sprintf("--upstream %s names an endpoint: give the API's base URL (such as %s://%s), and the client calls its paths on the proxy",
			Redact(cfg.Upstream), cfg.Upstream.Scheme, cfg.Upstream.Host)}
	}
	if cfg.Addr != "" && cfg.Socket != "" {
		return nil, &httpsafe.ConfigError{Msg: "give --addr or --socket, not both"}
	}
	if cfg.Addr == "" && cfg.Socket == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Addr != "" {
		if err := httpsafe.CheckAddr(cfg.Addr, cfg.Token != ""); err != nil {
			return nil, err
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch cfg.Placement {
	case "":
		cfg.Placement = PlacementTurn
	case PlacementTurn, PlacementSystem:
	default:
		return nil, &httpsafe.ConfigError{Msg: fmt.Sprintf("--placement %q: give turn or system", cfg.Placement)}
	}
	if cfg.Memory <= 0 {
		cfg.Memory = DefaultMemory
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if base, ok := stripV1(cfg.Upstream); ok {
		// Both vendors' SDKs take a base URL ending in /v1 for OpenAI,
		// and clients send paths that start with /v1: kept, it would
		// send every call to /v1/v1/... and a 404.
		cfg.Upstream = base
		cfg.Logger.Info("--upstream ends in /v1, which each request's path already starts with: forwarding to its parent", "upstream", Redact(base))
	}
	if cfg.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// The client's Accept-Encoding goes through as it is, and the
		// answer comes back as the upstream encoded it.
		t.DisableCompression = true
		t.MaxIdleConnsPerHost = 64
		cfg.Transport = t
	}
	p := &Proxy{cfg: cfg, log: cfg.Logger, token: httpsafe.NewToken(cfg.Token), bodies: httpsafe.NewBudgetOf(bodyBudgetFactor, cfg.MaxBodyBytes),
		seed:   maphash.MakeSeed(),
		blocks: lru.New[blockKey](cfg.Memory, memoryBytes, func(b string) int { return entryCost + len(b) }),
		convs: lru.New[string](cfg.Memory, memoryBytes, func(c *conversation) int {
			n := entryCost + len(c.prompt) + len(c.fingerprint) + len(c.task) + 16*(len(c.selected)+len(c.selects)+len(c.carried))
			for _, b := range c.carried {
				n += len(b)
			}
			return n
		}),
	}
	p.loads = &httpsafe.CatalogLog{Log: p.log, Consequence: "every call goes on without skills"}
	p.handler = httpsafe.Guard(http.HandlerFunc(p.serve), p.token.Set(), cfg.Socket != "", func(w http.ResponseWriter, r *http.Request, rf httpsafe.Refusal) {
		p.fail(w, flavorOf(r.URL.Path), rf.Status, &compiler.Error{Stage: StageProxy, Code: compiler.ErrorCode(rf.Code), Message: rf.Msg})
	})
	upstream := cfg.Upstream
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			dropRlmc(pr.Out.Header)
			// The body is read already: an Expect: 100-continue would
			// only have the upstream send a 100 the client never waits
			// for.
			pr.Out.Header.Del("Expect")
			if _, ok := pr.In.Context().Value(convKey{}).(*conversation); ok {
				// The proxy reads the response id of the answer, which
				// it can decompress as gzip, and not as br or zstd:
				// a client that takes gzip is answered in gzip.
				if acceptsGzip(pr.In.Header.Values("Accept-Encoding")) {
					pr.Out.Header.Set("Accept-Encoding", "gzip")
				}
			}
		},
		// The host's headers are the proxy's own: an upstream's
		// X-Rlmc-Selected must not pass for the proxy's word.
		ModifyResponse: func(resp *http.Response) error {
			dropRlmc(resp.Header)
			// Trailers arrive with the body's end, and fill
			// resp.Trailer again then.
			if resp.Trailer != nil {
				dropRlmc(resp.Trailer)
				resp.Body = &trailerGuard{ReadCloser: resp.Body, trailer: resp.Trailer}
			}
			if c, ok := resp.Request.Context().Value(convKey{}).(*conversation); ok && resp.StatusCode == http.StatusOK {
				resp.Body = p.catchID(resp, c)
			}
			return nil
		},
		Transport: cfg.Transport,
		// Server-sent events and every other answer are written to the
		// client as they arrive, never buffered whole.
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
		ErrorHandler:  p.upstreamFailed,
	}
	return p, nil
}

// Live returns the live catalog, nil before the first load.
func (p *Proxy) Live() *compiler.Live { return p.live.Load() }

// Watch loads the catalog and keeps it current until ctx ends or Close.
func (p *Proxy) Watch(ctx context.Context) error {
	l, err := compiler.Watch(ctx, loader.Options{Roots: p.cfg.Roots}, compiler.Policy{}, compiler.LiveOptions{
		PolicyFile: p.cfg.PolicyFile,
		Debounce:   p.cfg.Debounce,
		OnReload: func(r compiler.Reload) {
			if r.Err != nil {
				p.log.Error("catalog reload failed; the previous catalog keeps serving", "trigger", r.Trigger, "error", r.Err.Error())
				return
			}
			p.log.Info("catalog reloaded", "trigger", r.Trigger, "units", len(r.Compiler.Catalog().Units), "catalog_fingerprint", r.Compiler.CatalogFingerprint(), "policy_fingerprint", r.Compiler.PolicyFingerprint())
			p.loads.Loaded(r.Compiler)
		},
	})
	if err != nil {
		return err
	}
	c := l.Current()
	// Serving first, then the line: a client that starts on it is
	// answered.
	p.live.Store(l)
	p.log.Info("catalog loaded", "units", len(c.Catalog().Units), "catalog_fingerprint", c.CatalogFingerprint(), "policy_fingerprint", c.PolicyFingerprint(), "watched", l.Watched())
	p.loads.Loaded(c)
	return nil
}

// Close stops watching the catalog.
func (p *Proxy) Close() {
	if l := p.live.Load(); l != nil {
		l.Close()
	}
}

// controls are the host's headers of one call.
type controls struct {
	selects, denies []string
	skip            bool
}

// readControls reads the host's headers.
func readControls(h http.Header) (controls, error) {
	var c controls
	for _, l := range []struct {
		header string
		to     *[]string
	}{{HeaderSelect, &c.selects}, {HeaderDeny, &c.denies}} {
		for _, v := range h.Values(l.header) {
			// A value that names no unit ("", ",") is a host's selection
			// code gone wrong: forwarded as a plain call, nobody would
			// know. The command line refuses --select "," the same way.
			ns := names(v)
			if len(ns) == 0 {
				return c, fmt.Errorf("%s %q names no unit", l.header, v)
			}
			*l.to = append(*l.to, ns...)
		}
	}
	// A second value would be ignored by h.Get: one that says otherwise
	// is a contradiction, not a skip.
	if vs := h.Values(HeaderSkip); len(vs) > 1 {
		return c, fmt.Errorf("%s is given %d times; give it once", HeaderSkip, len(vs))
	}
	switch v := strings.ToLower(strings.TrimSpace(h.Get(HeaderSkip))); v {
	case "", "0", "false":
	case "1", "true":
		c.skip = true
	default:
		return c, fmt.Errorf("%s must be 1 or true, or 0 or false, not %q", HeaderSkip, v)
	}
	if c.skip && len(c.selects) > 0 {
		return c, fmt.Errorf("%s and %s contradict each other", HeaderSkip, HeaderSelect)
	}
	return c, nil
}

// names splits a comma-separated header value into names.
func names(v string) []string {
	var out []string
	for n := range strings.SplitSeq(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// trailerGuard drops the X-Rlmc-* trailers of an answer once its body
// has been read, which is when they arrive.
type trailerGuard struct {
	io.ReadCloser
	trailer http.Header
}

func (g *trailerGuard) Read(p []byte) (int, error) {
	n, err := g.ReadCloser.Read(p)
	if err != nil {
		dropRlmc(g.trailer)
	}
	return n, err
}

// dropRlmc removes every X-Rlmc-* header from h.
func dropRlmc(h http.Header) {
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Rlmc-") {
			delete(h, k)
		}
	}
}

// ServeHTTP forwards one call, with skills when it is a completion. Its
// path is cleaned first, so that every answer, the Host and Origin
// checks' refusals included, names the API it is for alike.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cleanPath(r.URL)
	p.handler.ServeHTTP(w, r)
}

// serve is ServeHTTP past httpsafe.Guard.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	fl := flavorOf(r.URL.Path)
	if p.token.Set() {
		// The header holds the token, or "Bearer TOKEN" as a client
		// that sends every token that way writes it.
		given := r.Header.Get(HeaderToken)
		if cred, ok := httpsafe.Bearer(given); ok {
			given = cred
		}
		if !p.token.Matches(given) {
			p.fail(w, fl, http.StatusUnauthorized, &compiler.Error{Stage: StageProxy, Code: httpsafe.CodeUnauthorized,
				Message: "a valid " + HeaderToken + " header is required"})
			return
		}
	}
	ctl, err := readControls(r.Header)
	if err != nil {
		p.fail(w, fl, http.StatusBadRequest, &compiler.Error{Stage: StageProxy, Code: compiler.ErrInvalidRequest, Message: err.Error()})
		return
	}
	// The API is named by the path as it is forwarded, escapes kept:
	// "/v1/chat%2Fcompletions" decodes to the chat API's path, but the
	// upstream receives it escaped, so it is no call this edits.
	a := apis[r.URL.EscapedPath()]
	if r.Method != http.MethodPost || a == nil {
		if len(ctl.selects) > 0 {
			p.fail(w, fl, http.StatusBadRequest, &compiler.Error{Stage: StageProxy, Code: compiler.ErrInvalidRequest,
				Message: fmt.Sprintf("%s on %s %s, which carries no skills", HeaderSelect, r.Method, r.URL.Path)})
			return
		}
		if r.Method == http.MethodPost {
			p.warnNearMiss(r.URL.EscapedPath())
		}
		if a != nil && isWebSocket(r) {
			p.warnSocket(r.URL.Path)
		}
		// Through statusWriter too, so that an upstream's 1xx carries no
		// X-Rlmc-* header on paths the proxy does not edit either.
		p.rp.ServeHTTP(&statusWriter{ResponseWriter: w, status: http.StatusOK}, withFlavor(r))
		return
	}
	p.complete(w, r, a, ctl)
}

// maxNearMisses bounds the distinct paths warnNearMiss warns about, so
// that a client's stream of odd paths cannot grow the proxy's memory.
const maxNearMisses = 32

// warnNearMiss warns, once a path, that a POST to a path one slip from a
// completion path (a client's base URL without /v1, or with a /v1 the SDK
// adds again, or a trailing slash: "/chat/completions",
// "/v1/v1/messages", "/v1/chat/completions/") goes upstream without
// skills: the call succeeds, and nothing else would tell the user that no
// skill ever reached it.
func (p *Proxy) warnNearMiss(path string) {
	meant := nearMiss(path)
	if meant == "" || p.nmisses.Load() >= maxNearMisses {
		return
	}
	// Held and quoted clipped: a path is the client's to choose.
	path = httpsafe.Clip(path)
	if _, seen := p.misses.LoadOrStore(path, true); seen {
		return
	}
	p.nmisses.Add(1)
	p.log.Warn("a completion call on a path rlmc does not edit goes upstream without skills; the client's base URL is likely off",
		"path", path, "meant", meant)
}

// warnSocket warns, once a process, that a completion API reached over a
// WebSocket (the SDKs' Responses WebSocket mode: a GET upgraded on
// /v1/responses) goes upstream without skills: the proxy edits HTTP
// calls, and the upgraded connection passes through as it is.
func (p *Proxy) warnSocket(path string) {
	p.sockets.Do(func() {
		p.log.Warn("a completion API over a WebSocket goes upstream without skills: rlmc edits HTTP calls only; use the client's HTTP transport", "path", path)
	})
}

// isWebSocket reports whether r asks to upgrade its connection to a
// WebSocket.
func isWebSocket(r *http.Request) bool {
	return hasToken(r.Header.Values("Connection"), "upgrade") && hasToken(r.Header.Values("Upgrade"), "websocket")
}

// hasToken reports whether a header's comma-separated values hold token,
// in any case.
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// nearMiss returns the completion path that path is one slip from, else
// "": the same path without its /v1 ("/chat/completions"), with a prefix
// before its /v1 ("/v1/v1/messages", "/api/v1/responses"), or with a
// trailing slash. A path that only ends as one does is another API's
// ("/v1/threads/ID/messages").
func nearMiss(path string) string {
	trimmed := strings.TrimSuffix(path, "/")
	for _, meant := range completionPaths {
		switch {
		case path == meant:
			return ""
		case trimmed == meant, trimmed == strings.TrimPrefix(meant, "/v1"), strings.HasSuffix(trimmed, "/"+strings.TrimPrefix(meant, "/")):
			return meant
		}
	}
	return ""
}

// endpointPath reports whether path, an --upstream URL's, ends with a
// completion API's path, with or without its /v1.
func endpointPath(path string) bool {
	for _, p := range completionPaths {
		if strings.HasSuffix(path, p) || strings.HasSuffix(path, strings.TrimPrefix(p, "/v1")) {
			return true
		}
	}
	return false
}

// completionPaths are apis' paths, sorted.
var completionPaths = slices.Sorted(maps.Keys(apis))

// complete compiles the skills of one completion and forwards it.
func (p *Proxy) complete(w http.ResponseWriter, r *http.Request, a *api, ctl controls) {
	start := time.Now()
	// own are the proxy's headers of the answer; forward puts them on
	// the final answer (never on a 1xx, which would clear them).
	own := http.Header{}
	// A denial naming no unit is most likely a misspelt one that stays
	// allowed (names are exact): the host is told, as rlmc compile and
	// rlmc serve tell it, on every call that names it, skipped and
	// unread ones too (a host sends its denials with each call).
	// The names are looked up in the catalog that answers the call's
	// compile (a reload may swap in another meanwhile), else in the
	// current one.
	unknownDeny := func(c *compiler.Compiler) {
		if unknown := compiler.UnknownUnits(c, ctl.denies); len(unknown) > 0 {
			shown := firstNames(unknown)
			own.Set(HeaderUnknownDeny, strings.Join(shown, ","))
			p.log.Warn("a denial names no unit", "deny", shown, "unknown", len(unknown))
		}
	}
	unread := ""
	switch {
	case ctl.skip:
		// The call asked the proxy to stay out of it (a title, a
		// summary): its body goes upstream as it was sent, unread, of
		// any size. Read, a body over --max-body failed 413 only because
		// the call asked to be left alone.
		unread = DecisionSkipped
	case r.ContentLength > p.cfg.MaxBodyBytes && len(ctl.selects) == 0:
		// A body larger than the proxy reads (an image or a file sent
		// inline) goes upstream as it is, unread and without skills: the
		// API may well take it, and a 413 failed a call that works
		// without the proxy. A selection has no place in an unread body
		// and is still refused below.
		p.log.Warn("a completion over --max-body goes upstream unread, without skills", "path", r.URL.Path, "bytes", r.ContentLength, "max_body", p.cfg.MaxBodyBytes)
		unread = DecisionUnread
	}
	if unread != "" {
		rec := logRecord{api: a.label(), start: start, decision: unread}
		if live := p.live.Load(); live != nil {
			unknownDeny(live.Current())
		}
		own.Set(HeaderDecision, unread)
		p.send(w, r, own, &rec)
		return
	}
	body, release, err := httpsafe.ReadBody(w, r, p.cfg.MaxBodyBytes, p.cfg.BodyTimeout, p.bodies)
	// The body is held until the upstream has it: the budget counts it
	// until then.
	defer release()
	compressed := false
	if enc := httpsafe.Encoding(r.Header); enc != "" && err == nil {
		// A client that compresses its calls (zstd, gzip) gets its
		// skills too: the body goes upstream decoded. One the proxy
		// cannot decode, or that decodes to more than it reads, goes
		// as it was sent, unread and without skills, and the log says
		// why; the decoded bytes count in the bodies' budget, as the
		// body's did (none left is a 503, as below).
		decoded, hold, derr := httpsafe.Decode(enc, body, p.cfg.MaxBodyBytes, p.bodies)
		defer hold()
		switch {
		case errors.Is(derr, httpsafe.ErrBodyBusy):
			err = derr
		case derr != nil:
			p.log.Warn("a compressed completion goes upstream as sent, unread and without skills", "path", r.URL.Path, "encoding", enc, "error", derr.Error())
			compressed = true
		default:
			body = decoded
			r.Header.Del("Content-Encoding")
		}
	}
	if err != nil {
		status, code, msg := httpsafe.BodyStatus(err), compiler.ErrInvalidRequest, "reading the request body: "+err.Error()
		defer httpsafe.Refusing(w, r, status)()
		switch status {
		case http.StatusRequestEntityTooLarge:
			msg = fmt.Sprintf("the request body is over %d bytes (--max-body)", p.cfg.MaxBodyBytes)
		case http.StatusServiceUnavailable:
			w.Header().Set("Retry-After", "1")
			code = httpsafe.CodeOverloaded
		}
		p.fail(w, flavorOf(r.URL.Path), status, &compiler.Error{Stage: StageProxy, Code: code, Message: msg})
		return
	}
	rec := logRecord{api: a.label(), start: start}
	root, ok := rootOf(body)
	if compressed {
		ok = false // forwarded as it is, unread
	}
	refuse := func(status int, ce *compiler.Error) {
		p.fail(w, flavorOf(r.URL.Path), status, ce)
		rec.status, rec.decision, rec.code = status, "error", string(ce.Code)
		p.record(rec)
	}
	invalid := func(msg string) *compiler.Error {
		return &compiler.Error{Stage: StageProxy, Code: compiler.ErrInvalidRequest, Message: msg}
	}
	live := p.live.Load()
	switch {
	case !ok && len(ctl.selects) > 0:
		msg := "the request body is not a JSON object: the selected skills have no place in it"
		if compressed {
			msg = "the request body is compressed in an encoding the proxy cannot read, or decodes to more than --max-body: the selected skills have no place in it"
		}
		refuse(http.StatusBadRequest, invalid(msg))
		return
	case !ok:
		rec.decision = DecisionUnread
	case live == nil && len(ctl.selects) > 0:
		w.Header().Set("Retry-After", "1")
		refuse(http.StatusServiceUnavailable, &compiler.Error{Stage: StageProxy, Code: httpsafe.CodeNotReady, Message: "the catalog is not loaded yet"})
		return
	case live == nil:
		rec.decision = DecisionNoCatalog
	}
	if rec.decision != "" {
		if live != nil {
			unknownDeny(live.Current())
		}
		own.Set(HeaderDecision, rec.decision)
		p.forward(w, r, [][]byte{body}, own, release, &rec)
		return
	}

	// A call chained to an earlier response goes on a conversation whose
	// inputs the upstream holds, with the skill blocks they carry: its
	// turns are not sent them again (thirty prompts on one topic carry a
	// skill once).
	var chain []string
	if prev := responsesPrev(a, body, root); prev != "" {
		if pc, ok := p.convs.Get(prev); ok {
			chain = pc.carried
		}
	}

	if a.count {
		unknownDeny(live.Current())
		rec.decision = DecisionCount
		own.Set(HeaderDecision, rec.decision)
		parts := [][]byte{body}
		if p.cfg.Placement == PlacementTurn {
			if turns, list := a.turns(body, root); len(turns) > 0 {
				if edits := p.countEdits(live, a, body, root, list, turns, ctl, chain); len(edits) > 0 {
					parts = partsAll(body, edits)
				}
			}
		}
		p.forward(w, r, parts, own, release, &rec)
		return
	}

	turnPlaced := p.cfg.Placement == PlacementTurn
	var (
		turns []turn
		list  span
		raw   string
	)
	if turnPlaced {
		turns, list = a.turns(body, root)
		if len(turns) > 0 {
			raw = turns[len(turns)-1].text
		}
	} else {
		raw = a.task(body, root)
	}
	h := own
	setHeaders := func(c *conversation) {
		h.Set(HeaderDecision, c.decision)
		h.Set(HeaderFingerprint, c.fingerprint)
		if len(c.selected) > 0 {
			h.Set(HeaderSelected, strings.Join(c.selected, ","))
		}
	}
	placeFailed := func(err error) {
		for _, k := range []string{HeaderSelected, HeaderFingerprint, HeaderDecision, HeaderAmbiguous} {
			h.Del(k)
		}
		refuse(http.StatusBadRequest, invalid(fmt.Sprintf("%v (%s)", err, a.name)))
	}

	// A Responses call chained to an earlier response that brings no user
	// text (a tool turn: only function_call_output items) belongs to the
	// conversation that response started: its skills are the ones
	// remembered under that response's id. The API does not carry
	// instructions over, so under system placement they go in again.
	if prev := responsesPrev(a, body, root); prev != "" && raw == "" && len(ctl.selects) == 0 {
		c, ok := p.convs.Get(prev)
		if !ok {
			rec.decision = DecisionUnknownConversation
			h.Set(HeaderDecision, rec.decision)
			p.forward(w, r, [][]byte{body}, own, release, &rec)
			return
		}
		// The skills are compiled again from the turn that started the
		// conversation, with its selections, this call's denials and the
		// catalog as it is now: a denial or a policy reload since applies
		// to its tool turns too. (Under turn placement, a block the
		// upstream already holds in the conversation is not taken back.)
		res, answered, err := p.compile(r.Context(), live, compiler.Request{Task: c.task, Select: c.selects, Deny: ctl.denies}, true)
		if err != nil {
			rec.compile = time.Since(start)
			p.refuseCompile(w, answered, err, refuse)
			return
		}
		unknownDeny(answered)
		c = &conversation{decision: string(res.Decision), fingerprint: res.Fingerprint, selected: res.Names(), prompt: res.Prompt, task: c.task, selects: c.selects, carried: c.carried}
		rec.decision, rec.selected, rec.fingerprint = c.decision, c.selected, c.fingerprint
		setHeaders(c)
		parts := [][]byte{body}
		if !turnPlaced && c.prompt != "" {
			e, err := a.place(body, root, c.prompt)
			if err != nil {
				placeFailed(err)
				return
			}
			parts = e.parts(body)
		}
		p.forward(w, withConversation(r, a, c), parts, own, release, &rec)
		return
	}

	task, whole := compiler.ClipTask(raw)
	rec.taskBytes = len(task)
	if whole > len(task) {
		// A message over the compile's limit is the user's to send; the
		// skills come from its start and end, and the host is told.
		h.Set(HeaderTaskClipped, fmt.Sprintf("%d of %d bytes", len(task), whole))
	}
	res, answered, err := p.compile(r.Context(), live, compiler.Request{Task: task, Select: ctl.selects, Deny: ctl.denies}, true)
	if err != nil {
		rec.compile = time.Since(start)
		p.refuseCompile(w, answered, err, refuse)
		return
	}
	unknownDeny(answered)
	// What the chain carries goes on, whatever this call places in its
	// turns (turnEdits adds it), or in its instructions.
	conv := &conversation{decision: string(res.Decision), fingerprint: res.Fingerprint, selected: res.Names(), prompt: res.Prompt, task: task, selects: ctl.selects, carried: chain}
	rec.decision, rec.selected, rec.fingerprint = conv.decision, conv.selected, conv.fingerprint
	setHeaders(conv)
	if len(res.Ambiguous) > 0 {
		h.Set(HeaderAmbiguous, strings.Join(res.Ambiguous, ","))
	}
	var edits []edit
	switch {
	case turnPlaced && len(turns) > 0:
		edits, conv.carried, err = p.turnEdits(r.Context(), live, a, body, root, list, turns, res.Prompt, ctl, chain)
		if errors.Is(err, errTurnsOverBound) {
			// A conversation too long to place turn by turn within the
			// call's bounds gets this turn's block in the system prompt,
			// and the host is told.
			h.Set(HeaderPlacement, string(PlacementSystem))
			p.log.Warn("turn placement over its bounds; the block goes in the system prompt", "api", a.name, "turns", len(turns), "error", err.Error())
			edits, conv.carried, err = nil, chain, nil
			if res.Prompt != "" {
				e, perr := a.place(body, root, res.Prompt)
				if perr != nil {
					placeFailed(perr)
					return
				}
				edits = []edit{e}
			}
		}
		if err != nil {
			var ce *compiler.Error
			if errors.Is(err, errShape) || !errors.As(err, &ce) {
				placeFailed(err)
				return
			}
			p.refuseCompile(w, answered, err, refuse)
			return
		}
	case res.Prompt != "":
		// System placement, or a selection in a call without user text.
		e, err := a.place(body, root, res.Prompt)
		if err != nil {
			placeFailed(err)
			return
		}
		edits = []edit{e}
	}
	// Earlier turns compiled again count as compile time.
	rec.compile = time.Since(start)
	rec.blocks = len(edits)
	p.forward(w, withConversation(r, a, conv), partsAll(body, edits), own, release, &rec)
}

// compile compiles req with the compile deadline, and returns the
// compiler whose catalog answered; audited compiles are the ones a call's
// decision comes from.
func (p *Proxy) compile(ctx context.Context, live *compiler.Live, req compiler.Request, audited bool) (*compiler.Result, *compiler.Compiler, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	if audited && p.cfg.Audit != nil {
		src := &answering{Live: live}
		res, err := p.cfg.Audit.Compile(ctx, src, req)
		return res, src.c, err
	}
	return live.CompileIn(ctx, req)
}

// answering is a live catalog that remembers which compiler answered its
// last compile.
type answering struct {
	*compiler.Live
	c *compiler.Compiler
}

func (a *answering) Compile(ctx context.Context, req compiler.Request) (*compiler.Result, error) {
	res, c, err := a.Live.CompileIn(ctx, req)
	a.c = c
	return res, err
}

// refuseCompile refuses a call whose compile over c failed, with the
// compile's error and status.
func (p *Proxy) refuseCompile(w http.ResponseWriter, c *compiler.Compiler, err error, refuse func(int, *compiler.Error)) {
	var ce *compiler.Error
	if !errors.As(err, &ce) {
		ce = &compiler.Error{Stage: StageProxy, Code: compiler.ErrInvalidRequest, Message: err.Error()}
	}
	status := httpsafe.StatusOf(ce, err)
	if p.loads.PolicyFault(c, ce) {
		status = http.StatusInternalServerError
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	refuse(status, ce)
}

// unsent returns prompt without the skill blocks in sent, and adds its
// own to sent; "" when none is left.
func unsent(prompt string, sent map[string]bool) string {
	blocks := compiler.SkillBlocks(prompt)
	kept := blocks[:0:0]
	for _, b := range blocks {
		if !sent[b] {
			kept = append(kept, b)
			sent[b] = true
		}
	}
	return compiler.JoinSkillBlocks(kept)
}

// keysOf returns the keys each of turns' blocks is remembered under, and,
// when the host selects skills, the keys of the same turns without a
// selection.
func (p *Proxy) keysOf(a *api, body []byte, root, list span, turns []turn, ctl controls) (keys, plain []uint64) {
	// A turn's key is the conversation up to it with what frames it
	// (Anthropic's system and tools; Chat's are among the messages) and
	// the host's selections and denials, so that a block a host selected
	// in one conversation never lands in another that starts with the
	// same words: two users' first turns are often the same bytes, and
	// only the host knows whose call it is.
	frame := "\x00" + strings.Join(slices.Sorted(slices.Values(ctl.denies)), ",")
	for _, k := range []string{"system", "tools", "instructions"} {
		if v, ok := field(body, root, k); ok {
			frame += "\x00" + k + "\x00" + string(body[v.start:v.end])
		}
	}
	keys = turnKeys(p.seed, a.name+"\x00"+strings.Join(slices.Sorted(slices.Values(ctl.selects)), ",")+frame, body, list, turns)
	// A host that selects a skill after an ambiguous answer sends the
	// conversation again with X-Rlmc-Select: its earlier turns were sent
	// without a selection, and keep the blocks they were sent with, found
	// under the keys of no selection (which hold no host's selection, so
	// none leaks into another conversation). Compiled again with this
	// call's selection, every earlier turn got the skill, and the prefix
	// the upstream caches changed.
	if len(ctl.selects) > 0 {
		plain = turnKeys(p.seed, a.name+"\x00"+frame, body, list, turns)
	}
	return keys, plain
}

// countEdits returns the edits attaching to each user turn of a token
// count the block the proxy remembers it was sent with (PlacementTurn),
// less what carried holds (the blocks a chain of Responses calls holds
// upstream), and compiles and remembers nothing: a turn the proxy has not
// forwarded in a call gets none. Claude Code counts fragments as lone user
// messages (a file it opens, each CLAUDE.md, a tool result, a part of its
// system prompt), never the call it sends: compiled as tasks, they got
// skills no call carries, and a file near its Read tool's limit was cut
// short. A count of a conversation the proxy forwarded holds the skills
// its turns were sent with. Nil when none is remembered, or the blocks do
// not fit: the count goes as it came.
func (p *Proxy) countEdits(live *compiler.Live, a *api, body []byte, root, list span, turns []turn, ctl controls, carried []string) []edit {
	gen := p.epochOf(live)
	keys, plain := p.keysOf(a, body, root, list, turns, ctl)
	edits, _, err := p.placeTurns(a, body, list, turns, carried, func(i int) (string, bool, error) {
		b, ok := p.blocks.Get(blockKey{gen, keys[i]})
		if !ok && plain != nil {
			b, ok = p.blocks.Get(blockKey{gen, plain[i]})
		}
		return b, ok, nil
	})
	if err != nil {
		return nil
	}
	return edits
}

// turnEdits returns the edits attaching each user turn's block to it
// (PlacementTurn): the last turn's is block, compiled for this call with
// the host's headers; each earlier turn's is the block it was sent with,
// remembered under the conversation up to it and the host's headers, or
// else compiled again from its text with the host's selections and
// denials, which gives the same block, and so the same bytes, as long as
// the catalog and the policy are the same. Only the turns that carry text
// are compiled, and each once per catalog while remembered: a call costs
// one compile, and a conversation the proxy has not seen one per user
// turn, once. carried are the blocks a chain of Responses calls holds
// upstream; it returns what the conversation carries after this call.
func (p *Proxy) turnEdits(ctx context.Context, live *compiler.Live, a *api, body []byte, root, list span, turns []turn, block string, ctl controls, carried []string) ([]edit, []string, error) {
	gen := p.epochOf(live)
	keys, plain := p.keysOf(a, body, root, list, turns, ctl)
	// One deadline for every compile of the call: a call of thousands of
	// turns not seen before must not compile for minutes.
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	last := len(turns) - 1
	p.blocks.Put(blockKey{gen, keys[last]}, block)
	return p.placeTurns(a, body, list, turns, carried, func(i int) (string, bool, error) {
		if i == last {
			return block, true, nil
		}
		if b, ok := p.blocks.Get(blockKey{gen, keys[i]}); ok {
			return b, true, nil
		}
		if plain != nil {
			if b, ok := p.blocks.Get(blockKey{gen, plain[i]}); ok {
				p.blocks.Put(blockKey{gen, keys[i]}, b)
				return b, true, nil
			}
		}
		task, _ := compiler.ClipTask(turns[i].text)
		res, _, err := p.compile(ctx, live, compiler.Request{Task: task, Select: ctl.selects, Deny: ctl.denies}, false)
		if err != nil {
			var ce *compiler.Error
			if errors.As(err, &ce) && ce.Code == compiler.ErrCanceled && ctx.Err() != nil && ctx.Err() != context.Canceled {
				return "", false, fmt.Errorf("%w: compiling %d earlier turns took over %v", errTurnsOverBound, i, p.cfg.Timeout)
			}
			return "", false, err
		}
		p.blocks.Put(blockKey{gen, keys[i]}, res.Prompt)
		return res.Prompt, true, nil
	})
}

// placeTurns returns the edits attaching to each of turns the block
// blockOf gives it, if any, and what the conversation carries after them:
// carried, then the blocks placed or found in list's messages, in order.
// A skill an earlier turn, the turn itself, a message before it (list's)
// or carried already holds, to the byte, is not sent again: a
// conversation of thirty prompts on one topic carried its skill thirty
// times. What a turn is sent with depends only on the turns before it, so
// it is the same bytes on every call, and the provider's cached prefix
// holds. The bytes the earlier turns' blocks add are bounded by --max-body.
func (p *Proxy) placeTurns(a *api, body []byte, list span, turns []turn, carried []string, blockOf func(i int) (string, bool, error)) ([]edit, []string, error) {
	sent := map[string]bool{}
	for _, b := range carried {
		sent[b] = true
	}
	var (
		edits  []edit
		placed []string
		added  int
	)
	// The blocks the messages already hold (a host, or a proxy in
	// front, put rlmc's block in them; Claude Code's hook puts its
	// context in messages of its own), each counted from its message on,
	// so that a turn's block still depends only on the turns before it.
	hold := func(content span) {
		for _, b := range heldBlocks(body, content, a.textTypes...) {
			if !sent[b] {
				sent[b] = true
				placed = append(placed, b)
			}
		}
	}
	msgs, listed := elements(body, list)
	for i, t := range turns {
		for len(msgs) > 0 && msgs[0].end <= t.end {
			if c, ok := field(body, msgs[0], "content"); ok {
				hold(c)
			}
			msgs = msgs[1:]
		}
		if !listed {
			hold(t.content) // a Responses input that is a string is no list
		}
		b, ok, err := blockOf(i)
		switch {
		case err != nil:
			return nil, nil, err
		case !ok:
			continue
		}
		if b = unsent(b, sent); b == "" {
			continue
		}
		e, err := intoTurn(body, t.content, b, a.textTypes...)
		if err != nil {
			return nil, nil, err
		}
		// The newest turn's block is not bounded: the system prompt
		// would get it all the same, so a call of one turn placed there
		// instead gained nothing and changed the call's frame.
		if added += len(e.text); i < len(turns)-1 && int64(len(body)+added) > p.cfg.MaxBodyBytes {
			return nil, nil, fmt.Errorf("%w: with the turns' blocks the body is over %d bytes (--max-body)", errTurnsOverBound, p.cfg.MaxBodyBytes)
		}
		placed = append(placed, compiler.SkillBlocks(b)...)
		edits = append(edits, e)
	}
	return edits, append(slices.Clip(carried), placed...), nil
}

// errTurnsOverBound: turn placement would pass the call's deadline or add
// more bytes than a body may hold.
var errTurnsOverBound = errors.New("turn placement over its bounds")

// responsesPrev returns the previous_response_id of a Responses request.
func responsesPrev(a *api, body []byte, root span) string {
	if a.name != "responses" {
		return ""
	}
	return strField(body, root, "previous_response_id")
}

// withConversation returns r carrying c, whose response id the proxy
// learns from a Responses answer, for the calls chained to it.
func withConversation(r *http.Request, a *api, c *conversation) *http.Request {
	if a.name != "responses" || a.count {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), convKey{}, c))
}

// forward sends r upstream with the body made of parts (the edited body,
// without a copy of it), answering with own headers. release gives the
// body's budget back once the upstream has read it, so that a slow
// upstream or a client slow to read the answer holds none of it.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, parts [][]byte, own http.Header, release func(), rec *logRecord) {
	readers := make([]io.Reader, len(parts))
	var n int64
	for i, part := range parts {
		readers[i] = bytes.NewReader(part)
		n += int64(len(part))
	}
	r.Body = &releasingBody{Reader: io.MultiReader(readers...), release: release}
	r.ContentLength = n
	r.TransferEncoding = nil
	p.send(w, r, own, rec)
}

// send forwards r, its body as it stands, and logs rec once the answer
// has gone to the client.
func (p *Proxy) send(w http.ResponseWriter, r *http.Request, own http.Header, rec *logRecord) {
	sw := &statusWriter{ResponseWriter: w, own: own}
	defer func() {
		rec.status = sw.status
		// No status written: the client went away before the upstream
		// answered (the reverse proxy answers nothing then). Logged as
		// status 200, it read as a call answered.
		if sw.status == 0 {
			rec.aborted = true
		}
		// An answer the upstream cut off after its headers aborts the
		// handler (http.ErrAbortHandler); its call is logged still.
		if v := recover(); v != nil {
			rec.aborted = true
			p.record(*rec)
			panic(v)
		}
		p.record(*rec)
	}()
	p.rp.ServeHTTP(sw, withFlavor(r))
}

// releasingBody is a request body that gives its budget back once the
// transport has read it to its end: the reverse proxy hands the transport
// a wrapper whose Close does not reach this one, and the handler returns
// only when the answer ends, which for a stream may be minutes later.
type releasingBody struct {
	io.Reader
	release func()
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	if err == io.EOF {
		b.release()
	}
	return n, err
}

func (b *releasingBody) Close() error {
	b.release()
	return nil
}

// logRecord is what the log says of one completion: never its task, its
// messages or its headers, which hold the user's text and the API key.
type logRecord struct {
	api, decision, fingerprint, code string
	selected                         []string
	status, taskBytes                int
	blocks                           int // skill blocks inserted, one per turn that got skills
	start                            time.Time
	compile                          time.Duration
	aborted                          bool // the answer was cut off
}

func (p *Proxy) record(rec logRecord) {
	attrs := []any{"api", rec.api, "status", rec.status, "decision", rec.decision}
	if rec.decision != DecisionSkipped && rec.decision != DecisionUnread && rec.decision != DecisionNoCatalog {
		attrs = append(attrs, "selected", rec.selected, "task_bytes", rec.taskBytes, "compile_ms", ms(rec.compile))
	}
	if rec.blocks > 0 {
		// Earlier turns' blocks too: a call whose newest turn selects
		// nothing may still carry the skills of the turns before it.
		attrs = append(attrs, "blocks", rec.blocks)
	}
	if rec.fingerprint != "" {
		attrs = append(attrs, "fingerprint", rec.fingerprint)
	}
	if rec.code != "" {
		attrs = append(attrs, "code", rec.code)
	}
	if rec.aborted {
		attrs = append(attrs, "aborted", true)
	}
	attrs = append(attrs, "duration_ms", ms(time.Since(rec.start)))
	p.log.Info("completion", attrs...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// statusWriter remembers the final status written (0 until one is); Unwrap lets the reverse
// proxy flush through it.
type statusWriter struct {
	http.ResponseWriter
	status int
	own    http.Header // the proxy's X-Rlmc-* headers of the answer
}

// WriteHeader writes an informational answer (100, 103) without any
// X-Rlmc-* header, the upstream's or the proxy's, and the final answer
// with the proxy's own: the reverse proxy clears the header after a 1xx,
// and an upstream's 103 must not speak for the proxy.
func (s *statusWriter) WriteHeader(code int) {
	h := s.ResponseWriter.Header()
	dropRlmc(h)
	if code >= 200 {
		s.status = code
		for k, v := range s.own {
			h[k] = v
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// upstreamFailed answers a call the upstream gave no response to: a 502
// with the error object. A client that went away is answered nothing.
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return
	}
	// The transport's error names the URL, which may hold a key.
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			msg = fmt.Sprintf("%s %s: %v", ue.Op, Redact(u), ue.Err)
		} else {
			msg = fmt.Sprintf("%s: %v", ue.Op, ue.Err)
		}
	}
	p.log.Warn("upstream unreachable", "error", msg)
	f, ok := r.Context().Value(flavorKey{}).(flavor)
	if !ok {
		f = flavorOf(r.URL.Path)
	}
	p.fail(w, f, http.StatusBadGateway, &compiler.Error{Stage: StageProxy, Code: ErrUpstream, Message: "the upstream gave no response: " + msg})
}

// flavorKey carries, in a forwarded request's context, the error shape of
// the API the client called: the request the reverse proxy hands its
// error handler has the upstream's path, under a base path of its own
// ("/anthropic/v1/messages"), which is no API path.
type flavorKey struct{}

func withFlavor(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), flavorKey{}, flavorOf(r.URL.Path)))
}

// fail writes ce with status, in the error shape of flavor's API.
func (p *Proxy) fail(w http.ResponseWriter, f flavor, status int, ce *compiler.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	compiler.WriteJSON(w, errorBody(f, status, ce))
}

// stripV1 returns u without a last path segment "v1" (and its trailing
// slash); ok is false when u has none.
func stripV1(u *url.URL) (*url.URL, bool) {
	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(p, "/v1") {
		return u, false
	}
	c := *u
	c.Path, c.RawPath = strings.TrimSuffix(p, "/v1"), ""
	return &c, true
}

// cleanPath removes dot segments and repeated slashes from a client's
// path, so that it names the same thing here (which API it is) as at the
// upstream, and stays below the upstream's base path: "/../tenant-b/x"
// must not climb out of "--upstream .../tenant-a/". A path already clean
// keeps its escaping as the client wrote it.
func cleanPath(u *url.URL) {
	if u.Path == "" {
		return
	}
	clean := path.Clean("/" + u.Path)
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/"
	}
	if clean != u.Path {
		u.Path, u.RawPath = clean, ""
	}
}

// Redact returns u for a log or a message with everything that may be a
// credential masked: the user information whole (a key is often passed as
// the user name), and every query value, or the whole of a query part
// without one (an API key travels as ?key=, ?subscription-key= or bare
// with some providers). The query is cut at both & and ;, and masked
// without being decoded, so no spelling of it escapes.
func Redact(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User("xxxxx")
	}
	if c.RawQuery != "" {
		parts := strings.FieldsFunc(c.RawQuery, func(r rune) bool { return r == '&' || r == ';' })
		for i, part := range parts {
			if key, _, ok := strings.Cut(part, "="); ok {
				parts[i] = key + "=xxxxx"
			} else {
				parts[i] = "xxxxx"
			}
		}
		c.RawQuery = strings.Join(parts, "&")
	}
	c.ForceQuery = false
	if c.Fragment != "" {
		c.Fragment, c.RawFragment = "xxxxx", ""
	}
	return c.String()
}

// Bounds on the names X-Rlmc-Unknown-Deny and its log line repeat: the
// client's header is bounded by the server's header limit, not in
// names, and echoed whole it made an answer header no client would read
// (4,000 names, 80 KB) and a log line of 890 KB.
const (
	maxShownNames = 20
	maxShownBytes = 1 << 10
)

// firstNames returns the first names of unknown that fit maxShownNames
// and maxShownBytes (at least one, cut to maxShownBytes).
func firstNames(unknown []string) []string {
	var shown []string
	size := 0
	for _, n := range unknown {
		if len(shown) == maxShownNames || (len(shown) > 0 && size+1+len(n) > maxShownBytes) {
			break
		}
		if len(n) > maxShownBytes {
			n = n[:maxShownBytes]
		}
		shown = append(shown, n)
		size += len(n) + 1
	}
	return shown
}
