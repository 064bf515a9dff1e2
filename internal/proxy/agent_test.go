package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

const (
	tddTask    = "write the failing test first, test-driven development"
	deployTask = "deploy the service to production"
)

// blockOf is how a skill's block opens inside a JSON string.
func blockOf(skill string) string { return `<skill name=\"` + skill + `\">` }

// history is what a provider caches of a request, as the upstream
// received it: its tools, its system prompt, and its messages, each as
// raw bytes.
type history struct {
	tools, system, instructions string
	messages                    []string
}

func historyOf(t *testing.T, body []byte) history {
	t.Helper()
	var raw struct {
		Tools, System, Instructions json.RawMessage
		Messages                    []json.RawMessage
	}
	mustJSON(t, body, &raw)
	h := history{tools: string(raw.Tools), system: string(raw.System), instructions: string(raw.Instructions)}
	for _, m := range raw.Messages {
		h.messages = append(h.messages, string(m))
	}
	return h
}

// checkTurn checks what the upstream received on one call of a loop: the
// tools, the system prompt and every message of the previous call as they
// were then, byte for byte; the block of first in the first message that
// is the user's; and the block of want in the last user message with
// text.
func checkTurn(t *testing.T, prev, cur []byte, first, want string) {
	t.Helper()
	c := historyOf(t, cur)
	if prev != nil {
		p := historyOf(t, prev)
		if c.tools != p.tools || c.system != p.system || c.instructions != p.instructions {
			t.Fatalf("tools or system changed:\ngot  %s %s\nwant %s %s", c.tools, c.system, p.tools, p.system)
		}
		if len(c.messages) < len(p.messages) {
			t.Fatalf("messages: got %d; want at least %d", len(c.messages), len(p.messages))
		}
		for i, m := range p.messages {
			if c.messages[i] != m {
				t.Fatalf("message %d changed:\ngot  %s\nwant %s", i, c.messages[i], m)
			}
		}
	}
	var users []string
	for _, m := range c.messages {
		var msg struct {
			Role    string
			Content json.RawMessage
		}
		mustJSON(t, []byte(m), &msg)
		var parts []struct{ Type string }
		json.Unmarshal(msg.Content, &parts)
		hasText := bytes.HasPrefix(msg.Content, []byte(`"`))
		for _, p := range parts {
			hasText = hasText || p.Type == "text"
		}
		if msg.Role == "user" && hasText {
			users = append(users, m)
		}
	}
	if len(users) == 0 {
		t.Fatalf("no user message upstream: %s", cur)
	}
	if !strings.Contains(users[0], blockOf(first)) {
		t.Fatalf("first user message: got %s; want the block of %s", users[0], first)
	}
	// A skill an earlier turn carries is not sent again with the newest.
	last, earlier := users[len(users)-1], slices.ContainsFunc(users[:len(users)-1], func(u string) bool { return strings.Contains(u, blockOf(want)) })
	switch has := strings.Contains(last, blockOf(want)); {
	case earlier && has:
		t.Fatalf("last user message: got %s; want no second copy of the block of %s, which an earlier turn carries", last, want)
	case !earlier && !has:
		t.Fatalf("last user message: got %s; want the block of %s", last, want)
	}
	if strings.Contains(c.system+c.instructions, "<skills>") {
		t.Fatalf("system prompt: got %s; want no block under turn placement", c.system+c.instructions)
	}
}

// TestAgentLoops drives multi-turn tool loops with the official SDKs under
// turn placement: each call reaches the upstream with every byte it cached
// of the previous call (tools, system, earlier messages) unchanged, a tool
// turn keeps the skills of the turn that started it, and a new user turn
// brings its own.
func TestAgentLoops(t *testing.T) {
	f := newFixture(t, nil, Config{})
	ctx := context.Background()
	var hr *http.Response
	oai := openai.NewClient(ooption.WithBaseURL(f.url+"/v1/"), ooption.WithAPIKey("sk"), ooption.WithMaxRetries(0), ooption.WithResponseInto(&hr))
	ant := anthropic.NewClient(aoption.WithBaseURL(f.url), aoption.WithAPIKey("ak"), aoption.WithMaxRetries(0), aoption.WithResponseInto(&hr))

	// Each step adds messages, and names the skills the call's newest
	// user turn is answered with.
	type step struct {
		name, want string
	}
	steps := []step{{"user asks for tdd", "tdd"}, {"tool turn", "tdd"}, {"user asks to deploy", "deploy"}, {"tool turn after the switch", "deploy"}, {"user asks for tdd again", "tdd"}}

	t.Run("openai chat", func(t *testing.T) {
		tools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "read_file", Parameters: shared.FunctionParameters{"type": "object"}})}
		toolCall := openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
			ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: "call_1", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "read_file", Arguments: "{}"}}}}}}
		adds := [][]openai.ChatCompletionMessageParamUnion{
			{openai.SystemMessage("You are careful."), openai.UserMessage(tddTask)},
			{toolCall, openai.ToolMessage("file contents", "call_1")},
			{openai.AssistantMessage("ok"), openai.UserMessage(deployTask)},
			{toolCall, openai.ToolMessage("file contents", "call_1")},
			{openai.AssistantMessage("ok"), openai.UserMessage("now the parser: write the failing test first, test-driven development")},
		}
		var msgs []openai.ChatCompletionMessageParamUnion
		var prev []byte
		for i, s := range steps {
			msgs = append(msgs, adds[i]...)
			c, err := oai.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-x", Messages: msgs, Tools: tools})
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if c.Choices[0].Message.Content != "ok" || hr.Header.Get(HeaderSelected) != s.want {
				t.Fatalf("%s: got %q, %s %q; want ok, %s", s.name, c.Choices[0].Message.Content, HeaderSelected, hr.Header.Get(HeaderSelected), s.want)
			}
			cur := f.up.last(t).body
			checkTurn(t, prev, cur, "tdd", s.want)
			prev = cur
		}
	})

	t.Run("anthropic messages", func(t *testing.T) {
		tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "read_file", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{}}}}}
		system := []anthropic.TextBlockParam{{Text: "You are careful.", CacheControl: anthropic.NewCacheControlEphemeralParam()}}
		toolUse := anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("t1", map[string]any{}, "read_file"))
		toolResult := anthropic.NewUserMessage(anthropic.NewToolResultBlock("t1", "file contents", false))
		adds := [][]anthropic.MessageParam{
			{anthropic.NewUserMessage(anthropic.NewTextBlock(tddTask))},
			{toolUse, toolResult},
			// Tool results and text in one turn: the block goes before
			// the text, after the results, as the API wants them first.
			{toolUse, anthropic.NewUserMessage(anthropic.NewToolResultBlock("t1", "file contents", false), anthropic.NewTextBlock(deployTask))},
			{toolUse, toolResult},
			// The same, for a skill an earlier turn carries: no block.
			{toolUse, anthropic.NewUserMessage(anthropic.NewToolResultBlock("t1", "file contents", false), anthropic.NewTextBlock("now the parser: write the failing test first, test-driven development"))},
		}
		var msgs []anthropic.MessageParam
		var prev []byte
		for i, s := range steps {
			msgs = append(msgs, adds[i]...)
			stream := i%2 == 1
			p := anthropic.MessageNewParams{Model: "claude-x", MaxTokens: 1024, System: system, Tools: tools, Messages: msgs}
			var text string
			if stream {
				st := ant.Messages.NewStreaming(ctx, p)
				var m anthropic.Message
				for st.Next() {
					m.Accumulate(st.Current())
				}
				if err := st.Err(); err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				text = m.Content[0].Text
			} else {
				m, err := ant.Messages.New(ctx, p)
				if err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				text = m.Content[0].Text
			}
			if text != "ok" || hr.Header.Get(HeaderSelected) != s.want {
				t.Fatalf("%s: got %q, %s %q; want ok, %s", s.name, text, HeaderSelected, hr.Header.Get(HeaderSelected), s.want)
			}
			cur := f.up.last(t).body
			checkTurn(t, prev, cur, "tdd", s.want)
			prev = cur
		}
		var last struct {
			Messages []struct{ Content []struct{ Type, Text string } }
		}
		mustJSON(t, prev, &last)
		got := last.Messages[4].Content
		if len(got) != 3 || got[0].Type != "tool_result" || !strings.HasPrefix(got[1].Text, "<skills>") || got[2].Text != deployTask {
			t.Fatalf("the turn asking to deploy: got %+v; want the tool result, the block, the text", got)
		}
		got = last.Messages[len(last.Messages)-1].Content
		if len(got) != 2 || got[0].Type != "tool_result" || got[1].Type != "text" {
			t.Fatalf("last turn: got %+v; want the tool result and the text, the block being the first turn's", got)
		}
	})
}

// TestResponsesToolTurns: a Responses call chained by previous_response_id
// whose input is only a tool's output keeps the skills of the turn that
// started the conversation, whether that turn streamed or not, and so do
// the calls chained to it; under system placement they go into
// instructions again (the API does not carry them over), under turn
// placement they are already in the stored conversation. A chain the
// proxy never saw says so.
func TestResponsesToolTurns(t *testing.T) {
	for _, placement := range []Placement{PlacementTurn, PlacementSystem} {
		for _, streamed := range []bool{false, true} {
			name := string(placement)
			if streamed {
				name += " streamed"
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, nil, Config{Placement: placement})
				ctx := context.Background()
				var hr *http.Response
				oai := openai.NewClient(ooption.WithBaseURL(f.url+"/v1/"), ooption.WithAPIKey("sk"), ooption.WithMaxRetries(0), ooption.WithResponseInto(&hr))
				tools := []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "read_file", Parameters: map[string]any{"type": "object"}, Strict: openai.Bool(false)}}}
				call := func(p responses.ResponseNewParams) string {
					t.Helper()
					if !streamed {
						r, err := oai.Responses.New(ctx, p)
						if err != nil {
							t.Fatal(err)
						}
						return r.ID
					}
					s := oai.Responses.NewStreaming(ctx, p)
					var id string
					for s.Next() {
						if ev := s.Current(); ev.Type == "response.created" {
							id = ev.Response.ID
						}
					}
					if err := s.Err(); err != nil {
						t.Fatal(err)
					}
					return id
				}
				id := call(responses.ResponseNewParams{Model: "gpt-x", Instructions: openai.String("You are careful."), Tools: tools,
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(deployTask)}})
				if !strings.Contains(string(f.up.last(t).body), blockOf("deploy")) {
					t.Fatalf("first turn: got %s; want the block of deploy", f.up.last(t).body)
				}
				toolTurn := func(prev string) responses.ResponseNewParams {
					out := responses.ResponseInputItemParamOfFunctionCallOutput("file contents")
					out.OfFunctionCallOutput.CallID = openai.String("call_1")
					return responses.ResponseNewParams{Model: "gpt-x", Instructions: openai.String("You are careful."), Tools: tools,
						PreviousResponseID: openai.String(prev), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}}}
				}
				for i := range 2 {
					id = call(toolTurn(id))
					if hr.Header.Get(HeaderDecision) != "route" || hr.Header.Get(HeaderSelected) != "deploy" {
						t.Fatalf("tool turn %d: got %s %q, %s %q; want route, deploy", i+1, HeaderDecision, hr.Header.Get(HeaderDecision), HeaderSelected, hr.Header.Get(HeaderSelected))
					}
					var got struct{ Instructions string }
					mustJSON(t, f.up.last(t).body, &got)
					if carried := strings.HasPrefix(got.Instructions, "<skills>\n<skill name=\"deploy\">"); carried != (placement == PlacementSystem) {
						t.Fatalf("tool turn %d instructions: got %q; want the block there only under system placement", i+1, got.Instructions)
					}
				}
				before := f.up.count()
				call(toolTurn("resp_never_seen"))
				if got := hr.Header.Get(HeaderDecision); got != DecisionUnknownConversation || bytes.Contains(f.up.last(t).body, []byte("<skills>")) || f.up.count() != before+1 {
					t.Fatalf("unknown chain: got %s %q; want %s, forwarded as sent", HeaderDecision, got, DecisionUnknownConversation)
				}
			})
		}
	}
}
