package proxy

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// idBodies are Responses answers with the id in every place idIn looks
// for it and none: first, after members of every kind (strings with
// escapes and braces, nested objects and arrays), escaped, absent, not a
// string, and texts that are no object.
var idBodies = []string{
	`{"id":"resp_a","output":[]}`,
	` { "object" : "response", "output":[{"id":"item"}], "id":"resp_b"}`,
	`{"object":"response"}`,
	`{"pad":"` + strings.Repeat("x", 3000) + `","id":"resp_late"}`,
	`{"a":"q\"uo}te{","b":{"id":"inner","c":[1,{"d":"}"}]},"e":[[],{}],"id":"resp_c"}`,
	`{"id":"resp_\u00e9\"x"}`,
	`{"id":12,"x":1}`,
	`{"id":null}`,
	`{"i\u0064":"escaped_key"}`,
	`["id","resp"]`,
	`"id"`,
	`{"x":{"id":"no"},"y":"\\","id":"resp_d"}`,
	"{\"a\":1,\r\n\t\"id\" :\n \"resp_ws\"}",
	// An id of 200 bytes, each written as a six-byte escape.
	`{"id":"` + strings.Repeat(`\u0061`, 200) + `"}`,
}

// sseBodies are Responses streams: the first event with data holds the
// id under "response", after comments and keep-alives, across data lines,
// with \r\n line ends, or not at all.
var sseBodies = []string{
	"event: response.created\r\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_s\",\"object\":\"response\"}}\r\n\r\nevent: response.completed\ndata: {}\n\n",
	": keep-alive\n\nevent: response.created\ndata: {\"response\":{\"object\":\"response\",\"id\":\"resp_t\"}}\n\n",
	"data: {\"response\":\ndata: {\"id\":\"resp_split\"}}\n\n",
	"data: {\"type\":\"x\"}\n\ndata: {\"response\":{\"id\":\"second\"}}\n\n",
	"data:{\"response\":{\"id\":\"nospace\"}}\n\n",
	"event: ping\r\n\r\ndata: {\"response\":{\"pad\":\"" + strings.Repeat("y", 2000) + "\",\"id\":\"resp_u\"}}\r\n\r\n",
	"data: {\"response\":\"str\"}\n\n",
	"dat: {\"response\":{\"id\":\"not data\"}}\n\ndata: {\"response\":{\"id\":\"resp_v\"}}\n\n",
	// A key cut across data lines that end in "\r\n".
	"data: {\"respo\r\ndata: nse\":{\"id\":\"resp_crlf\"}}\r\n\r\n",
	"data: {\"response\":{\"id\":\"resp_\r\ndata: cr\"}}\r\n\r\n",
}

// TestIDFinderAsIDIn: fed a piece at a time, in pieces of every size,
// the finders come to what idIn and sseResponseID say of the whole text,
// and find the id no later than they do on the text so far (never
// before it has arrived: they may say there is none sooner, on the first
// byte of a value that is not what they look for).
func TestIDFinderAsIDIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ref := func(body string, stream bool) (string, bool) {
		if stream {
			return sseResponseID([]byte(body))
		}
		return idIn([]byte(body))
	}
	check := func(t *testing.T, body string, stream bool) {
		wholeID, wholeFinal := ref(body, stream)
		for round := 0; round < 40; round++ {
			var feed func([]byte) (string, bool)
			if stream {
				feed = newSSEFinder().feed
			} else {
				f := &idFinder{}
				feed = f.feed
			}
			id, final := "", false
			for at := 0; at < len(body) && !final; {
				n := 1 + rng.IntN([]int{1, 3, 16, 100, len(body)}[round%5])
				end := min(len(body), at+n)
				id, final = feed([]byte(body[at:end]))
				at = end
				soFarID, soFarFinal := ref(body[:at], stream)
				switch {
				case final && (id != wholeID || final != wholeFinal):
					t.Fatalf("after %d of %d bytes: got %q, final; the whole text says %q, %v", at, len(body), id, wholeID, wholeFinal)
				case soFarFinal && !final:
					t.Fatalf("after %d of %d bytes: got nothing yet; want %q, as the text so far says", at, len(body), soFarID)
				}
			}
			if id != wholeID || final != wholeFinal {
				t.Fatalf("at the end: got %q, %v; want %q, %v", id, final, wholeID, wholeFinal)
			}
		}
	}
	for i, body := range idBodies {
		t.Run(fmt.Sprintf("json %d", i), func(t *testing.T) { check(t, body, false) })
	}
	for i, body := range sseBodies {
		t.Run(fmt.Sprintf("stream %d", i), func(t *testing.T) { check(t, body, true) })
	}
}

// FuzzIDFinder: whatever the text, the finders never fail, where the text
// is cut into pieces changes nothing of what they find, and of a text that
// is valid JSON the idFinder finds what the reference decoder does.
func FuzzIDFinder(f *testing.F) {
	for _, b := range idBodies {
		f.Add(b, uint16(7), false)
	}
	for _, b := range sseBodies {
		f.Add(b, uint16(11), true)
	}
	f.Fuzz(func(t *testing.T, text string, cut uint16, stream bool) {
		run := func(pieces ...string) (string, bool) {
			feed := (&idFinder{}).feed
			if stream {
				feed = newSSEFinder().feed
			}
			var id string
			var final bool
			for _, p := range pieces {
				if id, final = feed([]byte(p)); final {
					break
				}
			}
			return id, final
		}
		at := int(cut) % (len(text) + 1)
		wholeID, wholeFinal := run(text)
		if id, final := run(text[:at], text[at:]); id != wholeID || final != wholeFinal {
			t.Fatalf("cut at %d: got %q, %v; whole, %q, %v", at, id, final, wholeID, wholeFinal)
		}
		if !stream && json.Valid([]byte(text)) {
			if refID, refFinal := idIn([]byte(text)); refID != wholeID || refFinal != wholeFinal {
				t.Fatalf("got %q, %v; the reference decoder finds %q, %v", wholeID, wholeFinal, refID, refFinal)
			}
		}
	})
}
