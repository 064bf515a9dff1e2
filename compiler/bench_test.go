package compiler

import (
	"context"
	"fmt"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/loader"
)

// benchTask is a typical task for the generated catalogs: a few words that
// several skills share, so scoring, the candidate cap, closures and the
// policy all do real work.
const benchTask = "please audit the billing schema and render a chart report, do not use alpha"

var sizes = []int{100, 1000, 5000}

// BenchmarkCompileWarm measures one compile with the catalog loaded and the
// token cache warm. Target: median under 5 ms at 5,000 skills.
func BenchmarkCompileWarm(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			roots := testkit.GenerateCatalog(b, b.TempDir(), n, 1)
			c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Compile(context.Background(), Request{Task: benchTask}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Compile(context.Background(), Request{Task: benchTask}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompileCold measures load, index, policy and one compile: what a
// fresh `rlmc compile` process does, minus process start.
func BenchmarkCompileCold(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			roots := testkit.GenerateCatalog(b, b.TempDir(), n, 1)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Compile(context.Background(), Request{Task: benchTask}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
