package proxy

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/rlmc-dev/rlmc/compiler"
)

// TestUpstreamCannotForgeHostHeaders: the X-Rlmc-* headers of an answer
// are the proxy's alone; an upstream's are dropped, trailers included.
func TestUpstreamCannotForgeHostHeaders(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Rlmc-Selected", "secret-ops")
		w.Header().Set("x-rlmc-decision", "route")
		w.Header().Set("Trailer", "X-Rlmc-Fingerprint")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
		w.Header().Set("X-Rlmc-Fingerprint", "forged")
	}))
	f := newFixture(t, up, Config{})
	for _, tc := range []struct{ name, path, body, wantSelected string }{
		{"a completion with skills", "/v1/chat/completions", chatBody, "tdd"},
		{"a completion without", "/v1/chat/completions", chatPlain, ""},
		{"a path the proxy does not edit", "/v1/models", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodPost
			if tc.body == "" {
				method = http.MethodGet
			}
			resp, _ := f.do(t, method, tc.path, tc.body, nil)
			if got := resp.Header.Values(HeaderSelected); strings.Join(got, ",") != tc.wantSelected {
				t.Errorf("X-Rlmc-Selected: got %q; want %q", got, tc.wantSelected)
			}
			if got := resp.Header.Values(HeaderDecision); len(got) > 1 {
				t.Errorf("X-Rlmc-Decision: got %q; want the proxy's one value", got)
			}
			if got := resp.Trailer.Get(HeaderFingerprint); got != "" {
				t.Errorf("trailer X-Rlmc-Fingerprint: got %q; want none", got)
			}
		})
	}
}

// TestDotSegmentsStayUnderBase: a client path cannot leave the
// upstream's base path, and a path written with dot segments or doubled
// slashes is edited as the API it names.
func TestDotSegmentsStayUnderBase(t *testing.T) {
	up := newUpstream(t, nil)
	f := newFixture(t, up, Config{})
	base, _ := url.Parse(up.srv.URL + "/tenant-a/")
	p, err := New(Config{Upstream: base, Roots: f.p.cfg.Roots, PolicyFile: f.p.cfg.PolicyFile, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(p)
	t.Cleanup(func() { ts.Close(); p.Close() })
	for _, tc := range []struct{ name, path, want string }{
		{"climbing out", "/../tenant-b/v1/models", "/tenant-a/tenant-b/v1/models"},
		{"climbing out, escaped", "/%2e%2e/tenant-b/v1/models", "/tenant-a/tenant-b/v1/models"},
		{"deep climb", "/v1/../../../../tenant-b/x", "/tenant-a/tenant-b/x"},
		{"plain", "/v1/models", "/tenant-a/v1/models"},
		{"trailing slash kept", "/v1/files/", "/tenant-a/v1/files/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A raw request: Go's client would clean the path itself.
			c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, "GET "+tc.path+" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
			resp, err := http.ReadResponse(bufioReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := up.last(t).path; got != tc.want {
				t.Errorf("upstream path: got %q; want %q", got, tc.want)
			}
		})
	}
	// A completion path with a dot segment still gets its skills.
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /v1/./chat//completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+itoa(len(chatNoSystem))+"\r\n\r\n"+chatNoSystem)
	resp, err := http.ReadResponse(bufioReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get(HeaderSelected); got != "tdd" {
		t.Errorf("a completion at /v1/./chat//completions: X-Rlmc-Selected %q; want tdd", got)
	}
	// An escaped slash reaches the upstream escaped: the path names no
	// API this edits, so the call passes through unedited.
	c2, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	io.WriteString(c2, "POST /v1/chat%2Fcompletions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+itoa(len(chatNoSystem))+"\r\n\r\n"+chatNoSystem)
	resp, err = http.ReadResponse(bufioReader(c2), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get(HeaderDecision); got != "" {
		t.Errorf("a call at /v1/chat%%2Fcompletions: X-Rlmc-Decision %q; want none, the call unedited", got)
	}
	if got := string(up.last(t).body); got != chatNoSystem {
		t.Errorf("a call at /v1/chat%%2Fcompletions: upstream body %q; want it as sent", got)
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://api.example/v1?key=AIzaSECRET", "https://api.example/v1?key=xxxxx"},
		{"https://api.example/v1?subscription-key=SECRET&api-version=2024", "https://api.example/v1?subscription-key=xxxxx&api-version=xxxxx"},
		{"https://user:SECRET@api.example/", "https://xxxxx@api.example/"},
		{"https://SECRET@api.example/", "https://xxxxx@api.example/"},
		{"http://h/?key=SECRET;x=1", "http://h/?key=xxxxx&x=xxxxx"},
		{"http://h/?key=SECRET%zz", "http://h/?key=xxxxx"},
		{"http://h/?SECRET", "http://h/?xxxxx"},
		{"https://api.example/v1#SECRET", "https://api.example/v1#xxxxx"},
		{"https://api.example/v1", "https://api.example/v1"},
	} {
		u, _ := url.Parse(tc.in)
		if got := Redact(u); got != tc.want || strings.Contains(got, "SECRET") {
			t.Errorf("Redact(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

// TestLongMessageForwarded: a user message over the compile's bound, well
// inside the body cap, is forwarded with the skills its start and end
// call for, and the host is told the task was clipped.
func TestLongMessageForwarded(t *testing.T) {
	// A compile of the longest task takes a tenth of a second on a quiet
	// machine and seconds under the race detector or a loaded CI runner:
	// this test is about forwarding, so the deadline is out of its way.
	f := newFixture(t, nil, Config{Timeout: time.Minute})
	pasted := strings.Repeat("lorem ipsum dolor sit amet ", (compiler.MaxTaskBytes/27)+1000)
	msg, _ := json.Marshal("write the failing test first, test-driven development.\n" + pasted)
	body := `{"model":"gpt-x","messages":[{"role":"user","content":` + string(msg) + `}]}`
	resp, data := f.do(t, "POST", "/v1/chat/completions", body, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("got %d %.300s; want 200", resp.StatusCode, data)
	}
	if got := resp.Header.Get(HeaderSelected); got != "tdd" {
		t.Errorf("X-Rlmc-Selected: got %q; want tdd", got)
	}
	if got := resp.Header.Get(HeaderTaskClipped); !strings.HasPrefix(got, itoa(compiler.MaxTaskBytes)+" of ") {
		t.Errorf("%s: got %q; want %d of the message's bytes", HeaderTaskClipped, got, compiler.MaxTaskBytes)
	}
	if f.up.count() != 1 {
		t.Errorf("the upstream got %d calls; want 1", f.up.count())
	}
}

// TestTokenAsBearer: the token header may carry "Bearer TOKEN", in any
// case, as clients that send every token that way write it.
func TestTokenAsBearer(t *testing.T) {
	f := newFixture(t, nil, Config{Token: "tok"})
	for _, tc := range []struct {
		given string
		want  int
	}{{"tok", 200}, {"Bearer tok", 200}, {"bearer tok", 200}, {"bearer tok2", 401}, {"Basic tok", 401}} {
		resp, _ := f.do(t, "POST", "/v1/chat/completions", chatPlain, map[string]string{HeaderToken: tc.given})
		if resp.StatusCode != tc.want {
			t.Errorf("%s %q: got %d; want %d", HeaderToken, tc.given, resp.StatusCode, tc.want)
		}
	}
}

// TestStalledBodiesBounded: completions whose bodies stall are cut at
// the body deadline, and while they are held they cannot take more than
// the body budget: a further completion is a 503, not more memory.
func TestStalledBodiesBounded(t *testing.T) {
	f := newFixture(t, nil, Config{MaxBodyBytes: 64 << 10, BodyTimeout: 500 * time.Millisecond})
	addr := strings.TrimPrefix(f.url, "http://")
	// bodyBudgetFactor bodies of the cap, each sent but one byte.
	var conns []net.Conn
	for range bodyBudgetFactor {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "+itoa(64<<10)+"\r\n\r\n"+strings.Repeat("x", 64<<10-1))
	}
	time.Sleep(100 * time.Millisecond)
	resp, data := f.do(t, "POST", "/v1/chat/completions", chatPlain, nil)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("beside %d stalled bodies: got %d %.200s; want 503", bodyBudgetFactor, resp.StatusCode, data)
	}
	// Past the deadline the stalled ones are cut and the budget is back.
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		r, err := http.ReadResponse(bufioReader(c), nil)
		if err != nil {
			t.Fatalf("a stalled body got no answer: %v", err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusRequestTimeout {
			t.Errorf("a stalled body: got %d; want 408", r.StatusCode)
		}
		c.Close()
	}
	if resp, _ := f.do(t, "POST", "/v1/chat/completions", chatPlain, nil); resp.StatusCode != 200 {
		t.Errorf("after the stalled bodies were cut: got %d; want 200", resp.StatusCode)
	}
}

func bufioReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }

func itoa(n int) string { return strconv.Itoa(n) }

// TestInformationalAnswers: an upstream's 103 speaks no X-Rlmc-* header
// for the proxy, and a client that sends Expect: 100-continue gets the
// proxy's headers on the final answer (a forwarded 100 cleared them).
func TestInformationalAnswers(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Expect") != "" {
			t.Errorf("the upstream got Expect: %q; want none (the body is read already)", r.Header.Get("Expect"))
		}
		w.Header().Set("X-Rlmc-Selected", "evil-skill")
		w.Header().Set("Link", "</x>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("X-Rlmc-Selected")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	f := newFixture(t, up, Config{})
	c, err := net.Dial("tcp", strings.TrimPrefix(f.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+itoa(len(chatNoSystem))+"\r\n\r\n"+chatNoSystem)
	raw, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	// Each answer's head: the informational ones and the final one.
	var final string
	for _, head := range strings.Split(string(raw), "\r\n\r\n") {
		if !strings.HasPrefix(head, "HTTP/1.1 ") {
			continue
		}
		if strings.HasPrefix(head, "HTTP/1.1 1") {
			if strings.Contains(strings.ToLower(head), "x-rlmc-") {
				t.Errorf("an informational answer carries X-Rlmc-*:\n%s", head)
			}
			continue
		}
		final = head
	}
	if !strings.Contains(final, HeaderSelected+": tdd") || !strings.Contains(final, HeaderDecision+": route") || strings.Contains(final, "evil-skill") {
		t.Errorf("the final answer's head lacks the proxy's headers or has the upstream's:\n%s", final)
	}
}

// TestTurnPlacementBounded: a conversation of many turns the proxy has
// not seen is not compiled turn by turn past the compile deadline, nor
// given blocks past --max-body: its block goes in the system prompt and
// X-Rlmc-Placement says so.
func TestTurnPlacementBounded(t *testing.T) {
	msgs := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"model":"gpt-x","messages":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"role":"user","content":"write the failing test first, test-driven development, round %d"},{"role":"assistant","content":"ok"}`, i)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	// The turns ask for one skill, which the first carries alone: the
	// byte bound is set just above the body, which one block passes.
	for _, tc := range []struct {
		name string
		cfg  Config
		n    int
	}{
		{"over the deadline", Config{Timeout: 300 * time.Millisecond}, 20000},
		{"over the byte bound", Config{MaxBodyBytes: int64(len(msgs(600))) + 16}, 600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil, tc.cfg)
			body := msgs(tc.n)
			start := time.Now()
			resp, data := f.do(t, "POST", "/v1/chat/completions", body, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("got %d %.300s; want 200", resp.StatusCode, data)
			}
			if got := resp.Header.Get(HeaderPlacement); got != "system" {
				t.Errorf("%s: got %q; want system", HeaderPlacement, got)
			}
			if got := resp.Header.Get(HeaderSelected); got != "tdd" {
				t.Errorf("%s: got %q; want tdd", HeaderSelected, got)
			}
			sent := f.up.last(t).body
			if len(sent) > len(body)+8<<10 {
				t.Errorf("the upstream got %d bytes for a %d-byte call; want the one block added", len(sent), len(body))
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the call took %v", d)
			}
		})
	}
}

// TestTurnKeysFramed: a block a host selected in one conversation is not
// attached to another application's conversation that starts with the
// same words (a different system prompt).
func TestTurnKeysFramed(t *testing.T) {
	f := newFixture(t, nil, Config{})
	one := `{"model":"claude-x","max_tokens":10,"system":"App ONE","messages":[{"role":"user","content":"hey assistant"}]}`
	if resp, data := f.do(t, "POST", "/v1/messages", one, map[string]string{HeaderSelect: "deploy"}); resp.StatusCode != 200 {
		t.Fatalf("app one: got %d %.200s", resp.StatusCode, data)
	}
	two := `{"model":"claude-x","max_tokens":10,"system":"App TWO","messages":[{"role":"user","content":"hey assistant"},{"role":"assistant","content":"hi"},{"role":"user","content":"what is the capital of France?"}]}`
	if resp, data := f.do(t, "POST", "/v1/messages", two, nil); resp.StatusCode != 200 {
		t.Fatalf("app two: got %d %.200s", resp.StatusCode, data)
	}
	if got := string(f.up.last(t).body); got != two {
		t.Errorf("app two's call was edited:\n%s\nwant it as sent:\n%s", got, two)
	}
}

// TestBudgetBackOnceRead: a completion's body budget is given back once
// the upstream has read the body, while its answer still streams.
func TestBudgetBackOnceRead(t *testing.T) {
	streaming := make(chan struct{})
	done := make(chan struct{})
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		close(streaming)
		<-done
	}))
	f := newFixture(t, up, Config{MaxBodyBytes: 64 << 10})
	go func() {
		body := `{"model":"gpt-x","messages":[{"role":"user","content":"` + strings.Repeat("a", 60<<10) + `"}]}`
		req, _ := http.NewRequest("POST", f.url+"/v1/chat/completions", strings.NewReader(body))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-streaming
	defer close(done)
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := f.p.bodies.Left()
		if left == int64(bodyBudgetFactor*(64<<10)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("budget left while the answer streams: got %d; want %d", left, bodyBudgetFactor*(64<<10))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestChainedCallHonorsDeny: a Responses tool turn chained to a
// conversation is compiled again with its own X-Rlmc-Deny: the denied
// skill is neither reported nor put back into instructions.
func TestChainedCallHonorsDeny(t *testing.T) {
	f := newFixture(t, nil, Config{Placement: PlacementSystem})
	first := `{"model":"gpt-x","instructions":"Be brief.","input":"deploy the service to production"}`
	resp, data := f.do(t, "POST", "/v1/responses", first, nil)
	if resp.StatusCode != 200 || resp.Header.Get(HeaderSelected) != "deploy" {
		t.Fatalf("first turn: got %d %q %.200s; want 200 deploy", resp.StatusCode, resp.Header.Get(HeaderSelected), data)
	}
	var answer struct{ ID string }
	mustJSON(t, data, &answer)
	chained := `{"model":"gpt-x","instructions":"Be brief.","previous_response_id":"` + answer.ID + `","input":[{"type":"function_call_output","call_id":"c1","output":"done"}]}`
	resp, data = f.do(t, "POST", "/v1/responses", chained, map[string]string{HeaderDeny: "deploy"})
	if resp.StatusCode != 200 {
		t.Fatalf("chained turn: got %d %.200s; want 200", resp.StatusCode, data)
	}
	if got := resp.Header.Get(HeaderSelected); got != "" {
		t.Errorf("chained turn with deploy denied: %s %q; want none", HeaderSelected, got)
	}
	if bytes.Contains(f.up.last(t).body, []byte("<skills>")) {
		t.Errorf("chained turn with deploy denied: the upstream got a skill block: %s", f.up.last(t).body)
	}
}

// TestChainedAfterLargeFirstEvent: a streamed answer's response.created
// repeats the request's instructions, which an agent's run past the
// proxy's capture bound: the id at the start of the event is read all the
// same, and the tool turn chained to it keeps its skills (it said
// unknown_conversation, and went without them).
func TestChainedAfterLargeFirstEvent(t *testing.T) {
	f := newFixture(t, nil, Config{Placement: PlacementSystem})
	long := strings.Repeat("Be brief. ", 2*captureMax/10)
	first := `{"model":"gpt-x","stream":true,"instructions":"` + long + `","input":"deploy the service to production"}`
	resp, data := f.do(t, "POST", "/v1/responses", first, nil)
	if resp.StatusCode != 200 || resp.Header.Get(HeaderSelected) != "deploy" {
		t.Fatalf("first turn: got %d %q %.200s; want 200 deploy", resp.StatusCode, resp.Header.Get(HeaderSelected), data)
	}
	id := regexp.MustCompile(`"id":"(resp_[0-9]+)"`).FindSubmatch(data)
	if id == nil {
		t.Fatalf("no response id in the stream: %.300s", data)
	}
	chained := `{"model":"gpt-x","instructions":"` + long + `","previous_response_id":"` + string(id[1]) + `","input":[{"type":"function_call_output","call_id":"c1","output":"done"}]}`
	resp, data = f.do(t, "POST", "/v1/responses", chained, nil)
	if got := resp.Header.Get(HeaderDecision); resp.StatusCode != 200 || got != "route" {
		t.Fatalf("chained turn: got %d, %s %q %.200s; want 200 route", resp.StatusCode, HeaderDecision, got, data)
	}
	if !bytes.Contains(f.up.last(t).body, []byte(blockOf("deploy"))) {
		t.Errorf("chained turn: the upstream got no skill block")
	}
}

// TestResponseIDBounds: an upstream's id longer than any API's is not
// remembered, and a gzip answer is never decoded past captureMax (a
// 40 KB answer carrying a 40 MiB id held 300 MB).
func TestResponseIDBounds(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		want     bool
	}{{"an id of the usual size", "resp_" + strings.Repeat("a", 48), true}, {"an id too long", "resp_" + strings.Repeat("a", 4096), false}} {
		t.Run(tc.name, func(t *testing.T) {
			found := false
			c := &idCatcher{ReadCloser: io.NopCloser(strings.NewReader(`{"id":"` + tc.id + `","object":"response"}`)), found: func(string) { found = true }}
			io.Copy(io.Discard, c)
			if found != tc.want {
				t.Errorf("remembered: got %v; want %v", found, tc.want)
			}
		})
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(`{"id":"`))
	zw.Write(bytes.Repeat([]byte("a"), 16<<20))
	zw.Close()
	decoded := 0
	g := newGunzipper(func(b []byte) (string, bool) { decoded += len(b); return "", false })
	g.write(zipped.Bytes())
	g.close()
	<-g.ended
	if decoded > captureMax {
		t.Errorf("a gzip bomb decoded to %d bytes; want at most %d", decoded, captureMax)
	}
}

// TestCatchIDGzipLinear: a gzip answer sent a few bytes at a time is
// decoded once, not from its start at every read (a 64 KiB answer sent 16
// bytes at a time, its id last, took over a second of CPU), and its id is
// known before the read that completes it returns.
func TestCatchIDGzipLinear(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(`{"object":"response","pad":"`))
	// Incompressible padding, flushed in many blocks, as a server
	// streaming its answer would.
	pad := make([]byte, 40<<10)
	for i := range pad {
		pad[i] = "abcdefghijklmnopqrstuvwxyz"[(i*7919+i/26)%26]
	}
	for i := 0; i < len(pad); i += 512 {
		zw.Write(pad[i : i+512])
		zw.Flush()
	}
	zw.Write([]byte(`","id":"resp_late"}`))
	zw.Close()
	fed := 0
	var got string
	finder := (&idFinder{}).feed
	c := &idCatcher{ReadCloser: io.NopCloser(iotest.OneByteReader(bytes.NewReader(zipped.Bytes()))), gzip: true,
		feed:  func(b []byte) (string, bool) { fed += len(b); return finder(b) },
		found: func(id string) { got = id }}
	buf := make([]byte, 16)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for {
		_, err := c.Read(buf)
		if err != nil {
			break
		}
	}
	c.Close()
	runtime.ReadMemStats(&after)
	// Decoded from its start at each read, it allocated a decoder and
	// the decoded prefix thousands of times: about 2 GB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading the answer allocated %d bytes; want under 4 MiB, a decoder once", alloc)
	}
	if got != "resp_late" {
		t.Fatalf("got %q; want resp_late", got)
	}
	// Each decoded byte is fed once: the decoded answer's length, not
	// the sum of its prefixes.
	if want := len(`{"object":"response","pad":"`) + len(pad) + len(`","id":"resp_late"}`); fed > want {
		t.Errorf("fed %d bytes to the finder; want at most the %d the answer decodes to", fed, want)
	}
}

// TestUnknownDenyTold: a denial naming no unit (names are exact) is
// answered with X-Rlmc-Unknown-Deny; it passed without a word.
func TestUnknownDenyTold(t *testing.T) {
	f := newFixture(t, nil, Config{MaxBodyBytes: 1 << 20})
	resp, _ := f.do(t, "POST", "/v1/chat/completions", chatNoSystem, map[string]string{HeaderDeny: "TDD, deploy"})
	if got := resp.Header.Get(HeaderUnknownDeny); got != "TDD" {
		t.Errorf("%s: got %q; want TDD", HeaderUnknownDeny, got)
	}
	resp, _ = f.do(t, "POST", "/v1/chat/completions", chatNoSystem, map[string]string{HeaderDeny: "deploy"})
	if got := resp.Header.Get(HeaderUnknownDeny); got != "" {
		t.Errorf("%s with a known denial: got %q; want none", HeaderUnknownDeny, got)
	}
	// Many unknown names: the first 20 are named back, not the whole
	// header (4,000 names made an 80 KB answer header clients refuse).
	var names []string
	for i := range 4000 {
		names = append(names, fmt.Sprintf("unknown-skill-%05d", i))
	}
	resp, _ = f.do(t, "POST", "/v1/chat/completions", chatNoSystem, map[string]string{HeaderDeny: strings.Join(names, ",")})
	if got, want := resp.Header.Get(HeaderUnknownDeny), strings.Join(names[:maxShownNames], ","); got != want {
		t.Errorf("%s with 4,000 unknown names: got %d bytes; want the first %d names (%d bytes)", HeaderUnknownDeny, len(got), maxShownNames, len(want))
	}
	// A call the host asks the proxy to skip, or one over --max-body,
	// still says so: the host sends its denials with every call, and
	// these went without a word.
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
	}{
		{"skipped", map[string]string{HeaderDeny: "TDD", HeaderSkip: "1"}, chatNoSystem},
		{"over --max-body", map[string]string{HeaderDeny: "TDD"}, `{"messages":[],"pad":"` + strings.Repeat("x", 2<<20) + `"}`},
	} {
		resp, _ = f.do(t, "POST", "/v1/chat/completions", tc.body, tc.header)
		if got := resp.Header.Get(HeaderUnknownDeny); got != "TDD" {
			t.Errorf("%s: %s: got %q; want TDD", tc.name, HeaderUnknownDeny, got)
		}
	}
}

// TestFirstNames: the names told back are bounded in count and bytes.
func TestFirstNames(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name  string
		in    []string
		count int
		bytes int
	}{
		{name: "a few", in: []string{"a", "b"}, count: 2, bytes: 3},
		{name: "one huge name", in: []string{long}, count: 1, bytes: maxShownBytes},
		{name: "a huge name after a short one", in: []string{"a", long}, count: 1, bytes: 1},
		{name: "many", in: strings.Split(strings.Repeat("n,", 100)+"n", ","), count: maxShownNames, bytes: 2*maxShownNames - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := firstNames(tc.in)
			if joined := strings.Join(got, ","); len(got) != tc.count || len(joined) != tc.bytes {
				t.Errorf("got %d names, %d bytes; want %d, %d", len(got), len(joined), tc.count, tc.bytes)
			}
		})
	}
}

// TestChainCarriesASkillOnce: under turn placement, a Responses call
// chained by previous_response_id is not sent a skill block the
// conversation's inputs already hold upstream, however many turns later
// (each chained turn got it again); a skill it does not hold yet is sent,
// and a tool turn in between keeps what the chain carries.
func TestChainCarriesASkillOnce(t *testing.T) {
	f := newFixture(t, nil, Config{})
	id := func(data []byte) string { return responseID(t, data) }
	_, data := f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","input":"deploy the service to production"}`, nil)
	if !bytes.Contains(f.up.last(t).body, []byte(`<skill name=\"deploy\">`)) {
		t.Fatalf("first turn: the upstream got no deploy block: %s", f.up.last(t).body)
	}
	_, data = f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","previous_response_id":"`+id(data)+`","input":[{"type":"function_call_output","call_id":"c1","output":"done"}]}`, nil)
	for turn, input := range []string{"deploy the service to production again", "now deploy it to production for the EU region"} {
		resp, next := f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","previous_response_id":"`+id(data)+`","input":"`+input+`"}`, nil)
		if resp.Header.Get(HeaderSelected) != "deploy" {
			t.Fatalf("turn %d: %s %q; want deploy", turn+2, HeaderSelected, resp.Header.Get(HeaderSelected))
		}
		if got := f.up.last(t).body; bytes.Contains(got, []byte("<skill ")) {
			t.Errorf("turn %d: the chain holds deploy's block, and got it again: %s", turn+2, got)
		}
		data = next
	}
	f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","previous_response_id":"`+id(data)+`","input":"write the failing test first, test-driven development"}`, nil)
	if got := f.up.last(t).body; !bytes.Contains(got, []byte(`<skill name=\"tdd\">`)) {
		t.Errorf("a skill the chain does not hold: the upstream got %s; want the tdd block", got)
	}
}

// TestChainCarriedEverywhere: what a chain of Responses calls carries
// holds for a count of a chained call (it counted the block again, which
// the call is not sent) and across a chained tool turn sent with
// X-Rlmc-Select (its block goes in instructions; the chain's blocks were
// forgotten, and the next turn was sent them again).
func TestChainCarriedEverywhere(t *testing.T) {
	f := newFixture(t, nil, Config{})
	id := func(data []byte) string { return responseID(t, data) }
	_, data := f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","input":"deploy the service to production"}`, nil)
	again := `{"model":"gpt-x","previous_response_id":"` + id(data) + `","input":"deploy the service to production again"}`
	f.do(t, "POST", "/v1/responses", again, nil)
	f.do(t, "POST", "/v1/responses/input_tokens", again, nil)
	if got := f.up.last(t).body; string(got) != again {
		t.Errorf("a count of a chained call it forwarded: the upstream got %s; want it as sent (the chain holds the block)", got)
	}
	_, data = f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","previous_response_id":"`+id(data)+`","input":[{"type":"function_call_output","call_id":"c1","output":"done"}]}`,
		map[string]string{HeaderSelect: "tdd"})
	f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","previous_response_id":"`+id(data)+`","input":"deploy the service to production again"}`, nil)
	if got := f.up.last(t).body; bytes.Contains(got, []byte(`<skill name=\"deploy\">`)) {
		t.Errorf("after a chained tool turn with a selection: the upstream got deploy's block again: %s", got)
	}
}

// responseID is the id of a Responses answer.
func responseID(t *testing.T, data []byte) string {
	t.Helper()
	var answer struct{ ID string }
	mustJSON(t, data, &answer)
	return answer.ID
}

// TestHeldBlockNotAttachedAgain: a user turn that already holds the block
// the proxy would attach (a host that put rlmc's block in, a proxy in
// front of this one) is sent as it is; the upstream got every skill of
// it twice. Each API and shape of content, the newest turn and an
// earlier one.
func TestHeldBlockNotAttachedAgain(t *testing.T) {
	f := newFixture(t, nil, Config{})
	_, _ = f.do(t, "POST", "/v1/chat/completions", `{"model":"gpt-x","messages":[{"role":"user","content":"deploy the service to production"}]}`, nil)
	var first struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	mustJSON(t, f.up.last(t).body, &first)
	held := first.Messages[0].Content // the block, then the task
	if !strings.Contains(held, `<skill name="deploy">`) {
		t.Fatalf("the upstream got no deploy block: %q", held)
	}
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false) // as the proxy writes it
	if err := e.Encode(held); err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(enc.String())
	for _, tc := range []struct{ name, path, body string }{
		{"chat string", "/v1/chat/completions", `{"model":"gpt-x","messages":[{"role":"user","content":` + s + `}]}`},
		{"chat parts", "/v1/chat/completions", `{"model":"gpt-x","messages":[{"role":"user","content":[{"type":"text","text":` + s + `}]}]}`},
		{"messages parts", "/v1/messages", `{"model":"claude-x","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":` + s + `}]}]}`},
		{"responses string", "/v1/responses", `{"model":"gpt-x","input":` + s + `}`},
		{"an earlier turn", "/v1/chat/completions", `{"model":"gpt-x","messages":[{"role":"user","content":` + s + `},{"role":"assistant","content":"done"},{"role":"user","content":"now deploy the service to production in the EU"}]}`},
		// Claude Code puts its hook's context in a message of its own.
		{"a system message before the turn", "/v1/messages", `{"model":"claude-x","max_tokens":10,"messages":[{"role":"system","content":` + s + `},{"role":"user","content":"deploy the service to production"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.do(t, "POST", tc.path, tc.body, nil)
			if n := bytes.Count(f.up.last(t).body, []byte(`<skill name=\"deploy\">`)); n != 1 {
				t.Errorf("the upstream got deploy's block %d times; want once: %s", n, f.up.last(t).body)
			}
		})
	}
	// A Responses chain carries what its inputs held on to the calls
	// chained to it.
	_, data := f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","input":[{"role":"user","content":`+s+`}]}`, nil)
	f.do(t, "POST", "/v1/responses", `{"model":"gpt-x","previous_response_id":"`+responseID(t, data)+`","input":"deploy the service to production again"}`, nil)
	if got := f.up.last(t).body; bytes.Contains(got, []byte("<skill ")) {
		t.Errorf("a chained call: the chain's input held deploy's block, and the call got it again: %s", got)
	}
}

// TestCompressedBody: a call whose body the client compressed (gzip,
// deflate, zstd) gets its skills, and goes upstream decoded; it went as
// sent, unread and without skills, with nothing said. One in an encoding
// the proxy does not read, damaged, or decoding past --max-body goes as
// sent, and the log says why.
func TestCompressedBody(t *testing.T) {
	const body = `{"model":"gpt-x","messages":[{"role":"user","content":"deploy the service to production"}]}`
	compress := func(enc string, data []byte) string {
		var b bytes.Buffer
		switch enc {
		case "gzip":
			w := gzip.NewWriter(&b)
			w.Write(data)
			w.Close()
		case "deflate":
			w := zlib.NewWriter(&b)
			w.Write(data)
			w.Close()
		case "raw deflate":
			w, _ := flate.NewWriter(&b, flate.DefaultCompression)
			w.Write(data)
			w.Close()
		case "zstd":
			w, _ := zstd.NewWriter(&b)
			w.Write(data)
			w.Close()
		}
		return b.String()
	}
	f := newFixture(t, nil, Config{MaxBodyBytes: 4096})
	for _, enc := range []string{"gzip", "deflate", "raw deflate", "zstd"} {
		t.Run(enc, func(t *testing.T) {
			header := strings.Fields(enc)[len(strings.Fields(enc))-1]
			resp, _ := f.do(t, "POST", "/v1/chat/completions", compress(enc, []byte(body)), map[string]string{"Content-Encoding": header})
			if got := resp.Header.Get(HeaderSelected); got != "deploy" {
				t.Fatalf("%s: got %q; want deploy", HeaderSelected, got)
			}
			up := f.up.last(t)
			if got := up.header.Get("Content-Encoding"); got != "" {
				t.Errorf("upstream Content-Encoding: got %q; want none, the body decoded", got)
			}
			if !bytes.Contains(up.body, []byte(`<skill name=\"deploy\">`)) {
				t.Errorf("upstream body: got %s; want the deploy block", up.body)
			}
		})
	}
	huge := `{"model":"gpt-x","messages":[{"role":"user","content":"deploy the service to production` + strings.Repeat(" ", 8192) + `"}]}`
	for _, tc := range []struct{ name, enc, body string }{
		{"an encoding not read", "br", body},
		{"damaged", "gzip", "\x1f\x8b not gzip at all"},
		{"decoding past --max-body", "gzip", compress("gzip", []byte(huge))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := f.do(t, "POST", "/v1/chat/completions", tc.body, map[string]string{"Content-Encoding": tc.enc})
			if got := resp.Header.Get(HeaderDecision); got != DecisionUnread {
				t.Errorf("%s: got %q; want %q", HeaderDecision, got, DecisionUnread)
			}
			up := f.up.last(t)
			if string(up.body) != tc.body || up.header.Get("Content-Encoding") != tc.enc {
				t.Errorf("upstream: got %q (%s); want the body as sent", up.body, up.header.Get("Content-Encoding"))
			}
			if !strings.Contains(f.logs.String(), "a compressed completion goes upstream as sent") {
				t.Errorf("log: got %s; want it to say why", f.logs.String())
			}
		})
	}
}

// TestOneTurnNearTheBound: a call of one turn whose block takes its body
// past --max-body keeps the block in its turn: the system prompt would
// get the same bytes, and the call went there with a system message the
// client never sent (a red team).
func TestOneTurnNearTheBound(t *testing.T) {
	body := `{"model":"gpt-x","messages":[{"role":"user","content":"write the failing test first, test-driven development"}]}`
	f := newFixture(t, nil, Config{MaxBodyBytes: int64(len(body)) + 16})
	resp, data := f.do(t, "POST", "/v1/chat/completions", body, nil)
	if resp.StatusCode != 200 || resp.Header.Get(HeaderSelected) != "tdd" {
		t.Fatalf("got %d %s, %s %q; want 200 and tdd", resp.StatusCode, data, HeaderSelected, resp.Header.Get(HeaderSelected))
	}
	if got := resp.Header.Get(HeaderPlacement); got != "" {
		t.Errorf("%s: got %q; want none, the block in the turn", HeaderPlacement, got)
	}
	if up := f.up.last(t).body; bytes.Contains(up, []byte(`"role":"system"`)) {
		t.Errorf("upstream: got %s; want no system message added", up)
	}
}
