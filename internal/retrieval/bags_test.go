package retrieval

import (
	"context"
	"fmt"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestBagsOfOrder: bagsOf hands every unit to its callback once, in order,
// after that unit's bag is made (build numbers each bag into the table
// then, and lets go of its terms), and reports whether it got through.
func TestBagsOfOrder(t *testing.T) {
	const n = 500
	units := make([]*ir.Unit, n)
	for i := range units {
		units[i] = unit(fmt.Sprintf("unit-%d", i), fmt.Sprintf("Review word%d and more words for the task.", i))
	}
	aliases := make([][]string, n)
	have := make([]bool, n)
	have[7] = true // a reused bag is handed on in its place too
	tests := []struct {
		name string
		ctx  func() context.Context
		want int // units handed on
	}{
		{"runs", context.Background, n},
		{"canceled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bags := make([]bag, n)
			var got []int
			ok := bagsOf(bags, have, units, aliases, pulse.New(tt.ctx()), func(i int) {
				if !have[i] && len(bags[i].terms) == 0 {
					t.Errorf("unit %d handed on before its bag was made", i)
				}
				got = append(got, i)
			})
			if ok != (tt.want == n) || len(got) != tt.want {
				t.Fatalf("got %d units handed on, ok %v; want %d", len(got), ok, tt.want)
			}
			for i, g := range got {
				if g != i {
					t.Fatalf("got unit %d handed on at %d; want %d", g, i, i)
				}
			}
		})
	}
}
