package catcache

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCounts(t *testing.T) {
	c := newCache(t)
	if got := c.Counts(); got != nil {
		t.Fatalf("empty cache: got %v; want none", got)
	}
	first := map[string]int{"o200k_base:aa": 12, "cl100k_base:bb": 7}
	c.StoreCounts(nil, first)
	if got := c.Counts(); !cmp.Equal(got, first) {
		t.Fatalf("got %v; want %v", got, first)
	}
	// Nothing new: the file is not written again.
	name, _ := c.countsFile()
	file := filepath.Join(c.Dir, name)
	before, err := os.Stat(file)
	must(t, err)
	c.StoreCounts(first, first)
	after, err := os.Stat(file)
	must(t, err)
	if !os.SameFile(before, after) {
		t.Errorf("storing no new count rewrote the file")
	}
	more := map[string]int{"o200k_base:aa": 12, "cl100k_base:bb": 7, "o200k_base:cc": 3}
	c.StoreCounts(first, more)
	if got := c.Counts(); !cmp.Equal(got, more) {
		t.Errorf("got %v; want %v", got, more)
	}
}

func TestBadCounts(t *testing.T) {
	tests := []struct {
		name  string
		spoil func([]byte) []byte
	}{
		{"truncated", func(d []byte) []byte { return d[:len(d)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"bit flipped", func(d []byte) []byte { d[len(d)/2] ^= 1; return d }},
		{"foreign build", func(d []byte) []byte { d[len(countsMagic)] ^= 0xff; return reseal(d) }},
		{"count past the entries", func(d []byte) []byte {
			head := len(countsMagic) + 32
			d = append(d[:head], binary.AppendUvarint(nil, 1<<20)...)
			return reseal(append(d, 0, 0, 0, 0))
		}},
		{"a catalog cache's bytes", func(d []byte) []byte { return append(magic[:], d[len(magic):]...) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t)
			c.StoreCounts(nil, map[string]int{"o200k_base:aa": 12, "o200k_base:bb": 300})
			name, _ := c.countsFile()
			file := filepath.Join(c.Dir, name)
			data, err := os.ReadFile(file)
			must(t, err)
			must(t, os.WriteFile(file, tt.spoil(data), 0o600))
			if got := c.Counts(); got != nil {
				t.Fatalf("got %v; want the spoiled table ignored", got)
			}
			c.StoreCounts(nil, map[string]int{"o200k_base:aa": 12})
			if got := c.Counts(); !cmp.Equal(got, map[string]int{"o200k_base:aa": 12}) {
				t.Errorf("after a new store: got %v; want it whole", got)
			}
		})
	}
	t.Run("writable by others", func(t *testing.T) {
		c := newCache(t)
		c.StoreCounts(nil, map[string]int{"o200k_base:aa": 12})
		name, _ := c.countsFile()
		file := filepath.Join(c.Dir, name)
		must(t, os.Chmod(file, 0o666))
		if got := c.Counts(); got != nil {
			t.Errorf("got %v; want a table others could have written ignored", got)
		}
	})
	t.Run("folder cannot be made", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		must(t, os.WriteFile(file, nil, 0o600))
		c := &Cache{Dir: filepath.Join(file, "cache")}
		c.StoreCounts(nil, map[string]int{"o200k_base:aa": 1})
		if got := c.Counts(); got != nil {
			t.Errorf("got %v; want none", got)
		}
	})
}
