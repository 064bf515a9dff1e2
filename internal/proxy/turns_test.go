package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestTurnPlace pins the bytes turn placement inserts into each API's user
// turns: a prefix of a string content, or a text part just before the
// first text part; other messages and parts as written.
func TestTurnPlace(t *testing.T) {
	const block = "<skills>\nS\n</skills>\n"
	const enc = `<skills>\nS\n</skills>\n`
	for _, tc := range []struct{ name, path, body, want string }{
		{name: "chat strings, assistant and tool passed over", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"a"},{"role":"assistant","content":"x"},{"role":"tool","content":"r"},{"role":"user", "content" : "b"}]}`,
			want: `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"` + enc + `\na"},{"role":"assistant","content":"x"},{"role":"tool","content":"r"},{"role":"user", "content" : "` + enc + `\nb"}]}`},
		{name: "chat parts, image first", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{}},{"type":"text","text":"a"}]}]}`,
			want: `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{}},{"type":"text","text":"` + enc + `"},{"type":"text","text":"a"}]}]}`},
		{name: "chat user without text", path: "/v1/chat/completions",
			body: `{"messages":[{"role":"user","content":[{"type":"image_url"}]},{"role":"user","content":""}]}`,
			want: `{"messages":[{"role":"user","content":[{"type":"image_url"}]},{"role":"user","content":""}]}`},
		{name: "messages, tool results stay first", path: "/v1/messages",
			body: `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]}`,
			want: `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"text","text":"` + enc + `"},{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]}`},
		{name: "responses input string", path: "/v1/responses",
			body: `{"input":"a","instructions":"i"}`,
			want: `{"input":"` + enc + `\na","instructions":"i"}`},
		{name: "responses items", path: "/v1/responses",
			body: `{"input":[{"role":"user","content":"a"},{"type":"function_call_output","output":"o"},{"type":"message","role":"user","content":[{"type":"input_text","text":"b"}]}]}`,
			want: `{"input":[{"role":"user","content":"` + enc + `\na"},{"type":"function_call_output","output":"o"},{"type":"message","role":"user","content":[{"type":"input_text","text":"` + enc + `"},{"type":"input_text","text":"b"}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			root, _ := rootOf(body)
			a := apis[tc.path]
			turns, _ := a.turns(body, root)
			var edits []edit
			for _, tn := range turns {
				e, err := intoTurn(body, tn.content, block, a.textTypes...)
				if err != nil {
					t.Fatal(err)
				}
				edits = append(edits, e)
			}
			got := string(body)
			if len(edits) > 0 {
				got = string(joined(partsAll(body, edits)))
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestTurnsRemembered: under turn placement a turn's block is sent again
// on the next calls that carry the same host headers; forgotten (a memory
// of one entry), it is compiled again from the turn's text with them and
// comes out the same; a call without the selection gets the turn's block
// without it, and a call that adds one keeps the earlier turns' blocks; a
// denial reaches the earlier turns too.
func TestTurnsRemembered(t *testing.T) {
	for _, tc := range []struct {
		name   string
		memory int
		// header of the first call, and whether the earlier turn keeps
		// the deploy block on the next.
		first map[string]string
		next  map[string]string
		keeps bool
	}{
		{name: "routed, remembered", memory: 0, keeps: true},
		{name: "routed, forgotten, compiled again", memory: 1, keeps: true},
		{name: "selected by the host, selected again, remembered", memory: 0, first: map[string]string{HeaderSelect: "deploy"}, next: map[string]string{HeaderSelect: "deploy"}, keeps: true},
		{name: "selected by the host, selected again, forgotten, compiled again", memory: 1, first: map[string]string{HeaderSelect: "deploy"}, next: map[string]string{HeaderSelect: "deploy"}, keeps: true},
		// A call without the host's selection may be another user's
		// conversation that starts with the same words.
		{name: "selected by the host, not selected again", memory: 0, first: map[string]string{HeaderSelect: "deploy"}, keeps: false},
		{name: "denied on the next call", memory: 0, next: map[string]string{HeaderDeny: "deploy"}, keeps: false},
		// What a host does after an ambiguous answer: the earlier turns
		// keep the blocks they were sent with (a second red team: every
		// one got the selected skill, and the cached prefix broke).
		{name: "selected by the host only on the next call", memory: 0, next: map[string]string{HeaderSelect: "tdd"}, keeps: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil, Config{Memory: tc.memory})
			task := deployTask
			if tc.first[HeaderSelect] != "" {
				task = "hello there"
			}
			one := `{"messages":[{"role":"user","content":"` + task + `"}]}`
			f.do(t, "POST", "/v1/chat/completions", one, tc.first)
			sent := f.up.last(t).body
			if !bytes.Contains(sent, []byte(blockOf("deploy"))) {
				t.Fatalf("first call: got %s; want the block of deploy", sent)
			}
			// Another conversation passes through in between.
			f.do(t, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"`+tddTask+`"}]}`, nil)
			two := `{"messages":[{"role":"user","content":"` + task + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"` + tddTask + `"}]}`
			resp, _ := f.do(t, "POST", "/v1/chat/completions", two, tc.next)
			if sel := resp.Header.Get(HeaderSelected); !slices.Contains(strings.Split(sel, ","), "tdd") {
				t.Fatalf("%s: got %q; want tdd among them", HeaderSelected, sel)
			}
			got := f.up.last(t).body
			prefix := sent[:bytes.LastIndex(sent, []byte("}]}"))+1]
			if kept := bytes.HasPrefix(got, prefix); kept != tc.keeps {
				t.Fatalf("earlier turn as sent before: got %v; want %v\nbefore %s\nnow    %s", kept, tc.keeps, sent, got)
			}
			if !bytes.Contains(got, []byte(blockOf("tdd"))) {
				t.Fatalf("no block of tdd in %s", got)
			}
		})
	}
	f := newFixture(t, nil, Config{Memory: 3})
	for i := range 4 {
		f.p.blocks.Put(blockKey{key: uint64(i)}, "b")
		f.p.convs.Put(strconv.Itoa(i), &conversation{})
	}
	if f.p.blocks.Len() != 3 || f.p.convs.Len() != 3 {
		t.Fatalf("memory caps: got %d %d; want 3", f.p.blocks.Len(), f.p.convs.Len())
	}
}

// TestTurnsNotShared: a block a host selected for one conversation never
// lands in another whose first turn is the same bytes (a red team's
// leak: user B's second call carried the explicit-only skill user A's
// host had selected), nor does B's block replace A's.
func TestTurnsNotShared(t *testing.T) {
	f := newFixture(t, nil, Config{})
	first := `{"role":"user","content":"hello there"}`
	f.do(t, "POST", "/v1/chat/completions", `{"messages":[`+first+`]}`, nil) // B1
	f.do(t, "POST", "/v1/chat/completions", `{"messages":[`+first+`]}`, map[string]string{HeaderSelect: "deploy"})
	aSent := f.up.last(t).body // A1
	two := `{"messages":[` + first + `,{"role":"assistant","content":"ok"},{"role":"user","content":"what is the weather like"}]}`
	f.do(t, "POST", "/v1/chat/completions", two, nil) // B2
	if got := f.up.last(t).body; bytes.Contains(got, []byte(blockOf("deploy"))) {
		t.Fatalf("B's second call: got %s; want no block of the skill A's host selected", got)
	}
	f.do(t, "POST", "/v1/chat/completions", two, map[string]string{HeaderSelect: "deploy"}) // A2
	got := f.up.last(t).body
	if prefix := aSent[:bytes.LastIndex(aSent, []byte("}]}"))+1]; !bytes.HasPrefix(got, prefix) {
		t.Fatalf("A's second call: got %s; want its first turn as sent before: %s", got, aSent)
	}
}

// TestCatchID: the response id is found in a JSON answer or a stream's
// first event, read a byte at a time, plain or gzipped, and is known
// before the bytes holding it are handed on.
func TestCatchID(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		io.WriteString(w, s)
		w.Close()
		return b.String()
	}
	const sse = "event: response.created\r\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_s\",\"object\":\"response\"}}\r\n\r\nevent: response.completed\ndata: {}\n\n"
	for _, tc := range []struct {
		name, body, want string
		stream, gzip     bool
	}{
		{name: "json, id first", body: `{"id":"resp_a","output":[]}`, want: "resp_a"},
		{name: "json, id after other members", body: ` { "object" : "response", "output":[{"id":"item"}], "id":"resp_b"}`, want: "resp_b"},
		{name: "json without id", body: `{"object":"response"}`, want: ""},
		// Read a byte at a time: searched again from its start at each
		// read, this answer was decoded 60,000 times.
		{name: "json, id after a long member", body: `{"object":"response","pad":"` + strings.Repeat("x", 60000) + `","id":"resp_late"}`, want: "resp_late"},
		{name: "stream", body: sse, want: "resp_s", stream: true},
		{name: "gzipped json", body: gz(`{"id":"resp_g"}`), want: "resp_g", gzip: true},
		{name: "gzipped stream", body: gz(sse), want: "resp_s", stream: true, gzip: true},
		// Several gzip members are one stream (RFC 1952, 2.2): the first
		// member's end ended the search.
		{name: "gzip, an empty member first", body: gz("") + gz(`{"id":"resp_m"}`), want: "resp_m", gzip: true},
		{name: "gzip, the answer split over two members", body: gz(`{"object":"response",`) + gz(`"id":"resp_n"}`), want: "resp_n", gzip: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			read := 0
			c := &idCatcher{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(tc.body))), stream: tc.stream, gzip: tc.gzip,
				found: func(id string) {
					if got == "" {
						got = id
					}
				}}
			buf := make([]byte, 1)
			for {
				n, err := c.Read(buf)
				read += n
				// A client reads the id when the JSON string holding it
				// ends, or when the stream's first event does.
				usable := `"` + tc.want + `"`
				if tc.stream {
					usable = "\r\n\r\n"
				}
				if got == "" && !tc.gzip && tc.want != "" && strings.Contains(tc.body[:read], usable) {
					t.Fatalf("the id was handed on before it was remembered")
				}
				if err != nil {
					break
				}
			}
			if got != tc.want {
				t.Fatalf("got %q; want %q", got, tc.want)
			}
		})
	}
}

// FuzzTurns: whatever the request, attaching a block to each of its user
// turns leaves valid JSON that holds the original bytes, in order, around
// the insertions.
func FuzzTurns(f *testing.F) {
	for _, s := range []string{chatBody, chatPlain, respBody, respString, msgBody, msgString, msgNone,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},{"role":"user","content":"c"}]}`,
		`{"input":[{"role":"user","content":[{"type":"input_text","text":"\u00e9\""}]}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body := []byte(s)
		root, ok := rootOf(body)
		if !ok {
			return
		}
		for path, a := range apis {
			turns, _ := a.turns(body, root)
			var edits []edit
			for _, tn := range turns {
				e, err := intoTurn(body, tn.content, "<skills>\nx\n</skills>\n", a.textTypes...)
				if err != nil {
					t.Fatalf("%s: a turn with text has no place for the block: %v", path, err)
				}
				edits = append(edits, e)
			}
			if len(edits) == 0 {
				continue
			}
			got := joined(partsAll(body, edits))
			if !json.Valid(got) {
				t.Fatalf("%s: invalid JSON after the edits: %s", path, got)
			}
			var rest []byte
			at := 0
			for _, e := range edits {
				if e.at < at || e.end != e.at {
					t.Fatalf("%s: edits out of order or replacing bytes", path)
				}
				at = e.at
			}
			at = 0
			shift := 0
			for _, e := range edits {
				rest = append(rest, got[at+shift:e.at+shift]...)
				shift += len(e.text)
				at = e.at
			}
			rest = append(rest, got[at+shift:]...)
			if string(rest) != s {
				t.Fatalf("%s: the original bytes moved", path)
			}
		}
	})
}

// TestSSEResponseID: the id comes from the first event that carries data,
// whatever comments or keep-alives come before it (a gateway's
// ": PROCESSING" left a chained call without its conversation).
func TestSSEResponseID(t *testing.T) {
	created := "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\"}}\n\n"
	for _, tc := range []struct {
		name, data, want string
		final            bool
	}{
		{name: "first event", data: created, want: "resp_1", final: true},
		{name: "a comment first", data: ": PROCESSING\n\n" + created, want: "resp_1", final: true},
		{name: "CRLF keep-alives first", data: ":\r\n\r\n: ping\r\n\r\n" + strings.ReplaceAll(created, "\n", "\r\n"), want: "resp_1", final: true},
		{name: "event not whole yet", data: ": PROCESSING\n\nevent: response.created\ndata: {", final: false},
		{name: "another first event", data: "data: {\"type\":\"error\"}\n\n" + created, want: "", final: true},
		// The real response.created repeats the request's instructions
		// and tools after the id: the id is read before the event ends,
		// however long it grows (a chain was lost past captureMax).
		{name: "the id before the event ends", data: "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_2\",\"instructions\":\"" + strings.Repeat("x", 2*captureMax), want: "resp_2", final: true},
		{name: "the id not yet whole", data: "data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_", final: false},
		{name: "a whole event of broken JSON", data: "data: {\"response\":{\"id\n\n", want: "", final: true},
		{name: "an event without a response", data: "data: {\"type\":\"response.created\",\"sequence_number\":0}\n\n", want: "", final: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, final := sseResponseID([]byte(tc.data))
			if id != tc.want || final != tc.final {
				t.Errorf("got %q, final %v; want %q, final %v", id, final, tc.want, tc.final)
			}
		})
	}
}

// TestBlocksLogged: the log line counts the skill blocks a call carries,
// earlier turns' included: a call whose newest turn selects nothing said
// only no_route while an earlier turn's skills went upstream.
func TestBlocksLogged(t *testing.T) {
	f := newFixture(t, nil, Config{})
	two := `{"messages":[{"role":"user","content":"` + deployTask + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"what is the capital of France?"}]}`
	resp, _ := f.do(t, "POST", "/v1/chat/completions", two, nil)
	if got := resp.Header.Get(HeaderDecision); got != "no_route" {
		t.Fatalf("%s: got %q; want no_route", HeaderDecision, got)
	}
	if !bytes.Contains(f.up.last(t).body, []byte(blockOf("deploy"))) {
		t.Fatalf("the earlier turn lost its block: %s", f.up.last(t).body)
	}
	// The line is written once the answer is sent.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(f.logs.String(), `"msg":"completion"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if logs := f.logs.String(); !strings.Contains(logs, `"decision":"no_route"`) || !strings.Contains(logs, `"blocks":1`) {
		t.Errorf("log: got %s; want no_route with \"blocks\":1", logs)
	}
}

// TestAcceptsGzip: a q-value of 0 refuses gzip however it is written; a
// client that refused gzip was sent it for "q=0.0".
func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"gzip", true},
		{"br, gzip;q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.0", false},
		{"gzip;Q=0.000", false},
		{"GZIP;q=1", true},
		{"deflate", false},
		{"gzip;q=x", true},
	} {
		if got := acceptsGzip([]string{tc.header}); got != tc.want {
			t.Errorf("acceptsGzip(%q): got %v; want %v", tc.header, got, tc.want)
		}
	}
}
