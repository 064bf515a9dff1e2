package loader

import (
	"context"
	"fmt"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// BenchmarkLoad measures discovery, parsing and normalization of generated
// catalogs. The target is under one second at 5,000 skills.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			roots := testkit.GenerateCatalog(b, dir, n, 1)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cat, err := Load(context.Background(), Options{Roots: roots})
				if err != nil || len(cat.Units) != n || cat.Diagnostics.HasErrors() {
					b.Fatalf("load: %v, %d units, %v", err, len(cat.Units), cat.Diagnostics)
				}
			}
		})
	}
}
