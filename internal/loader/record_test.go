package loader

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/testkit"
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
