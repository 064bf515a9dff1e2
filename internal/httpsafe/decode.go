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

	"github.com/klauspost/compress/zstd"
)

// ErrEncoding is a request body in a Content-Encoding Decode does not
// read (br, or several encodings one over another).
var ErrEncoding = errors.New("a content encoding rlmc does not read")

// Decode returns a request body sent with Content-Encoding enc (as
// Encoding gives it) as the client wrote it: gzip, deflate (zlib, or raw
// deflate as some clients send it) or zstd, at most limit bytes decoded;
// more is ErrBodyTooLarge, so that a small body that decodes to gigabytes
// costs no more than a body of limit bytes. The decoded bytes are held in
// b as they come, as ReadBody holds a body's (ErrBodyBusy when b has no
// more), until release, which is never nil: a thousand bodies of a few
// kilobytes that each decode to the limit hold no more than b allows.
func Decode(enc string, body []byte, limit int64, b *Budget) (out []byte, release func(), err error) {
	var held int64
	release = func() {
		if b != nil && held > 0 {
			b.give(held)
			held = 0
		}
	}
	var r io.Reader
	switch strings.ToLower(enc) {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(body))
	case "deflate":
		if r, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
			r, err = flate.NewReader(bytes.NewReader(body)), nil
		}
	case "zstd":
		// The window a frame asks for is memory the budget does not
		// see: bounded as the common encoders' levels go.
		var d *zstd.Decoder
		if d, err = zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderLowmem(true)); err == nil {
			defer d.Close()
			r = d
		}
	default:
		return nil, release, fmt.Errorf("%w: %q", ErrEncoding, enc)
	}
	if err != nil {
		return nil, release, fmt.Errorf("%s body: %w", enc, err)
	}
	reserve := func(n int64) error {
		if b == nil {
			return nil
		}
		if !b.take(n) {
			return ErrBodyBusy
		}
		held += n
		return nil
	}
	out, charged, err := readPieces(r, limit, -1, reserve, func(rerr error) error { return fmt.Errorf("%s body: %w", enc, rerr) })
	if err != nil {
		release()
		return nil, release, err
	}
	if spare := charged - int64(len(out)); b != nil && spare > 0 {
		held -= spare
		b.give(spare)
	}
	return out, release, nil
}

// maxZstdWindow bounds the window of a zstd body's frames: 8 MiB, what
// zstd's levels up to 19 use.
const maxZstdWindow = 8 << 20
