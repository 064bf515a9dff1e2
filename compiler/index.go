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
	phrases   map[string][]phrase // first stem -> phrases
	bigrams   map[bigram][]int32  // consecutive stems -> units, ascending
	// objects maps the first stem of every declared object to its phrases;
	// unitObjects lists each unit's object keys.
	objects     map[string][]objectPhrase
	unitObjects [][]string
	actions     map[string][]objectPhrase
	unitActions [][]string
	// wholeNames maps a unit's name and aliases, as folded words, for
	// negation: "do not use X" matches X as whole words, unstemmed.
	wholeNames map[string][]namePattern
}

type objectPhrase struct {
	stems []string
	key   string
}

type namePattern struct {
	unit  string
	words []string
}

func stems(text string) []string {
	ws := Words(text)
	for i, w := range ws {
		ws[i] = Stem(w)
	}
	return ws
}

func buildIndex(cat *ir.Catalog) *index {
	var (
		raw     = map[string][]rawPosting{}
		lengths [][numFields]float32 // per unit, per field, in terms
		avgLen  [numFields]float64
	)
	ix := &index{ids: map[string]int32{}, bigrams: map[bigram][]int32{}, objects: map[string][]objectPhrase{}, actions: map[string][]objectPhrase{}, phrases: map[string][]phrase{}, wholeNames: map[string][]namePattern{}}
	ix.byCatalog = make([]int32, len(cat.Units))
	for i, u := range cat.Units {
		ix.byCatalog[i] = -1
		if u.Status == ir.StatusOK {
			ix.byCatalog[i] = int32(len(ix.units))
			ix.ids[u.Name] = int32(len(ix.units))
			ix.units = append(ix.units, u)
		}
	}
	bags := bagsOf(ix.units)
	for id, u := range ix.units {
		id := int32(id)
		addPhrase := func(f field, text string, weight float64) {
			s := stems(text)
			if len(s) == 0 || (f == fieldTrigger && len(s) < 2) || !hasContent(text) {
				return
			}
			ix.phrases[s[0]] = append(ix.phrases[s[0]], phrase{unit: id, kind: f, stems: s, weight: weight, text: text})
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
		for _, a := range u.Aliases {
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
		for _, t := range b.terms {
			raw[t] = append(raw[t], rawPosting{unit: id, tf: *b.tf[t]})
		}
		lengths = append(lengths, b.lens)
		for f := range b.lens {
			avgLen[f] += float64(b.lens[f])
		}
	}
	ix.nameObjects()
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
		out := make([]posting, len(ps))
		for i, p := range ps {
			out[i] = posting{unit: p.unit, fields: p.fields(), sat: saturate(p.tf, lengths[p.unit], avgLen)}
		}
		ix.postings[t] = out
	}
	return ix
}

// nameObjects adds to each unit's objects those that its name or an alias
// names: a unit called "frontend-build" is about the frontend whether or not
// its author repeated the word among its objects, so a task about the
// frontend must not count it as a mismatch. It runs once every unit has
// declared its objects, since a name may use another unit's object word.
func (ix *index) nameObjects() {
	for id, u := range ix.units {
		names := append([]string{nameWords(u)}, u.Aliases...)
		for _, n := range names {
			st := stems(n)
			for i, s := range st {
				for _, o := range ix.objects[s] {
					if indexSeq(st[i:], o.stems, 0) == 0 && !slices.Contains(ix.unitObjects[id], o.key) {
						ix.unitObjects[id] = append(ix.unitObjects[id], o.key)
					}
				}
			}
		}
	}
}

// bag is one unit's terms, counted per field, and the bigrams of its
// short fields: the part of indexing that needs no other unit.
type bag struct {
	terms []string // sorted
	tf    map[string]*[numFields]float32
	lens  [numFields]float32 // terms per field
	grams []bigram
}

// bagsOf computes every unit's bag, on all cores: splitting and stemming
// the text of thousands of units is most of the cost of building an index.
func bagsOf(units []*ir.Unit) []bag {
	bags := make([]bag, len(units))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(units); i = int(next.Add(1) - 1) {
				bags[i] = bagOf(units[i])
			}
		})
	}
	wg.Wait()
	return bags
}

func bagOf(u *ir.Unit) bag {
	b := bag{tf: map[string]*[numFields]float32{}}
	add := func(f field, text string, weight float32) {
		for _, t := range Terms(text) {
			p := b.tf[t]
			if p == nil {
				p = new([numFields]float32)
				b.tf[t] = p
			}
			p[f] += weight
			b.lens[f]++
		}
	}
	nameText := nameWords(u)
	add(fieldName, nameText, 1)
	for _, a := range u.Aliases {
		add(fieldAlias, a, 1)
	}
	for _, t := range u.Triggers {
		add(fieldTrigger, t.Value, float32(t.Weight)/ir.DefaultTriggerWeight)
	}
	add(fieldDescription, u.Description, 1)
	add(fieldWhenToUse, u.WhenToUse, 1)
	for _, h := range u.Headings {
		add(fieldHeading, h, 1)
	}
	add(fieldLead, u.Lead, 1)
	b.terms = slices.Sorted(maps.Keys(b.tf))

	grams := map[bigram]bool{}
	for _, text := range append([]string{nameText, u.Description, u.WhenToUse}, triggerValues(u)...) {
		ts := Terms(text)
		for i := 0; i+1 < len(ts); i++ {
			grams[bigram{ts[i], ts[i+1]}] = true
		}
	}
	b.grams = slices.Collect(maps.Keys(grams))
	return b
}

// hasContent reports whether text holds at least one word that is not a
// stop word. A phrase, alias or declared object made only of stop words ("i
// want", "of the") occurs in almost any task, so it is no evidence at all,
// and a metadata weight must not be able to make it one.
func hasContent(text string) bool { return len(Terms(text)) > 0 }

// nameWords is a unit's name as the words it is made of.
func nameWords(u *ir.Unit) string { return strings.ReplaceAll(u.Name, "-", " ") }

func triggerValues(u *ir.Unit) []string {
	out := make([]string, len(u.Triggers))
	for i, t := range u.Triggers {
		out[i] = t.Value
	}
	return out
}

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
	if len(ws) == 0 {
		return
	}
	ix.wholeNames[ws[0]] = append(ix.wholeNames[ws[0]], namePattern{unit: unit, words: ws})
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
	for _, t := range q.uniqueTerms {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := ix.idf(n, len(ps))
		for _, p := range ps {
			scores[p.unit] += idf * p.sat
		}
	}
	q.phrases, q.objects, q.acts = ix.matchPhrases(q), named(ix.objects, q), named(ix.actions, q)
	for _, m := range q.phrases {
		scores[m.unit] += m.score
	}
	for _, g := range q.bigrams {
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

// declare records a unit's triggers of one kind in a catalog-wide phrase
// table and returns the unit's keys.
func declare(table map[string][]objectPhrase, triggers []ir.Trigger, kind ir.TriggerKind) []string {
	var keys []string
	for _, t := range triggers {
		if t.Kind != kind {
			continue
		}
		if st := stems(t.Value); len(st) > 0 && hasContent(t.Value) {
			key := strings.Join(st, " ")
			keys = append(keys, key)
			table[st[0]] = append(table[st[0]], objectPhrase{stems: st, key: key})
		}
	}
	return keys
}

// named returns the keys of a phrase table the task names.
func named(table map[string][]objectPhrase, q *query) map[string]bool {
	var out map[string]bool
	for i, st := range q.stems {
		for _, o := range table[st] {
			if indexSeq(q.stems[i:], o.stems, 0) == 0 {
				if out == nil {
					out = map[string]bool{}
				}
				out[o.key] = true
			}
		}
	}
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

// matchPhrases finds every unit phrase that occurs in the task. Each phrase
// counts once however often it occurs.
func (ix *index) matchPhrases(q *query) []phraseMatch {
	var out []phraseMatch
	seen := map[*phrase]bool{}
	for i, s := range q.stems {
		cands := ix.phrases[s]
		for k := range cands {
			ph := &cands[k]
			if seen[ph] || indexSeq(q.stems[i:], ph.stems, 0) != 0 {
				continue
			}
			seen[ph] = true
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
	}
	return out
}

// evidence explains a unit's score: its matched terms and phrases, largest
// contribution first. It needs the query as index.score left it.
func (ix *index) evidence(q *query, unit int32) []Evidence {
	var out []Evidence
	n := float64(len(ix.units))
	for _, t := range q.uniqueTerms {
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
	words       []string // folded words, for negation and whole-name matching
	stems       []string // stems of every word, for phrases
	uniqueTerms []string // stems minus stop words, deduplicated, sorted
	bigrams     []bigram // consecutive pairs of those terms, deduplicated, sorted

	// Filled by index.score, reused to explain.
	phrases       []phraseMatch
	objects, acts map[string]bool
}

func analyze(task string) *query {
	q := &query{words: Words(task)}
	q.stems = make([]string, len(q.words))
	seen := map[string]bool{}
	for i, w := range q.words {
		q.stems[i] = Stem(w)
		if !stopWords[w] && !seen[q.stems[i]] {
			seen[q.stems[i]] = true
			q.uniqueTerms = append(q.uniqueTerms, q.stems[i])
		}
	}
	sort.Strings(q.uniqueTerms)
	terms := Terms(task)
	grams := map[bigram]bool{}
	for i := 0; i+1 < len(terms); i++ {
		grams[bigram{terms[i], terms[i+1]}] = true
	}
	q.bigrams = slices.SortedFunc(maps.Keys(grams), func(a, b bigram) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	})
	return q
}

// bigram is two consecutive terms. An array key needs no joined string, which
// matters when the index holds every pair of every unit's text.
type bigram [2]string

// negationCues introduce a unit the task does not want, as folded words.
var negationCues = [][]string{
	{"do", "not", "use"}, {"dont", "use"}, {"never", "use"}, {"not", "use"},
	{"avoid"}, {"without"}, {"no"},
}

// articles may sit between a cue and the name: "don't use the tdd skill".
var articles = map[string]bool{"the": true, "a": true, "an": true, "any": true}

// negated returns the units the task negates, with the cue that did it.
func (ix *index) negated(q *query) map[string]string {
	out := map[string]string{}
	for i := range q.words {
		for _, cue := range negationCues {
			if indexSeq(q.words[i:], cue, 0) != 0 {
				continue
			}
			j := i + len(cue)
			for j < len(q.words) && articles[q.words[j]] {
				j++
			}
			if j >= len(q.words) {
				continue
			}
			for _, p := range ix.wholeNames[q.words[j]] {
				if indexSeq(q.words[j:], p.words, 0) == 0 {
					if _, done := out[p.unit]; !done {
						out[p.unit] = strings.Join(q.words[i:j+len(p.words)], " ")
					}
				}
			}
		}
	}
	return out
}
