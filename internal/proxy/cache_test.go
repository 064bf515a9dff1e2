package proxy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPrefixShare measures what a provider's prompt cache can reuse in a
// 10-call agent loop whose selection changes twice (tdd, then deploy, then
// tdd again; the other calls are tool turns): for each call, the share of
// the bytes the upstream received that repeat the previous call's from
// the start, under each placement. The request is laid out as Anthropic
// caches it (tools, system, messages). Turn placement must keep all of the
// previous call but its closing brackets on every call; the figures are
// logged (go test ./proxy -run PrefixShare -v) and quoted in docs/proxy.md.
func TestPrefixShare(t *testing.T) {
	var tools []string
	for i := range 6 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","description":"%s","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}`, i, strings.Repeat("Reads or edits files of the project. ", 8)))
	}
	system := strings.Repeat("You are a careful engineer working in a large repository. ", 20)
	toolTurn := `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"tool_0","input":{"path":"main.go"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"` + strings.Repeat("package main // file contents ", 15) + `"}]}`
	user := func(text string) string {
		return `{"role":"assistant","content":"done"},{"role":"user","content":"` + text + `"}`
	}
	calls := []struct{ add, want string }{
		{`{"role":"user","content":"` + tddTask + `"}`, "tdd"},
		{toolTurn, "tdd"}, {toolTurn, "tdd"},
		{user(deployTask), "deploy"},
		{toolTurn, "deploy"}, {toolTurn, "deploy"},
		{user("now the parser: write the failing test first, test-driven development"), "tdd"},
		{toolTurn, "tdd"}, {toolTurn, "tdd"}, {toolTurn, "tdd"},
	}
	share := map[Placement][]float64{}
	kept := map[Placement][]float64{} // of the previous call's bytes
	for _, placement := range []Placement{PlacementSystem, PlacementTurn} {
		f := newFixture(t, nil, Config{Placement: placement})
		var msgs []string
		var prev []byte
		for i, c := range calls {
			msgs = append(msgs, c.add)
			body := `{"model":"claude-x","max_tokens":1024,"tools":[` + strings.Join(tools, ",") + `],"system":"` + system + `","messages":[` + strings.Join(msgs, ",") + `]}`
			resp, _ := f.do(t, "POST", "/v1/messages", body, nil)
			if got := resp.Header.Get(HeaderSelected); got != c.want {
				t.Fatalf("%s call %d: got %s %q; want %q", placement, i+1, HeaderSelected, got, c.want)
			}
			cur := f.up.last(t).body
			if prev != nil {
				n := 0
				for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
					n++
				}
				share[placement] = append(share[placement], float64(n)/float64(len(cur)))
				kept[placement] = append(kept[placement], float64(n)/float64(len(prev)))
				if placement == PlacementTurn && n != len(prev)-len("]}") {
					t.Fatalf("turn placement, call %d: got %d bytes of the previous call's %d repeated; want all but its closing brackets", i+1, n, len(prev))
				}
			}
			prev = cur
		}
	}
	for _, placement := range []Placement{PlacementSystem, PlacementTurn} {
		var cells []string
		sum, low := 0.0, 1.0
		for _, s := range share[placement] {
			cells = append(cells, fmt.Sprintf("%.1f%%", 100*s))
			sum += s
			low = min(low, s)
		}
		t.Logf("%-6s calls 2-10: %s; mean %.1f%%, lowest %.1f%%; of the previous call's bytes, lowest kept %.1f%%", placement, strings.Join(cells, " "), 100*sum/float64(len(cells)), 100*low, 100*slices.Min(kept[placement]))
	}
	for _, i := range []int{2, 5} { // calls 4 and 7 change the selection
		if s, u := share[PlacementSystem][i], share[PlacementTurn][i]; s >= u {
			t.Fatalf("call %d: system placement kept %.2f, turn %.2f; want turn placement to keep more", i+2, s, u)
		}
	}
}
