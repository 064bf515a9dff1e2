package compiler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestSettled: a load is swapped in only when the scans around it show it
// read the folders as they were at one moment: nothing vanished, and at
// most one file was replaced or one file or folder appeared.
func TestSettled(t *testing.T) {
	write := func(t *testing.T, path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		tmp := path + ".new"
		if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, root, policy, outside string)
		want bool
	}{
		{name: "nothing", edit: func(*testing.T, string, string, string) {}, want: true},
		{name: "a body replaced", edit: func(t *testing.T, root, _, _ string) {
			write(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\ndescription: changed\n---\nNew.\n")
		}, want: true},
		{name: "a skill folder moved in", edit: func(t *testing.T, root, _, outside string) {
			write(t, filepath.Join(outside, "c", "SKILL.md"), "---\nname: c\ndescription: c\n---\n")
			write(t, filepath.Join(outside, "c", "agents", "openai.yaml"), "policy: {}\n")
			if err := os.Rename(filepath.Join(outside, "c"), filepath.Join(root, "group", "c")); err != nil {
				t.Fatal(err)
			}
		}, want: true},
		{name: "a skill folder removed", edit: func(t *testing.T, root, _, _ string) {
			if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
				t.Fatal(err)
			}
		}, want: false},
		{name: "the policy rewritten", edit: func(t *testing.T, _, policy, _ string) {
			write(t, policy, "budget: 100\n")
		}, want: true},
		{name: "two bodies replaced", edit: func(t *testing.T, root, _, _ string) {
			write(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\ndescription: changed\n---\nNew.\n")
			write(t, filepath.Join(root, "b", "SKILL.md"), "---\nname: b\ndescription: changed\n---\nNew.\n")
		}, want: false},
		{name: "a body and the policy", edit: func(t *testing.T, root, policy, _ string) {
			write(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\ndescription: changed\n---\nNew.\n")
			write(t, policy, "budget: 100\n")
		}, want: false},
		{name: "a skill added and another removed", edit: func(t *testing.T, root, _, outside string) {
			write(t, filepath.Join(outside, "c", "SKILL.md"), "---\nname: c\ndescription: c\n---\n")
			if err := os.Rename(filepath.Join(outside, "c"), filepath.Join(root, "c")); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
				t.Fatal(err)
			}
		}, want: false},
		{name: "a file added beside a body", edit: func(t *testing.T, root, _, _ string) {
			write(t, filepath.Join(root, "a", "notes.md"), "notes")
		}, want: true},
		{name: "a body and its manifest", edit: func(t *testing.T, root, _, _ string) {
			write(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\ndescription: changed\n---\nNew.\n")
			write(t, filepath.Join(root, "a", "manifest.json"), "{}")
		}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root, policy, outside := filepath.Join(dir, "skills"), filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "outside")
			write(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\ndescription: a\n---\nA.\n")
			write(t, filepath.Join(root, "b", "SKILL.md"), "---\nname: b\ndescription: b\n---\nB.\n")
			if err := os.MkdirAll(filepath.Join(root, "group"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, policy, "budget: 50\n")
			l := &Live{lo: LiveOptions{PolicyFile: policy}}
			scan := func() map[string]string {
				items, _, _ := l.collect(loader.Options{Roots: []string{root}}, Policy{})
				return items
			}
			before := scan()
			tc.edit(t, root, policy, outside)
			if got := settled(before, scan()); got != tc.want {
				t.Fatalf("settled: got %v; want %v", got, tc.want)
			}
		})
	}
}

// TestLiveWatchesWhatDiscoveryVisits pins that the live catalog watches
// the folders the loader's discovery visits, by the loader's own rules,
// and nothing it skips: hidden folders, .git and node_modules (at the top
// and in a skill's resources), folders below the depth bound, a symlink
// leading out of the root; only resource folders below a skill folder,
// down to resourceDepth, are watched beyond them. It fails when the two
// walks drift apart.
func TestLiveWatchesWhatDiscoveryVisits(t *testing.T) {
	dir := t.TempDir()
	root, outside := filepath.Join(dir, "skills"), filepath.Join(dir, "outside")
	skill := func(rel, name string) {
		t.Helper()
		testkit.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel), "SKILL.md"), "---\nname: "+name+"\ndescription: "+name+"\n---\nBody.\n")
	}
	skill("a", "a")
	testkit.WriteFile(t, filepath.Join(root, "a", "references", "r1", "r2", "r3", "x.md"), "x")
	testkit.WriteFile(t, filepath.Join(root, "a", "references", "r1", "r2", "r3", "r4", "too-deep.md"), "x")
	testkit.WriteFile(t, filepath.Join(root, "a", ".cache", "x.md"), "x")
	testkit.WriteFile(t, filepath.Join(root, "a", "node_modules", "m", "x.md"), "x")
	skill(".hidden/h", "h")
	skill("node_modules/n", "n")
	skill(".git/g", "g")
	skill("group/.hidden/h2", "h2")
	skill("d1/d2/d3/d4/d5/s6", "s6")      // 6 levels below the root: the deepest discovery enters
	skill("d1/d2/d3/d4/d5/d6/d7", "deep") // 7: below the bound
	testkit.WriteFile(t, filepath.Join(outside, "o", "SKILL.md"), "---\nname: o\ndescription: o\n---\n")
	if err := os.Symlink(filepath.Join(outside, "o"), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "in")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	at := func(rel string) string { return filepath.Join(real, filepath.FromSlash(rel)) }

	visited, skills := map[string]bool{}, map[string]bool{}
	if err := loader.Walk(root, loader.DefaultLimits, func(f loader.Folder) {
		visited[f.Dir] = true
		if f.Skill {
			skills[f.Dir] = true
		}
	}); err != nil {
		t.Fatal(err)
	}
	l := &Live{}
	_, tree, _ := l.collect(loader.Options{Roots: []string{root}}, Policy{})

	// Every folder discovery visits is watched; every other folder
	// watched is a resource folder below a skill folder.
	for d := range visited {
		if !tree[d] {
			t.Errorf("discovery visits %s; want it watched", d)
		}
	}
	for d := range tree {
		if visited[d] {
			continue
		}
		below := false
		for s := range skills {
			below = below || strings.HasPrefix(d, s+string(filepath.Separator))
		}
		if !below {
			t.Errorf("watched %s, which discovery does not visit and is no skill's resource folder", d)
		}
	}
	for _, rel := range []string{"a", "a/references/r1/r2/r3", "d1/d2/d3/d4/d5/s6", "group"} {
		if !tree[at(rel)] {
			t.Errorf("got %s unwatched; want it watched", rel)
		}
	}
	for _, rel := range []string{
		".hidden", ".hidden/h", "node_modules", "node_modules/n", ".git", ".git/g", "group/.hidden",
		"a/.cache", "a/node_modules", "a/references/r1/r2/r3/r4", "d1/d2/d3/d4/d5/d6/d7",
	} {
		if tree[at(rel)] || visited[at(rel)] {
			t.Errorf("got %s watched (%v) or visited (%v); want both walks to skip it", rel, tree[at(rel)], visited[at(rel)])
		}
	}
	for d := range tree {
		if strings.HasPrefix(d, outside) {
			t.Errorf("watched %s, outside the root", d)
		}
	}

	// And the load reads exactly the skills in the folders visited.
	cat, err := loader.Load(context.Background(), loader.Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range cat.Units {
		names = append(names, u.Name)
		if d := filepath.Dir(filepath.Join(real, filepath.FromSlash(u.Path))); !skills[d] || !tree[d] {
			t.Errorf("loaded %s from %s; want a skill folder both walks reach", u.Name, d)
		}
	}
	if got, want := strings.Join(names, " "), "a s6"; got != want {
		t.Errorf("loaded %s; want %s", got, want)
	}
}
