package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"
)

// The request body is edited in place: every edit is an insertion (or, for
// a null, a replacement) at a byte offset found by walking the JSON, so
// that every byte outside the field receiving the skill block reaches the
// upstream as the client wrote it: key order, spacing, numbers of any
// precision, fields rlmc has never heard of.

// span is a JSON value's place in the body: body[start:end].
type span struct{ start, end int }

// member is one member of a JSON object.
type member struct {
	key string
	val span
}

// edit replaces body[at:end] with text; end == at inserts.
type edit struct {
	at, end int
	text    []byte
}

// parts returns body with e made, as slices of body and e's text to send
// one after the other (see partsAll).
func (e edit) parts(body []byte) [][]byte { return partsAll(body, []edit{e}) }

// errShape is a request whose shape leaves no place for the skill block.
var errShape = errors.New("the request has no place for the skill block")

// kind returns the first byte of the value at v: '{', '[', '"', 'n' ...
func kind(body []byte, v span) byte {
	if v.end <= v.start {
		return 0
	}
	return body[v.start]
}

// The walk below reads a body json.Valid has accepted (rootOf checks it
// once), so it only finds where values start and end: a string is skipped
// by looking for its closing quote, a container by counting brackets
// outside strings. Nothing is decoded or copied, which keeps a completion
// carrying a 30 MiB document to a few scans of its bytes at memory speed
// (encoding/json's Decoder, asked for each value as a RawMessage, copied
// and rescanned the body at every level: over a second for such a body).

// skipSpace returns the first index from i that is not JSON whitespace.
func skipSpace(body []byte, i int) int {
	for i < len(body) && isSpace(body[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is
// at i.
func stringEnd(body []byte, i int) int {
	i++
	for {
		q := bytes.IndexByte(body[i:], '"')
		if q < 0 {
			return len(body)
		}
		i += q
		// The quote closes the string unless an odd run of
		// backslashes escapes it.
		n := 0
		for j := i - 1; body[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// valueEnd returns the index just past the value starting at i.
func valueEnd(body []byte, i int) int {
	switch body[i] {
	case '"':
		return stringEnd(body, i)
	case '{', '[':
		depth := 0
		for i < len(body) {
			switch c := body[i]; c {
			case '"':
				i = stringEnd(body, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(body)
	}
	for i < len(body) && !isSpace(body[i]) && body[i] != ',' && body[i] != '}' && body[i] != ']' {
		i++
	}
	return i
}

// members returns the members of the object at v, in order, with their
// absolute spans; ok is false when v is not an object.
func members(body []byte, v span) (out []member, ok bool) {
	if kind(body, v) != '{' {
		return nil, false
	}
	i := skipSpace(body, v.start+1)
	for i < v.end && body[i] == '"' {
		keyEnd := stringEnd(body, i)
		key, _ := str(body, span{i, keyEnd})
		start := skipSpace(body, skipSpace(body, keyEnd)+1) // past the colon
		end := valueEnd(body, start)
		out = append(out, member{key: key, val: span{start, end}})
		i = skipSpace(body, end)
		if i < v.end && body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	return out, true
}

// elements returns the elements of the array at v, with their absolute
// spans; ok is false when v is not an array.
func elements(body []byte, v span) (out []span, ok bool) {
	if kind(body, v) != '[' {
		return nil, false
	}
	i := skipSpace(body, v.start+1)
	for i < v.end && body[i] != ']' {
		end := valueEnd(body, i)
		out = append(out, span{i, end})
		i = skipSpace(body, end)
		if i < v.end && body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	return out, true
}

// field returns the value of key in the object at v. With a key given more
// than once, the last one counts, as most JSON parsers (Python's, Go's,
// JavaScript's) read it, so the task rlmc reads is the one the model reads.
func field(body []byte, v span, key string) (span, bool) {
	ms, _ := members(body, v)
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return ms[i].val, true
		}
	}
	return span{}, false
}

// str returns the string at v; ok is false when v is not a string.
func str(body []byte, v span) (string, bool) {
	if kind(body, v) != '"' {
		return "", false
	}
	if raw := body[v.start+1 : v.end-1]; bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw), true // nothing to unescape or replace
	}
	var s string
	if json.Unmarshal(body[v.start:v.end], &s) != nil {
		return "", false
	}
	return s, true
}

// strField returns the string value of key in the object at v.
func strField(body []byte, v span, key string) string {
	f, ok := field(body, v, key)
	if !ok {
		return ""
	}
	s, _ := str(body, f)
	return s
}

// encodeString returns s as a JSON string. Angle brackets stay as they
// are (the standard encoder writes them as \u003c) so that the block
// reads as itself in the upstream's logs; both decode alike.
func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// textOf returns the text of a message content: a string, or the text of
// the parts of an array whose type is one of types, each a paragraph of
// its own (image, audio, tool-result and other parts carry no task text),
// without what the client wrapped in one of its context tags (userText),
// and with the files it attached fenced (withAttachments).
func textOf(body []byte, content span, types ...string) string {
	parts, whole := textParts(body, content, types...)
	if whole {
		return withAttachments(userText(parts[0]))
	}
	var texts []string
	for _, p := range parts {
		if s := userText(p); s != "" {
			texts = append(texts, s)
		}
	}
	// A blank line between parts: a client that sends the user's words
	// and a file it read as two parts sends two pieces, and the task
	// reads them apart (the words as the instruction, the file as
	// pasted material), as it does two paragraphs.
	return withAttachments(strings.Join(texts, "\n\n"))
}

// textParts returns the texts of a message's content as sent: the string
// (whole), or each part of one of types.
func textParts(body []byte, content span, types ...string) (parts []string, whole bool) {
	if s, ok := str(body, content); ok {
		return []string{s}, true
	}
	elems, ok := elements(body, content)
	if !ok {
		return nil, false
	}
	for _, p := range elems {
		if slices.Contains(types, strField(body, p, "type")) {
			parts = append(parts, strField(body, p, "text"))
		}
	}
	return parts, false
}

// clientTags are the tags agent clients wrap the context they add to the
// user's messages in, which is the project and the client, not the
// user's request: Claude Code's <system-reminder> (the project's
// CLAUDE.md, the date, reminders about its tools), Cline's and Roo Code's
// <environment_details> (open files, a file listing), Codex's
// <INSTRUCTIONS> (AGENTS.md, under a heading naming its folder; earlier
// versions' <user_instructions>), <environment_context> (the working
// folder, the shell), <recommended_plugins>, and <skill> (a skill of its
// own the user invoked, whole). Compiled as the user's, that text routed a
// project's skills to every prompt, "what is 2+2?" included. rlmc's own
// <skills> block, which a host that already put one in a message sends
// on, is no request either: its bodies would route on themselves.
var clientTags = [...]string{"system-reminder", "environment_details", "INSTRUCTIONS", "user_instructions", "environment_context", "recommended_plugins", "skill", "skills"}

// clientPreamble is in the first line of the message in which Gemini
// CLI and the clients built on it (Qwen Code) state the date, the
// operating system, the working folder and its listing, with no tag
// around them ("This is the Qwen Code. We are setting up ..."): such a
// message is client context whole.
const clientPreamble = "We are setting up the context for our chat."

// userText returns s without what a client added to it: the spans wrapped
// in one of its context tags (clientTags), each from an opening tag to its
// closing tag (an opening tag never closed is left as written), with the
// heading line right above one ("# AGENTS.md instructions for /src/app");
// and nothing of a message whose first line holds clientPreamble.
func userText(s string) string {
	if first, _, _ := strings.Cut(s, "\n"); strings.Contains(first, clientPreamble) {
		return ""
	}
	for _, tag := range clientTags {
		open, end := "<"+tag+">", "</"+tag+">"
		if !strings.Contains(s, open) {
			continue
		}
		var b strings.Builder
		rest := s
		for {
			i := strings.Index(rest, open)
			if i < 0 {
				break
			}
			j := strings.Index(rest[i+len(open):], end)
			if j < 0 {
				break
			}
			b.WriteString(withoutHeading(rest[:i]))
			rest = rest[i+len(open)+j+len(end):]
		}
		b.WriteString(rest)
		s = b.String()
	}
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// withoutHeading returns text, which a tagged span follows, without its
// last line when that is a Markdown heading followed by nothing but blank
// lines: the title of the span.
func withoutHeading(text string) string {
	body := strings.TrimRight(text, " \t\r\n")
	line := body[strings.LastIndexByte(body, '\n')+1:]
	if !strings.HasPrefix(line, "#") {
		return text
	}
	return body[:len(body)-len(line)]
}

// lastUserText returns the text of the last message with role user that
// carries text. A user message that only returns tool results (as
// Anthropic's do) is passed over, so that each call of an agent loop
// compiles for the task the user gave, and keeps its skills.
func lastUserText(body []byte, msgs []span, types ...string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if strField(body, msgs[i], "role") != "user" {
			continue
		}
		c, ok := field(body, msgs[i], "content")
		if !ok {
			continue
		}
		if t := textOf(body, c, types...); t != "" {
			return t
		}
	}
	return ""
}

// prependString inserts block in front of the string at v, followed by a
// line break, as rlm.WithSkills joins the block and the system text.
func prependString(v span, block string) edit {
	inner := encodeString(block + "\n")
	return edit{at: v.start + 1, end: v.start + 1, text: inner[1 : len(inner)-1]}
}

// prependElement inserts elem as the first element of the array at v.
func prependElement(body []byte, v span, n int, elem []byte) edit {
	text := elem
	if n > 0 {
		text = append(append([]byte{}, elem...), ',')
	}
	return edit{at: v.start + 1, end: v.start + 1, text: text}
}

// prependMember inserts "key": val as the first member of the object at v.
func prependMember(body []byte, v span, key string, val []byte) edit {
	text := append(encodeString(key), ':')
	text = append(text, val...)
	if ms, _ := members(body, v); len(ms) > 0 {
		text = append(text, ',')
	}
	return edit{at: v.start + 1, end: v.start + 1, text: text}
}

// textPart is a content part holding block as text, in the form all three
// APIs take ({"type": "text", "text": ...}).
func textPart(block string) []byte {
	return append(append([]byte(`{"type":"text","text":`), encodeString(block)...), '}')
}

// intoText puts block in front of a text field at v: a string gains it as
// a prefix, a list of parts gains a first text part, a null becomes the
// block.
func intoText(body []byte, v span, block string) (edit, error) {
	switch kind(body, v) {
	case '"':
		return prependString(v, block), nil
	case '[':
		parts, _ := elements(body, v)
		return prependElement(body, v, len(parts), textPart(block)), nil
	case 'n':
		return edit{at: v.start, end: v.end, text: encodeString(block)}, nil
	}
	return edit{}, errShape
}

// api is one completion API the proxy puts skills into: where it reads the
// task and where the block goes.
type api struct {
	name string
	// task returns the task text of the request object at root.
	task func(body []byte, root span) string
	// place returns the edit putting block into the request's system
	// prompt (PlacementSystem).
	place func(body []byte, root span, block string) (edit, error)
	// turns returns the user turns that carry text, and the span of the
	// list holding them (PlacementTurn).
	turns func(body []byte, root span) ([]turn, span)
	// textTypes are the types of the content parts holding a user's text.
	textTypes []string
	// count: a token count of the API's requests, not a completion.
	count bool
}

// The completion APIs the proxy edits.
var (
	chatAPI      = &api{name: "chat_completions", task: chatTask, place: chatPlace, turns: chatTurns, textTypes: []string{"text"}}
	responsesAPI = &api{name: "responses", task: responsesTask, place: responsesPlace, turns: responsesTurns, textTypes: []string{"input_text", "text"}}
	messagesAPI  = &api{name: "messages", task: messagesTask, place: messagesPlace, turns: chatTurns, textTypes: []string{"text"}}
)

// apis maps each path the proxy edits to its API. A token count of an
// API's request (Anthropic's count_tokens, OpenAI's Responses
// input_tokens) takes the same body, and gets the blocks remembered for
// the turns the proxy forwarded (countEdits): nothing is compiled for it.
var apis = map[string]*api{
	"/v1/chat/completions":       chatAPI,
	"/v1/responses":              responsesAPI,
	"/v1/messages":               messagesAPI,
	"/v1/messages/count_tokens":  messagesAPI.counting(),
	"/v1/responses/input_tokens": responsesAPI.counting(),
}

// counting returns a's token count: read as a, under a's name (its turns
// are remembered under the same keys), logged apart; its answer is a
// count, no response to learn an id from.
func (a *api) counting() *api {
	c := *a
	c.count = true
	return &c
}

// label names a in the proxy's log.
func (a *api) label() string {
	if a.count {
		return a.name + "_count"
	}
	return a.name
}

// chatTask reads an OpenAI Chat Completions request: the last user message.
func chatTask(body []byte, root span) string {
	m, _ := field(body, root, "messages")
	msgs, _ := elements(body, m)
	return lastUserText(body, msgs, "text")
}

// chatPlace puts the block in front of the first system or developer
// message's content, or in a new system message at the start.
func chatPlace(body []byte, root span, block string) (edit, error) {
	m, ok := field(body, root, "messages")
	if !ok {
		return edit{}, errShape
	}
	msgs, ok := elements(body, m)
	if !ok {
		return edit{}, errShape
	}
	for _, msg := range msgs {
		if r := strField(body, msg, "role"); r != "system" && r != "developer" {
			continue
		}
		c, ok := field(body, msg, "content")
		if !ok {
			return prependMember(body, msg, "content", encodeString(block)), nil
		}
		return intoText(body, c, block)
	}
	elem := append(append([]byte(`{"role":"system","content":`), encodeString(block)...), '}')
	return prependElement(body, m, len(msgs), elem), nil
}

// responsesTask reads an OpenAI Responses request: input as a string, or
// the last user item of input as a list.
func responsesTask(body []byte, root span) string {
	in, ok := field(body, root, "input")
	if !ok {
		return ""
	}
	if kind(body, in) == '"' {
		return textOf(body, in) // a string is read as a message's is
	}
	items, _ := elements(body, in)
	return lastUserText(body, items, "input_text", "text")
}

// responsesPlace puts the block in front of instructions.
func responsesPlace(body []byte, root span, block string) (edit, error) {
	if in, ok := field(body, root, "instructions"); ok {
		return intoText(body, in, block)
	}
	return prependMember(body, root, "instructions", encodeString(block)), nil
}

// messagesTask reads an Anthropic Messages request: the last user message.
func messagesTask(body []byte, root span) string {
	m, _ := field(body, root, "messages")
	msgs, _ := elements(body, m)
	return lastUserText(body, msgs, "text")
}

// messagesPlace puts the block in front of system: a string gains it as a
// prefix, a list of blocks a first text block.
func messagesPlace(body []byte, root span, block string) (edit, error) {
	if s, ok := field(body, root, "system"); ok {
		return intoText(body, s, block)
	}
	return prependMember(body, root, "system", encodeString(block)), nil
}

// rootOf returns the span of the top-level value of body, which must be a
// JSON object; ok is false otherwise.
func rootOf(body []byte) (span, bool) {
	if !json.Valid(body) {
		return span{}, false
	}
	start := 0
	for start < len(body) && isSpace(body[start]) {
		start++
	}
	end := len(body)
	for end > start && isSpace(body[end-1]) {
		end--
	}
	v := span{start, end}
	return v, kind(body, v) == '{'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
