package httpsafe

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDecodeBudget: the decoded bytes are held in the budget as they
// come, given back by release; a budget with too little left is
// ErrBodyBusy, a body decoding past the limit ErrBodyTooLarge, and
// neither keeps any of the budget.
func TestDecodeBudget(t *testing.T) {
	data := []byte(strings.Repeat("x", 3*budgetStep))
	body := gzipped(t, data)
	for _, tc := range []struct {
		name   string
		budget int64
		limit  int64
		want   error
	}{
		{"fits", 8 * budgetStep, 4 * budgetStep, nil},
		{"budget short", 2 * budgetStep, 4 * budgetStep, ErrBodyBusy},
		{"over the limit", 8 * budgetStep, 2 * budgetStep, ErrBodyTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBudget(tc.budget)
			out, release, err := Decode("gzip", body, tc.limit, b)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v; want %v", err, tc.want)
			}
			if err == nil {
				if !bytes.Equal(out, data) {
					t.Errorf("decoded %d bytes; want the %d sent", len(out), len(data))
				}
				if b.Left() >= tc.budget {
					t.Errorf("budget left %d while the body is held; want less than %d", b.Left(), tc.budget)
				}
			}
			release()
			release()
			if b.Left() != tc.budget {
				t.Errorf("after release: %d left; want %d", b.Left(), tc.budget)
			}
		})
	}
}

// TestDecodeEncodings: each encoding read, one not read is ErrEncoding,
// and a zstd frame asking for a window past maxZstdWindow is refused.
func TestDecodeEncodings(t *testing.T) {
	data := []byte(`{"messages":[]}`)
	var z bytes.Buffer
	zw, _ := zstd.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	var big bytes.Buffer
	bw, _ := zstd.NewWriter(&big, zstd.WithWindowSize(64<<20))
	bw.Write(bytes.Repeat([]byte("y"), 1<<20))
	bw.Close()
	for _, tc := range []struct {
		name, enc string
		body      []byte
		ok        bool
	}{
		{"gzip", "gzip", gzipped(t, data), true},
		{"x-gzip", "X-Gzip", gzipped(t, data), true},
		{"zstd", "zstd", z.Bytes(), true},
		{"br", "br", data, false},
		{"two encodings", "gzip, br", data, false},
		{"zstd window past the bound", "zstd", big.Bytes(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, release, err := Decode(tc.enc, tc.body, 4<<20, nil)
			defer release()
			if ok := err == nil; ok != tc.ok {
				t.Fatalf("got %v; want ok %v", err, tc.ok)
			}
			if tc.ok && !bytes.Equal(out, data) {
				t.Errorf("got %q; want %q", out, data)
			}
		})
	}
}
