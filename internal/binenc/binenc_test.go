package binenc

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestRoundTrip: every kind of value comes back as written, nil and empty
// slices apart, and Len is the length of Bytes; a shared reader's strings
// are slices of the input.
func TestRoundTrip(t *testing.T) {
	t.Run("copy", func(t *testing.T) { roundTrip(t, NewReader) })
	t.Run("shared", func(t *testing.T) { roundTrip(t, NewSharedReader) })
}

func roundTrip(t *testing.T, newReader func([]byte) (*Reader, error)) {
	w := NewWriter()
	w.Uint(0)
	w.Uint(math.MaxUint64)
	w.Int(math.MinInt64)
	w.Int(-1)
	w.Bool(true)
	w.Float64(math.Copysign(0, -1))
	w.Float32(1.5)
	w.Str("")
	w.Str(strings.Repeat("é", 200))
	w.Str("again")
	w.Str("again")
	w.Strs(nil)
	w.Strs([]string{})
	w.Strs([]string{"a", "again"})
	w.Int32s(nil)
	w.Int32s([]int32{-5, 7})
	w.Raw([]byte{0, 1, 2})
	w.Raw(nil)
	data := w.Bytes()
	var streamed bytes.Buffer
	if n, err := w.WriteTo(&streamed); err != nil || n != int64(len(data)) || !bytes.Equal(streamed.Bytes(), data) {
		t.Fatalf("WriteTo: got %d bytes, %v, equal %v; want %d, nil, true", n, err, bytes.Equal(streamed.Bytes(), data), len(data))
	}
	if w.Len() != len(data) {
		t.Fatalf("Len() = %d; want %d", w.Len(), len(data))
	}
	r, err := newReader(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Uint(); got != 0 {
		t.Errorf("Uint: got %d; want 0", got)
	}
	if got := r.Uint(); got != math.MaxUint64 {
		t.Errorf("Uint: got %d; want max", got)
	}
	if got := r.Int(); got != math.MinInt64 {
		t.Errorf("Int: got %d; want min", got)
	}
	if got := r.Int(); got != -1 {
		t.Errorf("Int: got %d; want -1", got)
	}
	if !r.Bool() {
		t.Error("Bool: got false; want true")
	}
	if got := r.Float64(); !math.Signbit(got) || got != 0 {
		t.Errorf("Float64: got %v; want -0", got)
	}
	if got := r.Float32(); got != 1.5 {
		t.Errorf("Float32: got %v; want 1.5", got)
	}
	for _, want := range []string{"", strings.Repeat("é", 200), "again", "again"} {
		if got := r.Str(); got != want {
			t.Errorf("Str: got %q; want %q", got, want)
		}
	}
	if got := r.Strs(); got != nil {
		t.Errorf("Strs: got %q; want nil", got)
	}
	if got := r.Strs(); got == nil || len(got) != 0 {
		t.Errorf("Strs: got %#v; want empty, not nil", got)
	}
	if got := r.Strs(); !slices.Equal(got, []string{"a", "again"}) {
		t.Errorf("Strs: got %q", got)
	}
	if got := r.Int32s(); got != nil {
		t.Errorf("Int32s: got %v; want nil", got)
	}
	if got := r.Int32s(); !slices.Equal(got, []int32{-5, 7}) {
		t.Errorf("Int32s: got %v", got)
	}
	raw := r.Raw()
	if !slices.Equal(raw, []byte{0, 1, 2}) {
		t.Errorf("Raw: got %v", raw)
	}
	if got := r.Raw(); len(got) != 0 {
		t.Errorf("Raw: got %v; want none", got)
	}
	// A shared reader's block is the input's own bytes; another's, a copy.
	if shared := &raw[0] == &data[len(data)-4]; shared != r.shared {
		t.Errorf("Raw: a slice of the input %v, for a shared reader %v", shared, r.shared)
	}
	if err := r.Done(); err != nil {
		t.Errorf("Done: %v", err)
	}
}

// TestCorrupt: every truncation fails, and a read past the end never
// panics; a length larger than what is left fails without allocating it.
func TestCorrupt(t *testing.T) {
	w := NewWriter()
	w.Strs([]string{"one", "two", "three"})
	w.Float64(2)
	data := w.Bytes()
	for n := range len(data) {
		r, err := NewReader(data[:n])
		if err != nil {
			continue
		}
		r.Strs()
		r.Float64()
		if r.Done() == nil {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
	r, err := NewReader([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Len(); n != 0 || r.Err() == nil {
		t.Errorf("a huge length: got %d, %v; want 0 and an error", n, r.Err())
	}
}

// TestStrID: a reference read as a position gives the string back through
// StrAt; a position out of the table is corrupt input for StrID and "" for
// StrAt.
func TestStrID(t *testing.T) {
	w := NewWriter()
	w.Str("a")
	w.Str("b")
	w.Str("a")
	r, err := NewSharedReader(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a", "b", "a"} {
		if got := r.StrAt(r.StrID()); got != want {
			t.Errorf("StrAt(StrID()): got %q; want %q", got, want)
		}
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	if got := r.StrAt(7); got != "" {
		t.Errorf("StrAt(7): got %q", got)
	}
	bad := NewWriter()
	bad.Str("x")
	data := append(bad.Bytes()[:len(bad.Bytes())-1], 9) // a reference past the table
	r, err = NewReader(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.StrID(); r.Err() == nil {
		t.Error("a reference past the table read without an error")
	}
}
