package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/fakeapi"
	"github.com/rlmc-dev/rlmc/internal/httpsafe"
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

// received is one request the fake upstream saw.
type received struct {
	method, path string
	header       http.Header
	body         []byte
}

// upstream is a fake API in the test process, on loopback, that records
// what it receives.
type upstream struct {
	mu   sync.Mutex
	seen []received
	srv  *httptest.Server
	api  *fakeapi.Server
}

func newUpstream(t *testing.T, h http.Handler) *upstream {
	u := &upstream{}
	u.api = &fakeapi.Server{Seen: func(r *http.Request, body []byte) {
		u.mu.Lock()
		defer u.mu.Unlock()
		u.seen = append(u.seen, received{r.Method, r.URL.Path, r.Header.Clone(), body})
	}}
	if h == nil {
		h = u.api
	}
	u.srv = httptest.NewServer(h)
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) last(t *testing.T) received {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.seen) == 0 {
		t.Fatal("the upstream received nothing")
	}
	return u.seen[len(u.seen)-1]
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.seen)
}

// fixture is a proxy over a small catalog in front of a fake upstream.
type fixture struct {
	p        *Proxy
	up       *upstream
	url      string
	logs     *syncBuffer
	trail    *syncBuffer
	skillDir string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newFixture starts the proxy with skills tdd and deploy, and risky, which
// the policy denies; cfg's upstream, logger and audit are filled in.
func newFixture(t *testing.T, up *upstream, cfg Config) *fixture {
	t.Helper()
	root := t.TempDir()
	writeSkill(t, root, "tdd", "Test-driven development: write the failing test first.", "Write the failing test first.")
	writeSkill(t, root, "deploy", "Deploy the service to production.", "Run the deploy script.")
	writeSkill(t, root, "risky", "A risky skill the host denies.", "Risky.")
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte("deny: [risky]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if up == nil {
		up = newUpstream(t, nil)
	}
	f := &fixture{up: up, logs: &syncBuffer{}, trail: &syncBuffer{}, skillDir: root}
	cfg.Upstream, _ = url.Parse(up.srv.URL)
	cfg.Roots, cfg.PolicyFile = []string{root}, policy
	cfg.Logger = slog.New(slog.NewJSONHandler(f.logs, nil))
	cfg.Audit = compiler.NewAudit(f.trail)
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.p = p
	ts := httptest.NewServer(p)
	t.Cleanup(func() { ts.Close(); p.Close() })
	f.url = ts.URL
	return f
}

func (f *fixture) do(t *testing.T, method, path, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
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
	return resp, data
}

// The requests below carry fields rlmc has never heard of, numbers no
// float64 holds, odd spacing and key orders: all must arrive as written.
const (
	chatBody = `{"model":"gpt-x", "x_unknown": {"n": 12345678901234567890123, "f": 1.000000000000000000001},
  "messages": [ {"role":"system","content":"You are careful."},
    {"role":"user","content":[{"type":"text","text":"write the failing test first, test-driven development"},{"type":"image_url","image_url":{"url":"data:,"}}]}],
  "tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}], "temperature": 0.70}`
	chatNoSystem = `{"model":"gpt-x","messages":[{"role":"user","content":"write the failing test first, test-driven development"}],"seed":1e400}`
	chatPlain    = `{"model":"gpt-x","x_unknown":[1.10],"messages":[{"role":"system","content":"You are careful."},{"role":"user","content":"what is the capital of France?"}]}`
	respBody     = `{"model":"gpt-x","instructions":"Be brief.","input":[{"role":"user","content":[{"type":"input_text","text":"deploy the service to production"}]}],"x_unknown":{"a":[true,null]}}`
	respString   = `{"input":"deploy the service to production","model":"gpt-x"}`
	msgBody      = `{"model":"claude-x","max_tokens":1024,"system":[{"type":"text","text":"You are careful.","cache_control":{"type":"ephemeral"}}],
  "messages":[{"role":"user","content":"write the failing test first, test-driven development"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"file"}]}],"x_unknown":0.1}`
	msgString = `{"model":"claude-x","max_tokens":1024,"system":"You are careful.","messages":[{"role":"user","content":"deploy the service to production"}]}`
	msgNone   = `{"model":"claude-x","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"text","text":"deploy the service to production"}]}]}`
)

// removed returns got without the one run of bytes it has beyond want, or
// fails: every edit the proxy makes is one insertion (or one null
// replaced), so all of want must be in got, in order and byte for byte.
func inserted(t *testing.T, got, want []byte) string {
	t.Helper()
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	j := 0
	for j < len(got)-i && j < len(want)-i && got[len(got)-1-j] == want[len(want)-1-j] {
		j++
	}
	if i+j != len(want) {
		t.Fatalf("the upstream body is not the request with one insertion:\ngot  %s\nwant %s", got, want)
	}
	return string(got[i : len(got)-j])
}

// TestSkillBlockArrives sends a completion of each API that routes to a
// skill: the upstream receives the request with the block inserted where
// the API keeps its system prompt, every other byte as sent, and the
// response says what was selected. Under system placement; turn
// placement is TestTurnPlacement's.
func TestSkillBlockArrives(t *testing.T) {
	f := newFixture(t, nil, Config{Placement: PlacementSystem})
	for _, tc := range []struct {
		name, path, body, skill string
		// check reads the system prompt the upstream received.
		check func(t *testing.T, got []byte) string
	}{
		{name: "chat, system string, parts in the user message", path: "/v1/chat/completions", body: chatBody, skill: "tdd",
			check: func(t *testing.T, got []byte) string {
				var r struct {
					Messages []struct {
						Role    string
						Content json.RawMessage
					}
				}
				mustJSON(t, got, &r)
				var sys string
				mustJSON(t, r.Messages[0].Content, &sys)
				if r.Messages[0].Role != "system" || !strings.HasSuffix(sys, "</skills>\n\nYou are careful.") {
					t.Fatalf("system message: got %q", sys)
				}
				return sys
			}},
		{name: "chat, no system message", path: "/v1/chat/completions", body: chatNoSystem, skill: "tdd",
			check: func(t *testing.T, got []byte) string {
				var r struct {
					Messages []struct{ Role, Content string }
				}
				mustJSON(t, got, &r)
				if len(r.Messages) != 2 || r.Messages[0].Role != "system" {
					t.Fatalf("messages: got %+v; want a new system message first", r.Messages)
				}
				return r.Messages[0].Content
			}},
		{name: "responses, input items", path: "/v1/responses", body: respBody, skill: "deploy",
			check: func(t *testing.T, got []byte) string {
				var r struct{ Instructions string }
				mustJSON(t, got, &r)
				if !strings.HasSuffix(r.Instructions, "</skills>\n\nBe brief.") {
					t.Fatalf("instructions: got %q", r.Instructions)
				}
				return r.Instructions
			}},
		{name: "responses, input string, no instructions", path: "/v1/responses", body: respString, skill: "deploy",
			check: func(t *testing.T, got []byte) string {
				var r struct{ Instructions string }
				mustJSON(t, got, &r)
				return r.Instructions
			}},
		{name: "messages, system blocks, last user turn a tool result", path: "/v1/messages", body: msgBody, skill: "tdd",
			check: func(t *testing.T, got []byte) string {
				var r struct {
					System []struct {
						Type, Text   string
						CacheControl json.RawMessage `json:"cache_control"`
					}
				}
				mustJSON(t, got, &r)
				if len(r.System) != 2 || r.System[0].Type != "text" || r.System[1].Text != "You are careful." || r.System[1].CacheControl == nil {
					t.Fatalf("system: got %+v; want the block, then the host's block as it was", r.System)
				}
				return r.System[0].Text
			}},
		{name: "messages, system string", path: "/v1/messages", body: msgString, skill: "deploy",
			check: func(t *testing.T, got []byte) string {
				var r struct{ System string }
				mustJSON(t, got, &r)
				return r.System
			}},
		{name: "messages, no system", path: "/v1/messages", body: msgNone, skill: "deploy",
			check: func(t *testing.T, got []byte) string {
				var r struct{ System string }
				mustJSON(t, got, &r)
				return r.System
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := f.do(t, "POST", tc.path, tc.body, map[string]string{"Authorization": "Bearer sk-secret", "x-api-key": "ak-secret"})
			if resp.StatusCode != 200 {
				t.Fatalf("status: got %d; want 200", resp.StatusCode)
			}
			if got := resp.Header.Get(HeaderDecision); got != "route" {
				t.Fatalf("%s: got %q; want route", HeaderDecision, got)
			}
			if got := resp.Header.Get(HeaderSelected); got != tc.skill {
				t.Fatalf("%s: got %q; want %q", HeaderSelected, got, tc.skill)
			}
			if resp.Header.Get(HeaderFingerprint) == "" {
				t.Fatalf("no %s", HeaderFingerprint)
			}
			got := f.up.last(t)
			ins := inserted(t, got.body, []byte(tc.body))
			if !strings.Contains(ins, `<skill name=\"`+tc.skill+`\">`) {
				t.Fatalf("inserted: got %s; want the block of %s", ins, tc.skill)
			}
			if sys := tc.check(t, got.body); !strings.HasPrefix(sys, "<skills>\n<skill name=\""+tc.skill+"\">") {
				t.Fatalf("system prompt: got %q; want it to start with the block", sys)
			}
			if got.header.Get("Authorization") != "Bearer sk-secret" || got.header.Get("X-Api-Key") != "ak-secret" {
				t.Fatalf("keys upstream: got %q %q; want them as sent", got.header.Get("Authorization"), got.header.Get("X-Api-Key"))
			}
		})
	}
	logs := f.logs.String()
	for _, secret := range []string{"sk-secret", "ak-secret", "failing test", "production"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
	if n := strings.Count(f.trail.String(), "\n"); n != 7 {
		t.Errorf("trajectory lines: got %d; want 7", n)
	}
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("the upstream received JSON that does not parse: %v\n%s", err, data)
	}
}

// TestByteIdenticalWithoutSkills: when nothing is selected, the upstream
// receives the request bytes exactly, whatever the reason.
func TestByteIdenticalWithoutSkills(t *testing.T) {
	f := newFixture(t, nil, Config{})
	for _, tc := range []struct {
		name, path, body, decision string
		header                     map[string]string
	}{
		{name: "no route", path: "/v1/chat/completions", body: chatPlain, decision: "no_route"},
		{name: "skip", path: "/v1/chat/completions", body: chatBody, decision: DecisionSkipped, header: map[string]string{HeaderSkip: "1"}},
		{name: "denied by the host", path: "/v1/messages", body: msgString, decision: "no_route", header: map[string]string{HeaderDeny: "deploy"}},
		{name: "not JSON", path: "/v1/responses", body: `{"input": "deploy the service`, decision: DecisionUnread},
		{name: "compressed", path: "/v1/responses", body: respString, decision: DecisionUnread, header: map[string]string{"Content-Encoding": "br"}},
		{name: "identity is no encoding: read", path: "/v1/chat/completions", body: chatPlain, decision: "no_route", header: map[string]string{"Content-Encoding": "Identity"}},
		{name: "a task only in an assistant turn", path: "/v1/messages", decision: "no_route",
			body: `{"messages":[{"role":"assistant","content":"deploy the service to production"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := f.do(t, "POST", tc.path, tc.body, tc.header)
			if got := resp.Header.Get(HeaderDecision); got != tc.decision {
				t.Fatalf("%s: got %q; want %q", HeaderDecision, got, tc.decision)
			}
			if got := f.up.last(t).body; string(got) != tc.body {
				t.Fatalf("upstream body:\ngot  %s\nwant %s", got, tc.body)
			}
		})
	}

	// Before the first catalog: forwarded as sent; a selection is a 503.
	up := newUpstream(t, nil)
	u, _ := url.Parse(up.srv.URL)
	p, err := New(Config{Upstream: u, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(p)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get(HeaderDecision); got != DecisionNoCatalog || string(up.last(t).body) != chatBody {
		t.Fatalf("no catalog: got %s, body %s; want %s and the body as sent", got, up.last(t).body, DecisionNoCatalog)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(chatBody))
	req.Header.Set(HeaderSelect, "tdd")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a selection with no catalog: got %d; want 503", resp.StatusCode)
	}
}

// TestClientContextIsNotTheTask: what an agent client wraps in its
// context tags inside a user message (Claude Code's CLAUDE.md in a
// <system-reminder>, Cline's <environment_details>) is not the user's
// task: it routed a project's skills to every prompt, "what is 2+2?"
// included. The user's own words beside it still route.
func TestClientContextIsNotTheTask(t *testing.T) {
	f := newFixture(t, nil, Config{})
	const reminder = `{"type":"text","text":"<system-reminder>\nAs you answer, follow CLAUDE.md: we deploy the service to production with flyctl.\n</system-reminder>\n"}`
	for _, tc := range []struct {
		name, path, body, decision string
	}{
		{name: "claude code, a reminder block and a question", path: "/v1/messages", decision: "no_route",
			body: `{"model":"claude-x","max_tokens":64,"messages":[{"role":"user","content":[` + reminder + `,{"type":"text","text":"what is the capital of France?"}]}]}`},
		{name: "claude code, a reminder block and a task", path: "/v1/messages", decision: "route",
			body: `{"model":"claude-x","max_tokens":64,"messages":[{"role":"user","content":[` + reminder + `,{"type":"text","text":"write the failing test first, test-driven development"}]}]}`},
		{name: "claude code, a later turn of only a reminder", path: "/v1/messages", decision: "no_route",
			body: `{"model":"claude-x","max_tokens":64,"messages":[{"role":"user","content":"what is the capital of France?"},{"role":"assistant","content":"Paris."},{"role":"user","content":[` + reminder + `]}]}`},
		{name: "cline, environment details in the string", path: "/v1/chat/completions", decision: "no_route",
			body: `{"model":"gpt-x","messages":[{"role":"user","content":"<task>\nwhat is the capital of France?\n</task>\n\n<environment_details>\n# Current Working Directory\ndeploy/production.yaml: deploy the service to production\n</environment_details>"}]}`},
		// Codex sends AGENTS.md and its environment as a user message of
		// their own before the user's: compiled as an earlier turn, it got
		// the project's skills while the call said no_route.
		{name: "codex, a context message before the user's", path: "/v1/responses", decision: "no_route",
			body: `{"model":"gpt-x","stream":true,"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},` +
				`{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /src/deploy-service\n\n<INSTRUCTIONS>\nWe deploy the service to production with flyctl.\n</INSTRUCTIONS>"},{"type":"input_text","text":"<environment_context>\n  <cwd>/src/deploy-service</cwd>\n</environment_context>"}]},` +
				`{"type":"message","role":"user","content":[{"type":"input_text","text":"what is the capital of France?"}]}]}`},
		// Qwen Code (and Gemini CLI) state the project in an untagged
		// message that opens the conversation.
		{name: "qwen code, an untagged context message", path: "/v1/chat/completions", decision: "no_route",
			body: `{"model":"gpt-x","messages":[{"role":"system","content":"You are Qwen Code."},{"role":"user","content":[{"type":"text","text":"This is the Qwen Code. We are setting up the context for our chat.\nI'm currently working in the directory: /src/deploy-service\nShowing up to 20 items:\ndeploy-the-service-to-production.md"}]},` +
				`{"role":"assistant","content":"Got it. Thanks for the context!"},{"role":"user","content":"what is the capital of France?"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := f.do(t, "POST", tc.path, tc.body, nil)
			if got := resp.Header.Get(HeaderDecision); got != tc.decision {
				t.Fatalf("%s: got %q; want %q", HeaderDecision, got, tc.decision)
			}
			if got := f.up.last(t).body; tc.decision == "no_route" && string(got) != tc.body {
				t.Errorf("upstream body:\ngot  %s\nwant %s", got, tc.body)
			}
			if got := resp.Header.Get(HeaderSelected); tc.decision == "route" && got != "tdd" {
				t.Errorf("%s: got %q; want tdd", HeaderSelected, got)
			}
		})
	}
}

// TestHostHeaders: the host's headers select, deny and skip; an
// impossible selection is a 422 with the compile error object and never
// reaches the upstream; no X-Rlmc-* header is forwarded; other paths go
// through unchanged.
func TestHostHeaders(t *testing.T) {
	f := newFixture(t, nil, Config{})
	for _, tc := range []struct {
		name, path, body string
		header           map[string]string
		status           int
		code             compiler.ErrorCode // error code of a refusal
		selected         string
	}{
		{name: "select", path: "/v1/chat/completions", body: chatPlain, header: map[string]string{HeaderSelect: "deploy"}, status: 200, selected: "deploy"},
		{name: "select two", path: "/v1/messages", body: msgString, header: map[string]string{HeaderSelect: "tdd, deploy"}, status: 200, selected: "deploy,tdd"},
		{name: "unknown unit", path: "/v1/chat/completions", body: chatPlain, header: map[string]string{HeaderSelect: "nope"}, status: 422, code: compiler.ErrUnknownUnit},
		{name: "denied by the policy", path: "/v1/responses", body: respString, header: map[string]string{HeaderSelect: "risky"}, status: 422, code: compiler.ErrSelectionRejected},
		{name: "selected and denied", path: "/v1/responses", body: respString, header: map[string]string{HeaderSelect: "deploy", HeaderDeny: "deploy"}, status: 422, code: compiler.ErrSelectionRejected},
		{name: "skip and select", path: "/v1/responses", body: respString, header: map[string]string{HeaderSelect: "deploy", HeaderSkip: "1"}, status: 400, code: compiler.ErrInvalidRequest},
		{name: "skip not a flag", path: "/v1/responses", body: respString, header: map[string]string{HeaderSkip: "yes please"}, status: 400, code: compiler.ErrInvalidRequest},
		{name: "select into a body that is not JSON", path: "/v1/responses", body: "[", header: map[string]string{HeaderSelect: "deploy"}, status: 400, code: compiler.ErrInvalidRequest},
		{name: "select on a path without skills", path: "/v1/embeddings", body: `{}`, header: map[string]string{HeaderSelect: "deploy"}, status: 400, code: compiler.ErrInvalidRequest},
		{name: "no place for the block", path: "/v1/chat/completions", body: `{"messages":"deploy"}`, header: map[string]string{HeaderSelect: "deploy"}, status: 400, code: compiler.ErrInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.up.count()
			h := map[string]string{"X-Rlmc-Other": "x"}
			for k, v := range tc.header {
				h[k] = v
			}
			resp, body := f.do(t, "POST", tc.path, tc.body, h)
			if resp.StatusCode != tc.status {
				t.Fatalf("status: got %d; want %d (%s)", resp.StatusCode, tc.status, body)
			}
			if tc.code != "" {
				if got := refusalCode(t, tc.path, body); got != tc.code {
					t.Fatalf("code: got %s; want %s", got, tc.code)
				}
				if f.up.count() != before {
					t.Fatal("a refused call reached the upstream")
				}
				return
			}
			if got := resp.Header.Get(HeaderSelected); got != tc.selected {
				t.Fatalf("%s: got %q; want %q", HeaderSelected, got, tc.selected)
			}
			for k := range f.up.last(t).header {
				if strings.HasPrefix(k, "X-Rlmc-") {
					t.Fatalf("the upstream received %s", k)
				}
			}
		})
	}

	// Any other path and method: forwarded as sent, headers stripped.
	odd := `{"input": "deploy the service to production", "n": 1.50}`
	resp, _ := f.do(t, "POST", "/v1/embeddings?x=1", odd, map[string]string{HeaderDeny: "tdd", "Authorization": "Bearer k"})
	got := f.up.last(t)
	if resp.StatusCode != 200 || got.path != "/v1/embeddings" || string(got.body) != odd || got.header.Get(HeaderDeny) != "" || got.header.Get("Authorization") != "Bearer k" {
		t.Fatalf("other path: got %d %s %s %v", resp.StatusCode, got.path, got.body, got.header)
	}
	if resp.Header.Get(HeaderDecision) != "" {
		t.Fatal("a path without skills got a decision")
	}
	resp, _ = f.do(t, "GET", "/v1/chat/completions", "", nil)
	if resp.StatusCode != 200 || f.up.last(t).method != "GET" {
		t.Fatalf("GET: got %d %s; want it forwarded", resp.StatusCode, f.up.last(t).method)
	}
}

// refusalCode returns rlmc's code in a refusal written in the error shape
// of the API at path, or fails when the shape is not that API's.
func refusalCode(t *testing.T, path string, body []byte) compiler.ErrorCode {
	t.Helper()
	var doc struct {
		Type  *string
		Error *struct {
			Type, Message, Code, Stage string
			RlmcCode                   compiler.ErrorCode `json:"rlmc_code"`
		}
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Error == nil || doc.Error.Type == "" || doc.Error.Message == "" || doc.Error.Stage == "" {
		t.Fatalf("not a provider error document: %s", body)
	}
	if anthropicShape := doc.Type != nil && *doc.Type == "error"; anthropicShape != (flavorOf(path) == flavorAnthropic) {
		t.Fatalf("%s: got %s; want the error shape of its API", path, body)
	}
	if flavorOf(path) == flavorOpenAI && doc.Error.Code != string(doc.Error.RlmcCode) {
		t.Fatalf("OpenAI code: got %q; want %q", doc.Error.Code, doc.Error.RlmcCode)
	}
	return doc.Error.RlmcCode
}

// TestAmbiguous: on a tie the call goes through without skills, and the
// rivals come back so that the host can ask its user.
func TestAmbiguous(t *testing.T) {
	f := newFixture(t, nil, Config{})
	// Two skills with the same triggers tie on a task that names them.
	for _, name := range []string{"polish-prose", "tighten-prose"} {
		writeSkill(t, f.skillDir, name, "Improve the quality and clarity of text.\nmetadata:\n  prolog-rlm: '{\"schema\": 1, \"triggers\": [{\"kind\": \"object\", \"value\": \"text\"}, {\"kind\": \"object\", \"value\": \"prose\"}]}'", "Body of "+name+".")
	}
	f.p.Live().Reload()
	deadline := time.Now().Add(5 * time.Second)
	for len(f.p.Live().Current().Catalog().Units) != 5 {
		if time.Now().After(deadline) {
			t.Fatal("the catalog did not reload")
		}
		time.Sleep(10 * time.Millisecond)
	}
	body := `{"messages":[{"role":"user","content":"improve my text quality and clarity"}]}`
	resp, _ := f.do(t, "POST", "/v1/chat/completions", body, nil)
	if resp.Header.Get(HeaderDecision) != "ambiguous" {
		t.Fatalf("%s: got %q; want ambiguous", HeaderDecision, resp.Header.Get(HeaderDecision))
	}
	if resp.Header.Get(HeaderAmbiguous) != "polish-prose,tighten-prose" || string(f.up.last(t).body) != body {
		t.Fatalf("ambiguous: rivals %q, upstream body %s; want rivals and the body as sent", resp.Header.Get(HeaderAmbiguous), f.up.last(t).body)
	}
}

// TestStreaming: each API's stream reaches the client event by event: the
// first event arrives while the upstream still holds the rest back.
func TestStreaming(t *testing.T) {
	for _, tc := range []struct{ name, path, body, first string }{
		{name: "chat", path: "/v1/chat/completions", body: strings.Replace(chatBody, `"model"`, `"stream":true,"model"`, 1), first: "data: {"},
		{name: "responses", path: "/v1/responses", body: strings.Replace(respBody, `"model"`, `"stream":true,"model"`, 1), first: "event: response.created"},
		{name: "messages", path: "/v1/messages", body: strings.Replace(msgBody, `"model"`, `"stream":true,"model"`, 1), first: "event: message_start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, nil)
			gate := make(chan struct{})
			up.api.Gate = gate
			f := newFixture(t, up, Config{})
			resp, err := http.Post(f.url+tc.path, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.Header.Get(HeaderDecision) != "route" || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("got %s, %s; want route, text/event-stream", resp.Header.Get(HeaderDecision), resp.Header.Get("Content-Type"))
			}
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, tc.first) {
				t.Fatalf("first line: got %q, %v; want %q", line, err, tc.first)
			}
			close(gate) // only now may the upstream finish
			rest, err := io.ReadAll(resp.Body)
			if err != nil || len(rest) == 0 {
				t.Fatalf("rest of the stream: got %d bytes, %v", len(rest), err)
			}
			inserted(t, up.last(t).body, []byte(tc.body))
		})
	}
}

// TestUpstreamFailures: the upstream's errors come back as it sent them;
// a client that gives up cancels the upstream call; an upstream that
// cannot be reached is a 502.
func TestUpstreamFailures(t *testing.T) {
	canceled := make(chan struct{})
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read whole, as an API does: only then does the server watch
		// the connection, and see the proxy hang up.
		io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/v1/messages":
			w.Header().Set("Retry-After", "7")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(529)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		case "/v1/responses":
			w.WriteHeader(http.StatusGatewayTimeout)
			io.WriteString(w, "upstream timed out")
		default: // hangs until the client gives up
			<-r.Context().Done()
			close(canceled)
		}
	}))
	f := newFixture(t, up, Config{})
	resp, body := f.do(t, "POST", "/v1/messages", msgString, nil)
	if resp.StatusCode != 529 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(body), "overloaded_error") {
		t.Fatalf("upstream error: got %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp.Header.Get(HeaderDecision) != "route" {
		t.Fatalf("upstream error: %s %q; want the decision still said", HeaderDecision, resp.Header.Get(HeaderDecision))
	}
	resp, body = f.do(t, "POST", "/v1/responses", respString, nil)
	if resp.StatusCode != 504 || string(body) != "upstream timed out" {
		t.Fatalf("upstream timeout: got %d %s", resp.StatusCode, body)
	}

	// The compile has a deadline; the upstream call has none of the
	// proxy's: the client's deadline ends it.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", f.url+"/v1/chat/completions", strings.NewReader(chatBody))
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("a hanging upstream answered")
	}
	select {
	case <-canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream call outlived the client's")
	}

	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	u, _ := url.Parse(deadURL)
	p, err := New(Config{Upstream: u, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(p)
	defer ts.Close()
	resp, err = http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(data), ErrUpstream) {
		t.Fatalf("unreachable upstream: got %d %s; want 502 %s", resp.StatusCode, data, ErrUpstream)
	}

	// Under a base path of the upstream's (a gateway's), an Anthropic
	// call's 502 is in Anthropic's shape still: it was chosen from the
	// upstream's path, and came in OpenAI's (a second red team).
	u.Path = "/anthropic"
	p, err = New(Config{Upstream: u, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	based := httptest.NewServer(p)
	defer based.Close()
	resp, err = http.Post(based.URL+"/v1/messages", "application/json", strings.NewReader(msgBody))
	if err != nil {
		t.Fatal(err)
	}
	data, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(data), `"type": "error"`) {
		t.Fatalf("unreachable upstream under a base path: got %d %s; want 502 in Anthropic's shape", resp.StatusCode, data)
	}
}

// TestSafeDefaults: a token is required in X-Rlmc-Token (never sent
// upstream), an address that is not loopback is refused without one, and
// a body over the cap is forwarded unread when its length is known, else
// a 413.
func TestSafeDefaults(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1")
	if _, err := New(Config{Upstream: u, Addr: "0.0.0.0:8788"}); err == nil {
		t.Fatal("0.0.0.0 without a token: got no error")
	}
	for _, bad := range []string{"", "127.0.0.1:80", "ftp://x"} {
		v, _ := url.Parse(bad)
		if bad == "" {
			v = nil
		}
		if _, err := New(Config{Upstream: v}); err == nil {
			t.Fatalf("upstream %q: got no error", bad)
		}
	}
	f := newFixture(t, nil, Config{Token: "tok", MaxBodyBytes: 4096})
	resp, _ := f.do(t, "POST", "/v1/chat/completions", chatPlain, nil)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: got %d; want 401", resp.StatusCode)
	}
	resp, _ = f.do(t, "POST", "/v1/chat/completions", chatPlain, map[string]string{HeaderToken: "tok"})
	if resp.StatusCode != 200 || f.up.last(t).header.Get(HeaderToken) != "" {
		t.Fatalf("with the token: got %d, forwarded %q; want 200 and no token upstream", resp.StatusCode, f.up.last(t).header.Get(HeaderToken))
	}
	// A body over the cap whose length is known goes upstream as it is,
	// unread (an image sent inline: the API may take it, and a 413
	// failed the call); one with a selection, which has no place in an
	// unread body, or of unknown length is a 413.
	big := `{"messages":[{"role":"user","content":"deploy the service to production ` + strings.Repeat("a", 5000) + `"}]}`
	resp, _ = f.do(t, "POST", "/v1/chat/completions", big, map[string]string{HeaderToken: "tok"})
	if resp.StatusCode != 200 || resp.Header.Get(HeaderDecision) != DecisionUnread || string(f.up.last(t).body) != big {
		t.Fatalf("over the cap: got %d, %s %q; want 200, unread, the body as sent", resp.StatusCode, HeaderDecision, resp.Header.Get(HeaderDecision))
	}
	if !strings.Contains(f.logs.String(), "over --max-body goes upstream unread") {
		t.Errorf("over the cap: no warning in the log")
	}
	// A call that asks the proxy to stay out of it goes upstream as it
	// is, unread, whatever its size: it was read and refused 413.
	for _, body := range []io.Reader{strings.NewReader(big), io.MultiReader(strings.NewReader(big))} {
		req, _ := http.NewRequest("POST", f.url+"/v1/chat/completions", body)
		req.Header.Set(HeaderToken, "tok")
		req.Header.Set(HeaderSkip, "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get(HeaderDecision) != DecisionSkipped || string(f.up.last(t).body) != big {
			t.Fatalf("skipped, over the cap: got %d, %s %q; want 200, skipped, the body as sent", resp.StatusCode, HeaderDecision, resp.Header.Get(HeaderDecision))
		}
	}
	resp, _ = f.do(t, "POST", "/v1/chat/completions", big, map[string]string{HeaderToken: "tok", HeaderSelect: "deploy"})
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("over the cap with a selection: got %d; want 413", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", f.url+"/v1/chat/completions", io.MultiReader(strings.NewReader(big)))
	req.Header.Set(HeaderToken, "tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.ContentLength != 0 || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("over the cap, chunked: got %d; want 413", resp.StatusCode)
	}
}

// TestNewRefusesCredentialsInTheUpstream: user info in --upstream was
// dropped in silence, and calls went out without it.
func TestNewRefusesCredentialsInTheUpstream(t *testing.T) {
	for _, raw := range []string{"http://user:pw@127.0.0.1:9/v1", "https://key@api.example.com"} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(Config{Upstream: u})
		var ce *httpsafe.ConfigError
		if !errors.As(err, &ce) || strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: got %v; want a ConfigError that does not show the password", raw, err)
		}
	}
}

// TestNewRefusesAnEndpointUpstream: an --upstream naming a completion
// endpoint was taken, and every call went to that path with its own put
// after it. A base URL, with or without its /v1 or another prefix, is
// taken.
func TestNewRefusesAnEndpointUpstream(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		refuse bool
	}{
		{"https://api.openai.com/v1/chat/completions", true},
		{"https://api.openai.com/v1/responses/", true},
		{"https://gateway.example.com/anthropic/messages", true},
		{"https://api.openai.com/v1", false},
		{"https://gateway.example.com/openai", false},
	} {
		u, err := url.Parse(tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(Config{Upstream: u, Roots: []string{t.TempDir()}})
		var ce *httpsafe.ConfigError
		if got := errors.As(err, &ce); got != tc.refuse {
			t.Errorf("%s: got %v; want refused %v", tc.raw, err, tc.refuse)
		}
	}
}

// TestReadControlsSkipGivenTwice: X-Rlmc-Skip: 1 then X-Rlmc-Skip: 0 was
// read as a skip (the first value alone).
func TestReadControlsSkipGivenTwice(t *testing.T) {
	h := http.Header{}
	h.Add(HeaderSkip, "1")
	h.Add(HeaderSkip, "0")
	if _, err := readControls(h); err == nil {
		t.Error("got no error; want the repeated header refused")
	}
	h = http.Header{}
	h.Add(HeaderSkip, "true")
	if c, err := readControls(h); err != nil || !c.skip {
		t.Errorf("true: got %+v, %v; want a skip", c, err)
	}
}

// TestReadControlsNames: a selection or denial header that names no unit
// was read as no header, and the call went upstream as a plain one; the
// command line refuses --select "," the same way.
func TestReadControlsNames(t *testing.T) {
	for _, tc := range []struct {
		name, header, value string
		want                []string // the selects or denies read; nil when refused
	}{
		{name: "select", header: HeaderSelect, value: "tdd, debug", want: []string{"tdd", "debug"}},
		{name: "empty element", header: HeaderSelect, value: "tdd,,debug", want: []string{"tdd", "debug"}},
		{name: "commas only", header: HeaderSelect, value: ",,"},
		{name: "empty", header: HeaderSelect, value: ""},
		{name: "blank", header: HeaderSelect, value: " "},
		{name: "deny commas only", header: HeaderDeny, value: ","},
		{name: "deny", header: HeaderDeny, value: "tdd", want: []string{"tdd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			h.Add(tc.header, tc.value)
			c, err := readControls(h)
			got := c.selects
			if tc.header == HeaderDeny {
				got = c.denies
			}
			switch {
			case tc.want == nil && err == nil:
				t.Errorf("%s: %q: got %v; want it refused", tc.header, tc.value, got)
			case tc.want != nil && (err != nil || !slices.Equal(got, tc.want)):
				t.Errorf("%s: %q: got %v, %v; want %v", tc.header, tc.value, got, err, tc.want)
			}
		})
	}
}

// TestCutAnswerLogged: an answer the upstream cuts off after its headers
// aborts the call, and the call is logged still (it left no completion
// line).
func TestCutAnswerLogged(t *testing.T) {
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"id": "cut`)
		// Returning here ends the answer 989 bytes short.
	}))
	f := newFixture(t, up, Config{})
	req, _ := http.NewRequest("POST", f.url+"/v1/chat/completions", strings.NewReader(chatPlain))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(f.logs.String(), `"msg":"completion"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if logs := f.logs.String(); !strings.Contains(logs, `"msg":"completion"`) || !strings.Contains(logs, `"aborted":true`) {
		t.Errorf("got logs %s; want a completion line marked aborted", logs)
	}
}

// TestUnansweredCallLogged: a client that gives up before the upstream
// answers got nothing, and its completion line says so (aborted, status
// 0); it said status 200.
func TestUnansweredCallLogged(t *testing.T) {
	release := make(chan struct{})
	up := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	f := newFixture(t, up, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", f.url+"/v1/chat/completions", strings.NewReader(chatPlain))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("got an answer; want the client to give up first")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(f.logs.String(), `"msg":"completion"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	logs := f.logs.String()
	if !strings.Contains(logs, `"aborted":true`) || !strings.Contains(logs, `"status":0`) {
		t.Errorf("got logs %s; want a completion line with status 0, marked aborted", logs)
	}
}

// TestPolicyFaultIs500: a host policy under which every compile fails (a
// mandatory unit the catalog lacks) is the proxy's fault, a 500 in the
// API's shape, not a 422 invalid_request_error blaming the client.
func TestPolicyFaultIs500(t *testing.T) {
	f := newFixture(t, nil, Config{})
	if err := os.WriteFile(f.p.cfg.PolicyFile, []byte("mandatory: [house-style]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.p.Live().Reload()
	for deadline := time.Now().Add(10 * time.Second); len(f.p.Live().Current().Policy().Mandatory) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the policy was not reloaded")
		}
	}
	resp, body := f.do(t, "POST", "/v1/messages", msgString, nil)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), `"api_error"`) {
		t.Fatalf("got %d %s; want 500, an api_error", resp.StatusCode, body)
	}
}

// TestTokenCounts: a token count (Anthropic's count_tokens, OpenAI's
// Responses input_tokens) compiles nothing. Claude Code counts fragments
// as lone user messages (a file its Read tool opens, each CLAUDE.md, a
// part of its system prompt), never the call it sends: compiled as tasks,
// they got skills no call carries, and a file near Read's limit was cut
// short. A fragment goes as it came; under turn placement, a count of a
// conversation the proxy forwarded carries the blocks its turns were sent
// with, to the byte, so that it counts what the conversation holds.
func TestTokenCounts(t *testing.T) {
	for _, placement := range []Placement{PlacementTurn, PlacementSystem} {
		for _, tc := range []struct{ call, count, body string }{
			{"/v1/messages", "/v1/messages/count_tokens", msgString},
			{"/v1/messages", "/v1/messages/count_tokens", msgBody},
			{"/v1/responses", "/v1/responses/input_tokens", respBody},
		} {
			t.Run(string(placement)+" "+tc.count, func(t *testing.T) {
				f := newFixture(t, nil, Config{Placement: placement})
				resp, _ := f.do(t, http.MethodPost, tc.count, tc.body, nil)
				if got := resp.Header.Get(HeaderDecision); got != DecisionCount {
					t.Fatalf("%s: got %q; want %s", HeaderDecision, got, DecisionCount)
				}
				if got := f.up.last(t).body; string(got) != tc.body {
					t.Errorf("a count before its call reached the upstream as\n%s\nwant it as sent:\n%s", got, tc.body)
				}
				if f.trail.String() != "" {
					t.Errorf("a count was compiled: %s", f.trail.String())
				}
				f.do(t, http.MethodPost, tc.call, tc.body, nil)
				call := f.up.last(t).body
				f.do(t, http.MethodPost, tc.count, tc.body, nil)
				counted := f.up.last(t).body
				want := []byte(tc.body)
				if placement == PlacementTurn {
					want = call // the blocks the turns were sent with
				}
				if !bytes.Equal(counted, want) {
					t.Errorf("a count after its call reached the upstream as\n%s\nwant\n%s", counted, want)
				}
				if !strings.Contains(f.logs.String(), `"api":"`+strings.TrimPrefix(tc.call, "/v1/")+`_count"`) {
					t.Errorf("no log line names the count:\n%s", f.logs.String())
				}
				// A host that sends its headers on every call (an SDK's
				// default headers) has its counts answered: a selection
				// compiles nothing there either, and a denial naming no
				// unit is told.
				resp, _ = f.do(t, http.MethodPost, tc.count, tc.body, map[string]string{HeaderSelect: "tdd", HeaderDeny: "deplyo"})
				if resp.StatusCode != http.StatusOK || resp.Header.Get(HeaderDecision) != DecisionCount || resp.Header.Get(HeaderUnknownDeny) != "deplyo" {
					t.Errorf("a count with a selection and an unknown denial: got %d %s %q, %s %q; want 200, count, deplyo",
						resp.StatusCode, HeaderDecision, resp.Header.Get(HeaderDecision), HeaderUnknownDeny, resp.Header.Get(HeaderUnknownDeny))
				}
				if got := f.up.last(t).body; string(got) != tc.body && !bytes.Equal(got, want) {
					t.Errorf("a count with a selection reached the upstream as\n%s", got)
				}
			})
		}
	}
}
