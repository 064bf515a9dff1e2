package compiler

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// maxDefaultJSON is the bound on what one compile writes by
// default over 5,000 skills: the result grows with what was decided, not
// with the catalog.
const maxDefaultJSON = 64 << 10

// pastedLog is a long task of the kind a user pastes: hundreds of log
// lines naming many of the generated catalog's words, so that thousands of
// units get some evidence and none is asked for plainly.
func pastedLog() string {
	var b strings.Builder
	b.WriteString("why does this keep failing? here is the log:\n")
	for i := range 400 {
		w1, w2, w3 := testkit.Words[i%len(testkit.Words)], testkit.Words[(7*i+3)%len(testkit.Words)], testkit.Words[(13*i+5)%len(testkit.Words)]
		fmt.Fprintf(&b, "2026-01-02T03:%02d:%02dZ ERROR worker-%d %s %s failed: %s timeout after 30s (attempt %d)\n", i/60%60, i%60, i%7, w1, w2, w3, i%5)
	}
	return b.String()
}

// TestDefaultJSONSize holds a compile over 5,000 generated skills to
// maxDefaultJSON bytes of JSON by default, for a short task, a routed one,
// a negating one and a long pasted log; with AllRejected the same compile
// lists every unit, which is what the bound saves.
func TestDefaultJSONSize(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 5,000 skills")
	}
	roots := testkit.GenerateCatalog(t, t.TempDir(), 5000, 1)
	c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  Request
	}{
		{"short", Request{Task: "fix it"}},
		{"bench task", Request{Task: benchTask}},
		{"negation and deny", Request{Task: "migrate the ledger schema, do not use " + c.Catalog().Units[7].Name, Deny: []string{c.Catalog().Units[8].Name}}},
		{"pasted log", Request{Task: pastedLog()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Compile(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteJSON(&buf, res); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bytes, %d rejected listed, unlisted %v", buf.Len(), len(res.Rejected), res.Unlisted)
			if buf.Len() > maxDefaultJSON {
				t.Errorf("got %d bytes of JSON; want at most %d", buf.Len(), maxDefaultJSON)
			}
		})
	}
}
