package serveload

import (
	"context"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// TestCatalogLoadsWhole checks that a generated catalog larger than the
// loader's default folder bound loads whole under its own policy, before
// and after an edit rewrites that policy: a catalog cut short at the bound
// would be measured as if it were the size asked for.
func TestCatalogLoadsWhole(t *testing.T) {
	const n = 2100 // past the default limits.max_folders of 2,000
	cat, err := NewCatalog(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []int{0, 4} { // as written; the policy rewritten
		if edit > 0 {
			if _, err := cat.Edit(edit); err != nil {
				t.Fatal(err)
			}
		}
		p, err := compiler.LoadPolicy(cat.Policy)
		if err != nil {
			t.Fatal(err)
		}
		c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{cat.Root}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if ds := c.Diagnostics(); ds.HasErrors() {
			t.Errorf("edit %d: got errors %v; want none", edit, ds)
		}
		if got := len(c.Catalog().Units); got != n {
			t.Errorf("edit %d: got %d units; want %d", edit, got, n)
		}
	}
}
