package compiler

import (
	"cmp"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/rlmc-dev/rlmc/ir"
)

// field is a part of a unit that carries evidence.
type field int

const (
	fieldName field = iota
	fieldAlias
	fieldTrigger
	fieldDescription
	fieldWhenToUse
	fieldHeading
	fieldLead
	numFields
)

var fieldNames = [numFields]string{"name", "alias", "trigger", "description", "when_to_use", "heading", "lead"}

// Scoring constants. They are generic, documented in README.md, and tuned on
// the even-hash half of the benchmark cases only.
var (
	// fieldWeight scales a term's frequency by where it occurs (BM25F).
	fieldWeight = [numFields]float64{3.0, 2.5, 2.0, 1.0, 1.0, 0.5, 0.2}
	// fieldB is BM25's length normalization per field.
	fieldB = [numFields]float64{0.3, 0.3, 0.5, 0.3, 0.3, 0.75, 0.3}
)

// Scoring parameters. They are generic (no rule names a skill or a phrase),
// documented in README.md, and were calibrated on the even-hash half of the
// benchmark cases only.
const (
	// bm25K1 is BM25's term-frequency saturation.
	bm25K1 = 2.0
	// Phrase bonuses: the whole name, an alias, or a multi-word trigger
	// appears in the task as consecutive words.
	bonusName    = 6.0
	bonusAlias   = 5.0
	bonusTrigger = 3.0 // times weight/100
	// bonusBigram applies once per pair of consecutive task terms that also
	// appear consecutively in the unit's name, description, when_to_use or
	// triggers: word order is evidence a bag of words misses.
	bonusBigram = 1.5
	// penaltyNotWhen applies when the task matches one of the unit's own
	// negative triggers (Skill-Router not_when).
	penaltyNotWhen = 6.0
	// penaltyObjectMismatch applies when the task names objects that the
	// catalog's units declare (object triggers), the unit declares objects
	// too, and none of the unit's is among them: "check the css" is not a
	// job for a unit about prose, whatever else matches.
	penaltyObjectMismatch = 6.0
	// bonusObject and bonusAction apply once when the task names one of the
	// objects (object triggers) or actions (verb triggers) the unit declares.
	bonusObject = 0.75
	bonusAction = 0.375
	// Threshold is the evidence a unit needs to be selected from the task
	// alone.
	Threshold = 4.5
	// CandidateFloor is the evidence a unit needs to be put before the
	// policy at all: between it and Threshold a unit can only make a task
	// ambiguous, never be selected.
	CandidateFloor = 1.5
	// SupportFloor is the evidence a candidate below Threshold needs to be
	// selected anyway: as the best candidate at least twice the runner-up
	// (a clear margin), or beside a stronger selected candidate (a task
	// that asks for two things).
	SupportFloor = 2.0
	// TieRatio: a competing candidate scoring at least this percentage of
	// the best one makes the task ambiguous.
	TieRatio = 75
	// redundantShare: a candidate is redundant beside another when less
	// than this share of its evidence rests on task words the other's
	// evidence does not cover.
	redundantShare = 0.25
	// CandidateCap bounds the lexical candidates put before the policy; the
	// interpreter's cost grows with them.
	CandidateCap = 4
)

// posting is one unit's entry for a term. The BM25F saturation does not
// depend on the task, so it is computed once when the index is built.
type posting struct {
	unit   int32
	fields uint8   // bit f set when the term occurs in field f
	sat    float64 // saturated, field-weighted term frequency
}

// phrase is a multi-word (or name) pattern of a unit, matched as
// consecutive stems.
type phrase struct {
	unit   int32
	kind   field // fieldName, fieldAlias, fieldTrigger; or -1 for not_when
	stems  []string
	weight float64
	text   string
}

const notWhen field = -1

// index is the catalog's inverted index, built once per catalog.
type index struct {
	units []*ir.Unit // indexable units, by position
	ids   map[string]int32
	// byCatalog maps a catalog position to an index position, or -1: a
	// compile walks every catalog unit, and a slice beats a name lookup.
	byCatalog []int32
	postings  map[string][]posting
	// phrases are the units' phrases by id; phraseSeqs finds their stems
	// in a task.
	phrases    []phrase
	phraseSeqs *seqMatcher
	bigrams    map[bigram][]int32 // consecutive stems -> units, ascending
	// objects and actions hold every declared object and action (object
	// and verb triggers); unitObjects and unitActions list each unit's
	// keys.
	objects, actions         *keySet
	unitObjects, unitActions [][]string
	// wholeNames holds units' names and aliases as folded words, each
	// reversed, for negation: "do not use X" matches X as whole words,
	// unstemmed. A pattern's id is its position in nameUnits.
	wholeNames *seqMatcher
	nameUnits  []string
	// aliases are each unit's aliases less those that spell another
	// unit's name (see usableAliases), by position.
	aliases [][]string
}

// keySet is a catalog-wide table of declared phrases, each known by its
// key (its stems joined by spaces), matched against a task in one pass.
type keySet struct {
	seqs *seqMatcher
	keys []string         // by pattern id
	ids  map[string]int32 // key -> pattern id
}

func newKeySet() *keySet { return &keySet{seqs: newSeqMatcher(), ids: map[string]int32{}} }

// add records a phrase's stems and returns its key.
func (k *keySet) add(st []string) string {
	key := strings.Join(st, " ")
	if _, ok := k.ids[key]; !ok {
		id := int32(len(k.keys))
		k.ids[key] = id
		k.keys = append(k.keys, key)
		k.seqs.add(st, id)
	}
	return key
}

func stems(text string) []string {
	ws := Words(text)
	for i, w := range ws {
		ws[i] = Stem(w)
	}
	return ws
}

// buildIndex indexes cat's usable units. When p stops it returns early
// with an incomplete index, which the caller must discard: p.err says so.
func buildIndex(cat *ir.Catalog, p *pulse) *index {
	var (
		raw     = map[string][]rawPosting{}
		lengths [][numFields]float32 // per unit, per field, in terms
		avgLen  [numFields]float64
	)
	ix := &index{ids: map[string]int32{}, bigrams: map[bigram][]int32{}, objects: newKeySet(), actions: newKeySet(), phraseSeqs: newSeqMatcher(), wholeNames: newSeqMatcher()}
	ix.byCatalog = make([]int32, len(cat.Units))
	for i, u := range cat.Units {
		ix.byCatalog[i] = -1
		if u.Status == ir.StatusOK {
			ix.byCatalog[i] = int32(len(ix.units))
			ix.ids[u.Name] = int32(len(ix.units))
			ix.units = append(ix.units, u)
		}
	}
	names := nameKeys(cat)
	for _, u := range ix.units {
		ix.aliases = append(ix.aliases, usableAliases(u, names))
	}
	bags := bagsOf(ix.units, ix.aliases, p)
	// Sized from the bags, the catalog-wide tables never grow: growing
	// maps of millions of entries a step at a time cost more than filling
	// them.
	var nPostings, nGrams int
	for i := range bags {
		nPostings += len(bags[i].terms)
		nGrams += len(bags[i].grams)
	}
	raw = make(map[string][]rawPosting, nPostings)
	ix.bigrams = make(map[bigram][]int32, nGrams)
	for id, u := range ix.units {
		if p.now() {
			return ix
		}
		id := int32(id)
		addPhrase := func(f field, text string, weight float64) {
			s := stems(text)
			if len(s) == 0 || (f == fieldTrigger && len(s) < 2) || !hasContent(text) {
				return
			}
			ix.phraseSeqs.add(s, int32(len(ix.phrases)))
			ix.phrases = append(ix.phrases, phrase{unit: id, kind: f, stems: s, weight: weight, text: text})
		}
		nameText := nameWords(u)
		addPhrase(fieldName, nameText, 1)
		ix.addWhole(u.Name, u.Name)
		// A phrase counts once per unit: an alias or trigger that repeats
		// the name (or each other) adds no evidence.
		seenPhrase := map[string]bool{strings.Join(stems(nameText), " "): true}
		fresh := func(text string) bool {
			key := strings.Join(stems(text), " ")
			if seenPhrase[key] {
				return false
			}
			seenPhrase[key] = true
			return true
		}
		for _, a := range ix.aliases[id] {
			if fresh(a) {
				addPhrase(fieldAlias, a, 1)
			}
			ix.addWhole(u.Name, a)
		}
		for _, t := range u.Triggers {
			if fresh(t.Value) {
				addPhrase(fieldTrigger, t.Value, float64(float32(t.Weight)/ir.DefaultTriggerWeight))
			}
		}
		for _, n := range u.NegativeTriggers {
			addPhrase(notWhen, n, 1)
		}
		ix.unitObjects = append(ix.unitObjects, declare(ix.objects, u.Triggers, ir.TriggerObject))
		ix.unitActions = append(ix.unitActions, declare(ix.actions, u.Triggers, ir.TriggerVerb))
		b := &bags[id]
		for _, g := range b.grams {
			ix.bigrams[g] = append(ix.bigrams[g], id) // id ascends: units in order
		}
		for i, t := range b.terms {
			raw[t] = append(raw[t], rawPosting{unit: id, tf: b.tf[i]})
		}
		lengths = append(lengths, b.lens)
		for f := range b.lens {
			avgLen[f] += float64(b.lens[f])
		}
		*b = bag{} // its terms are in raw now: let the collector have the rest
	}
	for _, m := range []*seqMatcher{ix.phraseSeqs, ix.objects.seqs, ix.actions.seqs, ix.wholeNames} {
		if !m.build(p.stop) {
			return ix
		}
	}
	if !ix.nameObjects(p) {
		return ix
	}
	for f := range avgLen {
		if n := len(ix.units); n > 0 {
			avgLen[f] /= float64(n)
		}
		if avgLen[f] == 0 {
			avgLen[f] = 1
		}
	}
	ix.postings = make(map[string][]posting, len(raw))
	for t, ps := range raw {
		if p.stop() {
			return ix
		}
		out := make([]posting, len(ps))
		for i, p := range ps {
			out[i] = posting{unit: p.unit, fields: p.fields(), sat: saturate(p.tf, lengths[p.unit], avgLen)}
		}
		ix.postings[t] = out
		raw[t] = nil // converted: the collector may have it while the rest are
	}
	return ix
}

// nameObjects adds to each unit's objects those that its name or an alias
// names: a unit called "frontend-build" is about the frontend whether or not
// its author repeated the word among its objects, so a task about the
// frontend must not count it as a mismatch. It runs once every unit has
// declared its objects, since a name may use another unit's object word.
// It returns false, leaving the work undone, when p stops.
func (ix *index) nameObjects(p *pulse) bool {
	for id, u := range ix.units {
		if p.now() {
			return false
		}
		names := append([]string{nameWords(u)}, ix.aliases[id]...)
		for _, n := range names {
			for _, key := range slices.Sorted(maps.Keys(ix.objects.named(stems(n), nil))) {
				if !slices.Contains(ix.unitObjects[id], key) {
					ix.unitObjects[id] = append(ix.unitObjects[id], key)
				}
			}
		}
	}
	return true
}

// bag is one unit's terms, counted per field, and the bigrams of its
// short fields: the part of indexing that needs no other unit.
type bag struct {
	terms []string             // sorted
	tf    [][numFields]float32 // by position in terms
	lens  [numFields]float32   // terms per field
	grams []bigram
}

// bagsOf computes every unit's bag, on all cores: splitting and stemming
// the text of thousands of units is most of the cost of building an index.
// When p's context is done the workers stop, leaving the remaining bags
// empty; a pulse is not safe for concurrent use, so they read the context
// itself, once per unit.
func bagsOf(units []*ir.Unit, aliases [][]string, p *pulse) []bag {
	bags := make([]bag, len(units))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	done := func() bool { return p != nil && p.ctx.Err() != nil }
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(units) && !done(); i = int(next.Add(1) - 1) {
				bags[i] = bagOf(units[i], aliases[i])
			}
		})
	}
	wg.Wait()
	return bags
}

func bagOf(u *ir.Unit, aliases []string) bag {
	var (
		at    = map[string]int32{} // term -> position in freqs
		freqs [][numFields]float32
		grams = map[bigram]bool{}
		b     bag
	)
	// add counts text's terms in field f and, when paired, records its
	// bigrams: each text is split into terms once.
	add := func(f field, text string, weight float32, paired bool) {
		ts := Terms(text)
		for i, t := range ts {
			j, ok := at[t]
			if !ok {
				j = int32(len(freqs))
				at[t] = j
				freqs = append(freqs, [numFields]float32{})
			}
			freqs[j][f] += weight
			b.lens[f]++
			if paired && i+1 < len(ts) {
				grams[bigram{t, ts[i+1]}] = true
			}
		}
	}
	add(fieldName, nameWords(u), 1, true)
	for _, a := range aliases {
		add(fieldAlias, a, 1, false)
	}
	for _, t := range u.Triggers {
		add(fieldTrigger, t.Value, float32(t.Weight)/ir.DefaultTriggerWeight, true)
	}
	add(fieldDescription, u.Description, 1, true)
	add(fieldWhenToUse, u.WhenToUse, 1, true)
	for _, h := range u.Headings {
		add(fieldHeading, h, 1, false)
	}
	add(fieldLead, u.Lead, 1, false)
	b.terms = slices.Sorted(maps.Keys(at))
	b.tf = make([][numFields]float32, len(b.terms))
	for i, t := range b.terms {
		b.tf[i] = freqs[at[t]]
	}
	b.grams = slices.Collect(maps.Keys(grams))
	return b
}

// hasContent reports whether text holds at least one word that is not a
// stop word nor inflects one (see isStop). A phrase, alias or declared object made only of stop words ("i
// want", "of the") occurs in almost any task, so it is no evidence at all,
// and a metadata weight must not be able to make it one.
func hasContent(text string) bool { return len(Terms(text)) > 0 }

// nameKeys maps the name of every unit of the catalog, whatever its
// status, as its folded words joined by spaces, to the unit's name.
func nameKeys(cat *ir.Catalog) map[string]string {
	out := make(map[string]string, len(cat.Units))
	for _, u := range cat.Units {
		out[strings.Join(Words(u.Name), " ")] = u.Name
	}
	return out
}

// usableAliases returns u's aliases less those that spell another unit's
// name (names as nameKeys builds them). Such an alias would let a unit take
// over a name that is not its own, as evidence and as the name a task
// negates or asks for; the unit that bears the name keeps it, and
// aliasCollisions warns about the alias.
func usableAliases(u *ir.Unit, names map[string]string) []string {
	var out []string
	for _, a := range u.Aliases {
		if owner, ok := names[strings.Join(Words(a), " ")]; ok && owner != u.Name {
			continue
		}
		out = append(out, a)
	}
	return out
}

// nameWords is a unit's name as the words it is made of.
func nameWords(u *ir.Unit) string { return strings.ReplaceAll(u.Name, "-", " ") }

// rawPosting holds term frequencies per field until lengths are known.
type rawPosting struct {
	unit int32
	tf   [numFields]float32
}

func (p rawPosting) fields() uint8 {
	var b uint8
	for f := range p.tf {
		if p.tf[f] > 0 {
			b |= 1 << f
		}
	}
	return b
}

func (ix *index) addWhole(unit, text string) {
	ws := Words(text)
	slices.Reverse(ws)
	ix.wholeNames.add(ws, int32(len(ix.nameUnits)))
	ix.nameUnits = append(ix.nameUnits, unit)
}

// Evidence is one reason a unit scored: a matched term or phrase and what it
// contributed.
type Evidence struct {
	Field string   `json:"field"`
	Match string   `json:"match"`
	Score float64  `json:"score"`
	stems []string // the task terms this evidence rests on
}

// scored is a unit with its evidence score.
type scored struct {
	unit  int32
	score float64
}

// score computes every unit's evidence for the task, by unit position, and
// lists the units at or above CandidateFloor, in index order.
func (ix *index) score(q *query) (scores []float64, above []scored) {
	scores = make([]float64, len(ix.units))
	n := float64(len(ix.units))
	stop := q.pulse.stop
	for _, t := range q.uniqueTerms {
		if stop() {
			return scores, nil
		}
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := ix.idf(n, len(ps))
		for _, p := range ps {
			scores[p.unit] += idf * p.sat
		}
	}
	q.phrases, q.objects, q.acts = ix.matchPhrases(q), ix.objects.named(q.stems, stop), ix.actions.named(q.stems, stop)
	for _, m := range q.phrases {
		scores[m.unit] += m.score
	}
	for _, g := range q.bigrams {
		if stop() {
			return scores, nil
		}
		for _, u := range ix.bigrams[g] {
			scores[u] += bonusBigram
		}
	}
	if objs := q.objects; len(objs) > 0 {
		for u := range scores {
			switch {
			case shares(ix.unitObjects[u], objs):
				scores[u] += bonusObject
			case scores[u] > 0 && len(ix.unitObjects[u]) > 0:
				scores[u] -= penaltyObjectMismatch
			}
		}
	}
	if acts := q.acts; len(acts) > 0 {
		for u := range scores {
			if shares(ix.unitActions[u], acts) {
				scores[u] += bonusAction
			}
		}
	}
	for u, s := range scores {
		if s >= CandidateFloor {
			above = append(above, scored{int32(u), s})
		}
	}
	return scores, above
}

// before orders scored units: higher score first, then name.
func (ix *index) before(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return ix.units[a.unit].Name < ix.units[b.unit].Name
}

// best returns the k best of units, best first, and the others in no
// particular order. Only a handful are wanted out of possibly thousands, so
// it keeps a short sorted list instead of sorting them all.
func (ix *index) best(units []scored, k int) (top, rest []scored) {
	top = make([]scored, 0, k+1)
	for _, s := range units {
		i := len(top)
		for i > 0 && ix.before(s, top[i-1]) {
			i--
		}
		if i == k {
			rest = append(rest, s)
			continue
		}
		top = slices.Insert(top, i, s)
		if len(top) > k {
			rest = append(rest, top[k])
			top = top[:k]
		}
	}
	return top, rest
}

// declare records a unit's triggers of one kind in a catalog-wide table
// and returns the unit's keys.
func declare(table *keySet, triggers []ir.Trigger, kind ir.TriggerKind) []string {
	var keys []string
	for _, t := range triggers {
		if t.Kind != kind {
			continue
		}
		if st := stems(t.Value); len(st) > 0 && hasContent(t.Value) {
			keys = append(keys, table.add(st))
		}
	}
	return keys
}

// named returns the keys of the table that stems name, in one pass: nil
// when it names none, and only those found so far when stop reports true.
func (k *keySet) named(stems []string, stop func() bool) map[string]bool {
	var out map[string]bool
	k.seqs.scan(stems, stop, func(_ int, state int32) bool {
		if out == nil {
			out = map[string]bool{}
		}
		key := k.keys[k.seqs.ends[state][0]]
		if out[key] {
			return false // and so are the shorter keys ending here
		}
		out[key] = true
		return true
	})
	return out
}

// shares reports whether any of keys is in set.
func shares(keys []string, set map[string]bool) bool {
	for _, k := range keys {
		if set[k] {
			return true
		}
	}
	return false
}

// rankingSize is how many units Result.Ranking lists.
const rankingSize = 10

// top returns the k units with the highest positive scores, best first.
func (ix *index) top(scores []float64, k int) []Ranked {
	var out []Ranked
	for u, s := range scores {
		if s <= 0 {
			continue
		}
		if len(out) == k && s <= out[k-1].Score {
			continue
		}
		r := Ranked{Name: ix.units[u].Name, Score: round3(s)}
		i := sort.Search(len(out), func(i int) bool {
			return out[i].Score < r.Score || (out[i].Score == r.Score && out[i].Name > r.Name)
		})
		out = append(out, Ranked{})
		copy(out[i+1:], out[i:])
		out[i] = r
		if len(out) > k {
			out = out[:k]
		}
	}
	return out
}

// idf is BM25's inverse document frequency with the catalog counted as at
// least idfMinCatalog units: in a catalog of three skills every word is
// "common" by the raw formula, yet a word that only one of them uses is as
// telling as it would be among hundreds.
func (ix *index) idf(n float64, df int) float64 {
	n = math.Max(n, idfMinCatalog)
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// idfMinCatalog is the smallest catalog size idf assumes.
const idfMinCatalog = 30

// saturate is BM25F's term-frequency saturation of one unit's field
// frequencies, each normalized by its field's length.
func saturate(tf, lens [numFields]float32, avgLen [numFields]float64) float64 {
	var w float64
	for f := field(0); f < numFields; f++ {
		if tf[f] == 0 {
			continue
		}
		norm := 1 - fieldB[f] + fieldB[f]*float64(lens[f])/avgLen[f]
		w += fieldWeight[f] * float64(tf[f]) / norm
	}
	return w / (bm25K1 + w)
}

type phraseMatch struct {
	unit  int32
	score float64
	ev    Evidence
}

// matchPhrases finds every unit phrase that occurs in the task, in one
// pass over it. Each phrase counts once however often it occurs; matches
// are listed by where they first start, then in index order, so scores add
// up in the same order whatever the pass visits first.
func (ix *index) matchPhrases(q *query) []phraseMatch {
	type hit struct{ start, id int32 }
	var hits []hit
	seen := map[int32]bool{} // states already reported
	m := ix.phraseSeqs
	m.scan(q.stems, q.pulse.stop, func(end int, state int32) bool {
		if seen[state] {
			return false // and so are the shorter phrases ending here
		}
		seen[state] = true
		for _, id := range m.ends[state] {
			hits = append(hits, hit{int32(end) + 1 - m.depth[state], id})
		}
		return true
	})
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.id, b.id)) })
	out := make([]phraseMatch, 0, len(hits))
	for _, h := range hits {
		ph := &ix.phrases[h.id]
		var sc float64
		switch ph.kind {
		case fieldName:
			sc = bonusName
		case fieldAlias:
			sc = bonusAlias
		case fieldTrigger:
			sc = bonusTrigger * ph.weight
		case notWhen:
			sc = -penaltyNotWhen
		}
		name := "not_when"
		if ph.kind >= 0 {
			name = fieldNames[ph.kind] + " phrase"
		}
		out = append(out, phraseMatch{unit: ph.unit, score: sc, ev: Evidence{Field: name, Match: ph.text, Score: sc}})
	}
	return out
}

// evidence explains a unit's score: its matched terms and phrases, largest
// contribution first. It needs the query as index.score left it.
func (ix *index) evidence(q *query, unit int32) []Evidence {
	var out []Evidence
	n := float64(len(ix.units))
	for _, t := range q.uniqueTerms {
		if q.pulse.stop() {
			return nil
		}
		ps := ix.postings[t]
		i := sort.Search(len(ps), func(i int) bool { return ps[i].unit >= unit })
		if i == len(ps) || ps[i].unit != unit {
			continue
		}
		var fs []string
		for f := field(0); f < numFields; f++ {
			if ps[i].fields&(1<<f) != 0 {
				fs = append(fs, fieldNames[f])
			}
		}
		out = append(out, Evidence{Field: strings.Join(fs, "+"), Match: t, Score: ix.idf(n, len(ps)) * ps[i].sat, stems: []string{t}})
	}
	for _, m := range q.phrases {
		if m.unit == unit {
			ev := m.ev
			ev.stems = Terms(ev.Match)
			out = append(out, ev)
		}
	}
	for _, g := range q.bigrams {
		us := ix.bigrams[g]
		if i := sort.Search(len(us), func(i int) bool { return us[i] >= unit }); i < len(us) && us[i] == unit {
			out = append(out, Evidence{Field: "bigram", Match: g[0] + " " + g[1], Score: bonusBigram, stems: []string{g[0], g[1]}})
		}
	}
	if objs := q.objects; len(objs) > 0 {
		if shared := intersect(ix.unitObjects[unit], objs); len(shared) > 0 {
			out = append(out, Evidence{Field: "object", Match: strings.Join(shared, ", "), Score: bonusObject, stems: strings.Fields(strings.Join(shared, " "))})
		} else if len(ix.unitObjects[unit]) > 0 {
			out = append(out, Evidence{Field: "object mismatch", Match: strings.Join(slices.Sorted(maps.Keys(objs)), ", "), Score: -penaltyObjectMismatch})
		}
	}
	if acts := q.acts; len(acts) > 0 {
		if shared := intersect(ix.unitActions[unit], acts); len(shared) > 0 {
			out = append(out, Evidence{Field: "action", Match: strings.Join(shared, ", "), Score: bonusAction, stems: strings.Fields(strings.Join(shared, " "))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Match < out[j].Match
	})
	return out
}

// intersect returns the keys in set, sorted and deduplicated.
func intersect(keys []string, set map[string]bool) []string {
	seen := map[string]bool{}
	for _, k := range keys {
		if set[k] {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// breadth counts the distinct task terms positive evidence rests on.
func breadth(ev []Evidence) int {
	terms := map[string]bool{}
	for _, e := range ev {
		if e.Score > 0 {
			for _, s := range e.stems {
				terms[s] = true
			}
		}
	}
	return len(terms)
}

// residual is the part of b's evidence that rests on task terms a's
// evidence does not: what b would add to a prompt that already has a.
func residual(a, b []Evidence) float64 {
	covered := map[string]bool{}
	for _, e := range a {
		if e.Score > 0 {
			for _, s := range e.stems {
				covered[s] = true
			}
		}
	}
	var r float64
	for _, e := range b {
		if e.Score <= 0 {
			continue
		}
		for _, s := range e.stems {
			if !covered[s] {
				r += e.Score
				break
			}
		}
	}
	return r
}

// query is a task, analyzed once.
type query struct {
	task        string
	words       []string // folded words, for negation and whole-name matching
	spans       []span   // where each word is in task
	stems       []string // stems of every word, for phrases
	uniqueTerms []string // indexed stems minus stop words, deduplicated, sorted
	bigrams     []bigram // indexed pairs of consecutive terms, deduplicated, as they first occur
	// pulse stops the passes over the task when the compile's context is
	// done; nil never stops.
	pulse *pulse
	// negated maps each unit the task negates to the words that did it.
	negated map[string]string

	// Filled by index.score, reused to explain.
	phrases       []phraseMatch
	objects, acts map[string]bool
}

// span is where a word is in the task, in bytes.
type span struct{ start, end int32 }

// scanPiece is about how many bytes of the task analyze splits into words
// before it looks at the context again.
const scanPiece = 32 << 10

// analyze reads the task once. Its terms and bigrams are kept only when
// the catalog indexes them: no other can score, and a long task of words
// no skill uses must not cost a map entry per word.
func (ix *index) analyze(task string, p *pulse) *query {
	q := &query{task: task, pulse: p}
	// English averages about six bytes a word with its space; guessing
	// saves most of the regrowing on a long task.
	words, spans := make([]string, 0, len(task)/6+1), make([]span, 0, len(task)/6+1)
	// The task is split in pieces at blanks, which no word crosses, so that
	// a deadline is looked at between them.
	for off := 0; off < len(task); {
		if p.now() {
			break
		}
		end := min(off+scanPiece, len(task))
		if i := strings.IndexAny(task[end:], " \t\n"); i >= 0 {
			end += i
		} else {
			end = len(task)
		}
		words, spans = appendWords(words, spans, task[off:end], off, true)
		off = end
	}
	q.words, q.spans = words, spans
	// Negation reads words before terms are counted: the words a negation
	// names are masked, so naming a unit to refuse it is evidence for no
	// unit at all, neither the refused one nor another sharing its words.
	var masked []bool
	q.negated, masked = ix.negations(q)
	q.stems = make([]string, len(q.words))
	seen := map[string]bool{}
	grams := map[bigram]bool{}
	var prev string // the last term, for bigrams
	// Bigrams stay in the order they first occur: every one adds the same
	// bonus and evidence sorts them by text, so no order needs sorting.
	for i, w := range q.words {
		if p.stop() {
			return q
		}
		if masked != nil && masked[i] {
			// An empty stem matches no phrase, object or action and
			// ends any in progress; prev is reset so no bigram spans it.
			prev = ""
			continue
		}
		st := Stem(w)
		q.stems[i] = st
		if isStop(w, st) {
			continue
		}
		if _, known := ix.postings[st]; known && !seen[st] {
			seen[st] = true
			q.uniqueTerms = append(q.uniqueTerms, st)
		}
		if g := (bigram{prev, st}); prev != "" && !grams[g] {
			if _, known := ix.bigrams[g]; known {
				grams[g] = true
				q.bigrams = append(q.bigrams, g)
			}
		}
		prev = st
	}
	sort.Strings(q.uniqueTerms)
	return q
}

// bigram is two consecutive terms. An array key needs no joined string, which
// matters when the index holds every pair of every unit's text.
type bigram [2]string

// gapKind is what lies between two words of the task, as negation reads it.
type gapKind uint8

const (
	// gapSpace is blanks, quotes, dashes, emphasis marks or the $ that
	// invokes a skill by name ("never use $tdd", as "/tdd" does): the
	// clause runs on.
	gapSpace gapKind = iota
	// gapList adds a comma, slash or ampersand: a list may go on
	// without a connector word ("X, Y and Z").
	gapList
	// gapBreak is anything else (a full stop, a colon, a bracket, a blank
	// line) and follows the last word: the clause ends.
	gapBreak
)

// gap says what lies between word k and word k+1. It reads no further than
// the first character that ends the clause.
func (q *query) gap(k int) gapKind {
	if k < 0 || k+1 >= len(q.words) {
		return gapBreak
	}
	kind, newlines := gapSpace, 0
	for _, r := range q.task[q.spans[k].end:q.spans[k+1].start] {
		switch {
		case r == '\n':
			if newlines++; newlines > 1 {
				return gapBreak
			}
		case r == ',' || r == '/' || r == '&':
			kind = gapList
		case unicode.IsSpace(r) || isApostrophe(r) || strings.ContainsRune("\"*_~-$\u201c\u201d\u00ab\u00bb", r):
		default:
			return gapBreak
		}
	}
	return kind
}

// negationCues introduce units the task does not want, as folded words,
// longest first where one cue ends another.
var negationCues = [][]string{
	{"do", "not", "use"}, {"dont", "use"}, {"never", "use"}, {"not", "use"},
	{"avoid"}, {"without"}, {"no"}, {"neither"},
}

// articles may sit between a cue or a connector and a name: "don't use the
// tdd skill", "don't use either X or Y". At most maxArticles are skipped.
var articles = map[string]bool{"the": true, "a": true, "an": true, "any": true, "either": true, "neither": true}

const maxArticles = 2

// connectors continue a list of names after a cue: "X or Y", "X, Y and Z",
// "neither X nor Y". At most maxConnectors sit between two names ("and/or").
var connectors = map[string]bool{"or": true, "and": true, "nor": true}

const maxConnectors = 2

// negated returns the units the task negates, with the words that did it,
// as analyze found them.
func (ix *index) negated(q *query) map[string]string { return q.negated }

// negations returns the units the task negates, with the words that did
// it, and which words the negated names are (nil when none): those words
// are no evidence for any unit. A cue negates the longest name or alias
// that follows it in the same clause (so "do not use code-review-bot"
// spares code-review), and every name of a list that goes on from there:
// "don't use deploy or code-review" negates both. Each word is read a
// bounded number of times, whatever the names, and each distinct name is
// resolved to its units once, however often it is negated and however
// many units share it, so the pass is linear in the task.
func (ix *index) negations(q *query) (map[string]string, []bool) {
	out := map[string]string{}
	var (
		masked []bool
		nameAt []int32              // the longest name starting at each word, once a cue is seen
		states []int32              // the names negated, as states, in the order first negated
		said   = map[int32]string{} // state -> the words that first negated it
	)
	for i := 0; i < len(q.words); i++ {
		if q.pulse.stop() {
			break
		}
		n := q.cueAt(i)
		if n == 0 {
			continue
		}
		if nameAt == nil {
			if nameAt = ix.wholeNames.longestFrom(q.words, q.pulse.stop); nameAt == nil {
				break
			}
		}
		end := i + n // the words read so far end here
		for item := 0; ; item++ {
			k := end
			if item > 0 {
				// A further name needs a comma or a connector word.
				g := q.gap(k - 1)
				listed := g == gapList
				for c := 0; g != gapBreak && c < maxConnectors && k < len(q.words) && connectors[q.words[k]]; c++ {
					listed, k = true, k+1
					g = q.gap(k - 1)
				}
				if !listed {
					break
				}
			}
			for a := 0; a < maxArticles && k < len(q.words) && articles[q.words[k]] && q.gap(k-1) != gapBreak; a++ {
				k++
			}
			if k >= len(q.words) || q.gap(k-1) == gapBreak {
				break
			}
			state := nameAt[k]
			if state < 0 {
				break
			}
			m := int(ix.wholeNames.depth[state])
			if _, ok := said[state]; !ok {
				said[state] = q.said(i, n, end, k+m)
				states = append(states, state)
			}
			if masked == nil {
				masked = make([]bool, len(q.words))
			}
			for j := k; j < k+m; j++ {
				masked[j] = true
			}
			end = k + m
		}
		// A cue among the names just read is one of them, not a new cue.
		i = max(i, end-1)
	}
	for _, state := range states {
		for _, id := range ix.wholeNames.ends[state] {
			if u := ix.nameUnits[id]; out[u] == "" {
				out[u] = said[state]
			}
		}
	}
	return out, masked
}

// cueAt returns the length in words of the negation cue at word i, or 0.
func (q *query) cueAt(i int) int {
	for _, cue := range negationCues {
		if i+len(cue) <= len(q.words) && slices.Equal(q.words[i:i+len(cue)], cue) {
			return len(cue)
		}
	}
	return 0
}

// said quotes the words that negated a name: the cue of n words at i and
// the list up to the name, which ends at word end; a long list is elided
// after the cue down to the name and its connector, which started after
// word from.
func (q *query) said(i, n, from, end int) string {
	if end-i <= 12 {
		return strings.Join(q.words[i:end], " ")
	}
	return strings.Join(q.words[i:i+n], " ") + " \u2026 " + strings.Join(q.words[from:end], " ")
}
