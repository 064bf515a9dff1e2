//go:build unix

package catcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDropPagesKeepsContent: a mapping whose pages were dropped reads as
// the file still: a load that builds drops the pages it read, and the
// units and index it decoded point into them.
func TestDropPagesKeepsContent(t *testing.T) {
	want := bytes.Repeat([]byte("rlmc cache page "), 4096) // 16 pages
	file := filepath.Join(t.TempDir(), "f.cache")
	if err := os.WriteFile(file, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, ok := mapFile(f, int64(len(want)))
	if !ok {
		t.Skip("this system does not map the file")
	}
	if !bytes.Equal(data, want) {
		t.Fatal("mapping differs from the file before its pages are dropped")
	}
	dropPages(data)
	if !bytes.Equal(data, want) {
		t.Error("mapping differs from the file after its pages are dropped")
	}
}
