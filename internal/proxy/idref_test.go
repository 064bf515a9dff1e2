package proxy

import (
	"bytes"
	"encoding/json"
)

// The reference the finders are held to (TestIDFinderAsIDIn): what they
// find, found by decoding the whole text so far with encoding/json, as
// the proxy did at every read of an answer.

// idIn returns the string at key "id" of the JSON object data starts
// with, or of the object found under the keys of path, one level each
// ("response" for a stream's response.created event); final is true when
// data shows there is none. data may be a prefix of the JSON: only what
// comes before the id must have arrived, so an id at the start of an
// event is found however large the event grows after it (a
// response.created repeats the request's instructions and tools, which
// an agent's run the proxy's capture bound many times over).
func idIn(data []byte, path ...string) (id string, final bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	for depth := 0; ; depth++ {
		if t, err := dec.Token(); err != nil {
			return "", false
		} else if t != json.Delim('{') {
			return "", true
		}
		want := "id"
		if depth < len(path) {
			want = path[depth]
		}
		for {
			t, err := dec.Token()
			if err != nil {
				return "", false
			}
			key, ok := t.(string)
			if !ok {
				return "", true // the object's end
			}
			if key == want {
				break
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return "", false
			}
		}
		if depth == len(path) {
			t, err := dec.Token()
			if err != nil {
				return "", false
			}
			s, _ := t.(string)
			return s, true
		}
	}
}

// sseResponseID returns the response id of the first event of a
// Responses stream (response.created), as soon as the part of the event
// that holds it has arrived (see idIn). Blocks without data before it
// (comments, keep-alives, as some gateways send while the model starts)
// are no event and are passed over.
func sseResponseID(data []byte) (id string, final bool) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	for {
		block, rest, whole := bytes.Cut(data, []byte("\n\n"))
		var payload []byte
		for line := range bytes.SplitSeq(block, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				payload = append(payload, bytes.TrimPrefix(d, []byte(" "))...)
			}
		}
		switch {
		case payload == nil && whole:
			data = rest
			continue
		case payload == nil:
			return "", false
		}
		id, final = idIn(payload, "response")
		// A whole event that shows no id is the answer: there is none.
		return id, final || whole
	}
}
