package httpsafe

import (
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// Budget bounds the bytes of request bodies that all requests together
// hold while they are read and handled: without it, clients that each
// send most of a large body and stall hold memory in proportion to their
// number. It is safe for concurrent use.
type Budget struct {
	mu   sync.Mutex
	left int64
}

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget { return &Budget{left: n} }

func (b *Budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (b *Budget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

// Errors of ReadBody; each says what the client did, and BodyStatus maps
// it to the status to answer.
var (
	ErrBodyTooLarge = errors.New("the request body is over the size limit")
	ErrBodyTimeout  = errors.New("the request body did not arrive within the time limit")
	ErrBodyBusy     = errors.New("too many request bodies are being read at once")
)

// BodyStatus returns the HTTP status of a ReadBody error: 413, 408, 503
// for the errors above, 400 for any other (a body cut short).
func BodyStatus(err error) int {
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrBodyTimeout):
		return http.StatusRequestTimeout
	case errors.Is(err, ErrBodyBusy):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// budgetStep is how much of a budget a body takes at a time when its
// length is not declared.
const budgetStep = 256 << 10

// ReadBody reads r's body whole: at most limit bytes, within timeout of
// the call, holding its bytes in b (nil means no budget). It returns the
// body and a release that gives its bytes back to b, to call once the
// body is no longer held; release is never nil. The connection's read
// deadline is cleared afterwards, so that a handler streaming an answer
// for minutes is not cut by it.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration, b *Budget) (body []byte, release func(), err error) {
	var held int64
	release = func() {
		if b != nil && held > 0 {
			b.give(held)
			held = 0
		}
	}
	if r.ContentLength > limit {
		return nil, release, ErrBodyTooLarge
	}
	rc := http.NewResponseController(w)
	if timeout > 0 {
		// A writer that cannot set deadlines (a test's recorder) reads
		// without one; the server's own connections always can.
		if rc.SetReadDeadline(time.Now().Add(timeout)) == nil {
			defer func() {
				if err == nil {
					rc.SetReadDeadline(time.Time{})
				}
			}()
		}
	}
	defer func() {
		if err != nil {
			// The rest of a body not read is not read after the answer
			// either (net/http would wait for up to 256 KiB of it from
			// a client that may be stalling): the connection closes.
			w.Header().Set("Connection", "close")
		}
	}()
	reserve := func(n int64) bool {
		if b == nil {
			return true
		}
		if !b.take(n) {
			return false
		}
		held += n
		return true
	}
	size := r.ContentLength
	if size < 0 {
		size = min(budgetStep, limit)
	}
	if !reserve(size) {
		return nil, release, ErrBodyBusy
	}
	buf := make([]byte, 0, size+1) // +1: EOF is seen without growing
	src := io.LimitReader(r.Body, limit+1)
	for {
		if len(buf) == cap(buf) {
			more := min(max(int64(cap(buf)), budgetStep), limit+1-int64(cap(buf)))
			if more <= 0 {
				break
			}
			if !reserve(more) {
				release()
				return nil, release, ErrBodyBusy
			}
			buf = append(buf, make([]byte, more)...)[:len(buf)]
		}
		n, rerr := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			release()
			if errors.Is(rerr, os.ErrDeadlineExceeded) {
				return nil, release, ErrBodyTimeout
			}
			return nil, release, rerr
		}
	}
	if int64(len(buf)) > limit {
		release()
		return nil, release, ErrBodyTooLarge
	}
	return buf, release, nil
}
