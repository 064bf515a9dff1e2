package compiler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
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
