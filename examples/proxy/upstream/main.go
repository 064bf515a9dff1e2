// Command upstream is a fake completion API for trying `rlmc proxy`: it
// answers OpenAI Chat Completions, OpenAI Responses and Anthropic Messages
// calls with "ok" (streamed when asked), never calls a model, and prints
// what it receives: the path, the system prompt (and, for Messages, the
// messages of role "system" Claude Code sends its hooks' context in) and the
// last user message as they arrived (the proxy attaches the skill block to the user turn, or
// with --placement system puts it in front of the system prompt). It prints no
// header, so no API key. Run it from the repository root:
//
//	go run ./examples/proxy/upstream            # listens on 127.0.0.1:9000
//	go run ./cmd/rlmc proxy --upstream http://127.0.0.1:9000 --root .agents/skills
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/rlmc-dev/rlmc/internal/fakeapi"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen on `HOST:PORT`")
	flag.Parse()
	api := &fakeapi.Server{Seen: func(r *http.Request, body []byte) {
		fmt.Printf("upstream received %s %s (%d bytes)\n", r.Method, r.URL.Path, len(body))
		var req struct {
			System       json.RawMessage `json:"system"`
			Instructions string          `json:"instructions"`
			Input        json.RawMessage `json:"input"`
			Messages     []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &req) != nil {
			return
		}
		switch r.URL.Path {
		case "/v1/chat/completions":
			for _, m := range req.Messages {
				if m.Role == "system" || m.Role == "developer" {
					show(m.Role, text(m.Content))
					break
				}
			}
		case "/v1/responses":
			show("instructions", req.Instructions)
			show("input", text(req.Input))
			return
		case "/v1/messages":
			show("system", text(req.System))
			// Claude Code sends what its hooks add as messages of role
			// "system" among the turns.
			for _, m := range req.Messages {
				if m.Role == "system" {
					show("system message", text(m.Content))
				}
			}
		}
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == "user" {
				show("user", text(req.Messages[i].Content))
				break
			}
		}
	}}
	log.Printf("fake upstream on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, api))
}

// text reads a string, or the text parts of a list of parts or blocks.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// show prints a field, one line each, long lines cut.
func show(name, s string) {
	if s == "" {
		return
	}
	fmt.Printf("  %s:\n", name)
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if r := []rune(line); len(r) > 72 {
			line = string(r[:72]) + "..." // whole characters, so the output stays text
		}
		fmt.Println("  | " + line)
	}
}
