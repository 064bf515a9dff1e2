package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCompacted: the compaction mark is found wherever it lies in the
// part of the transcript written since, across the pieces it is read in,
// and not before that part.
func TestCompacted(t *testing.T) {
	piece := 1 << 20 // what compacted reads at a time
	at := func(off int) []byte {
		data := bytes.Repeat([]byte("x"), 3*piece)
		copy(data[off:], compactMark)
		return data
	}
	tests := []struct {
		name     string
		data     []byte
		from, to int64
		want     bool
	}{
		{"none", bytes.Repeat([]byte("x"), 3*piece), 0, 3 << 20, false},
		{"first piece", at(10), 0, 3 << 20, true},
		{"across pieces", at(piece - 5), 0, 3 << 20, true},
		{"across the second boundary", at(2*piece - len(compactMark) + 1), 0, 3 << 20, true},
		{"last bytes", at(3*piece - len(compactMark)), 0, 3 << 20, true},
		{"before the part written since", at(10), 100, 3 << 20, false},
		{"cut by the end", at(3*piece - len(compactMark)), 0, 3<<20 - 1, false},
		{"nothing written since", at(10), 3 << 20, 3 << 20, false},
		{"more written than is read", at(10), 0, maxTranscriptScan + 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			if got := compacted(path, tt.from, tt.to); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
	if !compacted(filepath.Join(t.TempDir(), "absent"), 0, 10) {
		t.Error("a transcript that cannot be read: got not compacted; want compacted")
	}
}
