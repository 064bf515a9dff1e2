// Package fakeapi is a fake completion API for the proxy's tests, its
// benchmark and examples/proxy/upstream: it answers OpenAI Chat
// Completions, OpenAI Responses and Anthropic Messages calls with a fixed
// reply ("ok"), and their token counts with a count of a token every four
// bytes of the request, as JSON or, when the request says "stream": true, as
// server-sent events in the vendors' formats, so that their SDKs parse it.
// It never calls a model.
package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

// Server is a fake API. Its zero value answers every call.
type Server struct {
	// Seen, when set, is called with each request and its body before
	// the answer is written.
	Seen func(r *http.Request, body []byte)
	// Gate, when set, is waited on after the first event of a stream
	// (tests use it to prove the stream reaches the client unbuffered).
	Gate <-chan struct{}
	// calls numbers the answers: each Responses answer has an id of its
	// own (resp_1, resp_2 ...), as the API's do, so that tests can chain
	// calls by previous_response_id.
	calls atomic.Int64
}

// ServeHTTP answers one call.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if s.Seen != nil {
		s.Seen(r, body)
	}
	var req struct {
		Stream bool `json:"stream"`
		// Instructions are repeated in a Responses answer, as the API
		// does, in its first event too: an agent's long instructions make
		// that event large.
		Instructions json.RawMessage `json:"instructions"`
	}
	json.Unmarshal(body, &req) // a body that is not JSON gets the JSON answer
	if object, ok := counts[r.URL.Path]; ok {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{%s"input_tokens":%d}`, object, len(body)/4)
		return
	}
	instructions := "null"
	if json.Valid(req.Instructions) {
		instructions = string(req.Instructions)
	}
	events, whole := answers(r.URL.Path, s.calls.Add(1), instructions)
	if events == nil {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model"}]}`)
		return
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, whole)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	for i, ev := range events {
		var b bytes.Buffer
		if ev.name != "" {
			fmt.Fprintf(&b, "event: %s\n", ev.name)
		}
		fmt.Fprintf(&b, "data: %s\n\n", ev.data)
		if _, err := w.Write(b.Bytes()); err != nil {
			return
		}
		rc.Flush()
		if i == 0 && s.Gate != nil {
			select {
			case <-s.Gate:
			case <-r.Context().Done():
				return
			}
		}
	}
}

// counts maps the token count paths to the members their answer has
// before its count.
var counts = map[string]string{
	"/v1/messages/count_tokens":  "",
	"/v1/responses/input_tokens": `"object":"response.input_tokens",`,
}

type event struct{ name, data string }

// answers returns the stream and the whole answer of the API at path,
// the n-th answer: its id numbered n (resp_n, msg_n, chatcmpl-n), as the
// APIs' ids are each their own (Claude Code takes assistant messages of
// one id for one message, and found too few to compact a conversation
// of "msg_1"s), and instructions (JSON) as a Responses answer's
// instructions; nil for a path that is not a completion.
func answers(path string, n int64, instructions string) ([]event, string) {
	id := func(prefix string) string { return prefix + strconv.FormatInt(n, 10) }
	switch path {
	case "/v1/chat/completions":
		chunk := func(delta, finish string) string {
			return `{"id":"` + id("chatcmpl-") + `","object":"chat.completion.chunk","created":1,"model":"fake-model","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
		}
		return []event{
				{data: chunk(`{"role":"assistant","content":""}`, "null")},
				{data: chunk(`{"content":"ok"}`, "null")},
				{data: chunk(`{}`, `"stop"`)},
				{data: "[DONE]"},
			}, `{"id":"` + id("chatcmpl-") + `","object":"chat.completion","created":1,"model":"fake-model",` +
				`"choices":[{"index":0,"message":{"role":"assistant","content":"ok","refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
				`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	case "/v1/responses":
		resp := func(status, output string) string {
			return `{"id":"` + id("resp_") + `","object":"response","created_at":1,"status":"` + status + `","model":"fake-model","output":` + output +
				`,"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"temperature":1,"top_p":1,"error":null,"incomplete_details":null,"instructions":` + instructions + `,"metadata":{}}`
		}
		out := `[{"type":"message","id":"` + id("msg_") + `","status":"completed","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}]`
		return []event{
			{name: "response.created", data: `{"type":"response.created","sequence_number":0,"response":` + resp("in_progress", "[]") + `}`},
			{name: "response.output_text.delta", data: `{"type":"response.output_text.delta","sequence_number":1,"item_id":"` + id("msg_") + `","output_index":0,"content_index":0,"delta":"ok","logprobs":[]}`},
			{name: "response.completed", data: `{"type":"response.completed","sequence_number":2,"response":` + resp("completed", out) + `}`},
		}, resp("completed", out)
	case "/v1/messages":
		msg := func(content, stop string) string {
			return `{"id":"` + id("msg_") + `","type":"message","role":"assistant","model":"fake-model","content":` + content +
				`,"stop_reason":` + stop + `,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`
		}
		return []event{
			{name: "message_start", data: `{"type":"message_start","message":` + msg("[]", "null") + `}`},
			{name: "content_block_start", data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{name: "content_block_delta", data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`},
			{name: "content_block_stop", data: `{"type":"content_block_stop","index":0}`},
			{name: "message_delta", data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`},
			{name: "message_stop", data: `{"type":"message_stop"}`},
		}, msg(`[{"type":"text","text":"ok"}]`, `"end_turn"`)
	}
	return nil, ""
}
