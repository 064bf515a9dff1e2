package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestProxyRefuses: configurations the proxy must not start with are
// usage errors (exit 2), said before anything listens.
func TestProxyRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "no upstream", args: []string{"proxy"}, want: "--upstream"},
		{name: "a relative upstream", args: []string{"proxy", "--upstream", "api.openai.com"}, want: "needs its scheme"},
		{name: "an upstream without its scheme", args: []string{"proxy", "--upstream", "127.0.0.1:9000"}, want: "needs its scheme, as in"},
		{name: "a timeout of 0", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--timeout", "0"}, want: "--timeout must be positive, not 0s"},
		{name: "a body bound of 0", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--max-body", "0"}, want: "--max-body must be positive"},
		{name: "a negative debounce", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--debounce", "-1s"}, want: "--debounce must be zero or more"},
		{name: "an upstream that does not parse", args: []string{"proxy", "--upstream", "http://[::1/?key=SECRET"}, want: "is not a URL"},
		{name: "an upstream whose port does not parse", args: []string{"proxy", "--upstream", "http://h:SECRET8/"}, want: "is not a URL"},
		{name: "an upstream that is not HTTP", args: []string{"proxy", "--upstream", "ftp://example.com"}, want: "http or https"},
		{name: "an upstream that is an endpoint", args: []string{"proxy", "--upstream", "https://api.openai.com/v1/chat/completions"}, want: "names an endpoint"},
		{name: "addr and socket", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--addr", "127.0.0.1:0", "--socket", "s.sock"}, want: "not both"},
		{name: "all interfaces without a token", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--addr", "0.0.0.0:0"}, want: "not a loopback address"},
		{name: "an unknown placement", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--addr", "127.0.0.1:0", "--placement", "front"}, want: "--placement"},
		{name: "a root that does not exist", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--addr", "127.0.0.1:0", "--root", "nowhere-at-all"}, want: "nowhere-at-all"},
		{name: "a policy that does not parse", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--addr", "127.0.0.1:0", "--policy", writePolicy(t, "budget: [\n")}, want: "invalid policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envToken, "")
			var stdout, stderr bytes.Buffer
			if code := Main(tc.args, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
				t.Fatalf("exit: got %d; want %d (%s)", code, exitUsage, stderr.String())
			}
			if strings.Contains(stderr.String(), "SECRET") {
				t.Fatalf("stderr repeats the URL's key: %q", stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("stderr: got %q; want it to say %q", stderr.String(), tc.want)
			}
			// Said before anything listens: a supervisor that waits for
			// the line takes it for a start.
			if strings.Contains(stderr.String(), "listening") {
				t.Fatalf("stderr: got %q; want nothing listening", stderr.String())
			}
		})
	}
}

// TestRootHolding: a --trajectory file under a root reloads the catalog
// with every line, and is warned about.
func TestRootHolding(t *testing.T) {
	for _, tc := range []struct {
		roots      []string
		file, want string
	}{
		{roots: []string{"/a/skills"}, file: "/a/skills/audit.jsonl", want: "/a/skills"},
		{roots: []string{"/a/skills", "/b"}, file: "/b/x/audit.jsonl", want: "/b"},
		{roots: []string{"/a/skills"}, file: "/a/skills-audit.jsonl", want: ""},
		{roots: []string{"/a/skills"}, file: "/a/audit.jsonl", want: ""},
		{roots: []string{"/a/skills"}, file: "", want: ""},
	} {
		if got := rootHolding(tc.roots, tc.file); got != tc.want {
			t.Errorf("rootHolding(%q, %q): got %q; want %q", tc.roots, tc.file, got, tc.want)
		}
	}
}
