package compiler

import (
	"context"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/loader"
)

// TestCompileWarmAllocations pins what one warm compile of benchTask over
// a generated catalog of 100 skills allocates (BenchmarkCompileWarm's
// smallest case, where the policy's share is largest). Most of it is the
// policy interpreter's bindings, so a policy clause that binds more than
// it needs shows here before it shows in the latency. The bound sits a
// little above the figure measured when policy.pl learned to test before
// it builds (issue 12's rule-naming decisions had cost a fifth more).
func TestCompileWarmAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	roots := testkit.GenerateCatalog(t, t.TempDir(), 100, 1)
	c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	compile := func() {
		if _, err := c.Compile(context.Background(), Request{Task: benchTask}); err != nil {
			t.Fatal(err)
		}
	}
	compile() // the token cache is warm from here on
	const max = 27000
	if got := testing.AllocsPerRun(10, compile); got > max {
		t.Errorf("got %.0f allocations per compile; want at most %d", got, max)
	}
}
