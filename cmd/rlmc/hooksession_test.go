package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanTranscript: the compaction mark, and a pending block as Claude
// Code writes a hook's context, are found wherever they lie in the part of
// the transcript written since the last prompt, across the pieces it is
// read in, and not before that part.
func TestScanTranscript(t *testing.T) {
	piece := 1 << 20 // about what is read at a time
	block := "<skill name=\"a\">\n\"quoted\" \\ path\n</skill>\n"
	written := jsonText(block)
	at := func(off int, what []byte) []byte {
		data := bytes.Repeat([]byte("x"), 3*piece)
		copy(data[off:], what)
		return data
	}
	tests := []struct {
		name      string
		data      []byte
		from, to  int64
		seen      bool
		compacted bool
	}{
		{name: "none", data: bytes.Repeat([]byte("x"), 3*piece), to: 3 << 20},
		{name: "mark first", data: at(10, compactMark), to: 3 << 20, compacted: true},
		{name: "mark across pieces", data: at(piece-5, compactMark), to: 3 << 20, compacted: true},
		{name: "mark last", data: at(3*piece-len(compactMark), compactMark), to: 3 << 20, compacted: true},
		{name: "mark before the part written since", data: at(10, compactMark), from: 100, to: 3 << 20},
		{name: "mark cut by the end", data: at(3*piece-len(compactMark), compactMark), to: 3<<20 - 1},
		{name: "block", data: at(piece/2, written), to: 3 << 20, seen: true},
		{name: "block across pieces", data: at(piece-len(written)/2, written), to: 3 << 20, seen: true},
		{name: "block across the second piece", data: at(2*piece-len(written)/2, written), to: 3 << 20, seen: true},
		{name: "block before the part written since", data: at(10, written), from: 100, to: 3 << 20},
		{name: "block unescaped is not the block", data: at(10, []byte(block)), to: 3 << 20},
		{name: "nothing written since", data: at(10, compactMark), from: 3 << 20, to: 3 << 20},
		{name: "more written than is read", data: at(10, written), to: maxTranscriptScan + 1, compacted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			seen, compacted := scanTranscript(path, tt.from, tt.to, []string{block, "<skill name=\"b\">\n</skill>\n"})
			if got := slices.Equal(seen, []string{block}); got != tt.seen || compacted != tt.compacted {
				t.Errorf("got seen %q, compacted %v; want the block seen %v, compacted %v", seen, compacted, tt.seen, tt.compacted)
			}
		})
	}
	if _, compacted := scanTranscript(filepath.Join(t.TempDir(), "absent"), 0, 10, nil); !compacted {
		t.Error("a transcript that cannot be read: got not compacted; want compacted")
	}
}

// TestJSONText: a string is written as JavaScript's JSON.stringify writes
// it (Claude Code's transcript), which encoding/json does not do for
// U+2028, U+2029 and <, & or >.
func TestJSONText(t *testing.T) {
	in := "a\"b\\c\n\t\x01\b\f\r\u2028é<&>\x7f"
	want := `a\"b\\c\n\t\u0001\b\f\r` + "\u2028é<&>\x7f" // node -e 'console.log(JSON.stringify(...))'
	if got := string(jsonText(in)); got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
