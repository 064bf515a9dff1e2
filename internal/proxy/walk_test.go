package proxy

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// refSpans lists the spans of the members' values (an object) or the
// elements (an array) at the top of body with encoding/json's decoder,
// the reference the byte walk must agree with.
func refSpans(body []byte) (keys []string, spans []span) {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, _ := dec.Token()
	obj := tok == json.Delim('{')
	for dec.More() {
		if obj {
			t, _ := dec.Token()
			keys = append(keys, t.(string))
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil, nil
		}
		end := int(dec.InputOffset())
		spans = append(spans, span{end - len(raw), end})
	}
	return keys, spans
}

// FuzzWalk checks members and elements, which skip values by their bytes,
// against encoding/json on every valid object or array.
func FuzzWalk(f *testing.F) {
	for _, seed := range []string{chatBody, chatNoSystem, respBody, msgBody, msgString,
		`{"a":"\\"}","b":[1,{"c":"]"}],"d":null , "e" : -1.5e3,"\u00e9":"\\\\"}`,
		`[ "x\\\\\\"y", {}, [], true, false, null, 0 ]`, `{}`, `[]`, `{"k":"\xff"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		root, ok := rootOf(body)
		if !ok {
			if json.Valid(body) && bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
				_, want := refSpans(body)
				v := span{0, len(body)}
				v.start = strings.Index(string(body), "[")
				got, _ := elements(body, span{v.start, len(bytes.TrimRight(body, " \t\r\n"))})
				if len(got) != len(want) {
					t.Fatalf("elements: got %v; want %v", got, want)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("element %d: got %v; want %v", i, got[i], want[i])
					}
				}
			}
			return
		}
		keys, want := refSpans(body)
		got, _ := members(body, root)
		if len(got) != len(want) {
			t.Fatalf("members: got %d; want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].key != keys[i] || got[i].val != want[i] {
				t.Fatalf("member %d: got %q %v; want %q %v", i, got[i].key, got[i].val, keys[i], want[i])
			}
		}
	})
}

// BenchmarkWalkLargeChat walks a Chat Completions call carrying a 30 MiB
// pasted document, as the proxy does: read its task, place the block.
func BenchmarkWalkLargeChat(b *testing.B) {
	big, _ := json.Marshal(strings.Repeat("lorem \"ipsum\" dolor\n", 30<<20/21))
	body := []byte(`{"model":"gpt-x","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":` + string(big) + `},{"role":"assistant","content":"ok"},{"role":"user","content":"write the failing test first"}]}`)
	a := apis["/v1/chat/completions"]
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		root, _ := rootOf(body)
		_ = a.task(body, root)
		e, _ := a.place(body, root, "<skills/>")
		_ = joined(e.parts(body))
	}
}

// randomJSON writes a random JSON value of at most depth levels, with
// strings full of quotes, backslashes and brackets, and random spacing.
func randomJSON(r *rand.Rand, b *strings.Builder, depth int) {
	space := func() { b.WriteString([]string{"", " ", "\n\t", "  \r\n"}[r.IntN(4)]) }
	pick := r.IntN(7)
	if depth == 0 && pick >= 5 {
		pick = r.IntN(5)
	}
	switch pick {
	case 0:
		b.WriteString([]string{"null", "true", "false"}[r.IntN(3)])
	case 1:
		b.WriteString([]string{"0", "-1.5e3", "12345678901234567890123", "1e400", "3.25"}[r.IntN(5)])
	case 2, 3, 4:
		parts := []string{`\"`, `\\`, `]`, `}`, `[`, `{`, `,`, `:`, `a`, `é`, `\u00e9`, `\n`, `\\\"`, ` `}
		b.WriteByte('"')
		for range r.IntN(8) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		b.WriteByte('"')
	case 5:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			randomJSON(r, b, depth-1)
			space()
		}
		b.WriteByte(']')
	case 6:
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			b.WriteString(`"k` + strconv.Itoa(i) + `\"x"`)
			space()
			b.WriteByte(':')
			space()
			randomJSON(r, b, depth-1)
			space()
		}
		b.WriteByte('}')
	}
}

// TestWalkRandom runs FuzzWalk's comparison on generated objects, so that
// the byte walk is checked against encoding/json in every test run.
func TestWalkRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var b strings.Builder
		b.WriteString(" {")
		for j := range r.IntN(5) {
			if j > 0 {
				b.WriteString(" ,")
			}
			b.WriteString(`"m` + strconv.Itoa(j) + `": `)
			randomJSON(r, &b, 4)
		}
		b.WriteString("}\n")
		body := []byte(b.String())
		if !json.Valid(body) {
			t.Fatalf("case %d: the generator wrote invalid JSON: %s", i, body)
		}
		root, _ := rootOf(body)
		keys, want := refSpans(body)
		got, _ := members(body, root)
		if len(got) != len(want) {
			t.Fatalf("case %d: members: got %d; want %d in %s", i, len(got), len(want), body)
		}
		for k := range got {
			if got[k].key != keys[k] || got[k].val != want[k] {
				t.Fatalf("case %d member %d: got %q %v; want %q %v in %s", i, k, got[k].key, got[k].val, keys[k], want[k], body)
			}
			if sub := body[got[k].val.start:got[k].val.end]; sub[0] == '[' || sub[0] == '{' {
				inner := span{got[k].val.start, got[k].val.end}
				_, wantInner := refSpans(sub)
				var gotInner []span
				if sub[0] == '[' {
					gotInner, _ = elements(body, inner)
				} else {
					ms, _ := members(body, inner)
					for _, m := range ms {
						gotInner = append(gotInner, m.val)
					}
				}
				if len(gotInner) != len(wantInner) {
					t.Fatalf("case %d member %d: inner: got %d; want %d in %s", i, k, len(gotInner), len(wantInner), sub)
				}
				for x := range gotInner {
					if gotInner[x].start-inner.start != wantInner[x].start || gotInner[x].end-inner.start != wantInner[x].end {
						t.Fatalf("case %d member %d inner %d: got %v; want %v (relative) in %s", i, k, x, gotInner[x], wantInner[x], sub)
					}
				}
			}
		}
	}
}
