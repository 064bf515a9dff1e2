package httpsafe

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ErrEncoding is a request body in a Content-Encoding Decode does not
// read (br, or several encodings one over another).
var ErrEncoding = errors.New("a content encoding rlmc does not read")

// Decode returns a request body sent with Content-Encoding enc (as
// Encoding gives it) as the client wrote it: gzip, deflate (zlib, or raw
// deflate as some clients send it) or zstd, at most limit bytes decoded;
// more is ErrBodyTooLarge, so that a small body that decodes to gigabytes
// costs no more than a body of limit bytes.
func Decode(enc string, body []byte, limit int64) ([]byte, error) {
	var (
		r   io.Reader
		err error
	)
	switch strings.ToLower(enc) {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(body))
	case "deflate":
		if r, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
			r, err = flate.NewReader(bytes.NewReader(body)), nil
		}
	case "zstd":
		var d *zstd.Decoder
		if d, err = zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max(limit, 0))+1)); err == nil {
			defer d.Close()
			r = d
		}
	default:
		return nil, fmt.Errorf("%w: %q", ErrEncoding, enc)
	}
	if err != nil {
		return nil, fmt.Errorf("%s body: %w", enc, err)
	}
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s body: %w", enc, err)
	case int64(len(out)) > limit:
		return nil, ErrBodyTooLarge
	}
	return out, nil
}

// Take holds n bytes of b for a body the caller holds besides what
// ReadBody read (the body it decodes to), and returns the release that
// gives them back; false when b has not that many left. A nil budget
// holds everything.
func (b *Budget) Take(n int64) (release func(), ok bool) {
	if b == nil {
		return func() {}, true
	}
	if !b.take(n) {
		return nil, false
	}
	var once sync.Once
	return func() { once.Do(func() { b.give(n) }) }, true
}
