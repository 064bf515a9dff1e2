package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestPlace pins the exact bytes each API's edit makes: one insertion (or
// one null replaced), everything else as written.
func TestPlace(t *testing.T) {
	const block = "<skills>\n<skill name=\"a\">\nA & \"b\".\n</skill>\n</skills>\n"
	const enc = `<skills>\n<skill name=\"a\">\nA & \"b\".\n</skill>\n</skills>\n`
	for _, tc := range []struct {
		name, path, body, want string
	}{
		{name: "chat system string with escapes", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"system","content":"caf\u00e9 \"x\""},{"role":"user","content":"t"}]}`,
			want: `{"messages":[{"role":"system","content":"` + enc + `\ncaf\u00e9 \"x\""},{"role":"user","content":"t"}]}`},
		{name: "chat developer parts, empty", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"developer","content":[]}]}`,
			want: `{"messages":[{"role":"developer","content":[{"type":"text","text":"` + enc + `"}]}]}`},
		{name: "chat system content null", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"system","content":null}]}`,
			want: `{"messages":[{"role":"system","content":"` + enc + `"}]}`},
		{name: "chat system without content", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"system"}]}`,
			want: `{"messages":[{"content":"` + enc + `","role":"system"}]}`},
		{name: "chat empty messages", path: "/v1/chat/completions",
			body: `{ "messages" : [ ] }`,
			want: `{ "messages" : [{"role":"system","content":"` + enc + `"} ] }`},
		{name: "chat system not first", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"user","content":"t"},{"role":"system","content":"s"}]}`,
			want: `{"messages":[{"role":"user","content":"t"},{"role":"system","content":"` + enc + `\ns"}]}`},
		{name: "responses empty object", path: "/v1/responses",
			body: ` {} `,
			want: ` {"instructions":"` + enc + `"} `},
		{name: "responses instructions null", path: "/v1/responses",
			body: `{"instructions":null,"input":"t"}`,
			want: `{"instructions":"` + enc + `","input":"t"}`},
		{name: "messages system list", path: "/v1/messages",
			body: `{"system":[{"type":"text","text":"s"}],"messages":[]}`,
			want: `{"system":[{"type":"text","text":"` + enc + `"},{"type":"text","text":"s"}],"messages":[]}`},
		{name: "messages duplicate system, the last counts", path: "/v1/messages",
			body: `{"system":"first","system":"last"}`,
			want: `{"system":"first","system":"` + enc + `\nlast"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			root, ok := rootOf(body)
			if !ok {
				t.Fatal("not an object")
			}
			e, err := apis[tc.path].place(body, root, block)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(joined(e.parts(body))); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestTask pins where each API's task is read.
func TestTask(t *testing.T) {
	for _, tc := range []struct{ name, path, body, want string }{
		{name: "chat parts", path: "/v1/chat/completions", want: "a\n\nb",
			body: `{"messages":[{"role":"user","content":"old"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]},{"role":"tool","content":"x"}]}`},
		{name: "chat no user", path: "/v1/chat/completions", want: "", body: `{"messages":[{"role":"system","content":"s"}]}`},
		{name: "responses string", path: "/v1/responses", want: "t", body: `{"input":"t"}`},
		{name: "responses string without a client's context", path: "/v1/responses", want: "\nt", body: `{"input":"<system-reminder>x</system-reminder>\nt"}`},
		{name: "responses items", path: "/v1/responses", want: "u2",
			body: `{"input":[{"role":"user","content":"u1"},{"type":"function_call_output","output":"o"},{"type":"message","role":"user","content":[{"type":"input_text","text":"u2"}]},{"role":"assistant","content":"a"}]}`},
		{name: "messages past tool results", path: "/v1/messages", want: "u",
			body: `{"messages":[{"role":"user","content":"u"},{"role":"user","content":[{"type":"tool_result","content":"r"}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			root, _ := rootOf(body)
			if got := apis[tc.path].task(body, root); got != tc.want {
				t.Fatalf("got %q; want %q", got, tc.want)
			}
		})
	}
}

// TestAttachments: the files clients attach to a message (the shapes
// OpenCode 1.18.33, Codex 0.171.0 and Qwen Code 0.15.10 send) reach the
// task fenced, as pasted material, without the client's lines about them;
// the user's words stay as they are.
func TestAttachments(t *testing.T) {
	const chat = "/v1/chat/completions"
	for _, tc := range []struct{ name, path, body, want string }{
		{name: "opencode -f", path: chat,
			body: `{"messages":[{"role":"user","content":[` +
				`{"type":"text","text":"Called the Read tool with the following input: {\"filePath\":\"/p/Dockerfile\"}"},` +
				`{"type":"text","text":"<path>/p/Dockerfile</path>\n<type>file</type>\n<content>\n1: FROM alpine\n2: \n3: RUN make\n\n(End of file - total 3 lines)\n</content>"},` +
				`{"type":"text","text":"\"write a changelog entry\""}]}]}`,
			want: "\n\n```\nFROM alpine\n\nRUN make\n```\n\n\n\"write a changelog entry\""},
		{name: "codex stdin", path: "/v1/responses",
			body: `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"write a changelog entry\n\n<stdin>\nSELECT 1;\n</stdin>"}]}]}`,
			want: "write a changelog entry\n\n\n```\nSELECT 1;\n```\n"},
		{name: "qwen code @file", path: chat,
			body: `{"messages":[{"role":"user","content":[{"type":"text","text":"write a changelog entry for @q.sql"},` +
				`{"type":"text","text":"\n--- Content from referenced files ---"},{"type":"text","text":"\nContent from /p/q.sql:\n"},` +
				`{"type":"text","text":"SELECT 1;\n"},{"type":"text","text":"\n--- End of content ---"}]}]}`,
			want: "write a changelog entry for @q.sql\n\n\n\n```\nSELECT 1;\n```\n"},
		{name: "a fence in the file is longer outside", path: chat,
			body: `{"messages":[{"role":"user","content":"see\n<stdin>\n` + "```" + `go\nx\n` + "```" + `\n</stdin>"}]}`,
			want: "see\n\n````\n```go\nx\n```\n````\n"},
		{name: "a wrapper never closed is text", path: chat,
			body: `{"messages":[{"role":"user","content":"what does <stdin> do?\n<stdin>\nnothing"}]}`,
			want: "what does <stdin> do?\n<stdin>\nnothing"},
		{name: "a file holding the closing line stays inside", path: chat,
			body: `{"messages":[{"role":"user","content":"see\n<stdin>\nx\n</stdin>\ny\n</stdin>"}]}`,
			want: "see\n\n```\nx\n</stdin>\ny\n```\n"},
		{name: "two wrappers each end before the next", path: chat,
			body: `{"messages":[{"role":"user","content":"<content>\na\n</content>\nmid\n<content>\nb\n</content>"}]}`,
			want: "\n```\na\n```\n\nmid\n\n```\nb\n```\n"},
		{name: "a wrapper inside the user's fence is the user's", path: chat,
			body: `{"messages":[{"role":"user","content":"explain:\n` + "```" + `\n<stdin>\nx\n</stdin>\n` + "```" + `"}]}`,
			want: "explain:\n```\n<stdin>\nx\n</stdin>\n```"},
		{name: "a wrapper inside the user's fence in a list item is the user's", path: chat,
			body: `{"messages":[{"role":"user","content":"1. the input:\n    ` + "```" + `\n    <stdin>\n    x\n    </stdin>\n    ` + "```" + `"}]}`,
			want: "1. the input:\n    ```\n    <stdin>\n    x\n    </stdin>\n    ```"},
		// tsc's underline is no fence: no line closes it, and, escaped,
		// none of the fences added below does.
		{name: "a tilde underline never closed fences nothing", path: chat,
			body: `{"messages":[{"role":"user","content":"3 describe('app')\n  ~~~~~~~~\nwhy?\n<stdin>\nx\n</stdin>"}]}`,
			want: "3 describe('app')\n  \\~~~~~~~~\nwhy?\n\n```\nx\n```\n"},
		{name: "a fence the user left open pairs with no added fence", path: chat,
			body: `{"messages":[{"role":"user","content":"` + "```" + `bash\nnpm test\n<stdin>\nlog line\n</stdin>\ndeploy the service\n<stdin>\nSELECT 1;\n</stdin>"}]}`,
			want: "\\```bash\nnpm test\n\n```\nlog line\n```\n\ndeploy the service\n\n```\nSELECT 1;\n```\n"},
		{name: "a fence the user left open is not closed inside a file", path: chat,
			body: `{"messages":[{"role":"user","content":"the error:\n` + "```" + `\nTypeError: x\n\nfix the readme\n<stdin>\n# README\n` + "```" + `\nnpm install\n` + "```" + `\n</stdin>"}]}`,
			want: "the error:\n\\```\nTypeError: x\n\nfix the readme\n\n````\n# README\n```\nnpm install\n```\n````\n"},
		{name: "numbers only when every line has one", path: chat,
			body: `{"messages":[{"role":"user","content":"<content>\n1: a\nb\n</content>"}]}`,
			want: "\n```\n1: a\nb\n```\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			root, ok := rootOf(body)
			if !ok {
				t.Fatal("not an object")
			}
			if got := apis[tc.path].task(body, root); got != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
}

// BenchmarkAttachmentsUnclosed: openers never closed cost one pass, not
// one pass each (a million-line message took minutes).
func BenchmarkAttachmentsUnclosed(b *testing.B) {
	text := strings.Repeat("<stdin>\n", 100000)
	for b.Loop() {
		withAttachments(text)
	}
}

// TestUserText: a client's context tags are cut from opening to closing
// tag, every span of them; an opening tag never closed is text.
func TestUserText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"none", "deploy it", "deploy it"},
		{"one span", "<system-reminder>CLAUDE.md</system-reminder>\ndeploy it", "\ndeploy it"},
		{"two spans", "a<system-reminder>x</system-reminder>b<system-reminder>y</system-reminder>c", "abc"},
		{"both tags", "<environment_details>ls</environment_details>a<system-reminder>x</system-reminder>", "a"},
		{"only context", "<system-reminder>x</system-reminder>\n ", ""},
		{"never closed", "<system-reminder>deploy it", "<system-reminder>deploy it"},
		{"closed before opened", "</system-reminder>deploy<system-reminder>", "</system-reminder>deploy<system-reminder>"},
		{"blank", "  ", ""},
		{"codex agents.md under its heading", "# AGENTS.md instructions for /src/app\n\n<INSTRUCTIONS>\ndeploy with flyctl\n</INSTRUCTIONS>", ""},
		{"codex environment", "<environment_context>\n  <cwd>/src/fly-deploy</cwd>\n</environment_context>", ""},
		{"codex invoked skill", "<skill>\n<name>ship-it</name>\n</skill>", ""},
		{"rlmc's own block sent on", "<skills>\n<skill name=\"deploy\">\nRun the deploy script.\n</skill>\n</skills>\n\nwhat is 2+2?", "\n\nwhat is 2+2?"},
		{"a heading that is the user's stays", "# Plan\n\nship it", "# Plan\n\nship it"},
		{"a heading with text under it stays", "# Notes\nkeep this\n<system-reminder>x</system-reminder>", "# Notes\nkeep this\n"},
		{"gemini-family context message", "This is the Qwen Code. We are setting up the context for our chat.\nToday's date is Sunday.\nI'm currently working in the directory: /src/fly-deploy", ""},
		{"the preamble quoted later is text", "what does this mean?\n> This is the Qwen Code. We are setting up the context for our chat.", "what does this mean?\n> This is the Qwen Code. We are setting up the context for our chat."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := userText(tc.in); got != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
}

// FuzzPlace: whatever the request, an edit leaves valid JSON that holds
// the original bytes, in order, around one insertion.
func FuzzPlace(f *testing.F) {
	for _, s := range []string{chatBody, chatNoSystem, chatPlain, respBody, respString, msgBody, msgString, msgNone, `{}`, `{"messages":[{"role":"system","content":[1]}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body := []byte(s)
		root, ok := rootOf(body)
		if !ok {
			return
		}
		for path, a := range apis {
			a.task(body, root)
			e, err := a.place(body, root, "<skills>\nx\n</skills>\n")
			if err != nil {
				continue
			}
			got := joined(e.parts(body))
			if !json.Valid(got) {
				t.Fatalf("%s: invalid JSON after the edit: %s", path, got)
			}
			if e.end == e.at && string(got[:e.at])+string(got[e.at+len(e.text):]) != s {
				t.Fatalf("%s: the original bytes moved", path)
			}
			if !strings.Contains(string(got), `x\n</skills>`) {
				t.Fatalf("%s: no block in %s", path, got)
			}
		}
	})
}

// joined returns the body the parts make, as the upstream receives it.
func joined(parts [][]byte) []byte { return bytes.Join(parts, nil) }
