package httpsafe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestGuard sends what a browser page can send to a server on the user's
// machine that has no token: a rebound name (DNS rebinding) and another
// origin's requests are refused, the host's own clients pass.
func TestGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	refuse := func(w http.ResponseWriter, _ *http.Request, r Refusal) {
		w.WriteHeader(r.Status)
		io.WriteString(w, r.Code)
	}
	tests := []struct {
		name           string
		method, host   string
		header         map[string]string
		token, socket  bool
		wantStatus     int
		wantBodyPrefix string
	}{
		{name: "loopback address", method: "POST", host: "127.0.0.1:8787", wantStatus: 200},
		{name: "localhost", method: "GET", host: "localhost:8787", wantStatus: 200},
		{name: "localhost in capitals", method: "GET", host: "LOCALHOST:8787", wantStatus: 200},
		{name: "ipv6 loopback", method: "GET", host: "[::1]:8787", wantStatus: 200},
		{name: "other loopback address", method: "GET", host: "127.0.0.2:8787", wantStatus: 200},
		{name: "no port", method: "GET", host: "localhost", wantStatus: 200},
		{name: "rebound name", method: "GET", host: "rebind.attacker.example:8787", wantStatus: 403, wantBodyPrefix: CodeForbiddenHost},
		{name: "rebound name, compile", method: "POST", host: "rebind.attacker.example:8787", header: map[string]string{"Content-Type": "text/plain"}, wantStatus: 403, wantBodyPrefix: CodeForbiddenHost},
		{name: "loopback lookalike", method: "GET", host: "127.0.0.1.nip.io:8787", wantStatus: 403, wantBodyPrefix: CodeForbiddenHost},
		{name: "localhost lookalike", method: "GET", host: "localhost.attacker.example", wantStatus: 403, wantBodyPrefix: CodeForbiddenHost},
		{name: "empty host", method: "GET", host: "", wantStatus: 403, wantBodyPrefix: CodeForbiddenHost},
		{name: "other origin's form", method: "POST", host: "127.0.0.1:8787", header: map[string]string{"Origin": "https://attacker.example", "Content-Type": "text/plain"}, wantStatus: 403, wantBodyPrefix: CodeCrossOrigin},
		{name: "other origin's read", method: "GET", host: "127.0.0.1:8787", header: map[string]string{"Origin": "https://attacker.example"}, wantStatus: 403, wantBodyPrefix: CodeCrossOrigin},
		{name: "other loopback port's page", method: "POST", host: "127.0.0.1:8787", header: map[string]string{"Origin": "http://127.0.0.1:3000"}, wantStatus: 403, wantBodyPrefix: CodeCrossOrigin},
		{name: "null origin", method: "POST", host: "127.0.0.1:8787", header: map[string]string{"Origin": "null"}, wantStatus: 403, wantBodyPrefix: CodeCrossOrigin},
		{name: "fetch metadata cross-site", method: "POST", host: "127.0.0.1:8787", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, wantStatus: 403, wantBodyPrefix: CodeCrossOrigin},
		// A no-cors GET (an <img>, a <script>) sends no Origin; Go's
		// protection lets safe methods through, and the catalog was
		// answered.
		{name: "fetch metadata cross-site read", method: "GET", host: "127.0.0.1:8787", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, wantStatus: 403, wantBodyPrefix: CodeCrossOrigin},
		{name: "fetch metadata same-site read", method: "GET", host: "127.0.0.1:8787", header: map[string]string{"Sec-Fetch-Site": "same-site"}, wantStatus: 403, wantBodyPrefix: CodeCrossOrigin},
		{name: "fetch metadata same origin read", method: "GET", host: "127.0.0.1:8787", header: map[string]string{"Sec-Fetch-Site": "same-origin"}, wantStatus: 200},
		{name: "fetch metadata typed address", method: "GET", host: "127.0.0.1:8787", header: map[string]string{"Sec-Fetch-Site": "none"}, wantStatus: 200},
		{name: "same origin page", method: "POST", host: "127.0.0.1:8787", header: map[string]string{"Origin": "http://127.0.0.1:8787"}, wantStatus: 200},
		{name: "token set: any host", method: "POST", host: "rlmc.internal:8787", token: true, wantStatus: 200},
		{name: "unix socket: any host", method: "POST", host: "rebind.attacker.example", socket: true, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Guard(ok, tt.token, tt.socket, refuse)
			r := httptest.NewRequest(tt.method, "/v1/compile", strings.NewReader("{}"))
			r.Host = tt.host
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.wantStatus || !strings.HasPrefix(w.Body.String(), tt.wantBodyPrefix) {
				t.Errorf("got %d %q; want %d %q", w.Code, w.Body.String(), tt.wantStatus, tt.wantBodyPrefix)
			}
		})
	}
}

func TestBearer(t *testing.T) {
	tests := []struct {
		name, header, want string
		ok                 bool
	}{
		{"canonical", "Bearer tok", "tok", true},
		{"lower case scheme", "bearer tok", "tok", true},
		{"upper case scheme", "BEARER tok", "tok", true},
		{"two spaces", "Bearer  tok", "tok", true},
		{"other scheme", "Basic dG9rOg==", "", false},
		{"no credentials", "Bearer", "", false},
		{"empty credentials", "Bearer ", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Bearer(tt.header)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Bearer(%q) = %q, %v; want %q, %v", tt.header, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestToken(t *testing.T) {
	tok := NewToken("s3cret")
	for _, tt := range []struct {
		given string
		want  bool
	}{{"s3cret", true}, {"s3cre", false}, {"s3cret ", false}, {"", false}} {
		if got := tok.Matches(tt.given); got != tt.want {
			t.Errorf("Matches(%q) = %v; want %v", tt.given, got, tt.want)
		}
	}
	if NewToken("").Set() || NewToken("").Matches("") {
		t.Error("an empty token is set or matches; want neither")
	}
}

// TestReadBody checks the bounds of a body read over a real connection:
// its size, its deadline, and the budget all bodies share.
func TestReadBody(t *testing.T) {
	budget := NewBudget(1 << 20)
	type result struct {
		n      int
		status int
	}
	results := make(chan result, 8)
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, release, err := ReadBody(w, r, 512<<10, 300*time.Millisecond, budget)
		defer release()
		status := 200
		if err != nil {
			status = BodyStatus(err)
		}
		if r.URL.Path == "/hold" && err == nil {
			<-hold
		}
		results <- result{len(body), status}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	send := func(path, body string) int {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return (<-results).status
	}

	if got := send("/", strings.Repeat("x", 1000)); got != 200 {
		t.Errorf("a small body: got %d; want 200", got)
	}
	if got := send("/", strings.Repeat("x", 600<<10)); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: got %d; want 413", got)
	}
	// Bodies of undeclared length (chunked) are read in pieces and joined.
	for _, n := range []int{0, 1, 8 << 10, 300 << 10, 512 << 10} {
		resp, err := http.Post(srv.URL, "application/json", io.MultiReader(strings.NewReader(strings.Repeat("y", n))))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if r := <-results; r.status != 200 || r.n != n {
			t.Errorf("a chunked body of %d bytes: got %d, %d bytes; want 200, %d", n, r.status, r.n, n)
		}
	}
	resp, err := http.Post(srv.URL, "application/json", io.MultiReader(strings.NewReader(strings.Repeat("y", 513<<10))))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := <-results; r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a chunked body over the limit: got %d; want 413", r.status)
	}
	if budget.left != 1<<20 {
		t.Errorf("budget left after the chunked bodies: got %d; want %d", budget.left, 1<<20)
	}

	// A client that sends half a body and stalls is cut at the deadline.
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"+strings.Repeat("x", 500))
	select {
	case r := <-results:
		if r.status != http.StatusRequestTimeout {
			t.Errorf("a stalled body: got %d; want 408", r.status)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a stalled body was not cut at its deadline")
	}
	conn.Close()

	// A client that sends less than it declared, or half a chunked body,
	// and closes its side is refused: the cut body passed whole, and
	// the proxy answered 200 with nothing.
	for _, raw := range []string{
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + `{"messages":[{"role":"user","con`,
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, raw)
		conn.(*net.TCPConn).CloseWrite()
		select {
		case r := <-results:
			if r.status != http.StatusBadRequest {
				t.Errorf("a body cut short: got %d; want 400", r.status)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a body cut short was not answered")
		}
		conn.Close()
	}

	// Two bodies held at once exhaust the budget; a third is refused
	// while they are held, and passes once they are released.
	done := make(chan int, 2)
	for range 2 {
		go func() {
			resp, err := http.Post(srv.URL+"/hold", "application/json", strings.NewReader(strings.Repeat("x", 500<<10)))
			if err == nil {
				resp.Body.Close()
				done <- resp.StatusCode
			} else {
				done <- 0
			}
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		budget.mu.Lock()
		left := budget.left
		budget.mu.Unlock()
		if left < 100<<10 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := send("/", strings.Repeat("x", 200<<10)); got != http.StatusServiceUnavailable {
		t.Errorf("a body over the budget: got %d; want 503", got)
	}
	close(hold)
	<-results
	<-results
	<-done
	<-done
	if got := send("/", strings.Repeat("x", 200<<10)); got != 200 {
		t.Errorf("a body after the budget was given back: got %d; want 200", got)
	}
	if budget.left != 1<<20 {
		t.Errorf("budget left after every body: got %d; want %d", budget.left, 1<<20)
	}
}

// TestReadBodyDeclaredNotAllocated: a body that declares a length near
// the limit and sends a few bytes allocates for the bytes sent, not for
// the length declared: a buffer of the declared size was made up front,
// and 32 connections declaring 32 MiB each held 1 GiB of a proxy.
func TestReadBodyDeclaredNotAllocated(t *testing.T) {
	const declared = 32 << 20
	r := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(`{"messages":[`), iotest.ErrReader(os.ErrDeadlineExceeded)))
	r.ContentLength = declared
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, release, err := ReadBody(httptest.NewRecorder(), r, declared, 0, NewBudget(declared))
	runtime.ReadMemStats(&after)
	release()
	if !errors.Is(err, ErrBodyTimeout) {
		t.Errorf("got %v; want ErrBodyTimeout", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*budgetStep {
		t.Errorf("allocated %d bytes for a body that sent 13 of the %d it declared; want at most %d", got, declared, 2*budgetStep)
	}
}

// TestListenSocketSetupFails: when the socket cannot be made private or
// moved into place, Listen says so and leaves nothing at the path (it
// reported listening on a path where no socket was).
func TestListenSocketSetupFails(t *testing.T) {
	old := chmodRename
	t.Cleanup(func() { chmodRename = old })
	chmodRename = func(string, string) error { return errors.New("rename failed") }
	path := filepath.Join(t.TempDir(), "rlmc.sock")
	ln, err := Listen("", path)
	if err == nil {
		ln.Close()
		t.Fatal("Listen succeeded; want the setup's error")
	}
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("got %T; want *ConfigError", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file is at the socket path after a failed setup: %v", err)
	}
}

// TestListenSocket: the listener names the path clients connect to, and a
// path too long to connect to is refused before anything listens.
func TestListenSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rlmc.sock")
	ln, err := Listen("", path)
	if err != nil {
		t.Fatal(err)
	}
	if got := ln.Addr().String(); got != path {
		t.Errorf("Addr: got %q; want %q", got, path)
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Errorf("dialing the socket: %v", err)
	} else {
		c.Close()
	}
	ln.Close()
	// A path that fits, but whose temporary twin does not, is refused as
	// clearly as one that does not fit.
	if near := filepath.Join(dir, strings.Repeat("y", maxSocketPath-len(dir)-1)); len(near) == maxSocketPath {
		if ln, err := Listen("", near); err == nil {
			ln.Close()
		} else if !strings.Contains(err.Error(), "too long") {
			t.Errorf("a %d-byte socket path: got %v; want it said too long", len(near), err)
		}
	}
	long := filepath.Join(dir, strings.Repeat("x", maxSocketPath))
	if ln, err := Listen("", long); err == nil {
		ln.Close()
		t.Errorf("a %d-byte socket path: got a listener; want an error", len(long))
	}
	if _, err := os.Lstat(long); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file is at the too-long path: %v", err)
	}
}

// TestNewBudgetOf checks the budget of count bodies of each bytes,
// saturated rather than wrapped: --max-inflight or --max-body set as
// high as it goes made a negative budget, and the server answered every
// request "overloaded".
func TestNewBudgetOf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		count, each int64
		want        int64
	}{
		{name: "product", count: 64, each: 1 << 20, want: 64 << 20},
		{name: "largest count", count: math.MaxInt64, each: 1 << 20, want: math.MaxInt64},
		{name: "largest size", count: 8, each: math.MaxInt64, want: math.MaxInt64},
		{name: "just over", count: 8, each: 1 << 60, want: math.MaxInt64},
		{name: "just under", count: 8, each: 1<<60 - 1, want: 8<<60 - 8},
		{name: "no count", count: 0, each: 1 << 20, want: 0},
		{name: "negative size", count: 8, each: -1, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewBudgetOf(tc.count, tc.each).Left(); got != tc.want {
				t.Errorf("NewBudgetOf(%d, %d).Left(): got %d; want %d", tc.count, tc.each, got, tc.want)
			}
		})
	}
}

// TestReadBodyEdges: a body comes back byte-exact and the budget whole at
// the sizes where pieces begin and end; a body longer or shorter than it
// declared is refused; a chunked body at the limit fits a budget of one
// limit (its pieces were charged in whole steps past it); a declared
// body that fits one piece is allocated once.
func TestReadBodyEdges(t *testing.T) {
	const limit = 600 << 10
	for _, n := range []int{0, 1, budgetStep - 1, budgetStep, budgetStep + 1, 2 * budgetStep, limit} {
		for _, chunked := range []bool{false, true} {
			want := strings.Repeat("x", n)
			var src io.Reader = strings.NewReader(want)
			if chunked {
				src = iotest.HalfReader(io.MultiReader(strings.NewReader(want)))
			}
			r := httptest.NewRequest(http.MethodPost, "/", src)
			r.ContentLength = int64(n)
			if chunked {
				r.ContentLength = -1
			}
			budget := NewBudget(limit)
			got, release, err := ReadBody(httptest.NewRecorder(), r, limit, 0, budget)
			if err != nil || string(got) != want {
				t.Errorf("%d bytes, chunked %v: got %d bytes, %v; want the body", n, chunked, len(got), err)
			}
			release()
			if budget.left != limit {
				t.Errorf("%d bytes, chunked %v: budget left %d after release; want %d", n, chunked, budget.left, limit)
			}
		}
	}
	for _, tc := range []struct {
		name     string
		body     string
		declared int64
		want     error
	}{
		{"longer than declared", "0123456789", 3, ErrBodyTooLarge},
		{"shorter than declared", "012", 10, ErrBodyCut},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
		r.ContentLength = tc.declared
		if _, release, err := ReadBody(httptest.NewRecorder(), r, 1<<20, 0, nil); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v; want %v", tc.name, err, tc.want)
		} else {
			release()
		}
	}
	body := strings.Repeat("y", 200<<10)
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, release, err := ReadBody(httptest.NewRecorder(), r, limit, 0, nil)
	runtime.ReadMemStats(&after)
	release()
	if got := after.TotalAlloc - before.TotalAlloc; err != nil || got > uint64(len(body))+16<<10 {
		t.Errorf("a declared body of %d bytes: allocated %d, %v; want it allocated once", len(body), got, err)
	}
}

// TestRefusedBodyAnswered: a client that sends a body the server refuses
// for its size, and reads the answer only once it has sent it all, reads
// the refusal: the connection closed under it, a broken pipe, and the
// 413 was lost.
func TestRefusedBodyAnswered(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, release, err := ReadBody(w, r, 64<<10, 5*time.Second, NewBudget(1<<20))
		defer release()
		if err != nil {
			status := BodyStatus(err)
			defer Refusing(w, r, status)()
			w.WriteHeader(status)
			return
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	const size = 8 << 20
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", size); err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for sent := 0; sent < size; sent += len(chunk) {
		if _, err := conn.Write(chunk); err != nil {
			t.Fatalf("after %d of %d bytes: %v; want the body taken, then the answer", sent, size, err)
		}
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(line, "413") {
		t.Fatalf("got %q, %v; want a 413 status line", line, err)
	}
}
