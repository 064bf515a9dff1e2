// Package binenc is a small binary encoding for rlmc's caches: varints,
// fixed-width floats and strings interned in a table, so that a string
// repeated across a cache is written once and every decoded string is a
// slice of one allocation. A Reader never panics on bad input: the first
// error sticks, and every later read returns zero values.
package binenc

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"unsafe"
)

// ErrCorrupt reports input that does not decode: truncated, or holding a
// length or string reference out of range.
var ErrCorrupt = errors.New("binenc: corrupt input")

// Writer builds an encoding. The zero value is not usable; use NewWriter.
type Writer struct {
	body []byte
	ids  map[string]uint32
	strs []string
	size int // bytes of all interned strings
}

// NewWriter returns an empty Writer.
func NewWriter() *Writer { return &Writer{ids: map[string]uint32{}} }

// NewWriterSize returns an empty Writer whose string table has room for
// about n distinct strings, so that it does not grow a step at a time.
func NewWriterSize(n int) *Writer { return &Writer{ids: make(map[string]uint32, n)} }

// Uint appends v as an unsigned varint.
func (w *Writer) Uint(v uint64) { w.body = binary.AppendUvarint(w.body, v) }

// Int appends v as a signed (zig-zag) varint.
func (w *Writer) Int(v int64) { w.body = binary.AppendVarint(w.body, v) }

// Bool appends b as one byte.
func (w *Writer) Bool(b bool) {
	var c byte
	if b {
		c = 1
	}
	w.body = append(w.body, c)
}

// Float64 appends f's bits, little-endian: every value, NaN included,
// round-trips bit for bit.
func (w *Writer) Float64(f float64) {
	w.body = binary.LittleEndian.AppendUint64(w.body, math.Float64bits(f))
}

// Float32 appends f's bits, little-endian.
func (w *Writer) Float32(f float32) {
	w.body = binary.LittleEndian.AppendUint32(w.body, math.Float32bits(f))
}

// Str appends a reference to s in the string table.
func (w *Writer) Str(s string) {
	id, ok := w.ids[s]
	if !ok {
		id = uint32(len(w.strs))
		w.ids[s] = id
		w.strs = append(w.strs, s)
		w.size += len(s)
	}
	w.Uint(uint64(id))
}

// Count appends a slice's length so that a nil slice and an empty one
// decode as they were: 0 for nil, else the length plus one.
func (w *Writer) Count(n int, isNil bool) {
	if isNil {
		w.Uint(0)
		return
	}
	w.Uint(uint64(n) + 1)
}

// Strs appends a count (see Count) and each string.
func (w *Writer) Strs(ss []string) {
	w.Count(len(ss), ss == nil)
	for _, s := range ss {
		w.Str(s)
	}
}

// Bytes returns the encoding: the string table (count, each length, then
// every string's bytes at once), then the body.
func (w *Writer) Bytes() []byte { return w.AppendTo(make([]byte, 0, w.Len())) }

// Len returns the length of the encoding, so that a caller can size one
// buffer for several.
func (w *Writer) Len() int {
	n := uvarintLen(uint64(len(w.strs))) + w.size + len(w.body)
	for _, s := range w.strs {
		n += uvarintLen(uint64(len(s)))
	}
	return n
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// AppendTo appends the encoding (see Bytes) to out.
func (w *Writer) AppendTo(out []byte) []byte {
	out = binary.AppendUvarint(out, uint64(len(w.strs)))
	for _, s := range w.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
	}
	for _, s := range w.strs {
		out = append(out, s...)
	}
	return append(out, w.body...)
}

// WriteTo writes to dst what AppendTo appends, without building it in
// memory first: a catalog's sections are tens of MB.
func (w *Writer) WriteTo(dst io.Writer) (int64, error) {
	cw := &countingWriter{w: dst}
	var tmp [binary.MaxVarintLen64]byte
	put := func(v uint64) { cw.write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	put(uint64(len(w.strs)))
	for _, s := range w.strs {
		put(uint64(len(s)))
	}
	for _, s := range w.strs {
		cw.writeString(s)
	}
	cw.write(w.body)
	return cw.n, cw.err
}

// countingWriter writes to w until the first error, counting what it
// wrote.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) write(p []byte) {
	if c.err == nil {
		var n int
		n, c.err = c.w.Write(p)
		c.n += int64(n)
	}
}

func (c *countingWriter) writeString(s string) {
	if c.err == nil {
		var n int
		n, c.err = io.WriteString(c.w, s)
		c.n += int64(n)
	}
}

// Reader decodes what a Writer built.
type Reader struct {
	buf    []byte
	off    int
	strs   []string
	err    error
	shared bool // strings and Raw's bytes are slices of buf
}

// NewReader reads data's string table. The strings share one allocation
// (a copy of the table's bytes), so data may be reused afterwards.
func NewReader(data []byte) (*Reader, error) { return newReader(data, false) }

// NewSharedReader is NewReader without the copy: every decoded string is
// a slice of data itself, which the caller must never change afterwards
// (a buffer read from a file for decoding alone), and which stays in
// memory while any decoded string does.
func NewSharedReader(data []byte) (*Reader, error) { return newReader(data, true) }

func newReader(data []byte, shared bool) (*Reader, error) {
	r := &Reader{buf: data, shared: shared}
	n := r.Len()
	lens := make([]int, n)
	total := 0
	for i := range lens {
		l := r.Len()
		lens[i] = l
		total += l
	}
	if r.err != nil || total > len(r.buf)-r.off {
		return nil, ErrCorrupt
	}
	var all string
	if shared {
		if total > 0 {
			all = unsafe.String(&r.buf[r.off], total)
		}
	} else {
		all = string(r.buf[r.off : r.off+total])
	}
	r.off += total
	r.strs = make([]string, n)
	at := 0
	for i, l := range lens {
		r.strs[i] = all[at : at+l]
		at += l
	}
	return r, nil
}

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Done reports an error unless every byte was read without one.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.buf) {
		r.err = ErrCorrupt
	}
	return r.err
}

func (r *Reader) fail() { r.err = ErrCorrupt; r.off = len(r.buf) }

// Fail marks the input corrupt, for a caller that finds decoded values
// that do not fit together.
func (r *Reader) Fail() { r.fail() }

// Uint reads an unsigned varint.
func (r *Reader) Uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

// Int reads a signed varint.
func (r *Reader) Int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.buf[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

// Len reads a count of items that each take at least one byte, so that a
// corrupt count can never make the caller allocate more than the input
// holds.
func (r *Reader) Len() int {
	v := r.Uint()
	if v > uint64(len(r.buf)-r.off) {
		r.fail()
		return 0
	}
	return int(v)
}

// Bool reads one byte as a boolean; any byte but 0 and 1 is corrupt.
func (r *Reader) Bool() bool {
	if r.err != nil || r.off >= len(r.buf) {
		r.fail()
		return false
	}
	c := r.buf[r.off]
	r.off++
	if c > 1 {
		r.fail()
	}
	return c == 1
}

// Float64 reads eight bytes.
func (r *Reader) Float64() float64 {
	if r.err != nil || len(r.buf)-r.off < 8 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return math.Float64frombits(v)
}

// Float32 reads four bytes.
func (r *Reader) Float32() float32 {
	if r.err != nil || len(r.buf)-r.off < 4 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(r.buf[r.off:])
	r.off += 4
	return math.Float32frombits(v)
}

// Str reads a string reference.
func (r *Reader) Str() string {
	id := r.Uint()
	if r.err != nil {
		return ""
	}
	if id >= uint64(len(r.strs)) {
		r.fail()
		return ""
	}
	return r.strs[id]
}

// Count reads what Count wrote: the length, and whether the slice was nil.
func (r *Reader) Count() (int, bool) {
	v := r.Uint()
	if v == 0 || r.err != nil {
		return 0, true
	}
	if v-1 > uint64(len(r.buf)-r.off) {
		r.fail()
		return 0, true
	}
	return int(v - 1), false
}

// Strs reads what Strs wrote.
func (r *Reader) Strs() []string {
	n, isNil := r.Count()
	if isNil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.Str()
	}
	return out
}

// Int32s reads what Int32s wrote.
func (r *Reader) Int32s() []int32 {
	n, isNil := r.Count()
	if isNil {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.Int())
	}
	return out
}

// Int32s appends a count (see Count) and each value.
func (w *Writer) Int32s(vs []int32) {
	w.Count(len(vs), vs == nil)
	for _, v := range vs {
		w.Int(int64(v))
	}
}

// Raw appends a length and b's bytes as they are: a block the caller lays
// out itself, for a reader to take without decoding (see Reader.Raw).
func (w *Writer) Raw(b []byte) {
	w.Uint(uint64(len(b)))
	w.body = append(w.body, b...)
}

// Raw reads what Raw wrote: a slice of the input for a shared reader, a
// copy for another.
func (r *Reader) Raw() []byte {
	n := r.Len()
	if r.err != nil {
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	if !r.shared {
		b = append([]byte(nil), b...)
	}
	return b
}

// StrID reads a string reference as Str does, but returns the string's
// position in the table (see StrAt) rather than the string: a reader that
// keeps many references keeps 4 bytes for each, not a string header.
func (r *Reader) StrID() uint32 {
	id := r.Uint()
	if r.err != nil {
		return 0
	}
	if id >= uint64(len(r.strs)) {
		r.fail()
		return 0
	}
	return uint32(id)
}

// StrAt returns the string at position id of the table, "" when there is
// none.
func (r *Reader) StrAt(id uint32) string {
	if int(id) >= len(r.strs) {
		return ""
	}
	return r.strs[id]
}
