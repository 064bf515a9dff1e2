package retrieval

import (
	"slices"
	"strings"
)

// seqMatcher finds word sequences in a text of words: every occurrence of
// any of its patterns in one left-to-right pass (Aho-Corasick over words
// rather than bytes), or, over reversed patterns, the longest one starting
// at each word in one right-to-left pass. A
// pass costs time linear in the text plus the matches reported, however
// many patterns there are and however they overlap: trying every pattern at
// every word, as rlmc once did, let a long task or a catalog with thousands
// of phrases sharing a first word stall a compile.
type seqMatcher struct {
	// edges maps (state, word) to the next state while the matcher is
	// built; state 0 is the root. build then lays them out by state,
	// sorted by word (first, kids), and drops the map: a table a start
	// decodes from the cache in one pass, where rebuilding a map of every
	// edge took most of the index's decoding.
	edges map[seqEdge]int32
	first []int32   // the edges out of state s are kids[first[s]:first[s+1]]
	kids  []seqKid  // by state, then by word
	fail  []int32   // the state of the longest proper suffix that is also a prefix
	dict  []int32   // the nearest state on the fail chain that ends a pattern, or -1
	ends  [][]int32 // the ids of the patterns that end at each state, as added
	depth []int32   // words from the root
	up    []int32   // parent state, during build
	word  []string  // the word on the edge from the parent, during build
	// pending holds the patterns added since the last build: build makes
	// their states all at once, with every table sized for them, because
	// growing the tables a state at a time made most of the cost of
	// indexing a catalog with long trigger phrases.
	pending []pendingSeq
}

type pendingSeq struct {
	seq []string
	id  int32
}

type seqEdge struct {
	from int32
	word string
}

// seqKid is an edge out of a state: the word read and the state it leads to.
type seqKid struct {
	word string
	to   int32
}

func newSeqMatcher() *seqMatcher {
	return &seqMatcher{edges: map[seqEdge]int32{}, fail: []int32{0}, dict: []int32{-1}, ends: [][]int32{nil}, depth: []int32{0}, up: []int32{-1}, word: []string{""}}
}

// add records seq as pattern id. An empty sequence matches nothing and is
// ignored. Call build after the last add, and add nothing after it. The
// matcher keeps seq until build: the caller must not change it.
func (m *seqMatcher) add(seq []string, id int32) {
	if len(seq) > 0 {
		m.pending = append(m.pending, pendingSeq{seq, id})
	}
}

// insert makes seq's states, as pattern id.
func (m *seqMatcher) insert(seq []string, id int32) {
	s := int32(0)
	for _, w := range seq {
		n, ok := m.edges[seqEdge{s, w}]
		if !ok {
			n = int32(len(m.fail))
			m.edges[seqEdge{s, w}] = n
			m.fail, m.dict, m.ends = append(m.fail, 0), append(m.dict, -1), append(m.ends, nil)
			m.depth, m.up, m.word = append(m.depth, m.depth[s]+1), append(m.up, s), append(m.word, w)
		}
		s = n
	}
	m.ends[s] = append(m.ends[s], id)
}

// build computes the fail and dictionary links, shallowest states first:
// a state's links depend only on shallower states. It returns false, with
// the matcher unusable, when stop reports true; stop is called once per
// state and may be nil.
func (m *seqMatcher) build(stop func() bool) bool {
	words := 0
	for _, p := range m.pending {
		words += len(p.seq)
	}
	// A pattern makes at most one state per word: sized for that, no
	// table grows while the patterns are inserted.
	n := len(m.fail) + words
	edges := make(map[seqEdge]int32, len(m.edges)+words)
	for e, t := range m.edges {
		edges[e] = t
	}
	m.edges = edges
	m.fail, m.dict, m.ends = slices.Grow(m.fail, n-len(m.fail)), slices.Grow(m.dict, n-len(m.dict)), slices.Grow(m.ends, n-len(m.ends))
	m.depth, m.up, m.word = slices.Grow(m.depth, n-len(m.depth)), slices.Grow(m.up, n-len(m.up)), slices.Grow(m.word, n-len(m.word))
	for _, p := range m.pending {
		if stop != nil && stop() {
			return false
		}
		m.insert(p.seq, p.id)
	}
	m.pending = nil
	var maxDepth int32
	for _, d := range m.depth {
		maxDepth = max(maxDepth, d)
	}
	byDepth := make([][]int32, maxDepth+1)
	for s, d := range m.depth {
		byDepth[d] = append(byDepth[d], int32(s))
	}
	for d := int32(2); d <= maxDepth; d++ {
		for _, s := range byDepth[d] {
			if stop != nil && stop() {
				return false
			}
			m.fail[s] = m.step(m.fail[m.up[s]], m.word[s])
		}
	}
	for d := int32(1); d <= maxDepth; d++ {
		for _, s := range byDepth[d] {
			f := m.fail[s]
			if len(m.ends[f]) > 0 {
				m.dict[s] = f
			} else {
				m.dict[s] = m.dict[f]
			}
		}
	}
	m.up, m.word = nil, nil // only building needs them; an index lives long
	m.freeze()
	return true
}

// freeze lays the edges out by state, each state's sorted by word, and
// drops the map.
func (m *seqMatcher) freeze() {
	m.first = make([]int32, len(m.fail)+1)
	for e := range m.edges {
		m.first[e.from+1]++
	}
	for s := 1; s < len(m.first); s++ {
		m.first[s] += m.first[s-1]
	}
	m.kids = make([]seqKid, len(m.edges))
	next := slices.Clone(m.first[:len(m.fail)])
	for e, t := range m.edges {
		m.kids[next[e.from]] = seqKid{e.word, t}
		next[e.from]++
	}
	for s := range m.fail {
		slices.SortFunc(m.kids[m.first[s]:m.first[s+1]], func(a, b seqKid) int { return strings.Compare(a.word, b.word) })
	}
	m.edges = nil
}

// next is the state an edge out of s leads to on w, if there is one.
func (m *seqMatcher) next(s int32, w string) (int32, bool) {
	if m.edges != nil {
		n, ok := m.edges[seqEdge{s, w}]
		return n, ok
	}
	kids := m.kids[m.first[s]:m.first[s+1]]
	i, ok := slices.BinarySearchFunc(kids, w, func(k seqKid, w string) int { return strings.Compare(k.word, w) })
	if !ok {
		return 0, false
	}
	return kids[i].to, true
}

// step is the state after reading w in state s.
func (m *seqMatcher) step(s int32, w string) int32 {
	for {
		if n, ok := m.next(s, w); ok {
			return n
		}
		if s == 0 {
			return 0
		}
		s = m.fail[s]
	}
}

// scan reads words once and, after each word, calls visit with the word's
// index and each state that ends a pattern there, longest pattern first.
// When visit returns false the shorter patterns ending at that word are
// skipped: a caller that counts each pattern once stops at a state it has
// seen, whose shorter patterns it has seen too, and so the whole scan stays
// linear. scan stops early, returning false, when stop reports true; stop
// is called once per word and may be nil.
func (m *seqMatcher) scan(words []string, stop func() bool, visit func(end int, state int32) bool) bool {
	if len(m.fail) == 1 {
		return true // no patterns
	}
	s := int32(0)
	for i, w := range words {
		if stop != nil && stop() {
			return false
		}
		s = m.step(s, w)
		t := s
		if len(m.ends[t]) == 0 {
			t = m.dict[t]
		}
		for ; t > 0; t = m.dict[t] {
			if !visit(i, t) {
				break
			}
		}
	}
	return true
}

// longestFrom reads words once, from the last to the first, and returns
// for each index k the state ending the longest pattern that is a suffix of
// words[k:] read backwards, or -1. Built over reversed sequences, that is
// the longest sequence starting at word k, for every k in one pass: a walk
// down the patterns from each position would read as far as the longest
// pattern each time. It stops early, returning nil, when stop reports
// true; stop is called once per word and may be nil.
func (m *seqMatcher) longestFrom(words []string, stop func() bool) []int32 {
	out := make([]int32, len(words))
	s := int32(0)
	for k := len(words) - 1; k >= 0; k-- {
		if stop != nil && stop() {
			return nil
		}
		s = m.step(s, words[k])
		t := s
		if len(m.ends[t]) == 0 {
			t = m.dict[t]
		}
		if t <= 0 {
			t = -1 // the root ends no pattern
		}
		out[k] = t
	}
	return out
}
