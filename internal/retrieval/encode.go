package retrieval

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/internal/binenc"
	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/ir"
)

// Encode appends the index to w, for a persistent cache: every table that
// Build computes, but not the catalog, which the cache keeps on its own
// and Decode is given back. TestEncodeRoundTrip checks that Decode gives
// back an index equal to Build's in every field, unexported ones included,
// so a field added to Index without a place here fails it.
func (ix *Index) Encode(w *binenc.Writer) {
	w.Uint(uint64(len(ix.units)))
	w.Uint(uint64(ix.cjkUnits))
	encodeTable(w, maps.All(ix.postings.m), strings.Compare, w.Strs, putPostings)
	w.Count(len(ix.phrases), ix.phrases == nil)
	for _, ph := range ix.phrases {
		w.Int(int64(ph.unit))
		w.Int(int64(ph.kind))
		w.Strs(ph.stems)
		w.Float64(ph.weight)
		w.Str(ph.text)
	}
	ix.phraseSeqs.encode(w)
	encodeTable(w, ix.bigrams.t.all(), compareBigrams, func(gs []bigram) {
		w.Uint(uint64(len(gs)))
		for _, g := range gs {
			w.Str(g[0])
			w.Str(g[1])
		}
	}, putUnits)
	ix.objects.encode(w)
	ix.actions.encode(w)
	encodeLists(w, ix.unitObjects)
	encodeLists(w, ix.unitActions)
	ix.wholeNames.encode(w)
	w.Strs(ix.nameUnits)
	encodeLists(w, ix.aliases)
	EncodeDiagnostics(w, ix.diags)
}

// EncodeDiagnostics appends ds to w, for the caches: the index's and the
// catalog's.
func EncodeDiagnostics(w *binenc.Writer, ds ir.Diagnostics) {
	w.Count(len(ds), ds == nil)
	for _, d := range ds {
		w.Str(d.Root)
		w.Str(d.Path)
		w.Int(int64(d.Line))
		w.Str(string(d.Code))
		w.Str(string(d.Severity))
		w.Str(d.Message)
	}
}

// DecodeDiagnostics reads what EncodeDiagnostics wrote.
func DecodeDiagnostics(r *binenc.Reader) ir.Diagnostics {
	n, isNil := r.Count()
	if isNil {
		return nil
	}
	ds := make(ir.Diagnostics, n)
	for i := range ds {
		ds[i] = ir.Diagnostic{Root: r.Str(), Path: r.Str(), Line: int(r.Int()), Code: ir.Code(r.Str()), Severity: ir.Severity(r.Str()), Message: r.Str()}
	}
	return ds
}

// Decode reads an index that Encode wrote for a catalog equal to cat, and
// links it to cat. It fails, never panics, on input Encode did not write
// or that does not fit cat.
func Decode(r *binenc.Reader, cat *ir.Catalog) (*Index, error) {
	ix, err := DecodeLazy(r, cat)
	if err != nil {
		return nil, err
	}
	var ok1, ok2 bool
	var grams map[bigram][]int32
	ix.postings.m, ok1 = ix.postings.lz.all()
	grams, ok2 = ix.bigrams.lz.all()
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("decoding the index: %w", binenc.ErrCorrupt)
	}
	keys := slices.Collect(maps.Keys(grams))
	ix.bigrams.t = bigramTableOf(keys, func(i int) []int32 { return grams[keys[i]] })
	ix.postings.lz, ix.bigrams.lz = nil, nil
	return ix, nil
}

// DecodeLazy is Decode leaving the postings and bigram lists as encoded,
// each decoded when a compile first asks for it: a start from a cache
// reads a few of them. From a shared reader (binenc.NewSharedReader) the
// index keeps slices of the reader's input. A list that turns out not to
// decode is empty: the caller checksums what it reads.
func DecodeLazy(r *binenc.Reader, cat *ir.Catalog) (*Index, error) {
	u, err := DecodeUnbound(r)
	if err != nil {
		return nil, err
	}
	return u.Bind(cat)
}

// Unbound is an index DecodeUnbound decoded, not yet bound to its
// catalog.
type Unbound struct {
	ix    *Index
	units int
}

// DecodeUnbound is the part of DecodeLazy that needs no catalog: a start
// from the cache runs it while the catalog loads, then binds the index
// to the catalog loaded.
func DecodeUnbound(r *binenc.Reader) (u *Unbound, err error) {
	defer func() {
		// The reader bounds every length; an index that decodes but does
		// not fit its own tables must not take the process down either.
		if v := recover(); v != nil {
			u, err = nil, fmt.Errorf("decoding the index: %v: %w", v, binenc.ErrCorrupt)
		}
	}()
	ix := &Index{}
	units := r.Len()
	if ix.cjkUnits = r.Len(); ix.cjkUnits > units {
		r.Fail()
	}
	ix.postings.lz = readTable(r, r.Strs(), func(t string) string { return t }, strings.Compare, decodePostings, units)
	if n, isNil := r.Count(); !isNil {
		ix.phrases = make([]phrase, n)
	}
	for i := range ix.phrases {
		ix.phrases[i] = phrase{unit: int32(r.Int()), kind: field(r.Int()), stems: r.Strs(), weight: r.Float64(), text: r.Str()}
	}
	ix.phraseSeqs = decodeSeqMatcher(r)
	grams := make([]uint64, r.Len())
	for i := range grams {
		grams[i] = uint64(r.StrID())<<32 | uint64(r.StrID())
	}
	gram := func(k uint64) bigram { return bigram{r.StrAt(uint32(k >> 32)), r.StrAt(uint32(k))} }
	ix.bigrams.lz = readTable(r, grams, gram, compareBigrams, decodeUnits, units)
	ix.objects, ix.actions = decodeKeySet(r), decodeKeySet(r)
	ix.unitObjects, ix.unitActions = decodeLists(r), decodeLists(r)
	ix.wholeNames = decodeSeqMatcher(r)
	ix.nameUnits = r.Strs()
	ix.aliases = decodeLists(r)
	ix.diags = DecodeDiagnostics(r)
	ix.phraseSeqs.checkEnds(r, len(ix.phrases))
	ix.objects.seqs.checkEnds(r, len(ix.objects.keys))
	ix.actions.seqs.checkEnds(r, len(ix.actions.keys))
	ix.wholeNames.checkEnds(r, len(ix.nameUnits))
	for _, ph := range ix.phrases {
		if ph.unit < 0 || int(ph.unit) >= units {
			r.Fail()
		}
	}
	if len(ix.aliases) != units || len(ix.unitObjects) != units || len(ix.unitActions) != units {
		r.Fail()
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("decoding the index: %w", err)
	}
	return &Unbound{ix: ix, units: units}, nil
}

// Bind binds the index to cat, the catalog it was built over; an index
// of another count of units is corrupt. Bind is called once.
func (u *Unbound) Bind(cat *ir.Catalog) (*Index, error) {
	ix := u.ix
	ix.place(cat)
	if len(ix.units) != u.units {
		return nil, fmt.Errorf("decoding the index: %d units, the catalog indexes %d: %w", u.units, len(ix.units), binenc.ErrCorrupt)
	}
	return ix, nil
}

func encodeLists(w *binenc.Writer, lists [][]string) {
	w.Count(len(lists), lists == nil)
	for _, l := range lists {
		w.Strs(l)
	}
}

func decodeLists(r *binenc.Reader) [][]string {
	n, isNil := r.Count()
	if isNil {
		return nil
	}
	out := make([][]string, n)
	for i := range out {
		out[i] = r.Strs()
	}
	return out
}

func (k *keySet) encode(w *binenc.Writer) {
	w.Strs(k.keys)
	k.seqs.encode(w)
}

func decodeKeySet(r *binenc.Reader) *keySet {
	k := &keySet{keys: r.Strs()}
	k.ids = make(map[string]int32, len(k.keys))
	for i, key := range k.keys {
		k.ids[key] = int32(i)
	}
	k.seqs = decodeSeqMatcher(r)
	return k
}

// encode writes a built matcher: its states, not its patterns, so that
// decoding makes no state twice.
func (m *seqMatcher) encode(w *binenc.Writer) {
	w.Int32s(m.first)
	w.Uint(uint64(len(m.kids)))
	for _, k := range m.kids {
		w.Str(k.word)
		w.Int(int64(k.to))
	}
	w.Int32s(m.fail)
	w.Int32s(m.dict)
	w.Int32s(m.depth)
	w.Count(len(m.ends), m.ends == nil)
	for _, e := range m.ends {
		w.Int32s(e)
	}
}

func decodeSeqMatcher(r *binenc.Reader) *seqMatcher {
	m := &seqMatcher{first: r.Int32s()}
	m.kids = make([]seqKid, r.Len())
	for i := range m.kids {
		m.kids[i] = seqKid{word: r.Str(), to: int32(r.Int())}
	}
	m.fail, m.dict, m.depth = r.Int32s(), r.Int32s(), r.Int32s()
	k, isNil := r.Count()
	if !isNil {
		m.ends = make([][]int32, k)
		for i := range m.ends {
			m.ends[i] = r.Int32s()
		}
	}
	states := len(m.fail)
	if states == 0 || len(m.dict) != states || len(m.depth) != states || len(m.ends) != states {
		r.Fail()
		return m
	}
	// Every state's edges lie in order in kids, sorted by word (next
	// searches them), and lead to a state.
	if len(m.first) != states+1 || m.first[0] != 0 || int(m.first[states]) != len(m.kids) {
		r.Fail()
		return m
	}
	for s := range states {
		if m.first[s] > m.first[s+1] {
			r.Fail()
			return m
		}
		kids := m.kids[m.first[s]:m.first[s+1]]
		for i, k := range kids {
			if k.to <= 0 || int(k.to) >= states || i > 0 && kids[i-1].word >= k.word {
				r.Fail()
			}
		}
	}
	for s := range states {
		if m.fail[s] < 0 || int(m.fail[s]) >= states || m.dict[s] < -1 || int(m.dict[s]) >= states {
			r.Fail()
		}
	}
	return m
}

// checkEnds fails r unless every pattern id of m is below n.
func (m *seqMatcher) checkEnds(r *binenc.Reader, n int) {
	for _, ids := range m.ends {
		for _, id := range ids {
			if id < 0 || int(id) >= n {
				r.Fail()
			}
		}
	}
}

// Bag is one unit's analysis (its terms counted per field, its bigrams,
// the phrases it quotes) with the aliases it was made with: the part of an
// index that depends on the unit alone, which a cache keeps so that a
// catalog where some units changed analyses only those (BuildWith).
type Bag struct {
	aliases []string
	b       bag
}

// Encode appends the bag to w.
func (bg *Bag) Encode(w *binenc.Writer) {
	w.Strs(bg.aliases)
	b := &bg.b
	w.Strs(b.terms)
	at := 0
	for _, mask := range b.fields {
		w.Uint(uint64(mask))
		for range bits.OnesCount8(mask) {
			w.Float32(b.counts[at])
			at++
		}
	}
	for _, l := range b.lens {
		w.Float32(l)
	}
	w.Count(len(b.grams), b.grams == nil)
	for i := range b.grams {
		g := b.gram(i)
		w.Str(g[0])
		w.Str(g[1])
	}
	w.Strs(b.quoted)
	w.Strs(b.notQuoted)
	w.Strs(b.useWhen)
}

// DecodeBag reads a bag that Encode wrote.
func DecodeBag(r *binenc.Reader) (*Bag, error) {
	bg := &Bag{aliases: r.Strs()}
	b := &bg.b
	b.terms = r.Strs()
	if b.terms != nil {
		b.fields, b.counts = make([]uint8, len(b.terms)), []float32{}
	}
	for i := range b.fields {
		mask := r.Uint()
		if mask >= 1<<numFields {
			r.Fail()
			break
		}
		b.fields[i] = uint8(mask)
		for range bits.OnesCount8(b.fields[i]) {
			b.counts = append(b.counts, r.Float32())
		}
	}
	for f := range b.lens {
		b.lens[f] = r.Float32()
	}
	n, isNil := r.Count()
	if !isNil {
		grams := make([]bigram, n)
		for i := range grams {
			grams[i] = bigram{r.Str(), r.Str()}
		}
		b.setGrams(grams)
	}
	b.quoted = r.Strs()
	b.notQuoted = r.Strs()
	b.useWhen = r.Strs()
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("decoding a bag: %w", err)
	}
	return bg, nil
}

// BuildWith is Build that takes each unit's analysis from reuse where it
// offers one made with the aliases the unit has in this catalog (reuse
// may be nil, and may return nil), and returns every indexed unit's bag
// by catalog position (nil for units not indexed). A unit's bag depends
// on the unit and its aliases only, so the index equals Build's exactly:
// the statistics that depend on the whole catalog (document frequencies,
// average field lengths, the name weights) are computed from the bags
// again, never carried over.
func BuildWith(cat *ir.Catalog, p *pulse.Pulse, reuse func(u *ir.Unit) *Bag) (*Index, []*Bag) {
	return build(cat, p, reuse, true)
}

// sameAliases reports whether a bag made with aliases a fits a unit whose
// usable aliases are b.
func sameAliases(a, b []string) bool { return slices.Equal(a, b) }
