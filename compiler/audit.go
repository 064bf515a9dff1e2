package compiler

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// AuditRecord is one line of the trajectory: what a compile decided and
// what it cost.
type AuditRecord struct {
	Time               time.Time          `json:"time"`
	Fingerprint        string             `json:"fingerprint,omitempty"`
	CatalogFingerprint string             `json:"catalog_fingerprint"`
	Decision           Decision           `json:"decision"` // or DecisionError
	Selected           []string           `json:"selected"`
	Bytes              int                `json:"bytes"`
	Tokens             int                `json:"tokens"`
	Rejected           map[ReasonCode]int `json:"rejected"`
	DurationMS         float64            `json:"duration_ms"`
	Error              *Error             `json:"error,omitempty"`
}

// Audit appends one JSON line per compile to a writer. Each line is written
// with a single Write under a lock, so lines never interleave, whatever the
// number of concurrent compiles.
type Audit struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewAudit returns an audit trail writing to w. With a nil w, every
// record fails to be written (an *AuditError), and compiles still run.
func NewAudit(w io.Writer) *Audit { return &Audit{w: w, now: time.Now} }

// errNoWriter is the record error of an audit trail with no writer.
var errNoWriter = errors.New("the audit trail has no writer: make it with NewAudit(w)")

// Compile runs c.Compile and records it. c is a *Compiler or a *Live; the
// record names the catalog the compile ran on (for a failed compile, the
// catalog current when it ended).
func (a *Audit) Compile(ctx context.Context, c Source, req Request) (*Result, error) {
	if c == nil {
		// No source is a host's mistake: answered (and recorded) as a
		// nil *Compiler answers it, not a panic.
		c = (*Compiler)(nil)
	}
	start := a.clock()
	res, err := c.Compile(ctx, req)
	rec := AuditRecord{Time: start.UTC(), Selected: []string{}, Rejected: map[ReasonCode]int{}}
	if res != nil {
		rec.CatalogFingerprint = res.CatalogFingerprint
	} else if cur := c.Current(); cur != nil {
		rec.CatalogFingerprint = cur.CatalogFingerprint()
	}
	rec.DurationMS = float64(a.clock().Sub(start).Microseconds()) / 1000
	if err != nil {
		rec.Decision = DecisionError
		if ce, ok := err.(*Error); ok {
			rec.Error = ce
		} else {
			rec.Error = &Error{Code: ErrInvalidRequest, Message: err.Error()}
		}
	} else {
		rec.Fingerprint, rec.Decision = res.Fingerprint, res.Decision
		rec.Selected, rec.Bytes, rec.Tokens = res.Names(), len(res.Prompt), res.Budget.Used
		rec.Rejected = res.RejectedCounts()
	}
	if werr := a.Record(rec); werr != nil {
		// A failed compile whose record was not written says both: the
		// trail misses a compile either way.
		return res, errors.Join(err, &AuditError{Err: werr})
	}
	return res, err
}

// AuditError is an audit record that could not be written. Compile
// returns it beside the compile's own error, if any (errors.Join), and
// with the result when the compile succeeded.
type AuditError struct{ Err error }

func (e *AuditError) Error() string { return "audit record not written: " + e.Err.Error() }
func (e *AuditError) Unwrap() error { return e.Err }

// Record writes one record as one line.
func (a *Audit) Record(rec AuditRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if a == nil || a.w == nil {
		return errNoWriter
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err = a.w.Write(line)
	return err
}

// clock returns the time now: a's clock, or the wall clock for an Audit
// NewAudit did not make.
func (a *Audit) clock() time.Time {
	if a == nil || a.now == nil {
		return time.Now()
	}
	return a.now()
}
