package retrieval

import (
	"context"
	"fmt"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// BenchmarkBuild measures building the index of a generated catalog, the
// largest part of an uncached start after loading.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			cat, err := loader.Load(context.Background(), loader.Options{Roots: testkit.GenerateCatalog(b, b.TempDir(), n, 1)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				Build(cat, nil)
			}
		})
	}
}

// TestBuildAllocations bounds what building an index allocates per unit:
// the terms of all of a unit's fields split into one list, its tables
// sized once, and the catalog's postings and bigram lists written into
// one array each (69 allocations per unit at 500 skills before, about 40 after).
func TestBuildAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a catalog")
	}
	const n = 500
	cat, err := loader.Load(context.Background(), loader.Options{Roots: testkit.GenerateCatalog(t, t.TempDir(), n, 1)})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 48 // per unit
	if got := testing.AllocsPerRun(3, func() { Build(cat, nil) }) / n; got > limit {
		t.Errorf("got %.1f allocations per unit; want at most %d", got, limit)
	}
}
