package retrieval

import (
	"fmt"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

func TestBest(t *testing.T) {
	ix := &Index{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		ix.units = append(ix.units, &ir.Unit{Name: n})
	}
	s := func(unit int32, score float64) scored { return scored{unit, score} }
	show := func(ss []scored) string {
		out := ""
		for _, x := range ss {
			out += fmt.Sprintf("%s%g ", ix.units[x.unit].Name, x.score)
		}
		return out
	}
	tests := []struct {
		name      string
		in        []scored
		k         int
		top, rest string
	}{
		{name: "empty", k: 2},
		{name: "fewer than k", in: []scored{s(0, 1), s(1, 3)}, k: 4, top: "b3 a1 "},
		{name: "best first", in: []scored{s(0, 1), s(1, 3), s(2, 2), s(3, 5)}, k: 2, top: "d5 b3 ", rest: "a1 c2 "},
		{name: "ties by name", in: []scored{s(3, 2), s(1, 2), s(2, 2)}, k: 2, top: "b2 c2 ", rest: "d2 "},
		{name: "zero wanted", in: []scored{s(0, 1)}, k: 0, rest: "a1 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, rest := ix.best(tt.in, tt.k)
			if got := show(top); got != tt.top {
				t.Errorf("top: got %q; want %q", got, tt.top)
			}
			if got := show(rest); got != tt.rest {
				t.Errorf("rest: got %q; want %q", got, tt.rest)
			}
		})
	}
}
