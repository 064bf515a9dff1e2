package catcache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/realcat"
)

// benchSizes are the catalog sizes of the cold-start benchmarks; 20,000
// is left out under -short.
func benchSizes() []int {
	if testing.Short() {
		return []int{1000, 5000}
	}
	return []int{1000, 5000, 20000}
}

// BenchmarkLoad measures, over realistic generated skills (internal/realcat), what a process that starts for every prompt pays
// before its first compile, in process: compiler.Load without a cache
// (uncached), compiler.LoadWith with a cache written by an earlier start
// and nothing changed (cached), and with one SKILL.md changed since
// (one_changed: one unit read again, the index built from the other
// units' cached analyses, the cache written again). It reports the cache
// file's size.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes() {
		dir := b.TempDir()
		rc, err := realcat.Write(dir, n, realcat.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		roots := rc.Roots
		opts := loader.Options{Roots: roots}
		cache := &catcache.Cache{Dir: b.TempDir()}
		if _, err := compiler.LoadWith(ctx, opts, compiler.Policy{}, cache); err != nil {
			b.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(cache.Dir, "*.cache"))
		var size int64
		if len(files) == 1 {
			if info, err := os.Stat(files[0]); err == nil {
				size = info.Size()
			}
		}
		b.Run(fmt.Sprintf("uncached/skills=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := compiler.Load(ctx, opts, compiler.Policy{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("cached/skills=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var st catcache.Stats
			cache.OnLoad = func(s catcache.Stats) { st = s }
			for b.Loop() {
				if _, err := compiler.LoadWith(ctx, opts, compiler.Policy{}, cache); err != nil {
					b.Fatal(err)
				}
			}
			if !st.IndexReused {
				b.Fatalf("got %+v; want the index reused", st)
			}
			b.ReportMetric(float64(size)/(1<<20), "cache-MiB")
		})
		b.Run(fmt.Sprintf("one_changed/skills=%d", n), func(b *testing.B) {
			// The first generated skill, edited back and forth, each
			// version stamped with a time of its own in the past.
			var file string
			_ = filepath.WalkDir(roots[0], func(path string, d os.DirEntry, err error) error {
				if file == "" && err == nil && d.Name() == "SKILL.md" {
					file = path
				}
				return err
			})
			orig, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			var st catcache.Stats
			cache.OnLoad = func(s catcache.Stats) { st = s }
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				i++
				data := orig
				if i%2 == 1 {
					data = append(append([]byte(nil), orig...), "\nAlso edited.\n"...)
				}
				if err := os.WriteFile(file, data, 0o644); err != nil {
					b.Fatal(err)
				}
				when := time.Now().Add(-time.Hour - time.Duration(i)*time.Second)
				if err := os.Chtimes(file, when, when); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := compiler.LoadWith(ctx, opts, compiler.Policy{}, cache); err != nil {
					b.Fatal(err)
				}
			}
			if st.Reused != st.Units-1 || !st.Stored {
				b.Fatalf("got %+v; want all units but one reused, and the cache stored", st)
			}
		})
		cache.OnLoad = nil
	}
}
