package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"

	"github.com/rlmc-dev/rlmc/compiler"
)

// TestUpstreamEndingInV1: an upstream given as the SDKs' base URL (ending
// in /v1) reaches /v1/chat/completions, not /v1/v1/...
func TestUpstreamEndingInV1(t *testing.T) {
	for _, tc := range []struct{ name, suffix, want string }{
		{name: "v1", suffix: "/v1", want: "/v1/chat/completions"},
		{name: "v1 slash", suffix: "/v1/", want: "/v1/chat/completions"},
		{name: "tenant then v1", suffix: "/tenant/v1", want: "/tenant/v1/chat/completions"},
		{name: "no v1", suffix: "/tenant", want: "/tenant/v1/chat/completions"},
		{name: "v1 inside a name", suffix: "/apiv1", want: "/apiv1/v1/chat/completions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, nil)
			u, _ := url.Parse(up.srv.URL + tc.suffix)
			p, err := New(Config{Upstream: u, Logger: discard()})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(p)
			defer ts.Close()
			resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatPlain))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := up.last(t).path; got != tc.want {
				t.Fatalf("upstream path: got %s; want %s", got, tc.want)
			}
		})
	}
}

// TestRefusalsInProviderShape: each SDK raises its own API error for a
// selection the proxy refuses, with rlmc's code where the SDK exposes one
// and a message that says what was refused.
func TestRefusalsInProviderShape(t *testing.T) {
	f := newFixture(t, nil, Config{})
	ctx := context.Background()
	oai := openai.NewClient(ooption.WithBaseURL(f.url+"/v1/"), ooption.WithAPIKey("sk"), ooption.WithMaxRetries(0))
	ant := anthropic.NewClient(aoption.WithBaseURL(f.url), aoption.WithAPIKey("ak"), aoption.WithMaxRetries(0))
	sel := func(name string) []ooption.RequestOption {
		return []ooption.RequestOption{ooption.WithHeader(HeaderSelect, name)}
	}

	_, err := oai.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}, sel("nope")...)
	var oe *openai.Error
	if !errors.As(err, &oe) {
		t.Fatalf("openai: got %v; want *openai.Error", err)
	}
	if oe.StatusCode != http.StatusUnprocessableEntity || oe.Code != string(compiler.ErrUnknownUnit) || oe.Type != "invalid_request_error" || !strings.Contains(oe.Message, "nope") {
		t.Fatalf("openai: got %d %q %q %q; want 422 %s invalid_request_error and a message naming the skill", oe.StatusCode, oe.Code, oe.Type, oe.Message, compiler.ErrUnknownUnit)
	}
	if raw := oe.JSON.ExtraFields["rlmc_code"].Raw(); raw != `"unknown_unit"` {
		t.Fatalf("openai rlmc_code: got %s; want \"unknown_unit\"", raw)
	}

	_, err = ant.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 1,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}, aoption.WithHeader(HeaderSelect, "risky"))
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		t.Fatalf("anthropic: got %v; want *anthropic.Error", err)
	}
	if ae.StatusCode != http.StatusUnprocessableEntity || ae.Type() != "invalid_request_error" || !strings.Contains(ae.Message, string(compiler.ErrSelectionRejected)) {
		t.Fatalf("anthropic: got %d %q %q; want 422 invalid_request_error and the code in the message", ae.StatusCode, ae.Type(), ae.Message)
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestRefusalShapes: every refusal of the proxy, the Host and Origin
// checks' included, is an error document in the shape of the API of its
// path (the checks' mixed both shapes), with rlmc's code inside.
func TestRefusalShapes(t *testing.T) {
	f := newFixture(t, nil, Config{})
	for _, tc := range []struct {
		name, path, host string
		header           map[string]string
		status           int
		code             compiler.ErrorCode
	}{
		{name: "a Host that is not loopback, on an OpenAI path", path: "/v1/chat/completions", host: "evil.example", status: http.StatusForbidden, code: "forbidden_host"},
		{name: "a Host that is not loopback, on /v1/messages", path: "/v1/messages", host: "evil.example", status: http.StatusForbidden, code: "forbidden_host"},
		{name: "a Host that is not loopback, on a path not clean", path: "//v1/./messages", host: "evil.example", status: http.StatusForbidden, code: "forbidden_host"},
		{name: "a bad skip header on /v1/messages", path: "/v1/messages", header: map[string]string{HeaderSkip: "maybe"}, status: http.StatusBadRequest, code: compiler.ErrInvalidRequest},
		{name: "a selection on a path without skills", path: "/v1/embeddings", header: map[string]string{HeaderSelect: "tdd"}, status: http.StatusBadRequest, code: compiler.ErrInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", f.url+tc.path, strings.NewReader(msgString))
			if tc.host != "" {
				req.Host = tc.host
			}
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var doc struct {
				Type  string
				Error struct {
					Type, Message string
					RlmcCode      compiler.ErrorCode `json:"rlmc_code"`
				}
			}
			if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || doc.Error.RlmcCode != tc.code || doc.Error.Type == "" || doc.Error.Message == "" {
				t.Fatalf("got %d %+v; want %d with rlmc_code %s", resp.StatusCode, doc, tc.status, tc.code)
			}
			if wantType := flavorOf(path.Clean(tc.path)) == flavorAnthropic; (doc.Type == "error") != wantType {
				t.Fatalf("top-level type: got %q; want \"error\" %v", doc.Type, wantType)
			}
		})
	}
}
