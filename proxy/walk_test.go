package proxy

import (
	"bytes"
	"encoding/json"
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
		_ = e.apply(body)
	}
}
