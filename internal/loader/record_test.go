package loader

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestRecordReuse: a load given the previous load's Record lists no
// folder and reads no SKILL.md that did not change, and gives the same
// catalog; a skill added below one folder relists that folder (and lists
// the new one) and reads the new SKILL.md only.
func TestRecordReuse(t *testing.T) {
	dir := t.TempDir()
	roots := testkit.GenerateCatalog(t, dir, 60, 2)
	then := time.Now().Add(-time.Hour)
	testkit.Backdate(t, dir, then)
	var (
		mu     sync.Mutex
		listed []string
		read   []string
	)
	testHookList = func(d string) { mu.Lock(); listed = append(listed, d); mu.Unlock() }
	testHookRead = func(f string) { mu.Lock(); read = append(read, f); mu.Unlock() }
	t.Cleanup(func() { testHookList, testHookRead = nil, nil })
	reset := func() { listed, read = nil, nil }

	opts := Options{Roots: roots}
	first, rec, err := LoadRecorded(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 60 || len(rec.Folders) != len(listed) {
		t.Fatalf("first load: read %d files, recorded %d of %d listings; want 60 read, every listing recorded", len(read), len(rec.Folders), len(listed))
	}
	reset()
	opts.Prior = rec
	again, rec2, err := LoadRecorded(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 0 || len(read) != 0 {
		t.Errorf("unchanged: listed %d folders, read %d files; want none", len(listed), len(read))
	}
	if diff := cmp.Diff(first, again, cmp.AllowUnexported(*first)); diff != "" {
		t.Errorf("catalog from the record differs (-read +reused):\n%s", diff)
	}

	reset()
	cat := filepath.Join(roots[0], "cat05")
	added := filepath.Join(cat, "added-skill", "SKILL.md")
	testkit.WriteFile(t, added, "---\nname: added-skill\ndescription: Added later.\n---\n")
	testkit.Backdate(t, filepath.Join(cat, "added-skill"), then.Add(time.Minute))
	if err := os.Chtimes(cat, then.Add(time.Minute), then.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	opts.Prior = rec2
	cat3, _, err := LoadRecorded(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	if want := []string{cat, filepath.Dir(added)}; !slices.Equal(listed, want) {
		t.Errorf("after adding a skill: listed %q; want %q", listed, want)
	}
	if want := []string{added}; !slices.Equal(read, want) {
		t.Errorf("after adding a skill: read %q; want %q", read, want)
	}
	if _, ok := cat3.Lookup("added-skill"); !ok || len(cat3.Units) != 61 {
		t.Errorf("got %d units; want 61 with added-skill", len(cat3.Units))
	}
}

// TestScanReplay: a load given the previous load's Record takes a root's
// discovery from it, walking no folder, when every folder the root's walk
// listed keeps its stamp, and finds exactly what a walk finds; a change
// below the root, or a symlink the walk had to resolve, walks it again.
func TestScanReplay(t *testing.T) {
	then := time.Now().Add(-time.Hour)
	later := then.Add(time.Minute)
	tests := []struct {
		name string
		// setup alters the catalog before the first load, change
		// between the two loads; nil: none.
		setup, change func(t *testing.T, roots []string)
		// walked: the roots (by position) the second load walks.
		walked []int
	}{
		{name: "unchanged"},
		{name: "diagnosed_unchanged", setup: func(t *testing.T, roots []string) {
			testkit.WriteFile(t, filepath.Join(roots[0], "cat05", "odd", "skill.md"), "---\nname: odd\n---\n")
		}},
		{name: "skill_added", walked: []int{1}, change: func(t *testing.T, roots []string) {
			cat := filepath.Join(roots[1], "cat03")
			testkit.WriteFile(t, filepath.Join(cat, "added", "SKILL.md"), "---\nname: added\ndescription: Added later.\n---\n")
			testkit.Backdate(t, cat, later)
		}},
		{name: "skill_removed", walked: []int{0}, change: func(t *testing.T, roots []string) {
			dirs, _ := filepath.Glob(filepath.Join(roots[0], "cat02", "*"))
			if err := os.RemoveAll(dirs[0]); err != nil {
				t.Fatal(err)
			}
			testkit.Backdate(t, filepath.Join(roots[0], "cat02"), later)
		}},
		{name: "skill_file_now_folder", walked: []int{0}, change: func(t *testing.T, roots []string) {
			dirs, _ := filepath.Glob(filepath.Join(roots[0], "cat04", "*"))
			file := filepath.Join(dirs[0], SkillFile)
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(file, 0o755); err != nil {
				t.Fatal(err)
			}
			testkit.Backdate(t, dirs[0], later)
		}},
		{name: "skill_edited", change: func(t *testing.T, roots []string) {
			files, _ := filepath.Glob(filepath.Join(roots[1], "cat01", "*", SkillFile))
			testkit.WriteFile(t, files[0], "---\nname: edited\ndescription: Edited later.\n---\n")
			testkit.Backdate(t, files[0], later)
		}},
		{name: "misnamed_file", walked: []int{0}, change: func(t *testing.T, roots []string) {
			testkit.WriteFile(t, filepath.Join(roots[0], "cat05", "odd", "skill.md"), "---\nname: odd\n---\n")
			testkit.Backdate(t, filepath.Join(roots[0], "cat05"), later)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			roots := append(testkit.GenerateCatalog(t, filepath.Join(dir, "a"), 80, 3), testkit.GenerateCatalog(t, filepath.Join(dir, "b"), 80, 5)...)
			if tt.setup != nil {
				tt.setup(t, roots)
			}
			testkit.Backdate(t, dir, then)
			opts := Options{Roots: roots}
			_, rec, err := LoadRecorded(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			for i, sc := range rec.Scans {
				if sc == nil {
					t.Fatalf("root %d: got no scan recorded; want one", i)
				}
			}
			if tt.change != nil {
				tt.change(t, roots)
			}
			var mu sync.Mutex // roots are scanned at once
			walked := map[int]bool{}
			testHookWalk = func(d string) {
				mu.Lock()
				defer mu.Unlock()
				for i, r := range roots {
					if Within(r, d) {
						walked[i] = true
					}
				}
			}
			t.Cleanup(func() { testHookWalk = nil })
			opts.Prior = rec
			got, gotRec, err := LoadRecorded(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			var walkedRoots []int
			for i := range roots {
				if walked[i] {
					walkedRoots = append(walkedRoots, i)
				}
			}
			if !slices.Equal(walkedRoots, tt.walked) {
				t.Errorf("got roots %v walked; want %v", walkedRoots, tt.walked)
			}
			testHookWalk = nil
			want, wantRec, err := LoadRecorded(context.Background(), Options{Roots: roots})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(*want)); diff != "" {
				t.Errorf("catalog (-walked +replayed):\n%s", diff)
			}
			ignoreUnits := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Units" }, cmp.Ignore())
			if want := len(roots) - len(tt.walked); gotRec.Replayed != want {
				t.Errorf("got %d roots replayed; want %d", gotRec.Replayed, want)
			}
			if diff := cmp.Diff(wantRec, gotRec, ignoreUnits, cmpopts.IgnoreUnexported(Record{}), cmpopts.IgnoreFields(Record{}, "Replayed")); diff != "" {
				t.Errorf("record (-walked +replayed):\n%s", diff)
			}
		})
	}
}

// TestScanSymlinkNotReplayed: a root whose walk resolved a symlink
// records no scan, so the next load walks it and resolves the link again.
func TestScanSymlinkNotReplayed(t *testing.T) {
	_, rec := linkedRoots(t, 60)
	if rec.Scans[0] != nil || rec.Scans[1] == nil {
		t.Errorf("got scans %v, %v recorded; want the linked root's left out, the other's kept", rec.Scans[0], rec.Scans[1])
	}
}

// TestJoinRel: a recorded skill folder joins its root as filepath.Join
// would, and one that is not clean below it is refused.
func TestJoinRel(t *testing.T) {
	root := filepath.Join(string(filepath.Separator)+"skills", "root")
	tests := []struct {
		name, root, rel string
		ok              bool
	}{
		{name: "the root itself", root: root, rel: ".", ok: true},
		{name: "one level", root: root, rel: "review", ok: true},
		{name: "two levels", root: root, rel: "team/review", ok: true},
		{name: "the file system's root", root: string(filepath.Separator), rel: "review", ok: true},
		{name: "up and out", root: root, rel: "../other", ok: false},
		{name: "up within", root: root, rel: "team/../review", ok: false},
		{name: "an empty element", root: root, rel: "team//review", ok: false},
		{name: "a dot element", root: root, rel: "./review", ok: false},
		{name: "absolute", root: root, rel: "/etc", ok: false},
		{name: "empty", root: root, rel: "", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := joinRel(tt.root, tt.rel)
			if ok != tt.ok {
				t.Fatalf("joinRel(%q, %q): got ok %v; want %v", tt.root, tt.rel, ok, tt.ok)
			}
			if want := filepath.Join(tt.root, filepath.FromSlash(tt.rel)); ok && got != want {
				t.Errorf("joinRel(%q, %q): got %q; want %q", tt.root, tt.rel, got, want)
			}
		})
	}
}

// TestRecordSymlinkedResource: a skill's folder of resources moved out of
// the root, a symlink left in its place, keeps its files' stamps; the
// unit is read again, through the root, and comes out as a load without
// the record makes it.
func TestRecordSymlinkedResource(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	skill := filepath.Join(root, "pdf")
	testkit.WriteFile(t, filepath.Join(skill, SkillFile), "---\nname: pdf\ndescription: Make PDF reports.\n---\n\n# pdf\n\nSee [the guide](references/guide.md).\n")
	testkit.WriteFile(t, filepath.Join(skill, "references", "guide.md"), "guide\n")
	then := time.Now().Add(-time.Hour)
	testkit.Backdate(t, dir, then)
	opts := Options{Roots: []string{root}}
	_, rec, err := LoadRecorded(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(skill, "references"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "moved"), filepath.Join(skill, "references")); err != nil {
		t.Skip(err)
	}
	opts.Prior = rec
	got, gotRec, err := LoadRecorded(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := LoadRecorded(context.Background(), Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if gotRec.Units[0].Reused {
		t.Errorf("got the unit reused; want it read again")
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(*want)); diff != "" {
		t.Errorf("catalog (-without the record +with it):\n%s", diff)
	}
}

// TestPrestatTakenOnce: a stat taken ahead is handed out once, however
// many scans ask for it at the same time; the others stat it themselves.
func TestPrestatTakenOnce(t *testing.T) {
	dir := t.TempDir()
	p := startPrestat([]FolderRecord{{Path: dir}}, nil)
	p.done.Wait()
	var (
		wg  sync.WaitGroup
		got atomic.Int32
	)
	for range 8 {
		wg.Go(func() {
			if _, _, ok := p.take(p.lstat, dir); ok {
				got.Add(1)
			}
		})
	}
	wg.Wait()
	if n := got.Load(); n != 1 {
		t.Errorf("got the stat handed out %d times; want once", n)
	}
}

// TestPrestatCoversWalkedRoots: with stats taken ahead from the scans
// (StatAhead), the SKILL.md files of a root that cannot be replayed are
// stat'ed ahead too, before discovery walks it.
func TestPrestatCoversWalkedRoots(t *testing.T) {
	_, rec := linkedRoots(t, 30)
	if rec.Scans[0] != nil {
		t.Fatalf("got the linked root's scan recorded; want none")
	}
	rec.StatAhead()
	p := newPrestat(rec)
	for _, u := range rec.Units {
		f := u.Origin.FileReal
		if !hasKey(p.stat, f) && (p.more == nil || !hasKey(p.more.stat, f)) {
			t.Errorf("%s: not stat'ed ahead", f)
		}
	}
}

// TestPlainPath: a file a unit read is reached through folders only,
// symlinks refused at the first level (from the listing) and deeper (by
// a stat); a folder name whose runes hold a separator's low byte is no
// separator.
func TestPlainPath(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "skill")
	testkit.WriteFile(t, filepath.Join(skill, "refs", "guide.md"), "guide\n")
	testkit.WriteFile(t, filepath.Join(skill, "refs", "deep", "more.md"), "more\n")
	testkit.WriteFile(t, filepath.Join(skill, "ręfį", "guide.md"), "guide\n") // į is U+012F
	testkit.WriteFile(t, filepath.Join(dir, "outside", "guide.md"), "guide\n")
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(skill, "linked")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(skill, "refs", "inner")); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(skill)
	if err != nil {
		t.Fatal(err)
	}
	f := found{dirReal: skill, entries: entries}
	tests := []struct {
		name, path string
		want       bool
	}{
		{name: "beside SKILL.md", path: filepath.Join(skill, "manifest.json"), want: true},
		{name: "one folder down", path: filepath.Join(skill, "refs", "guide.md"), want: true},
		{name: "two folders down", path: filepath.Join(skill, "refs", "deep", "more.md"), want: true},
		{name: "a name of other runes", path: filepath.Join(skill, "ręfį", "guide.md"), want: true},
		{name: "a symlinked first folder", path: filepath.Join(skill, "linked", "guide.md"), want: false},
		{name: "a symlinked deeper folder", path: filepath.Join(skill, "refs", "inner", "guide.md"), want: false},
		{name: "a folder not listed", path: filepath.Join(skill, "gone", "guide.md"), want: false},
		{name: "outside the skill folder", path: filepath.Join(dir, "outside", "guide.md"), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plainPath(f, tt.path); got != tt.want {
				t.Errorf("plainPath(%q): got %v; want %v", tt.path, got, tt.want)
			}
		})
	}
}

// linkedRoots writes two generated roots of n skills each, the first
// holding a symlink to one of its folders, backdated, and loads them.
func linkedRoots(t *testing.T, n int) ([]string, *Record) {
	t.Helper()
	dir := t.TempDir()
	roots := append(testkit.GenerateCatalog(t, filepath.Join(dir, "a"), n, 4), testkit.GenerateCatalog(t, filepath.Join(dir, "b"), n, 6)...)
	if err := os.Symlink(filepath.Join(roots[0], "cat01"), filepath.Join(roots[0], "linked")); err != nil {
		t.Skip(err)
	}
	testkit.Backdate(t, dir, time.Now().Add(-time.Hour))
	_, rec, err := LoadRecorded(context.Background(), Options{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	return roots, rec
}

// TestCatalogOrder: the order of the load before is taken when it puts
// the units in the catalog's order, each once; anything else is sorted.
func TestCatalogOrder(t *testing.T) {
	units := []*ir.Unit{{Name: "c"}, {Name: "a"}, {Name: "b", Precedence: 1}, {Name: "b", Precedence: 0}}
	sorted := []int32{1, 3, 2, 0}
	tests := []struct {
		name  string
		prior []int32
		taken bool
	}{
		{"none", nil, false},
		{"the catalog's", sorted, true},
		{"another order", []int32{0, 1, 2, 3}, false},
		{"a unit twice", []int32{1, 1, 2, 0}, false},
		{"out of range", []int32{1, 3, 2, 4}, false},
		{"too short", []int32{1, 3, 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalogOrder(units, tt.prior)
			if !slices.Equal(got, sorted) {
				t.Errorf("got %v; want %v", got, sorted)
			}
			if taken := len(tt.prior) > 0 && &got[0] == &tt.prior[0]; taken != tt.taken {
				t.Errorf("prior taken: got %v; want %v", taken, tt.taken)
			}
		})
	}
}

// TestStampIs: comparing a stat with a stamp says what making the stamp
// and comparing would.
func TestStampIs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	testkit.WriteFile(t, file, "x")
	info, err := os.Lstat(file)
	if err != nil {
		t.Fatal(err)
	}
	dinfo, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !stampIs(info, StampInfo(info)) {
		t.Error("a file against its own stamp: got false; want true")
	}
	if stampIs(info, StampInfo(dinfo)) || stampIs(dinfo, StampInfo(info)) {
		t.Error("a file against its folder's stamp: got true; want false")
	}
}
