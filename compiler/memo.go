package compiler

import (
	"crypto/sha256"
	"encoding/binary"
	"io"
	"sync/atomic"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/lru"
	"github.com/rlmc-dev/rlmc/ir"
)

// A memo answers a request its Compiler has answered before with that
// compile's result. A compile is a function of the catalog, the host
// policy and the request, all three fixed for a Compiler, so the answer
// is the one a compile would give, to the byte; and the same request does
// come again: a retry, a team's "run the tests", the same prompt from
// many agents. What a compile reads besides them is the bodies it puts in
// the prompt, and those are read and checked against their digests again
// at each answer, as a compile does: a body the prompt holds that changed
// on disk is never answered from memory (the compile that follows says
// body_changed). A compile reads no other body once the catalog has
// counted its tokens, and neither does the memo.
//
// Results a memo gives are shared between the requests it answers: a host
// that turns one on (LiveOptions.Memo) reads them and never changes them.
type memo struct {
	kept *lru.Cache[memoKey, memoized]
	hits *atomic.Uint64 // counts the answers it gave; nil: none
}

// memoKey is the SHA-256 of a request's fields (keyOf).
type memoKey [sha256.Size]byte

type memoized struct {
	res *Result
	// inline holds the units whose bodies res's prompt holds.
	inline []*ir.Unit
	cost   int
}

// memoMaxBytes bounds what one kept result may hold (memoCost): results
// of large requests (a long task, a high budget, AllRejected over a large
// catalog, many names) are compiled each time, and n kept results hold
// at most n x memoMaxBytes.
const memoMaxBytes = 64 << 10

// memoEntryBytes is what memoCost counts for each entry of a result's
// lists beside the text it holds.
const memoEntryBytes = 256

// newMemo returns a memo of the n results last used, counting its answers
// in hits (when not nil); nil when n < 1.
func newMemo(n int, hits *atomic.Uint64) *memo {
	if n < 1 {
		return nil
	}
	return &memo{kept: lru.New[memoKey](n, n*memoMaxBytes, func(e memoized) int { return e.cost }), hits: hits}
}

// keyOf returns req's key, and false when the memo is off or req is one
// it does not keep: one whose Carried is a function, which no key can
// hold, or whose text alone is over memoMaxBytes.
func (m *memo) keyOf(req *Request) (memoKey, bool) {
	if m == nil || req.Carried != nil || requestBytes(req) > memoMaxBytes {
		return memoKey{}, false
	}
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	number := func(v int64) { h.Write(n[:binary.PutVarint(n[:], v)]) }
	field := func(s string) {
		number(int64(len(s)))
		io.WriteString(h, s)
	}
	list := func(ss []string) {
		number(int64(len(ss)))
		for _, s := range ss {
			field(s)
		}
	}
	field(req.Task)
	list(req.Select)
	list(req.Deny)
	number(int64(req.Budget))
	field(req.Tokenizer)
	list(req.Why)
	if req.AllRejected {
		number(1)
	} else {
		number(0)
	}
	var k memoKey
	h.Sum(k[:0])
	return k, true
}

// requestBytes is the text of req: a result may hold any of it (evidence
// words are pieces of the task, and hold all of it).
func requestBytes(req *Request) int {
	n := len(req.Task) + len(req.Tokenizer)
	for _, ss := range [][]string{req.Select, req.Deny, req.Why} {
		for _, s := range ss {
			n += len(s)
		}
	}
	return n
}

// memoCost counts the bytes res, compiled for req, holds: req's text, the
// prompt, and for each entry of its lists (selected and rejected units,
// reasons, evidence, events, diagnostics) memoEntryBytes and the text it
// holds. It counts high where results share memory (a catalog's strings,
// pieces of the task): the bound is what matters. Evidence grows with the
// task, about 350 KB of it for a task of 20 KB over 1,000 skills, which
// the count of entries alone put at 61 KB.
func memoCost(req *Request, res *Result) int {
	n := memoEntryBytes + requestBytes(req) + len(res.Prompt) + memoEntryBytes*(len(res.Unlisted)+len(res.Ambiguous)+len(res.Ranking))
	reasons := func(rs []Reason) {
		for _, r := range rs {
			n += memoEntryBytes + len(r.Detail)
		}
	}
	evidence := func(es []Evidence) {
		for _, e := range es {
			n += memoEntryBytes + len(e.Field) + len(e.Source) + len(e.Kind)
			for _, ss := range [][]string{e.Terms, e.Words} {
				for _, s := range ss {
					n += 16 + len(s)
				}
			}
		}
	}
	for _, s := range res.Selected {
		n += memoEntryBytes
		reasons(s.Reasons)
		evidence(s.Evidence)
	}
	for _, r := range res.Rejected {
		n += memoEntryBytes
		reasons(r.Reasons)
		evidence(r.Evidence)
	}
	for _, e := range res.Events {
		n += memoEntryBytes + len(e.Detail) + len(e.Args)
		evidence(e.Evidence)
	}
	for _, d := range res.Diagnostics {
		n += memoEntryBytes + len(d.Message)
	}
	return n
}

// answer returns the result kept for key, when its inline bodies are
// still those on disk; one that changed is forgotten, and the compile
// that follows reports it.
func (m *memo) answer(key memoKey) (*Result, bool) {
	e, ok := m.kept.Get(key)
	if !ok {
		return nil, false
	}
	for _, u := range e.inline {
		if _, err := loader.ReadBody(u); err != nil {
			m.kept.Remove(key)
			return nil, false
		}
	}
	if m.hits != nil {
		m.hits.Add(1)
	}
	return e.res, true
}

// keep remembers res, compiled for req (whose key is key), with the units
// whose bodies its prompt holds; a result over memoMaxBytes is not kept.
func (m *memo) keep(key memoKey, req *Request, res *Result, rd *rendered) {
	if cost := memoCost(req, res); cost <= memoMaxBytes {
		m.kept.Put(key, memoized{res: res, inline: rd.inline, cost: cost})
	}
}
