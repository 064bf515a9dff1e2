package compiler

import (
	"crypto/sha256"
	"encoding/binary"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

// A memo answers a request its Compiler has answered before with that
// compile's result. A compile is a function of the catalog, the host
// policy and the request, all three fixed for a Compiler, so the answer
// is the one a compile would give, to the byte; and the same request does
// come again: a retry, each turn of an agent loop that the proxy compiles
// again, a team's "run the tests". What a compile reads besides them is
// the bodies it puts in the prompt, and those are read and checked against
// their digests again at each answer, as a compile does: a SKILL.md
// changed on disk is never answered from memory (the compile that follows
// says body_changed).
//
// Results a memo gives are shared between the requests it answers: a host
// that turns one on (LiveOptions.Memo) reads them and never changes them.
type memo struct {
	lru *lru.Cache[memoKey, memoized]
}

// memoKey is the SHA-256 of a request's fields (memoKeyOf): holding
// whole tasks, of up to MaxTaskBytes each, would make the memo's size
// its callers' to choose.
type memoKey [sha256.Size]byte

type memoized struct {
	res *Result
	// inline holds the units whose bodies res's prompt holds.
	inline []*ir.Unit
}

// memoMaxBytes bounds the size of a result a memo keeps, counted as its
// prompt's bytes and memoEntryBytes for each rejected unit it lists: a
// budget set high, or AllRejected over a large catalog, makes results
// of megabytes, and n of them would be the memory of a server's n
// requests.
const (
	memoMaxBytes   = 64 << 10
	memoEntryBytes = 256
)

// newMemo returns a memo of the n results last used; nil when n < 1.
func newMemo(n int) *memo {
	if n < 1 {
		return nil
	}
	c, err := lru.New[memoKey, memoized](n)
	if err != nil {
		return nil // only for n < 1
	}
	return &memo{lru: c}
}

// keyOf returns req's key, and false when the memo is off or req is one
// it does not keep: one whose Carried is a function, which no key can
// hold.
func (m *memo) keyOf(req *Request) (memoKey, bool) {
	if m == nil || req.Carried != nil {
		return memoKey{}, false
	}
	var b []byte
	field := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	list := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			field(s)
		}
	}
	field(req.Task)
	list(req.Select)
	list(req.Deny)
	b = binary.AppendVarint(b, int64(req.Budget))
	field(req.Tokenizer)
	list(req.Why)
	if req.AllRejected {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return sha256.Sum256(b), true
}

// answer returns the result kept for key, when its inline bodies are
// still those on disk; one that changed is forgotten, and the compile
// that follows reports it.
func (m *memo) answer(key memoKey) (*Result, bool) {
	e, ok := m.lru.Get(key)
	if !ok {
		return nil, false
	}
	for _, u := range e.inline {
		if _, err := loader.ReadBody(u); err != nil {
			m.lru.Remove(key)
			return nil, false
		}
	}
	return e.res, true
}

// keep remembers res, compiled for key, with the units whose bodies its
// prompt holds; a result over memoMaxBytes is not kept.
func (m *memo) keep(key memoKey, res *Result, rd *rendered) {
	if len(res.Prompt)+memoEntryBytes*len(res.Rejected) > memoMaxBytes {
		return
	}
	m.lru.Add(key, memoized{res: res, inline: rd.inline})
}
