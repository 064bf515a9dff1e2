package compiler

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// benchTask is a typical task for the generated catalogs: a few words that
// several skills share, so scoring, the candidate cap, closures and the
// policy all do real work.
const benchTask = "please audit the billing schema and render a chart report, do not use alpha"

var sizes = []int{100, 1000, 5000}

// BenchmarkCompileWarm measures one compile with the catalog loaded and the
// token cache warm. Target: median under 5 ms at 20,000 skills (issue 17).
func BenchmarkCompileWarm(b *testing.B) {
	for _, n := range append(sizes, 20000) {
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

// BenchmarkCompileCached is BenchmarkCompileCold through a catalog cache
// that an earlier load filled, nothing changed since: what a cached
// `rlmc compile` process does, minus process start.
func BenchmarkCompileCached(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			roots := testkit.GenerateCatalog(b, b.TempDir(), n, 1)
			testkit.Backdate(b, filepath.Dir(roots[0]), time.Now().Add(-time.Hour))
			cache := &catcache.Cache{Dir: b.TempDir()}
			opts := loader.Options{Roots: roots}
			if _, err := LoadWith(context.Background(), opts, Policy{}, cache); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := LoadWith(context.Background(), opts, Policy{}, cache)
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

// BenchmarkCompileLongTask measures one compile of a task of MaxTaskBytes
// (the CLI's stdin cap) over the Matt Pocock catalog: a pasted log with the
// catalog's names, their words and negations all through it, so every pass
// over the task has matches to find. Target: well under a second.
func BenchmarkCompileLongTask(b *testing.B) {
	c := loadMattPocock(b, true)
	task := longMixedTask(c, MaxTaskBytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Compile(context.Background(), Request{Task: task}); err != nil {
			b.Fatal(err)
		}
	}
}

// longMixedTask is n bytes of traceback lines, sentences naming the
// catalog's units and negating some of them.
func longMixedTask(c *Compiler, n int) string {
	var names []string
	for _, u := range c.Catalog().Units {
		names = append(names, u.Name)
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		a, z := names[i%len(names)], names[(i*7+3)%len(names)]
		fmt.Fprintf(&b, "Traceback (most recent call last):\n  File \"/srv/app/handlers.py\", line %d, in handle\n    return self.dispatch(request, *args)\nKeyError: 'user_id'\n", i)
		fmt.Fprintf(&b, "Please %s the change and write a test; don't use %s or %s, and avoid the %s skill.\n", strings.ReplaceAll(a, "-", " "), z, a, z)
	}
	return b.String()[:n]
}

// BenchmarkWriteJSON measures writing one compile's JSON over 5,000
// skills, the answer `rlmc serve` sends: by default (a few to tens of KB,
// what the compile decided) and with every rejected unit listed
// (AllRejected, about 2.5 MB), for a short task and a pasted log.
func BenchmarkWriteJSON(b *testing.B) {
	roots := testkit.GenerateCatalog(b, b.TempDir(), 5000, 1)
	c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
	if err != nil {
		b.Fatal(err)
	}
	for _, task := range []struct{ name, text string }{{"task", benchTask}, {"log", pastedLog()}} {
		for _, all := range []bool{false, true} {
			res, err := c.Compile(context.Background(), Request{Task: task.text, AllRejected: all})
			if err != nil {
				b.Fatal(err)
			}
			name := task.name + "/default"
			if all {
				name = task.name + "/all_rejected"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := WriteJSON(io.Discard, res); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkNewFacts measures the policy's facts over a catalog of 5,000
// generated skills, which every start pays once.
func BenchmarkNewFacts(b *testing.B) {
	roots := testkit.GenerateCatalog(b, b.TempDir(), 5000, 5)
	cat, err := loader.Load(context.Background(), loader.Options{Roots: roots})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		newFacts(cat, Policy{})
	}
}
