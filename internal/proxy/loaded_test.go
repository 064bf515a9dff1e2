package proxy

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestLoadedLineMeansReady: once "catalog loaded" is logged the proxy
// compiles the requests it forwards. It logged the line before it took
// the catalog, so a client that started on the line was answered 503.
func TestLoadedLineMeansReady(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", "Write the failing test first.")
	var p *Proxy
	seen := false
	log := testkit.OnLog("catalog loaded", func() {
		seen = true
		if p.Live() == nil {
			t.Error("got no catalog when the proxy logged it loaded; want it serving")
		}
	})
	up, _ := url.Parse("http://127.0.0.1:1")
	var err error
	if p, err = New(Config{Upstream: up, Roots: []string{root}, Logger: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal(`got no "catalog loaded" line`)
	}
}

// TestLoadWarnings: a proxy says, once loaded, what its load line does
// not: that no skill can be selected (its roots hold none: every call
// went on without skills, and only an INFO line's "units": 0 said why),
// and that the catalog has a skill that cannot load (the calls it would
// answer went on without it, and the proxy has no endpoint that lists
// the catalog).
func TestLoadWarnings(t *testing.T) {
	for _, tc := range []struct{ name, skill, warning string }{
		{"no skills", "", "no skill can be selected; every call goes on without skills until one can"},
		{"a broken skill", "---\nname: broken\ndescription: [unclosed\n---\nBody.\n", "the catalog has new errors; the skills they name never load (rlmc validate lists them all)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.skill != "" {
				testkit.WriteFile(t, filepath.Join(root, "broken", "SKILL.md"), tc.skill)
			}
			warned := false
			up, _ := url.Parse("http://127.0.0.1:1")
			p, err := New(Config{Upstream: up, Roots: []string{root}, Logger: testkit.OnLog(tc.warning, func() { warned = true })})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			if err := p.Watch(context.Background()); err != nil {
				t.Fatal(err)
			}
			if !warned {
				t.Fatalf("got no %q; want it", tc.warning)
			}
		})
	}
}

// TestNearMissWarned: a completion posted to a path that ends as one of
// the edited calls but is not one (an SDK's base URL without /v1, or with
// a /v1 it adds again) goes upstream without skills, as it must, and the
// proxy warns once a path; it went without a line. Other paths, such as
// Anthropic's count_tokens or a GET of the models, are no slip.
func TestNearMissWarned(t *testing.T) {
	f := newFixture(t, nil, Config{})
	for range 2 {
		f.do(t, http.MethodPost, "/chat/completions", chatNoSystem, nil)
		f.do(t, http.MethodPost, "/v1/v1/messages", msgString, nil)
	}
	f.do(t, http.MethodPost, "/v1/messages/count_tokens", msgString, nil)
	f.do(t, http.MethodGet, "/v1/models", "", nil)
	f.do(t, http.MethodPost, "/v1/chat/completions", chatNoSystem, nil)
	logs := f.logs.String()
	for _, want := range []string{`"path":"/chat/completions","meant":"/v1/chat/completions"`, `"path":"/v1/v1/messages","meant":"/v1/messages"`} {
		if n := strings.Count(logs, want); n != 1 {
			t.Errorf("got %d warnings with %s; want 1:\n%s", n, want, logs)
		}
	}
	if n := strings.Count(logs, "base URL is likely off"); n != 2 {
		t.Errorf("got %d near-miss warnings; want 2:\n%s", n, logs)
	}
	// A path is the client's to choose: the line quotes a bounded part.
	before := len(f.logs.String())
	f.do(t, http.MethodPost, "/"+strings.Repeat("a", 100_000)+"/v1/chat/completions", chatNoSystem, nil)
	if grew := len(f.logs.String()) - before; grew == 0 || grew > 2000 {
		t.Errorf("the warning for a 100 KB path took %d bytes of log; want one line of at most 2,000", grew)
	}
}

// TestWebSocketWarned: the SDKs' Responses WebSocket mode (a GET upgraded
// on /v1/responses) passes through without skills, as the proxy edits
// HTTP calls only; it is warned about once, where it passed without a
// word. Another path's upgrade is no completion.
func TestWebSocketWarned(t *testing.T) {
	f := newFixture(t, nil, Config{})
	upgrade := map[string]string{"Connection": "keep-alive, Upgrade", "Upgrade": "websocket"}
	f.do(t, http.MethodGet, "/v1/realtime", "", upgrade)
	if strings.Contains(f.logs.String(), "WebSocket") {
		t.Fatalf("another path's upgrade warned about:\n%s", f.logs.String())
	}
	for range 2 {
		f.do(t, http.MethodGet, "/v1/responses", "", upgrade)
	}
	if n := strings.Count(f.logs.String(), "over a WebSocket goes upstream without skills"); n != 1 {
		t.Errorf("got %d warnings; want 1:\n%s", n, f.logs.String())
	}
}

// TestNearMiss: which paths are one slip from a completion path. A path
// that only ends as one does belongs to another API: OpenAI's Assistants
// post to /v1/threads/ID/messages, which was warned about as a slip.
func TestNearMiss(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/v1/chat/completions", ""},
		{"/chat/completions", "/v1/chat/completions"},
		{"/v1/v1/messages", "/v1/messages"},
		{"/api/v1/responses", "/v1/responses"},
		{"/v1/chat/completions/", "/v1/chat/completions"},
		{"/messages/", "/v1/messages"},
		{"/v1/threads/t1/messages", ""},
		{"/v1/messages/count_tokens", ""},
		{"/api/chat/completions", ""},
		{"/v1/models", ""},
	} {
		if got := nearMiss(tc.path); got != tc.want {
			t.Errorf("nearMiss(%q): got %q; want %q", tc.path, got, tc.want)
		}
	}
}

// TestEpochKeptAcrossEquivalentReloads: a file written under a root that
// no skill is made of (a trajectory, a log) reloads the catalog; earlier
// turns' blocks stay remembered, since the catalog compiles as before,
// where every such reload threw them away and a long conversation was
// compiled again turn by turn. A skill edited is a new catalog.
func TestEpochKeptAcrossEquivalentReloads(t *testing.T) {
	f := newFixture(t, nil, Config{})
	live := f.p.live.Load()
	first := f.p.epochOf(live)
	reloaded := func(write func()) {
		t.Helper()
		g := live.Generation()
		write()
		for deadline := time.Now().Add(10 * time.Second); live.Generation() == g; {
			if time.Now().After(deadline) {
				t.Fatal("no reload")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	reloaded(func() {
		if err := os.WriteFile(filepath.Join(f.skillDir, "trajectory.jsonl"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if got := f.p.epochOf(live); got != first {
		t.Errorf("after a reload that changed no skill: got epoch %d; want %d", got, first)
	}
	reloaded(func() {
		writeSkill(t, f.skillDir, "deploy", "Deploy the service to staging.", "Run the deploy script.")
	})
	if got := f.p.epochOf(live); got == first {
		t.Errorf("after a skill was edited: got epoch %d; want a new one", got)
	}
}
