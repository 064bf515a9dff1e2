package retrieval

import (
	"cmp"
	"encoding/binary"
	"iter"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/rlmc-dev/rlmc/internal/binenc"
)

// The index's two large tables, each term's postings and each bigram's
// units, are most of what a cache holds of an index, and a compile reads
// a handful of their lists: those of the task's terms and bigrams. So an
// index decoded from a cache (DecodeLazy) keeps them encoded, as written
// (the keys sorted, each list's offset in a fixed-width table, the lists
// one after another), and decodes a list when it is first asked for; an
// index built, or decoded whole (Decode), holds maps.

// postingMap maps a term to its postings, ascending by unit.
type postingMap struct {
	m  map[string][]posting
	lz *lazyLists[string, string, posting]
}

func (p *postingMap) get(t string) []posting {
	if p.lz == nil {
		return p.m[t]
	}
	return p.lz.get(t)
}

func (p *postingMap) has(t string) bool {
	if p.lz == nil {
		_, ok := p.m[t]
		return ok
	}
	return p.lz.find(t) >= 0
}

// bigramMap maps a bigram to its units, ascending. A catalog has as many
// distinct bigrams as postings nearly, so neither form keys them by their
// two strings: built or decoded whole, a table keyed by the two stems'
// ranks (bigramTable); decoded lazily, by their positions in the
// encoding's string table.
type bigramMap struct {
	t  *bigramTable
	lz *lazyLists[uint64, bigram, int32]
}

func (b *bigramMap) get(g bigram) []int32 {
	if b.lz == nil {
		return b.t.get(g)
	}
	return b.lz.get(g)
}

func (b *bigramMap) has(g bigram) bool {
	if b.lz == nil {
		return b.t.find(g) >= 0
	}
	return b.lz.find(g) >= 0
}

// bigramTable holds bigrams and their units in three flat arrays: each
// bigram's key (the ranks of its two stems among every stem of a bigram,
// in string order, packed in a uint64), ascending, and where its units
// start in one array of them all. A map from a pair of strings to a slice
// held about 45 bytes a bigram beside the 12 here, and a catalog of 5,000
// realistic skills has some 140,000 bigrams. The layout is canonical (it
// depends on the bigrams and their units only), so a table built and one
// decoded are equal.
type bigramTable struct {
	stems map[string]uint32 // a stem of some bigram -> its rank
	keys  []uint64
	at    []int32 // len(keys)+1
	units []int32
}

// newBigramTable makes the table of the bigrams keys, each two numbers of
// stems packed (the first in the high half), its units list(i); no two
// keys equal.
func newBigramTable(stems []string, keys []uint64, list func(int) []int32) *bigramTable {
	n := len(keys)
	t := &bigramTable{stems: make(map[string]uint32, len(stems)), keys: make([]uint64, n), at: make([]int32, n+1)}
	byName := make([]uint32, len(stems))
	for i := range byName {
		byName[i] = uint32(i)
	}
	slices.SortFunc(byName, func(a, b uint32) int { return strings.Compare(stems[a], stems[b]) })
	rank := make([]uint32, len(stems))
	for r, i := range byName {
		rank[i] = uint32(r)
		t.stems[stems[i]] = uint32(r)
	}
	ranked := make([]uint64, n) // keys by rank, in the order given
	order := make([]int32, n)
	total := 0
	for i, k := range keys {
		ranked[i] = uint64(rank[k>>32])<<32 | uint64(rank[uint32(k)])
		order[i] = int32(i)
		total += len(list(i))
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(ranked[a], ranked[b]) })
	t.units = make([]int32, 0, total)
	for j, i := range order {
		t.keys[j], t.at[j] = ranked[i], int32(len(t.units))
		t.units = append(t.units, list(int(i))...)
	}
	t.at[n] = int32(len(t.units))
	return t
}

// bigramTableOf makes the table of the bigrams grams and their units.
func bigramTableOf(grams []bigram, list func(int) []int32) *bigramTable {
	var stems numbering
	keys := make([]uint64, len(grams))
	for i, g := range grams {
		keys[i] = stems.pair(g)
	}
	return newBigramTable(stems.names, keys, list)
}

// numbering numbers strings in the order they first come.
type numbering struct {
	ids   map[string]uint32
	names []string // by number
}

func (n *numbering) id(s string) uint32 {
	k, ok := n.ids[s]
	if !ok {
		if n.ids == nil {
			n.ids = map[string]uint32{}
		}
		k = uint32(len(n.names))
		n.ids[s] = k
		n.names = append(n.names, s)
	}
	return k
}

// pair is g as its two stems' numbers, packed as newBigramTable keys them.
func (n *numbering) pair(g bigram) uint64 { return uint64(n.id(g[0]))<<32 | uint64(n.id(g[1])) }

// find returns the position of g's key, or -1.
func (t *bigramTable) find(g bigram) int {
	if t == nil {
		return -1
	}
	a, ok := t.stems[g[0]]
	if !ok {
		return -1
	}
	b, ok := t.stems[g[1]]
	if !ok {
		return -1
	}
	i, ok := slices.BinarySearch(t.keys, uint64(a)<<32|uint64(b))
	if !ok {
		return -1
	}
	return i
}

func (t *bigramTable) get(g bigram) []int32 {
	i := t.find(g)
	if i < 0 {
		return nil
	}
	from, to := t.at[i], t.at[i+1]
	return t.units[from:to:to]
}

// all yields every bigram and its units, in compareBigrams order.
func (t *bigramTable) all() iter.Seq2[bigram, []int32] {
	return func(yield func(bigram, []int32) bool) {
		if t == nil {
			return
		}
		byRank := make([]string, len(t.stems))
		for s, r := range t.stems {
			byRank[r] = s
		}
		for i, k := range t.keys {
			from, to := t.at[i], t.at[i+1]
			if !yield(bigram{byRank[k>>32], byRank[uint32(k)]}, t.units[from:to:to]) {
				return
			}
		}
	}
}

func compareBigrams(a, b bigram) int {
	if c := strings.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return strings.Compare(a[1], b[1])
}

// lazyLists holds lists as encoded, keyed by K and looked up by T: keys
// sorted, offs[i] the start of key i's list in data (offs[len(keys)] its
// end), each list decoded by decode on first use and kept. It is safe for
// concurrent use.
type lazyLists[K, T comparable, V any] struct {
	keys   []K
	key    func(K) T // the lookup key of a stored one
	offs   []byte    // len(keys)+1 little-endian uint32s
	data   []byte
	cmp    func(T, T) int
	decode func(data []byte, units int) ([]V, bool)
	units  int // a list naming a unit at or past it does not decode

	mu   sync.Mutex
	memo map[int32][]V
}

func (l *lazyLists[K, T, V]) off(i int) int { return int(binary.LittleEndian.Uint32(l.offs[4*i:])) }

// find returns the position of t, or -1.
func (l *lazyLists[K, T, V]) find(t T) int {
	i, ok := slices.BinarySearchFunc(l.keys, t, func(k K, t T) int { return l.cmp(l.key(k), t) })
	if !ok {
		return -1
	}
	return i
}

// list returns the encoding of list i, ok false when its offsets do not
// hold together.
func (l *lazyLists[K, T, V]) list(i int) ([]byte, bool) {
	from, to := l.off(i), l.off(i+1)
	if from > to || to > len(l.data) {
		return nil, false
	}
	return l.data[from:to], true
}

// get returns t's list, nil when there is none. A list that does not
// decode (which the file's checksum makes a bug, not damage) is empty.
func (l *lazyLists[K, T, V]) get(t T) []V {
	i := l.find(t)
	if i < 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if vs, ok := l.memo[int32(i)]; ok {
		return vs
	}
	data, ok := l.list(i)
	var vs []V
	if ok {
		vs, ok = l.decode(data, l.units)
	}
	if !ok {
		vs = []V{}
	}
	if l.memo == nil {
		l.memo = map[int32][]V{}
	}
	l.memo[int32(i)] = vs
	return vs
}

// all decodes every list into a map, false when one does not decode or
// the keys are not strictly ascending.
func (l *lazyLists[K, T, V]) all() (map[T][]V, bool) {
	m := make(map[T][]V, len(l.keys))
	for i, k := range l.keys {
		if i > 0 && l.cmp(l.key(l.keys[i-1]), l.key(k)) >= 0 {
			return nil, false
		}
		data, ok := l.list(i)
		var vs []V
		if ok {
			vs, ok = l.decode(data, l.units)
		}
		if !ok {
			return nil, false
		}
		m[l.key(k)] = vs
	}
	return m, true
}

// check reports whether the offsets table fits the keys and the lists;
// each list's own offsets are checked when it is read, and the keys'
// order by all (a table out of order answers lookups wrongly, never
// out of bounds, and the cache file's checksum stands against it).
func (l *lazyLists[K, T, V]) check() bool {
	return len(l.offs) == 4*(len(l.keys)+1) && l.off(0) == 0 && l.off(len(l.keys)) == len(l.data)
}

// encodeTable writes the lists of lists, sorted by key, with putKeys
// writing the keys and put each list.
func encodeTable[K comparable, V any](w *binenc.Writer, lists iter.Seq2[K, []V], cmp func(K, K) int, putKeys func([]K), put func([]byte, []V) []byte) {
	type entry struct {
		k  K
		vs []V
	}
	var es []entry
	for k, vs := range lists {
		es = append(es, entry{k, vs})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp(a.k, b.k) })
	keys := make([]K, len(es))
	for i, e := range es {
		keys[i] = e.k
	}
	putKeys(keys)
	offs := make([]byte, 0, 4*(len(keys)+1))
	var data []byte
	for _, e := range es {
		offs = binary.LittleEndian.AppendUint32(offs, uint32(len(data)))
		data = put(data, e.vs)
	}
	offs = binary.LittleEndian.AppendUint32(offs, uint32(len(data)))
	w.Raw(offs)
	w.Raw(data)
}

// readTable reads what encodeTable wrote, given its keys, leaving the
// lists encoded; nil when it is not laid out as written.
func readTable[K, T comparable, V any](r *binenc.Reader, keys []K, key func(K) T, cmp func(T, T) int, decode func([]byte, int) ([]V, bool), units int) *lazyLists[K, T, V] {
	l := &lazyLists[K, T, V]{keys: keys, key: key, offs: r.Raw(), data: r.Raw(), cmp: cmp, decode: decode, units: units}
	if r.Err() != nil || len(l.data) > math.MaxUint32 || !l.check() {
		r.Fail()
		return nil
	}
	return l
}

// A posting list: per posting, the unit's distance from the one before
// (uvarint), the fields byte and the saturated frequency's bits (4 bytes,
// little-endian).
func putPostings(data []byte, ps []posting) []byte {
	last := int32(0)
	for _, p := range ps {
		data = binary.AppendUvarint(data, uint64(p.unit-last))
		last = p.unit
		data = append(data, p.fields)
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(p.sat))
	}
	return data
}

func decodePostings(data []byte, units int) ([]posting, bool) {
	var out []posting
	last := uint64(0)
	for len(data) > 0 {
		d, n := binary.Uvarint(data)
		if n <= 0 || len(data) < n+5 {
			return nil, false
		}
		last += d
		if last >= uint64(units) {
			return nil, false
		}
		out = append(out, posting{unit: int32(last), fields: data[n], sat: math.Float32frombits(binary.LittleEndian.Uint32(data[n+1:]))})
		data = data[n+5:]
	}
	return slices.Clip(out), true
}

// A bigram's units: each one's distance from the one before (uvarint).
func putUnits(data []byte, us []int32) []byte {
	last := int32(0)
	for _, u := range us {
		data = binary.AppendUvarint(data, uint64(u-last))
		last = u
	}
	return data
}

func decodeUnits(data []byte, units int) ([]int32, bool) {
	var out []int32
	last := uint64(0)
	for len(data) > 0 {
		d, n := binary.Uvarint(data)
		if n <= 0 {
			return nil, false
		}
		last += d
		if last >= uint64(units) {
			return nil, false
		}
		out = append(out, int32(last))
		data = data[n:]
	}
	return slices.Clip(out), true
}
