// Package httpsafe holds the safe defaults `rlmc serve` and `rlmc proxy`
// share: whoever reaches either is the host, so both decide alike who may
// reach them (a loopback address, a unix socket or a token), which browser
// requests they refuse (another site's page, directly or through DNS
// rebinding), and how much of a request body they hold, for how long.
// Each rule is written here once.
package httpsafe

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rlmc-dev/rlmc/ir"
)

// ConfigError is a configuration a server refuses before it starts.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// CheckAddr refuses an address that is not loopback unless hasToken: the
// caller of either server is the host, and anyone on the network must not
// be. A host name other than localhost could resolve anywhere, so it
// counts as not loopback; so does an empty host (every interface).
func CheckAddr(addr string, hasToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &ConfigError{fmt.Sprintf("--addr %q: %v", addr, err)}
	}
	if hasToken || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return &ConfigError{fmt.Sprintf("refusing to listen on %s, which is not a loopback address, without a token (--token-file or RLMC_TOKEN): whoever reaches the server decides which skills load", addr)}
}

// Listen opens a listener: a unix socket at socket when it is set (see
// listenUnix), else TCP on addr. Its errors are *ConfigError.
func Listen(addr, socket string) (net.Listener, error) {
	if socket != "" {
		return listenUnix(socket)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &ConfigError{fmt.Sprintf("--addr %s: %v", addr, err)}
	}
	return ln, nil
}

// listenUnix listens on a unix socket at path, mode 0600 from the moment
// it is reachable there: it is created in a private folder beside path,
// made 0600, then renamed into place, so no other user can connect in
// between. A stale socket at path (nothing answers on it) is replaced; any
// other file there is an error. The socket is removed when the listener
// closes.
func listenUnix(path string) (net.Listener, error) {
	fail := func(err error) error { return &ConfigError{fmt.Sprintf("--socket %s: %v", path, err)} }
	// The socket is made at a short temporary path and renamed, so a
	// path too long to connect to would be listened on without error.
	if len(path) > maxSocketPath {
		return nil, &ConfigError{fmt.Sprintf("--socket %s: the path is %d bytes; a unix socket's is at most %d here", path, len(path), maxSocketPath)}
	}
	if info, err := os.Lstat(path); err == nil {
		if info.Mode()&os.ModeSocket == 0 {
			return nil, &ConfigError{fmt.Sprintf("--socket %s exists and is not a socket", path)}
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, &ConfigError{fmt.Sprintf("--socket %s: another server is listening there", path)}
		}
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), ".rs")
	if err != nil {
		return nil, fail(err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	// The socket is bound at tmp first, which may be longer than path.
	if len(tmp) > maxSocketPath {
		return nil, &ConfigError{fmt.Sprintf("--socket %s: the path is too long for a unix socket here (it is made at %s, %d bytes, then renamed; at most %d): choose a shorter one", path, tmp, len(tmp), maxSocketPath)}
	}
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, fail(err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // it is renamed; unixListener removes path itself
	if err := chmodRename(tmp, path); err != nil {
		ul.Close()
		return nil, fail(err)
	}
	return &unixListener{UnixListener: ul, path: path}, nil
}

// chmodRename makes the socket at tmp 0600 and moves it to path; a
// failure of either leaves no socket at path, and is the caller's error.
var chmodRename = func(tmp, path string) error {
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// maxSocketPath is the longest unix socket path clients can connect to:
// sun_path holds 108 bytes on Linux and 104 on the BSDs and macOS, the
// terminating NUL included.
var maxSocketPath = func() int {
	if runtime.GOOS == "linux" {
		return 107
	}
	return 103
}()

// unixListener removes its socket file when closed, and names it by the
// path clients connect to, not the temporary one it was made at.
type unixListener struct {
	*net.UnixListener
	path string
}

func (l *unixListener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}

// Token is a configured token, kept as its hash so that comparing it
// leaks neither its content nor its length through timing.
type Token struct {
	sum [sha256.Size]byte
	set bool
}

// NewToken returns token, or no token when it is "".
func NewToken(token string) Token {
	if token == "" {
		return Token{}
	}
	return Token{sum: sha256.Sum256([]byte(token)), set: true}
}

// Set reports whether a token is configured.
func (t Token) Set() bool { return t.set }

// Matches reports, in constant time, whether given is the token.
func (t Token) Matches(given string) bool {
	sum := sha256.Sum256([]byte(given))
	return t.set && subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1
}

// Bearer returns the credentials of an Authorization header of the Bearer
// scheme; the scheme's name is case-insensitive (RFC 9110, 11.1), the
// space after it one or more.
func Bearer(header string) (string, bool) {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	cred = strings.TrimLeft(cred, " ")
	return cred, cred != ""
}

// Refusal is why Guard refused a request: a stable code and a message.
type Refusal struct {
	Status int
	Code   string
	Msg    string
}

// Codes of Guard's refusals.
const (
	// CodeForbiddenHost: a request without a token whose Host is not a
	// loopback name. A browser sends the name of the page's site there,
	// so a site that rebinds its name to 127.0.0.1 is refused.
	CodeForbiddenHost = "forbidden_host"
	// CodeCrossOrigin: a browser's request sent by a page of another
	// origin (Sec-Fetch-Site or Origin say so).
	CodeCrossOrigin = "cross_origin"
)

// Guard refuses, before next sees them, the requests a browser page could
// send to a server on the user's own machine, for a server that needs no
// token: one whose Host is not a loopback name (a page on a name it
// rebinds to 127.0.0.1: DNS rebinding) and one a page of another origin
// sends (a form or a fetch; the Fetch metadata or Origin header says so).
// A unix socket is out of a browser's reach, and a token is out of a
// page's, so then Guard returns next as it is. refuse answers a refused
// request.
func Guard(next http.Handler, tokenSet, socket bool, refuse func(http.ResponseWriter, *http.Request, Refusal)) http.Handler {
	if tokenSet || socket {
		return next
	}
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse(w, r, Refusal{http.StatusForbidden, CodeCrossOrigin, "a browser request from another origin is refused; a client that is not a web page sends no Origin or Sec-Fetch-Site header"})
	}))
	inner := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !LoopbackHost(r.Host) {
			refuse(w, r, Refusal{http.StatusForbidden, CodeForbiddenHost, fmt.Sprintf("Host %q is not a loopback name (localhost, 127.0.0.1, [::1]); without a token only those are answered", ir.Clip(r.Host, 64))})
			return
		}
		// A page of another origin on the loopback name itself (another
		// port, or a file: page) is no host either; safe methods are
		// refused as well, since a GET answers the catalog.
		if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
			refuse(w, r, Refusal{http.StatusForbidden, CodeCrossOrigin, "a browser request from another origin is refused; a client that is not a web page sends no Origin header"})
			return
		}
		// A page's no-cors GET (an <img>, a <script>) carries no Origin,
		// and Go's protection lets safe methods through whatever the
		// Fetch metadata says: a GET of /v1/catalog from another site was
		// answered.
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			refuse(w, r, Refusal{http.StatusForbidden, CodeCrossOrigin, "a browser request from another origin is refused; a client that is not a web page sends no Sec-Fetch-Site header"})
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// LoopbackHost reports whether a Host header names this machine's
// loopback: localhost, or a loopback address, with or without a port.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether an Origin header names a loopback origin on
// the port the request came to (its Host's).
func sameOrigin(origin, host string) bool {
	rest, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		return false
	}
	return LoopbackHost(rest) && port(rest) == port(host)
}

func port(hostport string) string {
	if _, p, err := net.SplitHostPort(hostport); err == nil {
		return p
	}
	return "80"
}
