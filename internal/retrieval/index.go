// Package retrieval is rlmc's evidence stage (rule 1): it analyses a task
// once into an immutable Query, scores it against a catalog's inverted index
// (BM25F, phrases, bigrams, objects and actions), reads the task's
// negations, and states the problem the Prolog policy judges: the
// candidates with their scores and evidence, the facts about each pair, and
// why every other unit stays out. It decides no rule but the first: which
// units are eligible (rules 2-6) it asks of a Judge the compiler supplies.
package retrieval

import (
	"maps"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/rlmc-dev/rlmc/internal/pulse"
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

// Field weights and length normalization. They are generic (no field weight
// names a skill) and were set by hand, not tuned: docs/how-a-compile-decides.md names the fields
// but not these numbers, and reports ("Routing quality") that changing them
// moved even-half recall@1 by less than 0.01.
var (
	// fieldWeight scales a term's frequency by where it occurs (BM25F), in
	// field order: name 3 (nameAloneWeight when no other field of what
	// the unit is for uses the word), alias 2.5, trigger 2 (a trigger's frequency is
	// further scaled by triggerScale), description and when_to_use 1,
	// heading 0.5, lead 0.2.
	fieldWeight = [numFields]float64{3.0, 2.5, 2.0, 1.0, 1.0, 0.5, 0.2}
	// fieldB is BM25's length normalization per field. A description
	// weighs 0.45: a word a long description repeats among many others
	// (a product page listing everything a tool touches) tells less than
	// the same word in a short one about little else. Chosen on the even
	// halves (0.45 over 0.3: MetaTool single_tool recall@1 0.514 -> 0.521,
	// Seal-Tools unchanged; 0.6 cost Seal-Tools recall@1).
	fieldB = [numFields]float64{0.3, 0.3, 0.5, 0.45, 0.3, 0.75, 0.3}
	// nameAloneWeight replaces the name's weight for a word of the name
	// that the description, when_to_use and triggers never use: the
	// fields disagree on it ("los angeles" in the name of a transport
	// tool whose description is about timetables), so it weighs as a
	// description word. Chosen on the even halves (1.0 over 1.5).
	nameAloneWeight = 1.0
)

// Scoring parameters. They are generic (no rule names a skill or a phrase),
// documented in docs/how-a-compile-decides.md, and were calibrated on the even-hash half of the
// benchmark cases only.
const (
	// bm25K1 is BM25's term-frequency saturation.
	bm25K1 = 2.0
	// Phrase bonuses: the whole name, an alias, or a multi-word trigger
	// appears in the task as consecutive words. A name's and an alias's
	// bonus is scaled by how informative its words are in the catalog
	// (weighNames) and by the share of the task they hold (nameShare).
	bonusName    = 6.0
	bonusAlias   = 5.0
	bonusTrigger = 3.0 // times triggerScale
	// nameShareFull is the share of the task's informative weight a
	// name's words must hold for its phrase to earn the whole bonus.
	nameShareFull = 0.35
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
	// CandidateFloor is the evidence a unit needs to be put before the
	// policy at all: below the policy's threshold (compiler.Threshold) a
	// unit can only make a task ambiguous, never be selected.
	CandidateFloor = 1.5
	// ClauseFloor is the evidence a unit that answers a clause of the
	// task best needs to be put before the policy beside the best
	// CandidateCap (Index.withClauseBests): a part of a task is asked for
	// plainly enough to stand, and every candidate costs the policy.
	ClauseFloor = 4.5
	// redundantShare: a candidate is redundant beside another when less
	// than this share of its evidence rests on task words the other's
	// evidence does not cover.
	redundantShare = 0.25
	// ownNameShare: beside another unit, a word of a unit's name the task
	// states, in a clause the unit answers, stays the unit's own while the
	// other's evidence on it weighs less than this share of the unit's
	// (see ownTerm). Chosen on the even halves.
	ownNameShare = 0.25
	// passingShare: beside another unit, a task word of an instruction
	// without pasted material, said outside a sentence that states
	// (Query.passingTerms), stays a unit's own while the other's evidence
	// on it weighs less than this share of the unit's (see ownTerm): a
	// skill whose body's headings name a word once does not answer the
	// request of a skill that declares it. Set on six fresh task sets
	// written for other catalogs (a quarter kept two of the tasks it made
	// right, a half added wrong skills); measured again once a stated
	// sentence was read as context: five fresh sets +5 exactly right, two
	// held-out sets +3, no wrong skill more on any, and realskills one
	// task less (an extra).
	passingShare = 1.0 / 3
	// clearPartRatio: a unit answers a clause of the task that asks for
	// something as its own part beside another when its evidence there
	// weighs at least this many times the other's (see clearParts): the
	// margin a best candidate at the support floor needs over its
	// runner-up (compiler.MarginRatio), so that it would be selected on
	// that clause alone. Set on eight fresh task sets: two tasks more
	// exactly right, none less, and no change on realskills, the
	// second-skill probe, the red teams or the public sets.
	clearPartRatio = 2
	// CandidateCap bounds the lexical candidates put before the policy; the
	// interpreter's cost grows with them.
	CandidateCap = 4
	// clauseCoverNum/clauseCoverDen: the share of a clause's informative
	// words a unit's evidence must cover for what it scores there to be
	// that clause's request (apart): one word of a long sentence is not
	// what the sentence asks. Chosen on the even halves: one half added a
	// wrong second skill to three realskills tasks and made one right.
	clauseCoverNum, clauseCoverDen = 2, 3
	// markedCoverNum/markedCoverDen: the same share in a sentence that
	// opens by saying a further request begins there (markedClauses),
	// for the candidate whose evidence weighs most in the clause. On 60
	// fresh two-skill tasks +3 ("Also add correlation IDs to its logs"),
	// no other set moved but Seal-Tools (one wrong tool more).
	markedCoverNum, markedCoverDen = 1, 3
)

// posting is one unit's entry for a term. The BM25F saturation does not
// depend on the task, so it is computed once when the index is built.
type posting struct {
	unit   int32
	sat    float32 // saturated, field-weighted term frequency
	fields uint8   // bit f set when the term occurs in field f
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

// Index is a catalog's inverted index, built once per catalog by Build. It
// never changes afterwards, so concurrent compiles share it.
type Index struct {
	cat   *ir.Catalog
	pos   map[*ir.Unit]int // catalog position of every unit
	units []*ir.Unit       // indexable units, by position
	// catPos maps an index position to its catalog position.
	catPos []int
	ids    map[string]int32
	// byCatalog maps a catalog position to an index position, or -1: a
	// compile walks every catalog unit, and a slice beats a name lookup.
	byCatalog []int32
	postings  postingMap
	// cjkUnits counts the units with a Chinese, Japanese or Korean term:
	// the catalog such a term's idf is taken over (see idf).
	cjkUnits int
	// phrases are the units' phrases by id; phraseSeqs finds their stems
	// in a task.
	phrases    []phrase
	phraseSeqs *seqMatcher
	bigrams    bigramMap // consecutive stems -> units, ascending
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
	// diags says what the index ignores in the catalog's usable units
	// (diagnostics), found as it was built and kept with it, so
	// that a start from the cache does not look again.
	diags ir.Diagnostics
}

// Diagnostics returns what the index ignores in its catalog's usable
// units, and why (see diagnostics).
func (ix *Index) Diagnostics() ir.Diagnostics { return ix.diags }

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

// Build indexes cat's usable units (status ok). When p stops it returns
// early with an incomplete index, which the caller must discard: p.Err says
// so. A nil p never stops.
func Build(cat *ir.Catalog, p *pulse.Pulse) *Index {
	ix, _ := build(cat, p, nil, false)
	return ix
}

// place links ix to cat: the units it indexes (status ok), by position.
func (ix *Index) place(cat *ir.Catalog) {
	ix.cat, ix.pos, ix.ids = cat, make(map[*ir.Unit]int, len(cat.Units)), make(map[string]int32, len(cat.Units))
	ix.byCatalog = make([]int32, len(cat.Units))
	for i, u := range cat.Units {
		ix.pos[u] = i
		ix.byCatalog[i] = -1
		if u.Status == ir.StatusOK {
			ix.byCatalog[i] = int32(len(ix.units))
			ix.catPos = append(ix.catPos, i)
			ix.ids[u.Name] = int32(len(ix.units))
			ix.units = append(ix.units, u)
		}
	}
}

// build is Build and BuildWith: reuse offers earlier bags, and keep asks
// for this build's bags back.
func build(cat *ir.Catalog, p *pulse.Pulse, reuse func(*ir.Unit) *Bag, keep bool) (*Index, []*Bag) {
	ix := &Index{objects: newKeySet(), actions: newKeySet(), phraseSeqs: newSeqMatcher(), wholeNames: newSeqMatcher()}
	ix.place(cat)
	names := nameKeys(cat)
	// The diagnostics read the catalog and its names alone: found beside
	// the build.
	var diagsDone sync.WaitGroup
	var dp *pulse.Pulse // a pulse is one goroutine's; a nil one never stops
	if ctx := p.Context(); ctx != nil {
		dp = pulse.New(ctx)
	}
	diagsDone.Go(func() { ix.diags = diagnostics(cat, names, dp) })
	defer diagsDone.Wait()
	for _, u := range ix.units {
		ix.aliases = append(ix.aliases, usableAliases(u, names))
	}
	bags := make([]bag, len(ix.units))
	have := make([]bool, len(ix.units))
	if reuse != nil {
		for id, u := range ix.units {
			if bg := reuse(u); bg != nil && sameAliases(bg.aliases, ix.aliases[id]) {
				bags[id], have[id] = bg.b, true
			}
		}
	}
	// Each bag is numbered into the table as soon as it and every bag
	// before it are made, and, in a build that keeps no bag, lets go of
	// its terms and bigrams then: all of a catalog's bags' terms at once
	// were the largest thing an uncached start held.
	t := newTable(len(bags))
	if !bagsOf(bags, have, ix.units, ix.aliases, p, func(i int) { t.add(i, &bags[i], !keep) }) {
		return ix, nil
	}
	var kept []*Bag
	if keep {
		kept = make([]*Bag, len(cat.Units))
		for id := range ix.units {
			kept[ix.catPos[id]] = &Bag{aliases: ix.aliases[id], b: bags[id]}
		}
	}
	quotedDF := quotedFrequency(bags)
	quotedCap := max(quotedMinShared, len(ix.units)/quotedShare)
	useDF := useWhenFrequency(bags)
	for id := range bags {
		bags[id].countUseWhen(useDF, quotedCap, t.useAt[id])
	}
	t.average(bags)
	ix.cjkUnits = t.cjkUnits
	for id, u := range ix.units {
		if p.Now() {
			return ix, nil
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
		scale := triggerScale(u)
		for _, t := range u.Triggers {
			if fresh(t.Value) {
				addPhrase(fieldTrigger, t.Value, float64(scale(t.Weight)))
			}
		}
		// A quoted phrase many units share is the catalog's boilerplate,
		// no evidence for any one of them.
		for _, q := range bags[id].quoted {
			if quotedDF[strings.Join(stems(q), " ")] <= quotedCap && fresh(q) {
				addPhrase(fieldTrigger, q, 1)
			}
		}
		for _, n := range u.NegativeTriggers {
			addPhrase(notWhen, n, 1)
		}
		for _, q := range bags[id].notQuoted {
			addPhrase(notWhen, q, 1)
		}
		ix.unitObjects = append(ix.unitObjects, declare(ix.objects, u.Triggers, ir.TriggerObject))
		ix.unitActions = append(ix.unitActions, declare(ix.actions, u.Triggers, ir.TriggerVerb))
	}
	for _, m := range []*seqMatcher{ix.phraseSeqs, ix.objects.seqs, ix.actions.seqs, ix.wholeNames} {
		if !m.build(p.Stop) {
			return ix, nil
		}
	}
	if !ix.nameObjects(p) {
		return ix, nil
	}
	if !t.fill(ix, bags, p) {
		return ix, nil
	}
	ix.weighNames()
	return ix, kept
}

// weighNames sets the weight of every name and alias phrase to how
// informative its words are in this catalog: the sum of their idf over the
// idf of a word only one unit uses, at most 1. A name made of a rare word,
// or of several words, earns the whole bonus; a name that is one common
// word ("Holidays" among a dozen holiday tools) earns a share of it, so it
// cannot outrank the unit whose description says what the task asks.
func (ix *Index) weighNames() {
	most := ix.idf("", 1)
	for i := range ix.phrases {
		ph := &ix.phrases[i]
		if ph.kind != fieldName && ph.kind != fieldAlias {
			continue
		}
		var info float64
		for _, s := range ph.stems {
			if df := len(ix.postings.get(s)); df > 0 && !stopWords[s] {
				info += ix.idf(s, df)
			}
		}
		ph.weight = min(1, info/most)
	}
}

// nameObjects adds to each unit's objects those that its name or an alias
// names: a unit called "frontend-build" is about the frontend whether or not
// its author repeated the word among its objects, so a task about the
// frontend must not count it as a mismatch. It runs once every unit has
// declared its objects, since a name may use another unit's object word.
// It returns false, leaving the work undone, when p stops.
func (ix *Index) nameObjects(p *pulse.Pulse) bool {
	for id, u := range ix.units {
		if p.Now() {
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
	terms []string // sorted
	// fields has, for each term, the fields it occurs in (bit f), and
	// counts their frequencies, term after term and field after field: a
	// term is in one field or two, and seven counts a term were most of
	// what a catalog's bags hold (see tf).
	fields []uint8
	counts []float32
	// bump lists, ascending, the terms counted once more as triggers
	// (countUseWhen), beside the counts, which a cached Bag keeps as the
	// unit alone made them.
	bump []int32
	lens [numFields]float32 // terms per field
	// grams are the bigrams of the unit's short fields, each as the
	// positions of its two stems (see stem): a pair of strings each was
	// the largest part of a catalog's bags.
	grams []gramPair
	// gramStems are the stems of bigrams that are none of terms (an
	// addressee's word, taken back out of its field), sorted.
	gramStems []string
	// quoted are the phrases the unit's description and when_to_use quote:
	// its own words for when to use it ("debug this"); notQuoted those
	// they quote in a sentence that says when not to (saysWhenNot).
	quoted, notQuoted []string
	// useWhen are the terms of its "Use when ..." clauses, sorted and
	// deduplicated.
	useWhen []string
}

// bagsOf computes the bag of every unit that has none yet (have[i] false),
// on all cores: splitting and stemming the text of thousands of units is
// most of the cost of building an index. It calls each with every unit's
// position in order, one call at a time, as soon as that unit's bag and
// every bag before it are made. When p's context is done the workers
// stop, leaving the remaining bags empty, and it returns false; a pulse
// is not safe for concurrent use, so they read the context itself, once
// per unit.
func bagsOf(bags []bag, have []bool, units []*ir.Unit, aliases [][]string, p *pulse.Pulse, each func(i int)) bool {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		mu   sync.Mutex // guards made and told
		told int        // units handed to each
	)
	made := make([]bool, len(units))
	ctx := p.Context()
	done := func() bool { return ctx != nil && ctx.Err() != nil }
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var s bagScratch
			for i := int(next.Add(1) - 1); i < len(units) && !done(); i = int(next.Add(1) - 1) {
				if !have[i] {
					bags[i] = s.bagOf(units[i], aliases[i])
				}
				mu.Lock()
				made[i] = true
				for ; told < len(units) && made[told]; told++ {
					each(told)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return told == len(units)
}

// bagScratch holds the tables a bag is counted in, kept from one unit to
// the next by the goroutine that analyses them: made afresh for every
// unit, they were half of what indexing a catalog allocated.
type bagScratch struct {
	terms []string
	parts []bagPart
	at    map[string]int32 // term -> position in freqs
	freqs [][numFields]float32
	grams []bigram
	// stems memoizes stemTerm per word: a catalog's bodies say the same
	// few thousand words over and over, and a look-up costs a fraction of
	// stemming one.
	stems map[string]string
}

// bagPart is the terms of one field's text among a bagScratch's terms.
type bagPart struct {
	f        field
	weight   float32
	paired   bool
	from, to int
}

// maxScratchTerms bounds the distinct terms a bagScratch's map keeps room
// for between units: clearing a map costs its size, and one unit with a
// huge lead must not make every later one pay for it.
const maxScratchTerms = 1 << 12

// maxScratchStems bounds the words a bagScratch's stem memo keeps.
const maxScratchStems = 1 << 15

// appendTerms is appendTerms with the scratch's stem memo.
func (s *bagScratch) appendTerms(dst []string, text string) []string {
	if s.stems == nil || len(s.stems) > maxScratchStems {
		s.stems = make(map[string]string, 1024)
	}
	return appendTermsBy(dst, text, s.stemTerm)
}

// stemTerm is stemTerm, memoized.
func (s *bagScratch) stemTerm(w string) string {
	st, ok := s.stems[w]
	if !ok {
		st = stemTerm(w)
		s.stems[w] = st
	}
	return st
}

func bagOf(u *ir.Unit, aliases []string) bag {
	var s bagScratch
	return s.bagOf(u, aliases)
}

func (s *bagScratch) bagOf(u *ir.Unit, aliases []string) bag {
	// Every field's terms are split into one list first, so that the
	// tables below are sized once: growing them a step at a time was most
	// of what indexing allocated.
	terms, parts := s.terms[:0], s.parts[:0]
	defer func() { s.terms, s.parts = terms, parts }()
	var b bag
	// add splits text into terms for field f, counted with weight and,
	// when paired, its bigrams recorded: each text is split once.
	add := func(f field, text string, weight float32, paired bool) {
		from := len(terms)
		terms = s.appendTerms(terms, text)
		parts = append(parts, bagPart{f, weight, paired, from, len(terms)})
	}
	add(fieldName, nameWords(u), 1, true)
	for _, a := range aliases {
		add(fieldAlias, a, 1, false)
	}
	scale := triggerScale(u)
	for _, t := range u.Triggers {
		add(fieldTrigger, t.Value, scale(t.Weight), true)
	}
	add(fieldDescription, u.Description, 1, true)
	add(fieldWhenToUse, u.WhenToUse, 1, true)
	// A quoted phrase's words are counted where they stand; the phrase is
	// matched whole (Build), unless the catalog's boilerplate.
	// A "Use when ..." clause is the unit's own words for when it is
	// wanted: its terms count as triggers too (Build, unless the
	// catalog's boilerplate). The addressee that opens it ("the user")
	// says who asks, not what for, so it is not counted at all.
	type addressee struct {
		f   field
		who []string
	}
	var addressed []addressee
	for _, ft := range [...]struct {
		f    field
		text string
	}{{fieldDescription, u.Description}, {fieldWhenToUse, u.WhenToUse}} {
		spans := quotedSpans(ft.text)
		var rs []rune
		// Only a text with a negator can say when its unit is not
		// wanted: it is looked for once, not in each quote's sentence.
		negated := len(spans) > 0 && slices.ContainsFunc(Words(ft.text), func(w string) bool { return negators[w] })
		for _, q := range spans {
			if rs == nil && negated {
				rs = []rune(ft.text)
			}
			if negated && saysWhenNot(rs, q.from) {
				// "DO NOT TRIGGER when the user says "optimize this
				// code"": a task the unit must not answer.
				b.notQuoted = append(b.notQuoted, q.text)
				continue
			}
			b.quoted = append(b.quoted, q.text)
		}
		clauses, who := UseWhen(withoutPhrases(ft.text, spans))
		for _, c := range clauses {
			b.useWhen = append(b.useWhen, Terms(c)...)
		}
		if len(who) > 0 {
			addressed = append(addressed, addressee{ft.f, who})
		}
	}
	slices.Sort(b.useWhen)
	b.useWhen = slices.Compact(b.useWhen)
	for _, h := range u.Headings {
		add(fieldHeading, h, 1, false)
	}
	add(fieldLead, u.Lead, 1, false)
	paired := 0
	for _, pt := range parts {
		if pt.paired {
			paired += pt.to - pt.from
		}
	}
	if s.at == nil || len(s.at) > maxScratchTerms {
		s.at = make(map[string]int32, min(len(terms), maxScratchTerms))
	} else {
		clear(s.at)
	}
	at, freqs, grams := s.at, slices.Grow(s.freqs[:0], len(terms)), slices.Grow(s.grams[:0], paired)
	defer func() { s.freqs, s.grams = freqs, grams }()
	for _, pt := range parts {
		ts := terms[pt.from:pt.to]
		for i, t := range ts {
			j, ok := at[t]
			if !ok {
				j = int32(len(freqs))
				at[t] = j
				freqs = append(freqs, [numFields]float32{})
			}
			freqs[j][pt.f] += pt.weight
			b.lens[pt.f]++
			if pt.paired && i+1 < len(ts) && !hanOverlap(t, ts[i+1]) {
				grams = append(grams, bigram{t, ts[i+1]})
			}
		}
	}
	// The addressee that opens a "Use when" clause ("the user") says
	// who asks, not what for: its words are taken back out of the field.
	for _, f := range addressed {
		for _, w := range Terms(strings.Join(f.who, " ")) {
			if j, ok := at[w]; ok && freqs[j][f.f] > 0 {
				freqs[j][f.f]--
				b.lens[f.f]--
			}
		}
	}
	// A name word the description or when_to_use spells out by its
	// initials ("sem" beside "search engine marketing") is a word that
	// field uses: the fields agree on it, so it keeps the name's weight.
	// The fields' words are split only for a unit that has such a word.
	var descWords, whenWords []string
	// The name is cut at its hyphens rather than split by Words: the
	// common lowercase name costs no allocation.
	for rest := u.Name; rest != ""; {
		var w string
		w, rest, _ = strings.Cut(rest, "-")
		if strings.ToLower(w) != w {
			w = strings.ToLower(w)
		}
		if !acronymLike(w) {
			continue
		}
		j, ok := at[Stem(w)]
		if !ok || freqs[j][fieldDescription] > 0 || freqs[j][fieldWhenToUse] > 0 || freqs[j][fieldTrigger] > 0 {
			continue
		}
		if descWords == nil {
			descWords, whenWords = Words(u.Description), Words(u.WhenToUse)
		}
		if spells(w, descWords) {
			freqs[j][fieldDescription]++
		} else if spells(w, whenWords) {
			freqs[j][fieldWhenToUse]++
		}
	}
	b.terms = make([]string, 0, len(at))
	for t, j := range at {
		if freqs[j] != ([numFields]float32{}) { // an addressee only
			b.terms = append(b.terms, t)
		}
	}
	slices.Sort(b.terms)
	b.fields = make([]uint8, len(b.terms))
	n := 0
	for i, t := range b.terms {
		b.fields[i] = maskOf(&freqs[at[t]])
		n += bits.OnesCount8(b.fields[i])
	}
	b.counts = make([]float32, 0, n)
	for _, t := range b.terms {
		for _, c := range freqs[at[t]] {
			if c != 0 {
				b.counts = append(b.counts, c)
			}
		}
	}
	b.setGrams(grams)
	return b
}

// gramPair is a bigram of a bag: the positions of its stems in the bag's
// terms, or past their end in its gramStems.
type gramPair [2]uint32

// stem returns the stem at position i of b (see gramPair).
func (b *bag) stem(i uint32) string {
	if int(i) < len(b.terms) {
		return b.terms[i]
	}
	return b.gramStems[int(i)-len(b.terms)]
}

// gram returns b's bigram i.
func (b *bag) gram(i int) bigram {
	g := b.grams[i]
	return bigram{b.stem(g[0]), b.stem(g[1])}
}

// setGrams sets b's bigrams, given after its terms are set, to grams
// without repeats (it sorts them).
func (b *bag) setGrams(grams []bigram) {
	slices.SortFunc(grams, compareBigrams)
	grams = slices.Compact(grams)
	var extra []string
	for _, g := range grams {
		for _, st := range g {
			if _, ok := slices.BinarySearch(b.terms, st); !ok {
				extra = append(extra, st)
			}
		}
	}
	slices.Sort(extra)
	b.gramStems = slices.Compact(extra)
	b.grams = make([]gramPair, len(grams))
	for i, g := range grams {
		b.grams[i] = gramPair{b.position(g[0]), b.position(g[1])}
	}
}

// position returns the position of the stem st of a bigram of b.
func (b *bag) position(st string) uint32 {
	if i, ok := slices.BinarySearch(b.terms, st); ok {
		return uint32(i)
	}
	i, _ := slices.BinarySearch(b.gramStems, st)
	return uint32(len(b.terms) + i)
}

// acronymLike reports whether w may be an acronym: two letters or more,
// all of them a-z, and no stop word.
func acronymLike(w string) bool {
	return len(w) >= 2 && !isStop(w, w) && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0
}

// spells reports whether the words ws spell out the acronym w (see
// acronymLike): consecutive words, the first and last of them no stop
// word, whose initials are w's letters ("search engine marketing" for
// "sem", "platform as a service" for "paas").
func spells(w string, ws []string) bool {
	n := len(w)
	if !acronymLike(w) {
		return false
	}
	for i := 0; i+n <= len(ws); i++ {
		if ws[i][0] != w[0] || stopWords[ws[i]] || stopWords[ws[i+n-1]] {
			continue
		}
		k := 1
		for k < n && ws[i+k][0] == w[k] {
			k++
		}
		if k == n {
			return true
		}
	}
	return false
}

// hasContent reports whether text holds at least one word that is not a
// stop word nor inflects one (see isStop). A phrase, alias or declared object made only of stop words ("i
// want", "of the") occurs in almost any task, so it is no evidence at all,
// and a metadata weight must not be able to make it one.
// triggerScale returns what a trigger of u of weight w multiplies its
// evidence by: u's weights rank its triggers against each other, and its
// strongest weighs as a trigger of the default weight. A weight is the
// skill's own word about itself, so it may lower its evidence, never
// raise it above another skill's: a trigger weighted 100000 made a
// gardening skill score 3,000 on "deploy the app", and its declared
// conflict then knocked out the skill the task named.
func triggerScale(u *ir.Unit) func(w int) float32 {
	most := ir.DefaultTriggerWeight
	for _, t := range u.Triggers {
		most = max(most, t.Weight)
	}
	return func(w int) float32 { return float32(w) / float32(most) }
}

func hasContent(text string) bool {
	// Terms would stem every word; the first content word settles it.
	for _, w := range Words(text) {
		if !isStop(w, Stem(w)) {
			return true
		}
	}
	return false
}

// nameKeys maps the name of every unit of the catalog, whatever its
// status, as its key (nameKey), to the unit's name.
func nameKeys(cat *ir.Catalog) map[string]string {
	out := make(map[string]string, len(cat.Units))
	for _, u := range cat.Units {
		out[nameKey(u.Name)] = u.Name
	}
	return out
}

// nameKey is how a name or an alias is compared with the catalog's
// names: its words stemmed, without the word "skill" a task names a
// skill with. An alias "deploys" or "deploy skill" spells the unit called
// deploy as a task says it ("use the deploy skill"), and would take its
// tasks.
func nameKey(text string) string {
	var stems []string
	for _, w := range Words(text) {
		if w != "skill" && w != "skills" {
			stems = append(stems, Stem(w))
		}
	}
	if len(stems) == 0 { // a unit called "skills"
		for _, w := range Words(text) {
			stems = append(stems, Stem(w))
		}
	}
	return strings.Join(stems, " ")
}

// usableAliases returns u's aliases less those that spell another unit's
// name (names as nameKeys builds them). Such an alias would let a unit take
// over a name that is not its own, as evidence and as the name a task
// negates or asks for; the unit that bears the name keeps it, and
// aliasCollisions warns about the alias.
func usableAliases(u *ir.Unit, names map[string]string) []string {
	var out []string
	for _, a := range u.Aliases {
		if owner, ok := names[nameKey(a)]; ok && owner != u.Name {
			continue
		}
		out = append(out, a)
	}
	return out
}

// nameWords is a unit's name as the words it is made of.
func nameWords(u *ir.Unit) string { return strings.ReplaceAll(u.Name, "-", " ") }

// fieldsOf returns the fields a term occurs in, as bits, from its
// frequencies per field.
// maskOf has bit f set when tf[f] is not zero: the fields a bag keeps a
// count of.
func maskOf(tf *[numFields]float32) uint8 {
	var b uint8
	for f := range tf {
		if tf[f] != 0 {
			b |= 1 << f
		}
	}
	return b
}

// tf returns the frequencies of term i, whose first count is at counts[at],
// bumps included (see bump, whose next entry to look at is bump[*next]),
// and the position of the next term's first count.
func (b *bag) tf(i, at int, next *int) (tf [numFields]float32, after int) {
	for f, m := 0, b.fields[i]; m != 0; f, m = f+1, m>>1 {
		if m&1 != 0 {
			tf[f] = b.counts[at]
			at++
		}
	}
	if *next < len(b.bump) && int(b.bump[*next]) == i {
		tf[fieldTrigger]++
		*next++
	}
	return tf, at
}

func fieldsOf(tf *[numFields]float32) uint8 {
	var b uint8
	for f := range tf {
		if tf[f] > 0 {
			b |= 1 << f
		}
	}
	return b
}

// table numbers the catalog's distinct terms and bigrams, in the order the
// units first use them, and counts the units using each: the postings and
// bigram lists are then written into one array each, every term's list a
// slice of it, so that no list grows a step at a time and the postings
// (which hold no pointers) are one object for the collector to skip.
type table struct {
	terms []string
	df    []int32 // units using each term
	ids   []int32 // each bag's terms' numbers, bag after bag
	// stems are the stems of the bigrams by number, and grams each bigram
	// as its two stems' numbers, packed (see newBigramTable): a table of
	// bigrams keyed by pairs of strings was the largest thing a build
	// held at its peak.
	stems []string
	grams []uint64
	gdf   []int32
	gids  []int32
	// sizes holds, bag after bag, how many terms and how many bigrams it
	// has: what fill needs of a bag whose lists add let go.
	sizes  [][2]int32
	avgLen [numFields]float64
	// useAt holds, bag after bag, where each of its "Use when" terms
	// stands among its terms (locateUseWhen).
	useAt [][]int32
	// released says add let go of the bags' terms: fill then lets go of
	// their counts as it writes them, so that the bags are gone when the
	// postings are whole, the peak of a build that keeps no bag.
	released bool
	// numbering is the table's while bags are added; nil once averaged.
	numbering *tableNumbering
	// cjkUnits counts the bags with a Chinese, Japanese or Korean term
	// (Index.cjkUnits).
	cjkUnits int
}

// tableNumbering is the state of a table being built: the numbers given
// so far.
type tableNumbering struct {
	termID map[string]int32
	stems  numbering
	gramID map[uint64]int32
}

// newTable returns an empty table for n bags, to be given them in order
// (add) and then averaged.
func newTable(n int) *table {
	return &table{sizes: make([][2]int32, n), useAt: make([][]int32, n), numbering: &tableNumbering{termID: map[string]int32{}, gramID: map[uint64]int32{}}}
}

// add numbers bag i's terms and bigrams, given after every bag before it.
// It notes where b's "Use when" terms stand among its terms first
// (countUseWhen), since with release it then lets go of its terms and
// bigrams, as a build that keeps no bag does.
func (t *table) add(i int, b *bag, release bool) {
	n := t.numbering
	t.useAt[i] = b.locateUseWhen()
	cjk := false
	for _, term := range b.terms {
		cjk = cjk || isCJKTerm(term)
		k, ok := n.termID[term]
		if !ok {
			k = int32(len(t.terms))
			n.termID[term] = k
			t.terms, t.df = append(t.terms, term), append(t.df, 0)
		}
		t.df[k]++
		t.ids = append(t.ids, k)
	}
	for j := range b.grams {
		key := n.stems.pair(b.gram(j))
		k, ok := n.gramID[key]
		if !ok {
			k = int32(len(t.grams))
			n.gramID[key] = k
			t.grams, t.gdf = append(t.grams, key), append(t.gdf, 0)
		}
		t.gdf[k]++
		t.gids = append(t.gids, k)
	}
	t.sizes[i] = [2]int32{int32(len(b.terms)), int32(len(b.grams))}
	if cjk {
		t.cjkUnits++
	}
	if release {
		b.terms, b.grams, b.gramStems = nil, nil, nil
		t.released = true
	}
}

// average ends the table once every bag is added and counted (its
// lengths include the "Use when" terms countUseWhen adds): the average
// length of each field.
func (t *table) average(bags []bag) {
	for i := range bags {
		for f := range bags[i].lens {
			t.avgLen[f] += float64(bags[i].lens[f])
		}
	}
	for f := range t.avgLen {
		if n := len(bags); n > 0 {
			t.avgLen[f] /= float64(n)
		}
		if t.avgLen[f] == 0 {
			t.avgLen[f] = 1
		}
	}
	t.stems = t.numbering.stems.names
	t.numbering, t.useAt = nil, nil
}

// fill writes the postings and bigrams of bags into ix. It returns false,
// leaving them unset, when p stops.
func (t *table) fill(ix *Index, bags []bag, p *pulse.Pulse) bool {
	at := offsets(t.df)
	postings := make([]posting, len(t.ids))
	gat := offsets(t.gdf)
	units := make([]int32, len(t.gids))
	next, gnext := 0, 0
	for id := range bags {
		if p.Now() {
			return false
		}
		b := &bags[id]
		c, bumped := 0, 0
		for i := range int(t.sizes[id][0]) {
			k := t.ids[next]
			next++
			var tf [numFields]float32
			tf, c = b.tf(i, c, &bumped)
			postings[at[k]] = posting{unit: int32(id), fields: fieldsOf(&tf), sat: float32(saturate(tf, b.lens, t.avgLen))}
			at[k]++
		}
		for range t.sizes[id][1] {
			k := t.gids[gnext]
			gnext++
			units[gat[k]] = int32(id) // id ascends: units in order
			gat[k]++
		}
		if t.released {
			b.fields, b.counts, b.bump = nil, nil, nil
		}
	}
	// Each cursor now stands at the end of its list, where the next began.
	ix.postings.m = make(map[string][]posting, len(t.terms))
	start := 0
	for k, term := range t.terms {
		end := int(at[k])
		ix.postings.m[term] = postings[start:end:end]
		start = end
	}
	ix.bigrams.t = newBigramTable(t.stems, t.grams, func(k int) []int32 {
		start := int32(0)
		if k > 0 {
			start = gat[k-1]
		}
		return units[start:gat[k]]
	})
	return true
}

// offsets returns where each list starts in one array holding lists of
// the given lengths, one after another.
func offsets(lens []int32) []int32 {
	out := make([]int32, len(lens))
	var sum int32
	for k, n := range lens {
		out[k] = sum
		sum += n
	}
	return out
}

func (ix *Index) addWhole(unit, text string) {
	ws := Words(text)
	slices.Reverse(ws)
	ix.wholeNames.add(ws, int32(len(ix.nameUnits)))
	ix.nameUnits = append(ix.nameUnits, unit)
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

// Quoted phrases: a phrase a unit quotes is a trigger only while at most
// max(quotedMinShared, units/quotedShare) units quote it.
const (
	quotedMinShared = 2
	quotedShare     = 50
)

// locateUseWhen returns where each of b's "Use when" terms stands among
// its terms, or -1; nil when it has none.
func (b *bag) locateUseWhen() []int32 {
	if len(b.useWhen) == 0 {
		return nil
	}
	at := make([]int32, len(b.useWhen))
	for k, t := range b.useWhen {
		i, ok := slices.BinarySearch(b.terms, t)
		if !ok {
			i = -1
		}
		at[k] = int32(i)
	}
	return at
}

// countUseWhen counts, as triggers, the terms of b's "Use when" clauses
// that at most limit units' clauses share (useDF). It lists them in
// b.bump, beside b's counts, never in them: a Bag the catalog cache keeps
// holds the bag's own counts, and useDF is the catalog's. It reads where
// each term stands in at (locateUseWhen): b may have let go of its terms.
func (b *bag) countUseWhen(useDF map[string]int, limit int, at []int32) {
	b.bump = nil
	for k, t := range b.useWhen {
		i := at[k]
		if i < 0 || useDF[t] > limit {
			continue
		}
		b.bump = append(b.bump, i) // ascending: useWhen is sorted
		b.lens[fieldTrigger]++
	}
}

// useWhenFrequency counts, for each term of a "Use when" clause, how many
// units' clauses hold it.
func useWhenFrequency(bags []bag) map[string]int {
	df := map[string]int{}
	for i := range bags {
		for _, t := range bags[i].useWhen { // deduplicated per unit
			df[t]++
		}
	}
	return df
}

// quotedFrequency counts, for each quoted phrase (as its stems joined by
// spaces), how many units quote it.
func quotedFrequency(bags []bag) map[string]int {
	df := map[string]int{}
	for i := range bags {
		seen := map[string]bool{}
		for _, q := range bags[i].quoted {
			k := strings.Join(stems(q), " ")
			if !seen[k] {
				seen[k] = true
				df[k]++
			}
		}
	}
	return df
}

// Quoted returns the phrases text quotes, in order: between straight or
// curly double quotes, or single quotes that stand outside words (so an
// apostrophe never opens one). A quoted phrase in a description ("Use when
// the user says "debug this"") is the author's own words for a task that
// wants the unit. Quotes of more than quotedMaxWords words are prose, not
// a phrase, and are left out.
func Quoted(text string) []string {
	var out []string
	for _, q := range quotedSpans(text) {
		out = append(out, q.text)
	}
	return out
}

// quoted is a phrase text quotes: its text, how many words it holds, and
// the runes it spans in text, its quotes included.
type quoted struct {
	text     string
	words    int
	from, to int
}

// quotedSpans returns the phrases Quoted returns, with where they stand.
func quotedSpans(text string) []quoted {
	if !strings.ContainsAny(text, "\"'\u201c\u2018") {
		return nil // no quote opens: most texts, and no runes to decode
	}
	var out []quoted
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		var closer rune
		switch rs[i] {
		case '"':
			closer = '"'
		case '\u201c':
			closer = '\u201d'
		case '\'', '\u2018':
			if i > 0 && (unicode.IsLetter(rs[i-1]) || unicode.IsDigit(rs[i-1])) {
				continue // an apostrophe
			}
			closer = '\''
			if rs[i] == '\u2018' {
				closer = '\u2019'
			}
		default:
			continue
		}
		j := i + 1
		for j < len(rs) && rs[j] != closer && rs[j] != '\n' {
			j++
		}
		if j == len(rs) || rs[j] != closer {
			continue
		}
		if closer == '\'' || closer == '\u2019' {
			if j+1 < len(rs) && (unicode.IsLetter(rs[j+1]) || unicode.IsDigit(rs[j+1])) {
				continue // "don't": an apostrophe, not a closing quote
			}
		}
		q := string(rs[i+1 : j])
		if n := len(Words(q)); n > 0 && n <= quotedMaxWords {
			out = append(out, quoted{q, n, i, j + 1})
		}
		i = j
	}
	return out
}

// withoutPhrases returns text with every phrase of two words or more it
// quotes (spans, quotedSpans(text)) blanked out. The words of "Use when the user mentions 'lost
// rankings', 'my SEO is bad'" count as triggers one by one, but a quoted
// phrase is matched whole (Build): its words apart ("rank the issues by
// how bad they are") are no more the unit's own words than any other word
// of its description. A quoted single word ('churn') is its own phrase.
func withoutPhrases(text string, spans []quoted) string {
	if len(spans) == 0 {
		return text
	}
	rs := []rune(text)
	for _, q := range spans {
		if q.words < 2 {
			continue
		}
		for k := q.from; k < q.to; k++ {
			rs[k] = ' '
		}
	}
	return string(rs)
}

// quotedMaxWords bounds a quoted trigger phrase.
const quotedMaxWords = 6
