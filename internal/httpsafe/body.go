package httpsafe

import (
	"errors"
	"io"
	"math"
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

// NewBudgetOf returns a budget of count bodies of at most each bytes,
// saturated at the largest int64: a bound a user sets as high as it goes
// to mean "no limit" (--max-inflight, --max-body) must not wrap the
// product to a negative budget that refuses every body. Counts and sizes
// below one make an empty budget.
func NewBudgetOf(count, each int64) *Budget {
	if count <= 0 || each <= 0 {
		return NewBudget(0)
	}
	if count > math.MaxInt64/each {
		return NewBudget(math.MaxInt64)
	}
	return NewBudget(count * each)
}

func (b *Budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// Left returns the bytes of the budget no body holds now.
func (b *Budget) Left() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left
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
	// ErrBodyCut is a body that ended before its declared length, or a
	// chunked body cut before its last chunk: the client went away, or
	// sent less than it said.
	ErrBodyCut = errors.New("the request body ended before its declared end")
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

// budgetStep is how much of a budget a body takes at a time: a body holds
// the budget for what it has sent, not for what it declares, so a client
// that declares a large body and stalls holds little.
const budgetStep = 256 << 10

// ReadBody reads r's body whole: at most limit bytes, within timeout of
// the call, holding its bytes in b (nil means no budget) as they arrive.
// It returns the body and a release that gives its bytes back to b, to
// call once the body is no longer held; release is never nil and may be
// called more than once. The connection's read deadline is cleared
// afterwards, so that a handler streaming an answer for minutes is not
// cut by it.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration, b *Budget) (body []byte, release func(), err error) {
	var (
		mu   sync.Mutex
		held int64
	)
	release = func() {
		mu.Lock()
		defer mu.Unlock()
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
			release()
			// The rest of a body not read is not read after the answer
			// either (net/http would wait for up to 256 KiB of it from
			// a client that may be stalling): the connection closes.
			w.Header().Set("Connection", "close")
		}
	}()
	reserve := func(n int64) error {
		if b == nil {
			return nil
		}
		if !b.take(n) {
			return ErrBodyBusy
		}
		mu.Lock()
		held += n
		mu.Unlock()
		return nil
	}
	src := io.LimitReader(cutReader{r.Body}, min(limit, math.MaxInt64-1)+1) // limit+1 overflows at MaxInt64
	body, charged, err := readPieces(src, limit, r.ContentLength, reserve, readError)
	if err != nil {
		return nil, release, err
	}
	// net/http holds a body to its Content-Length; a reader that does
	// not is refused all the same.
	switch total := int64(len(body)); {
	case r.ContentLength >= 0 && total < r.ContentLength:
		return nil, release, ErrBodyCut
	case r.ContentLength >= 0 && total > r.ContentLength:
		return nil, release, ErrBodyTooLarge
	}
	if spare := charged - int64(len(body)); b != nil && spare > 0 {
		mu.Lock()
		held -= spare
		mu.Unlock()
		b.give(spare)
	}
	return body, release, nil
}

// readPieces reads src to its end, at most limit bytes, and returns what
// it read, how many bytes it charged (reserve) for it, and the first
// error: reserve's, ErrBodyTooLarge past limit, or the read's, through
// readErr. declared is the length the sender declared, or -1: the
// pieces are sized to it, and the caller tells a body that differs.
// The body is read in pieces of at most budgetStep, each allocated
// and charged as its bytes are about to arrive, and joined once
// whole: a buffer of the declared size, made up front, was resident
// at once whenever the heap reused memory (which Go zeroes), so a
// client declaring 32 MiB and sending 12 bytes held 32 MiB. No buffer
// grows by doubling either (each outgrown one would be garbage the
// budget does not see). The join holds a body twice for as long as
// the copy takes, once it has all arrived.
func readPieces(src io.Reader, limit, declared int64, reserve func(int64) error, readErr func(error) error) (body []byte, charged int64, err error) {
	var pieces [][]byte
	total := int64(0)
	for {
		// A piece takes what is left of a declared body, one of
		// undeclared length pieces that start small, for the many short
		// bodies, and double up to budgetStep; never more than the
		// limit leaves, plus one byte, which takes no budget, to see a
		// body longer than the limit or than declared.
		size := int64(budgetStep)
		switch {
		case declared >= 0:
			size = min(size, declared-total+1)
		case len(pieces) < 5:
			size = 8 << 10 << len(pieces)
		}
		size = max(min(size, limit-total+1), 1)
		charge := min(size, limit-total)
		if declared >= 0 {
			charge = min(charge, declared-total)
		}
		if err := reserve(charge); err != nil {
			return nil, charged, err
		}
		charged += charge
		piece := make([]byte, size)
		m, rerr := io.ReadFull(src, piece)
		if m > 0 {
			pieces = append(pieces, piece[:m:m])
			total += int64(m)
		}
		if total > limit {
			return nil, charged, ErrBodyTooLarge
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return nil, charged, readErr(rerr)
		}
	}
	switch len(pieces) {
	case 0:
		return []byte{}, charged, nil
	case 1:
		return pieces[0], charged, nil
	}
	body = make([]byte, 0, total)
	for _, p := range pieces {
		body = append(body, p...)
	}
	return body, charged, nil
}

// Refusing prepares the answer to a request whose body was refused with
// status. For 413 and 503 (its size, no room in the bodies' budget) the
// client may still be sending the body, and, told to close, the
// connection closed under it: it met a broken pipe and never read the
// refusal (42 of 54 uploads of 6 MB to a busy server). Then the function
// returned, to call once the refusal is written, sends it and reads and
// discards what the client still sends, at most lingerBytes within
// lingerTime, so that the refusal reaches it. For any other status, or a
// writer that cannot read while it writes, it does nothing.
func Refusing(w http.ResponseWriter, r *http.Request, status int) (after func()) {
	none := func() {}
	if status != http.StatusRequestEntityTooLarge && status != http.StatusServiceUnavailable {
		return none
	}
	rc := http.NewResponseController(w)
	if rc.EnableFullDuplex() != nil {
		return none
	}
	return func() {
		if rc.Flush() != nil || rc.SetReadDeadline(time.Now().Add(lingerTime)) != nil {
			return
		}
		io.CopyN(io.Discard, r.Body, lingerBytes)
	}
}

// lingerTime and lingerBytes bound what Refusing reads of a refused body:
// a client sends a few megabytes in that time on loopback or a LAN, and
// one sending more meets the closed connection as before.
const (
	lingerTime  = 2 * time.Second
	lingerBytes = 16 << 20
)

// cutReader reads a request body, telling a body cut short (net/http's
// io.ErrUnexpectedEOF) from one that ended, which io.ReadFull, reading
// one byte past a declared length, cannot: the cut body passed whole.
type cutReader struct{ r io.Reader }

func (c cutReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		err = ErrBodyCut
	}
	return n, err
}

// readError turns a read's deadline into ErrBodyTimeout.
func readError(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return ErrBodyTimeout
	}
	return err
}
