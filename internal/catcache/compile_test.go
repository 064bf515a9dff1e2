package catcache_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/suite"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// output is everything a compile shows: the result's JSON (fingerprints
// and diagnostics included) or the error's document.
func output(t *testing.T, c *compiler.Compiler, req compiler.Request) string {
	t.Helper()
	res, err := c.Compile(context.Background(), req)
	var buf bytes.Buffer
	var ce *compiler.Error
	switch {
	case errors.As(err, &ce):
		err = compiler.WriteJSON(&buf, compiler.ErrorDocument(ce))
	case err == nil:
		err = compiler.WriteJSON(&buf, res)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// compareLoads loads opts without a cache, then three times through one
// (the first stores, the others must take everything from it; after each
// load's compiles, the token counts they made are stored, so the third
// load counts nothing), and checks that every request compiles to the same
// bytes, with the same catalog fingerprint and diagnostics, every way.
func compareLoads(t *testing.T, opts loader.Options, p compiler.Policy, reqs []compiler.Request) {
	t.Helper()
	ctx := context.Background()
	var stats []catcache.Stats
	cache := &catcache.Cache{Dir: t.TempDir(), OnLoad: func(s catcache.Stats) { stats = append(stats, s) }}
	plain, err := compiler.Load(ctx, opts, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		c, err := compiler.LoadWith(ctx, opts, p, cache)
		if err != nil {
			t.Fatal(err)
		}
		if st := stats[i]; i > 0 && (!st.Hit || st.Reused == st.Units && !st.IndexReused) {
			t.Errorf("cached load %d: got %+v; want a hit, the index reused when every unit was", i+1, st)
		}
		if c.CatalogFingerprint() != plain.CatalogFingerprint() {
			t.Errorf("load %d: catalog fingerprint %s; want %s", i+1, c.CatalogFingerprint(), plain.CatalogFingerprint())
		}
		var a, b bytes.Buffer
		if err := compiler.WriteJSON(&a, plain.Diagnostics()); err != nil {
			t.Fatal(err)
		}
		if err := compiler.WriteJSON(&b, c.Diagnostics()); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("load %d: diagnostics\n%s\nwant\n%s", i+1, b.String(), a.String())
		}
		for _, req := range reqs {
			if g, w := output(t, c, req), output(t, plain, req); g != w {
				t.Errorf("load %d, task %q: got\n%s\nwant\n%s", i+1, req.Task, g, w)
			}
		}
		c.StoreCache()
	}
}

// TestAdversarialCorpus: over every case of the adversarial corpus that
// has a catalog of its own, a cached load compiles every request to the
// same bytes as an uncached one.
func TestAdversarialCorpus(t *testing.T) {
	cases, err := suite.Load(filepath.Join("..", "..", "testdata", "adversarial"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Err != nil || !c.HasCatalog() {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			if err := c.Materialize(dir); err != nil {
				t.Skipf("case does not materialize here: %v", err)
			}
			var p compiler.Policy
			if data, ok := c.Files()["policy.yaml"]; ok {
				if p, err = compiler.ParsePolicy(data); err != nil {
					t.Skipf("case policy: %v", err)
				}
			}
			var reqs []compiler.Request
			for _, r := range c.Requests {
				reqs = append(reqs, r.CompileRequest())
			}
			for _, catalog := range []string{"skills", "skills-b"} {
				if _, err := os.Stat(filepath.Join(dir, catalog)); err == nil {
					compareLoads(t, loader.Options{Roots: []string{filepath.Join(dir, catalog)}}, p, reqs)
				}
			}
		})
	}
}

// TestGeneratedCatalog: the same over a generated catalog of 500 skills.
func TestGeneratedCatalog(t *testing.T) {
	dir := t.TempDir()
	roots := testkit.GenerateCatalog(t, dir, 500, 3)
	testkit.Backdate(t, dir, time.Now().Add(-time.Hour))
	var reqs []compiler.Request
	for _, w := range testkit.Words[:40] {
		reqs = append(reqs, compiler.Request{Task: "please " + w + " the " + testkit.Words[len(w)%len(testkit.Words)]})
	}
	compareLoads(t, loader.Options{Roots: roots}, compiler.Policy{}, reqs)
}

// TestEditKeepingSizeAndTime: a SKILL.md written in place with its size
// and modification time kept is caught by its change time (ctime) where the
// system has one; and whenever a compile meets a body that no longer
// matches its digest (a catalog loaded before the edit, or a change no
// stamp shows), it fails closed with body_changed and drops the cache
// file, so the next start reads every skill again instead of failing the
// same way at every start.
func TestEditKeepingSizeAndTime(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "skills")
	file := filepath.Join(root, "dates", "SKILL.md")
	testkit.WriteFile(t, file, "---\nname: dates\ndescription: Format dates in reports.\n---\n# Dates\n\nUse ISO dates.\n")
	then := time.Now().Add(-time.Hour)
	testkit.Backdate(t, root, then)
	var stats []catcache.Stats
	cache := &catcache.Cache{Dir: t.TempDir(), OnLoad: func(s catcache.Stats) { stats = append(stats, s) }}
	opts := loader.Options{Roots: []string{root}}
	if _, err := compiler.LoadWith(ctx, opts, compiler.Policy{}, cache); err != nil {
		t.Fatal(err)
	}
	before, err := compiler.LoadWith(ctx, opts, compiler.Policy{}, cache)
	if err != nil {
		t.Fatal(err)
	}
	// Same length, same inode (written in place), time put back.
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("Parse "), int64(len("---\nname: dates\ndescription: "))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(file, then, then); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		after, err := compiler.LoadWith(ctx, opts, compiler.Policy{}, cache)
		if err != nil {
			t.Fatal(err)
		}
		if u, _ := after.Catalog().Lookup("dates"); u == nil || u.Description != "Parse  dates in reports." {
			t.Errorf("after an edit keeping size and time: got %+v; want the unit read again", u)
		}
	}
	_, err = before.Compile(ctx, compiler.Request{Task: "format dates", Select: []string{"dates"}})
	var ce *compiler.Error
	if !errors.As(err, &ce) || ce.Code != compiler.ErrBodyChanged {
		t.Fatalf("got %v; want a %s error", err, compiler.ErrBodyChanged)
	}
	stats = nil
	if _, err := compiler.LoadWith(ctx, opts, compiler.Policy{}, cache); err != nil {
		t.Fatal(err)
	}
	if len(stats) != 1 || stats[0].Hit {
		t.Errorf("after body_changed: got %+v; want the cache file dropped (a miss)", stats)
	}
}
