package loader

import (
	"context"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestLoadAllocations pins what loading a generated catalog allocates per
// skill (BenchmarkLoad's catalogs): discovery, the read, the frontmatter,
// the body scan and the unit. Issue 17 halved it (from 168 to 77:
// frontmatter without yaml.v3, headings without a regular expression, no
// copy of a body without fences, reads sized from the file); the record
// the catalog cache keeps of each load (the stamp of every file read and
// each folder's listing) brought it to 105. The bound leaves room for the
// runtime's own allocations when the parallel reads contend (a busy
// machine measured 9 more), so a change that allocates per line or per key
// again shows here.
func TestLoadAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	const skills = 200
	roots := testkit.GenerateCatalog(t, t.TempDir(), skills, 1)
	load := func() {
		cat, err := Load(context.Background(), Options{Roots: roots})
		if err != nil || len(cat.Units) != skills {
			t.Fatalf("load: %v, %d units", err, len(cat.Units))
		}
	}
	const max = 120
	if got := testing.AllocsPerRun(5, load) / skills; got > max {
		t.Errorf("got %.1f allocations per skill; want at most %d", got, max)
	}
}
