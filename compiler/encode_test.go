package compiler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// stdlibJSON is what WriteJSON wrote before it indented by itself: the
// standard encoder, indented.
func stdlibJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// randomValue builds nested JSON values with strings full of what a
// string-tracking indenter could trip on: quotes, backslashes, brackets,
// commas, colons, escapes and non-ASCII.
func randomValue(r *rand.Rand, depth int) any {
	pieces := []string{`"`, `\`, `\"`, `{`, `}`, `[`, `]`, `,`, `:`, " ", "\n", "\t", "\x00", "é", "<skill>", "&", "\u2028", "a", ""}
	str := func() string {
		s := ""
		for range r.IntN(6) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	switch k := r.IntN(7); {
	case depth > 4 || k == 0:
		return str()
	case k == 1:
		return r.Float64() * 1000
	case k == 2:
		return r.IntN(2) == 0
	case k == 3:
		return nil
	case k == 4:
		m := map[string]any{}
		for range r.IntN(4) {
			m[str()] = randomValue(r, depth+1)
		}
		return m
	default:
		var a []any
		for range r.IntN(4) {
			a = append(a, randomValue(r, depth+1))
		}
		if a == nil {
			return []any{}
		}
		return a
	}
}

// TestWriteJSONIsTheStandardEncoding: WriteJSON writes exactly the bytes
// of the standard encoder, indented, for compile results and for values
// made to trip a string tracker.
func TestWriteJSONIsTheStandardEncoding(t *testing.T) {
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{filepath.Join("..", ".agents", "skills")}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	values := []any{nil, "", []any{}, map[string]any{}, compiler.ErrorDocument(&compiler.Error{Code: "x", Message: `a "quoted" \ message`})}
	for _, task := range []string{"refresh the golden files", "what is the capital of France?", "add an adversarial case \"quoted\" <skills>"} {
		for _, all := range []bool{false, true} {
			res, err := c.Compile(context.Background(), compiler.Request{Task: task, AllRejected: all})
			if err != nil {
				t.Fatal(err)
			}
			values = append(values, res)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		values = append(values, randomValue(r, 0))
	}
	for i, v := range values {
		var got bytes.Buffer
		if err := compiler.WriteJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if want := stdlibJSON(t, v); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("value %d (%s): got\n%s\nwant\n%s", i, fmt.Sprintf("%.80v", v), got.Bytes(), want)
		}
	}
}
