package catcache

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/loader"
)

// allocated returns the bytes f allocated: a cache file read whole shows
// as its size, whatever the time the read took.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// sparse makes a file of size bytes that takes no room on disk.
func sparse(t *testing.T, file string, size int64) {
	t.Helper()
	f, err := os.Create(file)
	must(t, err)
	must(t, f.Truncate(size))
	must(t, f.Close())
}

// TestCacheFileRefused: a cache file that is a link (to a real cache file
// or to a huge one), or larger than the cap, is ignored without being
// read, and replaced.
func TestCacheFileRefused(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, file string)
	}{
		{"link to a cache file", func(t *testing.T, file string) {
			moved := filepath.Join(t.TempDir(), "elsewhere.cache")
			must(t, os.Rename(file, moved))
			must(t, os.Symlink(moved, file))
		}},
		{"link to a huge file", func(t *testing.T, file string) {
			huge := filepath.Join(t.TempDir(), "huge")
			sparse(t, huge, 1<<30)
			must(t, os.Remove(file))
			must(t, os.Symlink(huge, file))
		}},
		{"over the cap", func(t *testing.T, file string) {
			sparse(t, file, maxCacheBytes+1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, c := base(t), newCache(t)
			opts := loader.Options{Roots: []string{root}}
			load(t, c, opts, "")
			file := cacheFile(t, c)
			tt.plant(t, file)
			var st Stats
			start := time.Now()
			got := allocated(func() { st = load(t, c, opts, "") })
			if st.Hit || !st.Stored {
				t.Errorf("got %+v; want the file ignored and written again", st)
			}
			if got > 64<<20 {
				t.Errorf("allocated %d MiB in %v; want the file never read", got>>20, time.Since(start))
			}
			if info, err := os.Lstat(file); err != nil || !info.Mode().IsRegular() || info.Size() > maxCacheBytes {
				t.Errorf("after the load: got %v, %v; want a regular cache file in its place", info, err)
			}
		})
	}
}

// TestCountsFileRefused: the token counts file is read as warily.
func TestCountsFileRefused(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, file string)
	}{
		{"link to a counts file", func(t *testing.T, file string) {
			moved := filepath.Join(t.TempDir(), "elsewhere.counts")
			must(t, os.Rename(file, moved))
			must(t, os.Symlink(moved, file))
		}},
		{"over the cap", func(t *testing.T, file string) {
			sparse(t, file, maxCountsBytes+1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t)
			c.StoreCounts(nil, map[string]int{"o200k_base:aa": 12})
			name, _ := c.countsFile()
			file := filepath.Join(c.Dir, name)
			tt.plant(t, file)
			var m map[string]int
			if n := allocated(func() { m = c.Counts() }); m != nil || n > 64<<20 {
				t.Errorf("got %v after allocating %d MiB; want the file ignored unread", m, n>>20)
			}
		})
	}
}

// listing returns the names in dir with their modification times.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range entries {
		info, err := e.Info()
		must(t, err)
		out = append(out, e.Name()+" "+info.ModTime().String())
	}
	return out
}

// TestFolderRefused: a cache folder another user could have planted or
// could write to turns the cache off: nothing is read from it, written
// to it or pruned from it, whether it names the folder itself or a link
// to one.
func TestFolderRefused(t *testing.T) {
	tests := []struct {
		name string
		code OffCode
		// make makes the folder c.Dir, or a link to it, and returns the
		// real folder.
		make func(t *testing.T, dir string) string
		// suffix is added to c.Dir once made, as a user may write it.
		suffix string
	}{
		{"a link to a folder", OffSymlink, func(t *testing.T, dir string) string {
			target := filepath.Join(t.TempDir(), "target")
			must(t, os.Mkdir(target, 0o700))
			must(t, os.Symlink(target, dir))
			return target
		}, ""},
		{"a link written with a slash", OffSymlink, func(t *testing.T, dir string) string {
			target := filepath.Join(t.TempDir(), "target")
			must(t, os.Mkdir(target, 0o700))
			must(t, os.Symlink(target, dir))
			return target
		}, "/"},
		{"a link written with /.", OffSymlink, func(t *testing.T, dir string) string {
			target := filepath.Join(t.TempDir(), "target")
			must(t, os.Mkdir(target, 0o700))
			must(t, os.Symlink(target, dir))
			return target
		}, "/."},
		{"group-writable", OffWritable, func(t *testing.T, dir string) string {
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.Chmod(dir, 0o770))
			return dir
		}, ""},
		{"writable by others", OffWritable, func(t *testing.T, dir string) string {
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.Chmod(dir, 0o703))
			return dir
		}, ""},
		{"shared, sticky", OffWritable, func(t *testing.T, dir string) string {
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.Chmod(dir, 0o1777))
			return dir
		}, ""},
		{"another user's", OffNotOwn, func(t *testing.T, dir string) string {
			must(t, os.Mkdir(dir, 0o700))
			if err := os.Chown(dir, os.Getuid()+1, -1); err != nil {
				t.Skipf("cannot give a folder away: %v", err)
			}
			return dir
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tt.code != OffSymlink {
				t.Skip("no Unix permissions")
			}
			root, c := base(t), newCache(t)
			var offs []*Off
			c.Warn = func(o *Off) { offs = append(offs, o) }
			opts := loader.Options{Roots: []string{root}}
			real := tt.make(t, c.Dir)
			c.Dir += tt.suffix
			// Files of this package's names, old enough to be pruned.
			old := time.Now().Add(-maxAge - time.Hour)
			for _, name := range []string{strings.Repeat("a", 32) + ".cache", strings.Repeat("a", 32) + countsSuffix, ".tmp-1"} {
				file := filepath.Join(real, name)
				must(t, os.WriteFile(file, []byte("x"), 0o600))
				must(t, os.Chtimes(file, old, old))
			}
			want := listing(t, real)
			for range 2 {
				if st := load(t, c, opts, ""); st.Hit || st.Stored {
					t.Errorf("got %+v; want the cache off", st)
				}
				c.StoreCounts(nil, map[string]int{"o200k_base:aa": 12})
				if m := c.Counts(); m != nil {
					t.Errorf("counts: got %v; want none", m)
				}
			}
			if got := listing(t, real); !slices.Equal(got, want) {
				t.Errorf("folder: got %q; want it untouched, %q", got, want)
			}
			if len(offs) != 1 || offs[0].Code != tt.code {
				t.Fatalf("warnings: got %v; want one of code %s", offs, tt.code)
			}
			if offs[0].Dir != c.Dir {
				t.Errorf("warning's folder: got %q; want %q", offs[0].Dir, c.Dir)
			}
		})
	}
}

// TestFolderMade: a cache folder rlmc makes, with its parents as the user
// cache folder's are, is its user's alone, and is used.
func TestFolderMade(t *testing.T) {
	root, c := base(t), newCache(t)
	c.Dir, c.MakeParents = filepath.Join(c.Dir, "deeper"), true
	c.Warn = func(o *Off) { t.Errorf("got warning %v; want none", o) }
	opts := loader.Options{Roots: []string{root}}
	if st := load(t, c, opts, ""); !st.Stored {
		t.Errorf("got %+v; want the cache stored", st)
	}
	info, err := os.Lstat(c.Dir)
	must(t, err)
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o700 {
		t.Errorf("folder mode: got %v; want 0700", info.Mode().Perm())
	}
	if st := load(t, c, opts, ""); !st.IndexReused {
		t.Errorf("second load: got %+v; want a whole hit", st)
	}
}

// TestFolderParentNotMade: a folder RLMC_CACHE_DIR names is made in a
// folder that exists, but a mistyped path whose parent is missing too
// makes no tree: the cache is off, and says so.
func TestFolderParentNotMade(t *testing.T) {
	root := base(t)
	opts := loader.Options{Roots: []string{root}}
	parent := t.TempDir()
	c := &Cache{Dir: filepath.Join(parent, "cache")}
	c.Warn = func(o *Off) { t.Errorf("got warning %v; want none", o) }
	if st := load(t, c, opts, ""); !st.Stored {
		t.Errorf("parent there: got %+v; want the cache stored", st)
	}
	var offs []*Off
	c = &Cache{Dir: filepath.Join(parent, "typo", "cache"), Warn: func(o *Off) { offs = append(offs, o) }}
	if st := load(t, c, opts, ""); st.Stored {
		t.Errorf("parent missing: got %+v; want nothing stored", st)
	}
	if len(offs) != 1 || offs[0].Code != OffNoParent {
		t.Errorf("warnings: got %v; want one of code %s", offs, OffNoParent)
	}
	if _, err := os.Lstat(filepath.Join(parent, "typo")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v; want no folder made", err)
	}
}

func TestDefault(t *testing.T) {
	abs := t.TempDir()
	tests := []struct {
		name, env string
		dir       string
		code      OffCode
	}{
		{"absolute", abs, abs, ""},
		{"relative", "relative/cache", "", OffRelative},
		{"dot", ".", "", OffRelative},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvDir, tt.env)
			c, off := Default()
			var gotDir string
			if c != nil {
				gotDir = c.Dir
			}
			var gotCode OffCode
			if off != nil {
				gotCode = off.Code
			}
			if gotDir != tt.dir || gotCode != tt.code {
				t.Errorf("got folder %q, code %q; want %q, %q", gotDir, gotCode, tt.dir, tt.code)
			}
		})
	}
}

// TestWriteAtomicFailedEmit: a write that fails part way leaves neither
// the file nor its temporary behind, and the old file as it was.
func TestWriteAtomicFailedEmit(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := writeAtomic(root, "f.cache", writeBytes([]byte("old"))); err != nil {
		t.Fatal(err)
	}
	failing := func(w io.Writer) error {
		w.Write([]byte("half of it"))
		return errors.New("disk full")
	}
	if err := writeAtomic(root, "f.cache", failing); err == nil {
		t.Fatal("got no error; want the emit's")
	}
	entries, err := os.ReadDir(dir)
	must(t, err)
	if len(entries) != 1 || entries[0].Name() != "f.cache" {
		t.Errorf("got files %v; want only f.cache", entries)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "f.cache")); string(data) != "old" {
		t.Errorf("got %q; want the old file", data)
	}
}

// TestWriteOverCap: a file whose size is not known before it is written
// (a catalog's, encoded one section at a time) stops at the cap, and
// leaves neither it nor a temporary file; one within the cap is written.
func TestWriteOverCap(t *testing.T) {
	tests := []struct {
		name  string
		size  int64
		limit int64
		want  bool
	}{
		{"within", -1, 20, true},
		{"over, size unknown", -1, 19, false},
		{"over, size known", 20, 19, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &Cache{Dir: dir}
			emit := func(w io.Writer) error {
				for range 4 {
					if _, err := w.Write([]byte("12345")); err != nil {
						return err
					}
				}
				return nil
			}
			if got := c.write("f.cache", tt.size, tt.limit, emit); got != tt.want {
				t.Fatalf("got written %v; want %v", got, tt.want)
			}
			entries, err := os.ReadDir(dir)
			must(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			// Over the cap, only the note of the failed write (see
			// Cache.WriteFailed) is left.
			if want := map[bool]string{true: "f.cache", false: "f" + failedSuffix}[tt.want]; len(names) != 1 || names[0] != want {
				t.Errorf("got files %v; want only %s", names, want)
			}
		})
	}
}

// TestFolderReadOnly: a cache folder of the user's that its owner may not
// write is off, said once with its code: a cache never written is never
// read, and a hook would leave every prompt to a builder that cannot
// write.
func TestFolderReadOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	root, c := base(t), newCache(t)
	must(t, os.Mkdir(c.Dir, 0o500))
	var offs []*Off
	c.Warn = func(o *Off) { offs = append(offs, o) }
	for range 2 {
		if st := load(t, c, loader.Options{Roots: []string{root}}, ""); st.Hit || st.Stored {
			t.Errorf("got %+v; want the cache off", st)
		}
	}
	if _, err := c.LockBuild(Key{}); !isOff(err, OffReadOnly) {
		t.Errorf("LockBuild: got %v; want the cache off", err)
	}
	if len(offs) != 1 || offs[0].Code != OffReadOnly {
		t.Fatalf("warnings: got %v; want one of code %s", offs, OffReadOnly)
	}
}

// TestRefusedWrite: a write the system refuses for want of permission
// turns the cache off, said once; any other failure is only that
// write's.
func TestRefusedWrite(t *testing.T) {
	c := newCache(t)
	var offs []*Off
	c.Warn = func(o *Off) { offs = append(offs, o) }
	other := errors.New("disk full")
	if err := c.refusedWrite(other); err != other {
		t.Errorf("another failure: got %v; want it as it is", err)
	}
	denied := &fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}
	for range 2 {
		if err := c.refusedWrite(denied); !isOff(err, OffReadOnly) {
			t.Errorf("refused: got %v; want the cache off", err)
		}
	}
	if len(offs) != 1 || offs[0].Code != OffReadOnly || !errors.Is(offs[0].Err, fs.ErrPermission) {
		t.Fatalf("warnings: got %v; want one of code %s, with the system's error", offs, OffReadOnly)
	}
	if c.Off() == nil {
		t.Error("Off: got nil; want the cache off")
	}
}

// isOff reports whether err is an *Off of code.
func isOff(err error, code OffCode) bool {
	var off *Off
	return errors.As(err, &off) && off.Code == code
}
