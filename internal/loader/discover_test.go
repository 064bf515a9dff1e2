package loader

import (
	"path/filepath"
	"testing"
)

func TestBelowAgreesWithRel(t *testing.T) {
	for _, tc := range []struct{ name, base, path string }{
		{"same", "/a/b", "/a/b"},
		{"child", "/a/b", "/a/b/c"},
		{"grandchild", "/a/b", "/a/b/c/SKILL.md"},
		{"sibling with the base as prefix", "/a/b", "/a/bc"},
		{"parent", "/a/b", "/a"},
		{"elsewhere", "/a/b", "/x/y"},
		{"root base", "/", "/a/b"},
		{"dot-dot inside", "/a/b", "/a/b/../c"},
		{"dot inside", "/a/b", "/a/b/./c"},
		{"double separator", "/a/b", "/a/b//c"},
		{"trailing separator", "/a/b", "/a/b/c/"},
		{"base with trailing separator", "/a/b/", "/a/b/c"},
		{"unclean base", "/a/../b", "/a/../b/c"},
		{"relative", "a", "a/b"},
		{"empty base", "", "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel, ok := below(tc.base, tc.path)
			want, err := filepath.Rel(tc.base, tc.path)
			if !ok {
				return // below leaves it to filepath.Rel
			}
			if err != nil || rel != want {
				t.Errorf("below(%q, %q) = %q; want %q (filepath.Rel, err %v)", tc.base, tc.path, rel, want, err)
			}
			if !Within(tc.base, tc.path) {
				t.Errorf("Within(%q, %q) = false; want true", tc.base, tc.path)
			}
		})
	}
	for _, tc := range []struct{ base, path string }{{"/a/b", "/a/b/c"}, {"/", "/a"}, {"/a/b", "/a/b"}} {
		if _, ok := below(tc.base, tc.path); !ok {
			t.Errorf("below(%q, %q) not ok; want the fast path", tc.base, tc.path)
		}
	}
}
