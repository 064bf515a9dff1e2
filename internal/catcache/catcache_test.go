package catcache

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// exportAll lets cmp read every unexported field (the index's tables, the
// catalog's name table).
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

// Times files are backdated to: old enough to be trusted (see
// loader.Record), and different from each other, so that a change made
// in a test shows in the modification time as it does on a real disk.
var (
	then  = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	later = then.Add(time.Hour)
)

// base writes a catalog that exercises every file the loader reads: a
// plain skill, one linking two resources (one missing), one with a Codex
// policy, one with a Skill Router manifest; and returns its root.
func base(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "skills")
	files := map[string]string{
		"plain/SKILL.md":                 "---\nname: plain\ndescription: Format dates in reports.\n---\n# Dates\n\nUse ISO dates.\n",
		"linked/SKILL.md":                "---\nname: linked\ndescription: Review pull requests.\n---\n# Review\n\nSee [the guide](refs/guide.md) and [more](refs/more.md).\n",
		"linked/refs/guide.md":           "guide\n",
		"linked/agents/notes.md":         "an agents folder without a Codex policy\n",
		"codex/SKILL.md":                 "---\nname: codex\ndescription: Deploy the service.\n---\n# Deploy\n",
		"codex/agents/openai.yaml":       "policy:\n  allow_implicit_invocation: true \n",
		"router/SKILL.md":                "---\nname: router\ndescription: Tune database queries.\n---\n# Queries\n",
		"router/manifest.json":           `{"keywords": ["sql"]}`,
		"nested/group/deeper/SKILL.md":   "---\nname: deeper\ndescription: Draw charts from tables.\n---\n",
		"nested/group/deeper/notes.txt":  "not read\n",
		"nested/group/other/README.md":   "no skill here\n",
		"nested/group/other/deep/x/y.md": "still none\n",
	}
	for name, data := range files {
		testkit.WriteFile(t, filepath.Join(root, filepath.FromSlash(name)), data)
	}
	testkit.Backdate(t, root, then)
	return root
}

// resolved is opts as loader.Resolve decides it without a policy, as
// compiler.Load hands it to Load.
func resolved(opts loader.Options) loader.Resolved {
	return loader.Resolve(opts, loader.Policy{}, loader.Env{})
}

// fresh loads opts without a cache.
func fresh(t *testing.T, opts loader.Options) (*ir.Catalog, *retrieval.Index) {
	t.Helper()
	cat, err := loader.Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return cat, retrieval.Build(cat, nil)
}

// load loads opts through c and checks the result against a load without
// a cache, field by field.
func load(t *testing.T, c *Cache, opts loader.Options, policy string) Stats {
	t.Helper()
	cat, ix, st, err := c.Load(context.Background(), resolved(opts), []byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	wantCat, _ := fresh(t, opts)
	if diff := cmp.Diff(wantCat, cat, exportAll); diff != "" {
		t.Fatalf("catalog differs from an uncached load (-uncached +cached):\n%s", diff)
	}
	// Built over the same catalog, so that the tables keyed by unit
	// compare too.
	wantIx := retrieval.Build(cat, nil)
	if diff := cmp.Diff(wantIx, ix, exportAll); diff != "" {
		t.Fatalf("index differs from an uncached build (-uncached +cached):\n%s", diff)
	}
	return st
}

func newCache(t *testing.T) *Cache { return &Cache{Dir: filepath.Join(t.TempDir(), "cache")} }

// cacheFile returns the one cache file in c.
func cacheFile(t *testing.T, c *Cache) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(c.Dir, "*.cache"))
	if len(files) != 1 {
		t.Fatalf("got %d cache files; want 1", len(files))
	}
	return files[0]
}

// TestUnchanged: the second load of an unchanged catalog takes every unit
// and the index from the cache and writes nothing.
func TestUnchanged(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	if st := load(t, c, opts, ""); st.Hit || !st.Stored || st.Reused != 0 {
		t.Fatalf("first load: got %+v; want a miss that stores", st)
	}
	st := load(t, c, opts, "")
	if !st.Hit || st.Reused != st.Units || st.Units != 5 || !st.IndexReused || st.Stored {
		t.Fatalf("second load: got %+v; want every one of 5 units and the index reused, nothing stored", st)
	}
}

// TestOnBuild: OnBuild is called once when a load finds no cache file to
// start from, or finds the catalog changed and builds its index again, and
// not when it takes the index from the file.
func TestOnBuild(t *testing.T) {
	root, c := base(t), newCache(t)
	builds := 0
	c.OnBuild = func() { builds++ }
	opts := loader.Options{Roots: []string{root}}
	load(t, c, opts, "")
	if builds != 1 {
		t.Fatalf("first load: got %d OnBuild calls; want 1", builds)
	}
	load(t, c, opts, "")
	if builds != 1 {
		t.Errorf("second load: got %d OnBuild calls in all; want still 1", builds)
	}
	testkit.WriteFile(t, filepath.Join(root, "plain", "SKILL.md"), "---\nname: plain\ndescription: Format dates.\n---\n")
	if st := load(t, c, opts, ""); !st.Hit || st.IndexReused || builds != 2 {
		t.Errorf("changed catalog: got %+v, %d OnBuild calls in all; want a hit with the index built, 2 calls", st, builds)
	}
}

// TestRefusedFolderStoresNothing: a cache whose folder is refused or
// cannot be made (Off) loads as without a cache and encodes nothing for a
// file it cannot write.
func TestRefusedFolderStoresNothing(t *testing.T) {
	root, c := base(t), newCache(t)
	if err := os.Mkdir(c.Dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(c.Dir, 0o777); err != nil { // whatever the umask
		t.Fatal(err)
	}
	stored := 0
	testHookStore = func() { stored++ }
	t.Cleanup(func() { testHookStore = nil })
	if st := load(t, c, loader.Options{Roots: []string{root}}, ""); st.Stored || stored != 0 || c.Off() == nil {
		t.Errorf("got %+v, %d stores begun, Off %v; want nothing stored or begun, the folder refused", st, stored, c.Off())
	}
	// A folder whose parent is missing cannot be made.
	c = &Cache{Dir: filepath.Join(t.TempDir(), "missing", "cache")}
	if st := load(t, c, loader.Options{Roots: []string{root}}, ""); st.Stored || stored != 0 || c.Off() == nil {
		t.Errorf("no parent: got %+v, %d stores begun, Off %v; want nothing stored or begun, the folder refused", st, stored, c.Off())
	}
}

// TestReserve: a load that decodes a cache file reserves twice its size
// and releases the reservation once it is done, or before it builds an
// index when the catalog changed; a load with no file reserves nothing.
func TestReserve(t *testing.T) {
	root, c := base(t), newCache(t)
	var reserved []uint64
	held := 0
	var kept []bool
	c.Reserve = func(n uint64) func(bool) {
		reserved = append(reserved, n)
		held++
		done := false
		return func(k bool) {
			if !done {
				done = true
				held--
				kept = append(kept, k)
			}
		}
	}
	opts := loader.Options{Roots: []string{root}}
	load(t, c, opts, "")
	if len(reserved) != 0 {
		t.Fatalf("first load, no cache file: got %d reservations; want none", len(reserved))
	}
	info, err := os.Stat(cacheFile(t, c))
	must(t, err)
	load(t, c, opts, "")
	if want := []uint64{2 * uint64(info.Size())}; !slices.Equal(reserved, want) || held != 0 || !slices.Equal(kept, []bool{true}) {
		t.Errorf("second load: got reservations %v, %d held, released keeping %v; want %v, none held, released keeping [true]", reserved, held, kept, want)
	}
	testkit.WriteFile(t, filepath.Join(root, "plain", "SKILL.md"), "---\nname: plain\ndescription: Format dates.\n---\n")
	if st := load(t, c, opts, ""); !st.Hit || st.IndexReused || held != 0 || len(reserved) != 2 {
		t.Errorf("changed catalog: got %+v, %d reservations, %d held; want a hit with the index built, 2 reservations, none held", st, len(reserved), held)
	}
	if !slices.Equal(kept, []bool{true, false}) {
		t.Errorf("changed catalog: released keeping %v; want [true false], not kept before the build", kept)
	}
	// A file that does not check out is released, not kept, before every
	// skill is read.
	data, err := os.ReadFile(cacheFile(t, c))
	must(t, err)
	data[len(data)/2] ^= 0xff
	must(t, os.WriteFile(cacheFile(t, c), data, 0o600))
	heldAtBuild := -1
	c.OnBuild = func() { heldAtBuild = held }
	if st := load(t, c, opts, ""); st.Hit || !st.Stored || heldAtBuild != 0 || !slices.Equal(kept[len(kept)-1:], []bool{false}) {
		t.Errorf("damaged file: got %+v, %d held when the build began, released keeping %v; want a miss that stores, none held, the last not kept", st, heldAtBuild, kept)
	}
}

// TestChanges: every kind of change to what the loader reads is seen; the
// changed unit is read again, the others are reused, and the result
// equals an uncached load.
func TestChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		reused int // of the units loaded after the change
		units  int
	}{
		{"edit a skill", func(t *testing.T, root string) {
			write(t, root, "plain/SKILL.md", "---\nname: plain\ndescription: Format dates and times in reports.\n---\n# Dates\n")
		}, 4, 5},
		{"edit keeping the size", func(t *testing.T, root string) {
			write(t, root, "plain/SKILL.md", strings.Replace(read(t, root, "plain/SKILL.md"), "Format", "Parse ", 1))
		}, 4, 5},
		{"add a skill", func(t *testing.T, root string) {
			write(t, root, "added/SKILL.md", "---\nname: added\ndescription: Translate menus.\n---\n")
		}, 5, 6},
		{"add a nested skill", func(t *testing.T, root string) {
			write(t, root, "nested/group/other/deep/SKILL.md", "---\nname: deep\ndescription: Translate menus.\n---\n")
		}, 5, 6},
		{"remove a skill", func(t *testing.T, root string) {
			must(t, os.RemoveAll(filepath.Join(root, "router")))
		}, 4, 4},
		{"rename a skill folder", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "plain"), filepath.Join(root, "dates")))
		}, 4, 5},
		{"rename a SKILL.md away", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "plain/SKILL.md"), filepath.Join(root, "plain/skill.md")))
		}, 4, 4},
		{"add a Codex policy", func(t *testing.T, root string) {
			write(t, root, "plain/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
		}, 4, 5},
		{"add a Codex policy to an agents folder", func(t *testing.T, root string) {
			write(t, root, "linked/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
		}, 4, 5},
		{"edit a Codex policy", func(t *testing.T, root string) {
			write(t, root, "codex/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
		}, 4, 5},
		{"remove a Codex policy", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "codex/agents/openai.yaml")))
		}, 4, 5},
		{"edit a manifest", func(t *testing.T, root string) {
			write(t, root, "router/manifest.json", `{"keywords": ["postgres"]}`)
		}, 4, 5},
		{"remove a linked resource", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "linked/refs/guide.md")))
		}, 4, 5},
		{"add a missing linked resource", func(t *testing.T, root string) {
			write(t, root, "linked/refs/more.md", "more\n")
		}, 4, 5},
		{"replace a linked resource by a folder", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "linked/refs/guide.md")))
			must(t, os.Mkdir(filepath.Join(root, "linked/refs/guide.md"), 0o755))
		}, 4, 5},
		{"make a name collide", func(t *testing.T, root string) {
			write(t, root, "again/SKILL.md", "---\nname: plain\ndescription: Another plain.\n---\n")
		}, 5, 6},
		{"edit a Codex policy keeping its size, time and inode", func(t *testing.T, root string) {
			rewriteInPlace(t, filepath.Join(root, "codex/agents/openai.yaml"), "policy:\n  allow_implicit_invocation: false\n")
		}, 4, 5},
		{"add a skill and put the folder's time back", func(t *testing.T, root string) {
			info, err := os.Stat(root)
			must(t, err)
			write(t, root, "added/SKILL.md", "---\nname: added\ndescription: Translate menus.\n---\n")
			must(t, os.Chtimes(root, info.ModTime(), info.ModTime()))
		}, 5, 6},
		{"unrelated file", func(t *testing.T, root string) {
			write(t, root, "nested/group/deeper/notes.txt", "changed, and never read\n")
		}, 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, c := base(t), newCache(t)
			opts := loader.Options{Roots: []string{root}}
			load(t, c, opts, "")
			tt.change(t, root)
			backdateNew(t, root)
			st := load(t, c, opts, "")
			if !st.Hit || st.Reused != tt.reused || st.Units != tt.units {
				t.Errorf("got %+v; want a hit with %d of %d units reused", st, tt.reused, tt.units)
			}
			if wantIndex := tt.reused == tt.units && tt.units == 5; st.IndexReused != wantIndex {
				t.Errorf("index reused: got %v; want %v", st.IndexReused, wantIndex)
			}
			if st := load(t, c, opts, ""); !st.IndexReused || st.Reused != st.Units {
				t.Errorf("load after the change was stored: got %+v; want everything reused", st)
			}
		})
	}
}

// TestKey: a change of the policy, the roots, the exclusions or the limits
// is another key: the cache of the old one is not read.
func TestKey(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	load(t, c, opts, "policy one")
	other := opts
	other.Exclude = []string{"router"}
	limits := opts
	limits.Limits = loader.DefaultLimits
	limits.Limits.MaxDepth = 2
	second := filepath.Join(t.TempDir(), "second")
	must(t, os.Mkdir(second, 0o755))
	roots := loader.Options{Roots: []string{root, second}}
	tests := []struct {
		name   string
		opts   loader.Options
		policy string
	}{
		{"policy", opts, "policy two"},
		{"exclude", other, "policy one"},
		{"limits", limits, "policy one"},
		{"roots", roots, "policy one"},
	}
	for _, tt := range tests {
		if st := load(t, c, tt.opts, tt.policy); st.Hit {
			t.Errorf("%s changed: got a hit; want a miss", tt.name)
		}
	}
	was := credentials
	credentials = func() string { return was() + " in fewer groups" }
	if st := load(t, c, opts, "policy one"); st.Hit {
		t.Errorf("credentials changed: got a hit; want a miss")
	}
	credentials = was
	if st := load(t, c, opts, "policy one"); !st.Hit || !st.IndexReused {
		t.Errorf("back to the first key: got %+v; want a whole hit", st)
	}
}

// TestKeyRelativeRoot: one relative root named from two working folders
// is two folders, so two keys; the same key made each load over the other
// project's files read every skill again.
func TestKeyRelativeRoot(t *testing.T) {
	c := newCache(t)
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		must(t, os.CopyFS(filepath.Join(dir, "skills"), os.DirFS(base(t))))
		backdateNew(t, filepath.Join(dir, "skills"))
	}
	opts := loader.Options{Roots: []string{"skills"}}
	t.Chdir(a)
	load(t, c, opts, "")
	t.Chdir(b)
	load(t, c, opts, "")
	t.Chdir(a)
	if st := load(t, c, opts, ""); !st.Hit || st.Reused != st.Units {
		t.Errorf("back in the first folder: got %+v; want every unit reused", st)
	}
}

// TestRacy: a file modified in the last seconds (or in the future) is not
// trusted: the unit is read again at the next load.
func TestRacy(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	load(t, c, opts, "")
	// In the future, it stays within the window however slow the test.
	soon := time.Now().Add(time.Hour)
	must(t, os.Chtimes(filepath.Join(root, "plain/SKILL.md"), soon, soon))
	load(t, c, opts, "") // records the racy stamp
	if st := load(t, c, opts, ""); st.Reused != st.Units-1 {
		t.Errorf("got %+v; want the recently modified unit read again", st)
	}
}

// TestBadCache: a cache file that is truncated, corrupt, of another
// format or key, or garbage is ignored and replaced; a cache folder that
// cannot be made is not used. Neither is an error.
func TestBadCache(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(data []byte) []byte
	}{
		{"truncated", func(d []byte) []byte { return d[:len(d)/2] }},
		{"truncated header", func(d []byte) []byte { return d[:10] }},
		{"empty", func([]byte) []byte { return nil }},
		{"bit flipped", func(d []byte) []byte { d[len(d)/2] ^= 1; return d }},
		{"garbage", func([]byte) []byte { return []byte("not a cache at all") }},
		{"foreign version", func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[len(magic):], formatVersion+1)
			return reseal(d)
		}},
		{"foreign key", func(d []byte) []byte { d[len(magic)+4] ^= 0xff; return reseal(d) }},
		{"sealed nonsense", func(d []byte) []byte {
			for i := headerLen + 8; i < len(d)-4; i += 3 {
				d[i] = byte(i)
			}
			return reseal(d)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, c := base(t), newCache(t)
			opts := loader.Options{Roots: []string{root}}
			load(t, c, opts, "")
			file := cacheFile(t, c)
			data, err := os.ReadFile(file)
			must(t, err)
			must(t, os.WriteFile(file, tt.spoil(data), 0o600))
			if st := load(t, c, opts, ""); st.Hit || st.Reused != 0 || !st.Stored {
				t.Errorf("got %+v; want the file ignored and written again", st)
			}
			if st := load(t, c, opts, ""); !st.IndexReused {
				t.Errorf("after the rewrite: got %+v; want a whole hit", st)
			}
		})
	}
	t.Run("writable by others", func(t *testing.T) {
		root, c := base(t), newCache(t)
		opts := loader.Options{Roots: []string{root}}
		load(t, c, opts, "")
		file := cacheFile(t, c)
		must(t, os.Chmod(file, 0o666))
		if st := load(t, c, opts, ""); st.Hit {
			t.Errorf("got %+v; want a file others could write ignored", st)
		}
	})
	t.Run("a folder, not a file", func(t *testing.T) {
		root, c := base(t), newCache(t)
		opts := loader.Options{Roots: []string{root}}
		load(t, c, opts, "")
		file := cacheFile(t, c)
		must(t, os.Remove(file))
		must(t, os.Mkdir(file, 0o700))
		if st := load(t, c, opts, ""); st.Hit || st.Stored {
			t.Errorf("got %+v; want no cache used", st)
		}
	})
	t.Run("a FIFO", func(t *testing.T) {
		root, c := base(t), newCache(t)
		opts := loader.Options{Roots: []string{root}}
		load(t, c, opts, "")
		file := cacheFile(t, c)
		must(t, os.Remove(file))
		if err := mkfifo(file); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
		done := make(chan Stats)
		go func() {
			_, _, st, _ := c.Load(context.Background(), resolved(opts), nil)
			done <- st
		}()
		select {
		case st := <-done:
			if st.Hit {
				t.Errorf("got %+v; want the FIFO not used", st)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a FIFO in the cache file's place blocked the load")
		}
	})
	t.Run("folder is a file", func(t *testing.T) {
		root := base(t)
		file := filepath.Join(t.TempDir(), "file")
		testkit.WriteFile(t, file, "x")
		c := &Cache{Dir: filepath.Join(file, "cache")}
		var debug bytes.Buffer
		c.Debug = &debug
		opts := loader.Options{Roots: []string{root}}
		for range 2 {
			if st := load(t, c, opts, ""); st.Hit || st.Stored {
				t.Errorf("got %+v; want no cache used", st)
			}
		}
		if !strings.Contains(debug.String(), "not written") {
			t.Errorf("debug log: got %q; want a line saying the cache was not written", debug.String())
		}
	})
}

// reseal recomputes a spoiled file's checksum, so that what is checked is
// the decoding behind it.
func reseal(d []byte) []byte {
	binary.LittleEndian.PutUint32(d[len(d)-4:], crc32.Checksum(d[:len(d)-4], castagnoli))
	return d
}

// TestConcurrentWriters: loads racing to write the same cache file, and a
// reader reading it all along, never see half a file: each read file is
// absent or parses whole.
func TestConcurrentWriters(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	key := c.key(resolved(opts), nil)
	file := filepath.Join(c.Dir, filepathName(key))
	var (
		wg   sync.WaitGroup
		stop = make(chan struct{})
	)
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			if _, err := parse(data, key); err != nil {
				t.Errorf("a reader saw a cache file that does not parse: %v", err)
				return
			}
		}
	})
	var writers sync.WaitGroup
	for i := range 4 {
		writers.Go(func() {
			for j := range 5 {
				// Alternate a changed and the first state of one file, so
				// that every load stores.
				if i == 0 {
					testkit.WriteFile(t, filepath.Join(root, "plain/notes.md"), strings.Repeat("x", j))
				}
				if _, _, _, err := c.Load(context.Background(), resolved(opts), nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	wg.Wait()
	if _, err := parse(mustRead(t, file), key); err != nil {
		t.Errorf("the last file written does not parse: %v", err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(c.Dir, ".tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}

// backdateNew sets every file and folder below root modified in the last
// minute to later: what a test changed then looks like a change made long
// enough ago to be trusted, and everything else keeps its time.
func backdateNew(t *testing.T, root string) {
	t.Helper()
	recent := time.Now().Add(-time.Minute)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil || info.ModTime().Before(recent) {
			return err
		}
		return os.Chtimes(path, later, later)
	})
	must(t, err)
}

func filepathName(key [32]byte) string { return fileName(key) }

func write(t *testing.T, root, name, data string) {
	t.Helper()
	testkit.WriteFile(t, filepath.Join(root, filepath.FromSlash(name)), data)
}

// rewriteInPlace replaces the file's content by data of the same length,
// written into the same inode, and puts its modification time back: only
// its change time (ctime) tells.
func rewriteInPlace(t *testing.T, file, data string) {
	t.Helper()
	info, err := os.Stat(file)
	must(t, err)
	if info.Size() != int64(len(data)) {
		t.Fatalf("rewriteInPlace: %s holds %d bytes, not %d", file, info.Size(), len(data))
	}
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt([]byte(data), 0)
	must(t, err)
	must(t, f.Close())
	must(t, os.Chtimes(file, info.ModTime(), info.ModTime()))
}

func read(t *testing.T, root, name string) string {
	t.Helper()
	return string(mustRead(t, filepath.Join(root, filepath.FromSlash(name))))
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	must(t, err)
	return data
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPrune: writing a cache file removes the cache files not written for
// maxAge and the temporary files left for tmpAge, and nothing else.
func TestPrune(t *testing.T) {
	root, c := base(t), newCache(t)
	must(t, os.MkdirAll(c.Dir, 0o700))
	old := time.Now().Add(-maxAge - time.Hour)
	files := map[string]bool{ // name -> kept
		strings.Repeat("a", 32) + ".cache": false,
		strings.Repeat("b", 32) + ".cache": true, // recent
		".tmp-123":                         false,
		".tmp-recent":                      true, // a writer may be at work
		".tmp-future":                      false,
		"notes.txt":                        true, // not ours
		"short.cache":                      true, // not a name we write
	}
	for name, kept := range files {
		file := filepath.Join(c.Dir, name)
		must(t, os.WriteFile(file, []byte("x"), 0o600))
		switch {
		case name == ".tmp-future":
			future := time.Now().Add(24 * time.Hour)
			must(t, os.Chtimes(file, future, future))
		case !kept || name == "notes.txt" || name == "short.cache":
			must(t, os.Chtimes(file, old, old))
		}
	}
	load(t, c, loader.Options{Roots: []string{root}}, "")
	for name, kept := range files {
		_, err := os.Stat(filepath.Join(c.Dir, name))
		if got := err == nil; got != kept {
			t.Errorf("%s kept: got %v; want %v", name, got, kept)
		}
	}
}

// TestUsedFileKept: a cache file its catalog is loaded from is dated
// again, so that prune, which goes by the date, keeps a catalog loaded
// every day but unchanged; it was removed after maxAge, and the next
// load built it again.
func TestUsedFileKept(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	load(t, c, opts, "")
	file := cacheFile(t, c)
	old := time.Now().Add(-maxAge + time.Hour)
	must(t, os.Chtimes(file, old, old))
	if st := load(t, c, opts, ""); !st.IndexReused {
		t.Fatalf("second load: got %+v; want the index reused", st)
	}
	info, err := os.Stat(file)
	must(t, err)
	if age := time.Since(info.ModTime()); age > time.Hour {
		t.Errorf("after a load from it: got the file dated %v ago; want now", age.Round(time.Hour))
	}
}

// TestPruneBound: past the folder's bound in bytes, the cache files
// written longest ago go, never the one just written, whatever the others'
// dates; files of other names are neither counted nor removed. Only age
// bounded the folder, which filled 564 MB in days on a machine that loads
// many large catalogs.
func TestPruneBound(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	written := strings.Repeat("a", 32) + ".cache"
	files := []struct {
		name string
		size int
		ago  time.Duration
		kept bool
	}{
		{written, 600, time.Minute, true},
		{strings.Repeat("e", 32) + ".cache", 5000, -30 * time.Second, false}, // dated ahead, too large
		{strings.Repeat("b", 32) + ".cache", 300, 2 * time.Minute, true},     // 900 in all
		{strings.Repeat("c", 32) + ".cache", 200, 3 * time.Minute, false},    // 1,100: over
		{strings.Repeat("d", 32) + countsSuffix, 50, 4 * time.Minute, true},  // 950: fits
		{strings.Repeat("g", 32) + ".cache", 5000, 5 * time.Minute, true},    // not hexadecimal: not ours
		{"notes.txt", 5000, 5 * time.Minute, true},                           // not ours
	}
	for _, f := range files {
		file := filepath.Join(dir, f.name)
		must(t, os.WriteFile(file, make([]byte, f.size), 0o600))
		at := now.Add(-f.ago)
		must(t, os.Chtimes(file, at, at))
	}
	root, err := os.OpenRoot(dir)
	must(t, err)
	defer root.Close()
	prune(root, now, 1000, written)
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if got := err == nil; got != f.kept {
			t.Errorf("%s kept: got %v; want %v", f.name, got, f.kept)
		}
	}
	// The file just written stays alone over the bound.
	prune(root, now, 100, written)
	if _, err := os.Stat(filepath.Join(dir, written)); err != nil {
		t.Errorf("the file just written was removed: %v", err)
	}
}

// TestConcurrentProcesses: two processes storing the same cache file over
// and over (each removes it first, so each load writes), while this one
// reads it: every file read parses whole.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	key := c.key(resolved(opts), nil)
	file := filepath.Join(c.Dir, fileName(key))
	var procs []*exec.Cmd
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$")
		cmd.Env = append(os.Environ(), "CATCACHE_WRITER="+c.Dir+string(os.PathListSeparator)+root)
		cmd.Stderr = os.Stderr
		must(t, cmd.Start())
		procs = append(procs, cmd)
	}
	done := make(chan error, len(procs))
	for _, p := range procs {
		go func() { done <- p.Wait() }()
	}
	reads := 0
	for finished := 0; finished < len(procs); {
		select {
		case err := <-done:
			must(t, err)
			finished++
		default:
		}
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		reads++
		if _, err := parse(data, key); err != nil {
			t.Fatalf("read %d: a cache file that does not parse: %v", reads, err)
		}
	}
	t.Logf("%d whole reads", reads)
}

// TestWriterProcess is TestConcurrentProcesses' writer, run in a process
// of its own.
func TestWriterProcess(t *testing.T) {
	env := os.Getenv("CATCACHE_WRITER")
	if env == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	dir, root, _ := strings.Cut(env, string(os.PathListSeparator))
	c := &Cache{Dir: dir}
	opts := loader.Options{Roots: []string{root}}
	file := filepath.Join(dir, fileName(c.key(resolved(opts), nil)))
	stores := 0
	for range 30 {
		os.Remove(file)
		// The other writer may store between the removal and the load,
		// which then has nothing to store.
		_, _, st, err := c.Load(context.Background(), resolved(opts), nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Stored {
			stores++
		}
	}
	if stores == 0 {
		t.Fatal("no load stored the cache file; the test tests nothing")
	}
}

// TestUnwrittenUnitKeepsIndex: a unit the file cannot hold (a host field
// this encoding does not know) or reuse (a resource reached through a
// linked folder) is read again at every load, and while it reads as it
// did, the index is taken from the file and nothing is written; once it
// changes, the index is built again.
func TestUnwrittenUnitKeepsIndex(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, file, body string)
	}{
		{"host field of an unknown kind", func(t *testing.T, file, body string) {
			testkit.WriteFile(t, file, "---\nname: plain\narguments: {1: first}\ndescription: "+body+"\n---\n# Dates\n")
			past := time.Now().Add(-time.Hour)
			must(t, os.Chtimes(file, past, past))
		}},
		{"a resource through a linked folder", func(t *testing.T, file, body string) {
			dir := filepath.Dir(file)
			if _, err := os.Lstat(filepath.Join(dir, "refs")); err != nil {
				testkit.WriteFile(t, filepath.Join(filepath.Dir(dir), "shared-refs", "guide.md"), "guide\n")
				must(t, os.Symlink("../shared-refs", filepath.Join(dir, "refs")))
			}
			testkit.WriteFile(t, file, "---\nname: plain\ndescription: "+body+"\n---\nSee [the guide](refs/guide.md).\n")
			past := time.Now().Add(-time.Hour)
			must(t, os.Chtimes(file, past, past))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, c := base(t), newCache(t)
			file := filepath.Join(root, "plain", "SKILL.md")
			tt.write(t, file, "Format dates in reports.")
			opts := loader.Options{Roots: []string{root}}
			load(t, c, opts, "")
			for i := range 2 {
				if st := load(t, c, opts, ""); !st.Hit || st.Reused != st.Units-1 || !st.IndexReused || st.Stored {
					t.Fatalf("load %d after: got %+v; want the unit read again, the others reused, the index reused, nothing stored", i+2, st)
				}
			}
			tt.write(t, file, "Format times in reports.")
			if st := load(t, c, opts, ""); st.IndexReused || !st.Stored {
				t.Fatalf("changed: got %+v; want the index built and stored", st)
			}
		})
	}
}

// TestRacyUnitWrittenOnceTrusted: a unit read within the racy window is
// not written; at the first load after it, when it can be trusted, the
// file is written again, once, so that the loads after that reuse it
// rather than read it.
func TestRacyUnitWrittenOnceTrusted(t *testing.T) {
	root, c := base(t), newCache(t)
	file := filepath.Join(root, "plain", "SKILL.md")
	testkit.WriteFile(t, file, "---\nname: plain\ndescription: Format dates.\n---\n")
	// Modified a second ago: within the racy window for another second,
	// and then out of it with its stamp unchanged.
	recent := time.Now().Add(-time.Second)
	must(t, os.Chtimes(file, recent, recent))
	opts := loader.Options{Roots: []string{root}}
	if st := load(t, c, opts, ""); !st.Stored {
		t.Fatalf("first load: got %+v; want the file written", st)
	}
	time.Sleep(time.Until(recent.Add(2*time.Second + 200*time.Millisecond)))
	if st := load(t, c, opts, ""); st.Reused != st.Units-1 || !st.Stored {
		t.Fatalf("first load once trusted: got %+v; want it read again and the file written", st)
	}
	if st := load(t, c, opts, ""); st.Reused != st.Units || !st.IndexReused || st.Stored {
		t.Fatalf("the load after: got %+v; want every unit and the index reused, nothing stored", st)
	}
}

// TestBagsDecodedForReuseOnly: a load decodes the file's bags only when
// it reuses a unit's: when every skill changed since the file was
// written (a checkout, a pull), reading them touched the whole file for
// nothing.
func TestBagsDecodedForReuseOnly(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	decoded := 0
	testHookBags = func() { decoded++ }
	t.Cleanup(func() { testHookBags = nil })
	load(t, c, opts, "")
	skills := []string{"plain", "linked", "codex", "router", "nested/group/deeper"}
	tests := []struct {
		name    string
		touched []string
		want    int
	}{
		{"every skill changed", skills, 0},
		{"one skill changed", skills[:1], 1},
	}
	for i, tt := range tests {
		for _, s := range tt.touched {
			when := then.Add(time.Duration(i+1) * time.Hour)
			if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(s), "SKILL.md"), when, when); err != nil {
				t.Fatal(err)
			}
		}
		decoded = 0
		st := load(t, c, opts, "")
		if decoded != tt.want || st.Reused != len(skills)-len(tt.touched) {
			t.Errorf("%s: got bags decoded %d times, %d units reused; want %d, %d", tt.name, decoded, st.Reused, tt.want, len(skills)-len(tt.touched))
		}
	}
}

// TestWriteFailedIsSaid: a cache file that cannot be written (here a
// folder in its place; no space left is the same) is said to the next
// start, which would otherwise leave its load to a builder failing as
// this write did, prompt after prompt; a write that succeeds takes the
// note back.
func TestWriteFailedIsSaid(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	key := c.KeyOf(resolved(opts), nil)
	blocker := filepath.Join(c.Dir, fileName(key))
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if st := load(t, c, opts, ""); st.Stored {
		t.Fatalf("got %+v; want nothing stored over a folder", st)
	}
	if why := c.WriteFailed(key); why == "" {
		t.Errorf("got no failed write; want the write's error")
	}
	if err := os.RemoveAll(blocker); err != nil {
		t.Fatal(err)
	}
	if st := load(t, c, opts, ""); !st.Stored {
		t.Fatalf("got %+v; want the file stored", st)
	}
	if why := c.WriteFailed(key); why != "" {
		t.Errorf("got failed write %q after a write; want none", why)
	}
}

// TestWriteFailedAgainstTheFile: a failed write's note holds whether or
// not an older cache file is there (a skill edited on a full disk made
// every prompt start a builder that failed again), and not once a write
// succeeded after it, nor dated in the future.
func TestWriteFailedAgainstTheFile(t *testing.T) {
	root, c := base(t), newCache(t)
	opts := loader.Options{Roots: []string{root}}
	load(t, c, opts, "")
	key := c.KeyOf(resolved(opts), nil)
	file := cacheFile(t, c)
	note := filepath.Join(c.Dir, fileName(key)[:32]+failedSuffix)
	info, err := os.Stat(file)
	must(t, err)
	for _, tt := range []struct {
		name string
		at   time.Time
		want bool
	}{
		{"after the file", info.ModTime().Add(time.Second), true},
		{"before the file", info.ModTime().Add(-time.Second), false},
		{"in the future", time.Now().Add(time.Hour), false},
	} {
		if err := os.WriteFile(note, []byte("no space left on device"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(note, tt.at, tt.at); err != nil {
			t.Fatal(err)
		}
		if got := c.WriteFailed(key) != ""; got != tt.want {
			t.Errorf("%s: got a failed write %v; want %v", tt.name, got, tt.want)
		}
	}
}

// TestRootSpellingsKeepTheirFiles: the relative and absolute spellings of
// one root keep a cache file each, every unit reused by either at its
// next load; they shared one, which each rewrote with every unit read
// again (a hook's absolute roots and a user's by hand: the next prompt
// went without skills).
func TestRootSpellingsKeepTheirFiles(t *testing.T) {
	root, c := base(t), newCache(t)
	t.Chdir(filepath.Dir(root))
	spellings := []loader.Options{{Roots: []string{root}}, {Roots: []string{filepath.Base(root)}}}
	for _, opts := range spellings {
		load(t, c, opts, "")
	}
	for _, opts := range spellings {
		if st := load(t, c, opts, ""); !st.Hit || st.Reused != st.Units || st.Stored {
			t.Errorf("roots %v: got %+v; want every unit reused, nothing stored", opts.Roots, st)
		}
	}
}
