//go:build unix

package loader

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestResourcesConfined checks the stat side: a present file is a resource,
// an absent one a missing_resource, a symlink out a resource_escape, and a
// FIFO is never opened.
func TestResourcesConfined(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	body := "---\nname: s\ndescription: S.\n---\n" +
		"[a](REF.md) [b](NOPE.md) [c](out.md) [d](pipe) [e](sub/) [f](sub/deep.md) [g](REF.md/x)\n"
	testkit.WriteFile(t, filepath.Join(root, "s", "SKILL.md"), body)
	testkit.WriteFile(t, filepath.Join(root, "s", "REF.md"), "ref")
	testkit.WriteFile(t, filepath.Join(root, "s", "sub", "deep.md"), "deep")
	testkit.WriteFile(t, filepath.Join(dir, "outside.md"), "secret")
	mustSymlink(t, filepath.Join(dir, "outside.md"), filepath.Join(root, "s", "out.md"))
	if err := syscall.Mkfifo(filepath.Join(root, "s", "pipe"), 0o644); err != nil {
		t.Skipf("FIFOs unavailable: %v", err)
	}
	done := make(chan *ir.Catalog, 1)
	go func() {
		cat, _ := Load(context.Background(), Options{Roots: []string{root}})
		done <- cat
	}()
	var cat *ir.Catalog
	select {
	case cat = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a FIFO resource")
	}
	u := unitNamed(cat, "s", ir.StatusOK)
	if u == nil {
		t.Fatalf("no unit s: %v", cat.Diagnostics)
	}
	if got, want := strings.Join(u.Resources, ","), "REF.md,sub/deep.md"; got != want {
		t.Errorf("got resources %s; want %s", got, want)
	}
	var got []string
	for _, d := range cat.Diagnostics {
		got = append(got, string(d.Code))
	}
	if g, want := strings.Join(got, ","), "missing_resource,missing_resource,resource_escape"; g != want {
		t.Errorf("got diagnostics %s; want %s", g, want)
	}
}
