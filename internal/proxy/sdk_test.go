package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// TestOfficialSDKs drives the proxy with the official Go SDKs of OpenAI
// and Anthropic, changing only their base URL, so that the requests and
// streams are the vendors' real wire format: each call reaches the fake
// upstream with the skill block, and each answer parses. Under system
// placement; TestAgentLoops drives them under turn placement.
func TestOfficialSDKs(t *testing.T) {
	f := newFixture(t, nil, Config{Placement: PlacementSystem})
	ctx := context.Background()
	const task = "write the failing test first, test-driven development"
	var resp *http.Response
	oai := openai.NewClient(ooption.WithBaseURL(f.url+"/v1/"), ooption.WithAPIKey("sk-sdk"), ooption.WithMaxRetries(0),
		ooption.WithResponseInto(&resp))
	ant := anthropic.NewClient(aoption.WithBaseURL(f.url), aoption.WithAPIKey("ak-sdk"), aoption.WithMaxRetries(0))

	// systemOf reads the system prompt the upstream received.
	systemOf := func(t *testing.T) string {
		t.Helper()
		got := f.up.last(t)
		var r struct {
			Messages []struct {
				Role    string
				Content json.RawMessage
			}
			Instructions string
			System       json.RawMessage
		}
		mustJSON(t, got.body, &r)
		switch got.path {
		case "/v1/chat/completions":
			var s string
			mustJSON(t, r.Messages[0].Content, &s)
			return s
		case "/v1/responses":
			return r.Instructions
		}
		var blocks []struct{ Text string }
		mustJSON(t, r.System, &blocks)
		var texts []string
		for _, b := range blocks {
			texts = append(texts, b.Text)
		}
		return strings.Join(texts, "|")
	}
	check := func(t *testing.T, reply string) {
		t.Helper()
		if reply != "ok" {
			t.Fatalf("reply: got %q; want ok", reply)
		}
		if sys := systemOf(t); !strings.HasPrefix(sys, "<skills>\n<skill name=\"tdd\">") || !strings.Contains(sys, "You are careful.") {
			t.Fatalf("system prompt upstream: got %q; want the block of tdd, then the client's", sys)
		}
	}

	chat := openai.ChatCompletionNewParams{
		Model:    "gpt-x",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are careful."), openai.UserMessage(task)},
	}
	t.Run("openai chat", func(t *testing.T) {
		c, err := oai.Chat.Completions.New(ctx, chat)
		if err != nil {
			t.Fatal(err)
		}
		check(t, c.Choices[0].Message.Content)
		if resp.Header.Get(HeaderSelected) != "tdd" {
			t.Fatalf("%s: got %q; want tdd", HeaderSelected, resp.Header.Get(HeaderSelected))
		}
	})
	t.Run("openai chat stream", func(t *testing.T) {
		s := oai.Chat.Completions.NewStreaming(ctx, chat)
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		check(t, acc.Choices[0].Message.Content)
	})
	rp := responses.ResponseNewParams{
		Model:        "gpt-x",
		Instructions: openai.String("You are careful."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String(task)},
	}
	t.Run("openai responses", func(t *testing.T) {
		r, err := oai.Responses.New(ctx, rp)
		if err != nil {
			t.Fatal(err)
		}
		check(t, r.OutputText())
	})
	t.Run("openai responses stream", func(t *testing.T) {
		s := oai.Responses.NewStreaming(ctx, rp)
		var text string
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.output_text.delta" {
				text += ev.Delta
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		check(t, text)
	})
	mp := anthropic.MessageNewParams{
		Model:     "claude-x",
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: "You are careful."}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(task))},
	}
	t.Run("anthropic messages", func(t *testing.T) {
		m, err := ant.Messages.New(ctx, mp)
		if err != nil {
			t.Fatal(err)
		}
		check(t, m.Content[0].Text)
		// This SDK sends its key as a bearer token; older ones as
		// x-api-key. Either reaches the upstream as sent.
		h := f.up.last(t).header
		if h.Get("X-Api-Key") != "ak-sdk" && h.Get("Authorization") != "Bearer ak-sdk" {
			t.Fatalf("key upstream: got %q %q; want ak-sdk", h.Get("X-Api-Key"), h.Get("Authorization"))
		}
	})
	t.Run("anthropic messages stream", func(t *testing.T) {
		s := ant.Messages.NewStreaming(ctx, mp)
		var msg anthropic.Message
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		check(t, msg.Content[0].Text)
	})
	// A count through the proxy compiles nothing (TestTokenCounts): the
	// SDKs read its answer, and a count of a turn not yet sent is the
	// upstream's own (the fake one counts a token every four bytes).
	direct := anthropic.NewClient(aoption.WithBaseURL(f.up.srv.URL), aoption.WithAPIKey("ak-sdk"), aoption.WithMaxRetries(0))
	oaiDirect := openai.NewClient(ooption.WithBaseURL(f.up.srv.URL+"/v1/"), ooption.WithAPIKey("sk-sdk"), ooption.WithMaxRetries(0))
	t.Run("anthropic count_tokens", func(t *testing.T) {
		cp := anthropic.MessageCountTokensParams{Model: mp.Model, System: anthropic.MessageCountTokensParamsSystemUnion{OfTextBlockArray: mp.System},
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("a new prompt about test-driven development"))}}
		through, err := ant.Messages.CountTokens(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		without, err := direct.Messages.CountTokens(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		if through.InputTokens != without.InputTokens {
			t.Fatalf("count through the proxy %d, without it %d; want the same", through.InputTokens, without.InputTokens)
		}
	})
	t.Run("openai responses input_tokens", func(t *testing.T) {
		cp := responses.InputTokenCountParams{Model: openai.String("gpt-x"), Instructions: rp.Instructions,
			Input: responses.InputTokenCountParamsInputUnion{OfString: openai.String("a new prompt about test-driven development")}}
		through, err := oai.Responses.InputTokens.Count(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		without, err := oaiDirect.Responses.InputTokens.Count(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		if through.InputTokens != without.InputTokens {
			t.Fatalf("count through the proxy %d, without it %d; want the same", through.InputTokens, without.InputTokens)
		}
	})
	t.Run("a selection that cannot be honored is an SDK error, not a plain call", func(t *testing.T) {
		before := f.up.count()
		_, err := ant.Messages.New(ctx, mp, aoption.WithHeader(HeaderSelect, "no-such-skill"))
		var ae *anthropic.Error
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("got %v; want a 422", err)
		}
		if f.up.count() != before {
			t.Fatal("the refused call reached the upstream")
		}
	})
}
