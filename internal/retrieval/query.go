package retrieval

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlmc-dev/rlmc/internal/pulse"
)

// Query is a task analysed once against an index, by Analyze: everything
// scoring, evidence and the pair relations read from the task is computed
// there, so they are pure functions of the index and the query, callable in
// any order. A Query never changes after Analyze and is only valid with the
// index that made it.
type Query struct {
	task        string
	words       []string // folded words, for negation and whole-name matching
	cjk         bool     // the task holds Chinese, Japanese or Korean letters (hasCJK)
	spans       []span   // where each word is in task
	stems       []string // stems of every word, for phrases; "" for a masked word
	uniqueTerms []string // indexed stems minus stop words, deduplicated, sorted
	bigrams     []bigram // indexed pairs of consecutive terms, deduplicated, as they first occur
	// negated maps each unit the task negates to the words that did it.
	negated map[string]string
	// command is the command the task opens with (Command); nil for none.
	command *Command
	// phrases are the unit phrases the task holds; objects and acts the
	// declared objects and actions it names (nil when none).
	phrases       []phraseMatch
	objects, acts map[string]bool
	// joined maps a term made of two consecutive task words written as
	// one ("Chuck Norris" for "chucknorris") to the first word's position
	// at each place the task writes it.
	joined map[string][]int
	// quoted are the values the task quotes whose words are masked, as
	// the task writes them, in task order.
	quoted []string
	// refusals are the clauses an imperative negation opens, whose words
	// are masked (maskRefused), as the task writes them, in task order:
	// the first maxQuoted of them.
	refusals []string
	// material scales the terms found only in pasted material (see
	// markMaterial); nil when there are none.
	material map[string]float64
	// pasted maps each term that names a kind of file the task's
	// material holds (markPasted) to that kind's name.
	pasted map[string]string
	// pastes caches pastedMaterial's answer; nil until it is asked.
	pastes *pastes
	// asking caches askingClauses' answer; nil until it is asked.
	asking map[string]uint64
	// sources caches fromSource's terms; nil until it is asked.
	sources *sourceTerms
	// modifiers maps each stem to whether the task says it only as a
	// noun's modifier (onlyModifier); nil until it is asked.
	modifiers map[string]bool
}

// pastes is what the task holds of pasted material: the kinds of file
// (pastedFiles) and the spans (materialSpans).
type pastes struct {
	kinds []*pastedKind
	spans []materialSpan
}

// passingTerms returns the terms a second unit may claim as its own where
// another unit mentions them only in passing (see ownTerm): in a task
// that is an instruction alone, with no pasted material and at most
// maxContextTask long, the terms of its sentences that do not state
// (statedSpans). Nil for any other task.
func (q *Query) passingTerms() map[string]bool {
	if len(q.task) > maxContextTask || len(q.pastedMaterial().spans) > 0 {
		return nil
	}
	stated := q.wordsIn(statedSpans(q.task))
	out := map[string]bool{}
	for i, st := range q.stems {
		if st != "" && !stated[i] {
			out[st] = true
		}
	}
	return out
}

// wordsIn reports, for each word of the task, whether it starts within
// one of spans, which are sorted and apart.
func (q *Query) wordsIn(spans []span) []bool {
	in := make([]bool, len(q.spans))
	k := 0
	for i, sp := range q.spans {
		for k < len(spans) && spans[k].end <= sp.start {
			k++
		}
		in[i] = k < len(spans) && spans[k].start <= sp.start
	}
	return in
}

// artifacts are the stems of the things of a product or a repository a
// task works on, which a word before them names: "the signup page", "the
// Invoices table", "the release notes". A tool named by an adjective
// ("a local bakery", "my chess strategies", "a discounted laptop") is
// asked for in just that position, so only these heads count.
var artifacts = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"page", "table", "form", "button", "screen", "modal", "component", "endpoint", "module", "notes", "file", "folder", "branch", "field", "column", "view", "template", "tab", "section", "banner", "widget"} {
		m[Stem(w)] = true
	}
	return m
}()

// determiners open a noun phrase: "the signup page", "our pricing page".
var determiners = set([]string{"the", "a", "an", "our", "my", "your", "their", "this", "that", "its", "his", "her"})

// onlyModifier reports whether every time the task says the stem st it
// says it as the modifier of an artifact after a determiner ("generate
// tests for the signup page", "someone created the Invoices table"): a word
// that names what is worked on, not the skill's name stated. A one-word name
// so used earns no name bonus and makes no own part (ownPart); its word
// still counts as a word. The task is read once, on the first call.
func (q *Query) onlyModifier(st string) bool {
	if q.modifiers == nil {
		q.modifiers = map[string]bool{}
		for i, s := range q.stems {
			if s == "" {
				continue
			}
			mod := i > 0 && i+1 < len(q.stems) && determiners[q.words[i-1]] && q.gap(i-1) == gapSpace && q.gap(i) == gapSpace &&
				artifacts[q.stems[i+1]]
			if was, seen := q.modifiers[s]; !seen || was {
				q.modifiers[s] = mod
			}
		}
	}
	return q.modifiers[st]
}

// pastedMaterial returns the kinds of file and the spans of pasted
// material the task holds, found once.
func (q *Query) pastedMaterial() *pastes {
	if q.pastes == nil {
		q.pastes = readPastes(q.task, nil)
	}
	return q.pastes
}

// readPastes finds the kinds of file and the spans of pasted material in
// task; when p stops, what it found so far.
func readPastes(task string, p *pulse.Pulse) *pastes {
	kinds := pastedFiles(task)
	return &pastes{kinds, materialSpans(task, kinds, p)}
}

// Surface returns, for each of terms (every stem of the task when terms
// is nil) that no word of the task spells as it is but some word stems
// to, the first such word as the task folds it ("policy" for "polici"):
// what an explanation shows a reader of a stem. The instruction's word
// comes first, a pasted file's only when the instruction has none: a
// term the instruction says is evidence from the instruction, and showed
// the word of a log pasted above it ("routes" for "rout" beside "route
// this"). A term the task spells as it is ("file" in "the file, and
// other files") is shown as it is. The task is read once, whatever the
// number of terms.
func (q *Query) Surface(terms map[string]bool) map[string]string {
	out := map[string]string{}
	pasted := map[string]bool{} // terms whose word in out is the material's
	verbatim := map[string]bool{}
	ms := q.pastedMaterial().spans
	m := 0
	for i, st := range q.stems {
		w := q.words[i]
		if st == "" || terms != nil && !terms[st] {
			continue
		}
		if st == w {
			verbatim[st] = true
			continue
		}
		for m < len(ms) && ms[m].end <= q.spans[i].start {
			m++
		}
		inMaterial := m < len(ms) && ms[m].start <= q.spans[i].start
		if out[st] == "" || pasted[st] && !inMaterial {
			out[st], pasted[st] = w, inMaterial
		}
	}
	for t := range verbatim {
		delete(out, t)
	}
	return out
}

// negatesIn reports whether clause holds the words that negate a unit:
// the explanation says that negation already ("do not use tdd").
func (q *Query) negatesIn(clause string) bool {
	for _, said := range q.negated {
		if strings.Contains(clause, said) {
			return true
		}
	}
	return false
}

// Refusals returns the clauses of the task that say what not to do ("don't
// deploy to production"), whose words are evidence for no unit, as the
// task writes them, in task order: the first maxQuoted of them.
func (q *Query) Refusals() []string { return q.refusals }

// Quoted returns the values the task puts between double quotation marks
// whose words are evidence for no unit, as the task writes them, in task
// order, each once: the first maxQuoted of them.
func (q *Query) Quoted() []string { return q.quoted }

// Negation is a unit the task negates (rule 5) and the words that did it.
type Negation struct {
	Unit string
	Said string
}

// Negations returns the units the task negates, sorted by name.
func (q *Query) Negations() []Negation {
	out := make([]Negation, 0, len(q.negated))
	for _, n := range slices.Sorted(maps.Keys(q.negated)) {
		out = append(out, Negation{Unit: n, Said: q.negated[n]})
	}
	return out
}

// Negated returns the words that negated unit, or "" when the task does not
// negate it.
func (q *Query) Negated(unit string) string { return q.negated[unit] }

// span is where a word is in the task, in bytes.
type span struct{ start, end int32 }

// scanPiece is about how many bytes of the task analyze splits into words
// before it looks at the context again.
const scanPiece = 32 << 10

// Analyze reads the task once: its words, negations, terms, bigrams, and
// the phrases, objects and actions of the index it names. Its terms and
// bigrams are kept only when the catalog indexes them: no other can score,
// and a long task of words no skill uses must not cost a map entry per
// word. When p stops, the query is partial and the caller must discard it
// (p.Err says so); a nil p never stops.
func (ix *Index) Analyze(task string, p *pulse.Pulse) *Query {
	return ix.AnalyzeWith(task, AnalyzeOptions{}, p)
}

// AnalyzeOptions say how the host reads a task.
type AnalyzeOptions struct {
	// Commands: a task that opens with a unit's /name invokes it
	// (Command), and the words of the command, up to where the task
	// asks for something else, are its arguments: evidence for no unit.
	Commands bool
}

// AnalyzeWith is Analyze, reading the task as o says.
func (ix *Index) AnalyzeWith(task string, o AnalyzeOptions, p *pulse.Pulse) *Query {
	q := &Query{task: task}
	// English averages about six bytes a word with its space; guessing
	// saves most of the regrowing on a long task.
	words, spans := make([]string, 0, len(task)/6+1), make([]span, 0, len(task)/6+1)
	// The task is split in pieces at blanks, which no word crosses, so that
	// a deadline is looked at between them.
	for off := 0; off < len(task); {
		if p.Now() {
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
	q.cjk = hasCJK(task)
	// Negation reads words before terms are counted: the words a negation
	// names are masked, so naming a unit to refuse it is evidence for no
	// unit at all, neither the refused one nor another sharing its words.
	// A command the task opens with, and its arguments, come first: a
	// refusal among its arguments ("/deploy staging, but no deploy to
	// prod") is one of them, no refusal of the command.
	var commandWords int // the command's name and arguments
	if o.Commands {
		q.command, commandWords = ix.command(q)
	}
	var masked []bool
	q.negated, masked = ix.negations(q, commandWords, p)
	if q.command != nil {
		// The command the user typed first stands: "/deploy staging,
		// but no deploy to prod" refuses a deploy, not the skill.
		delete(q.negated, q.command.Unit)
	}
	masked = maskWords(masked, len(q.words), 0, commandWords)
	masked = maskRefused(q, masked)
	masked = ix.maskRefusedForms(q, masked)
	if q.cjk {
		masked = maskRefusedCJK(q, masked)
	}
	// Reading a pasted megabyte's lines takes tens of milliseconds: it
	// looks at the deadline as it goes (the query is partial when it
	// stops, as when any step here does).
	q.pastes = readPastes(task, p)
	masked = ix.maskQuoted(q, masked)
	masked = maskVerbGo(q, masked)
	q.stems = make([]string, len(q.words))
	seen := map[string]bool{}
	grams := map[bigram]bool{}
	var prev string // the last term, for bigrams
	// Bigrams stay in the order they first occur: every one adds the same
	// bonus and evidence sorts them by text, so no order needs sorting.
	for i, w := range q.words {
		if p.Stop() {
			return q
		}
		if prev != "" && q.endsClause(i-1) {
			// Words on either side of a sentence or clause end are no
			// phrase: "... in the API. I want to explore" says no "api
			// explore".
			prev = ""
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
		if known := ix.postings.has(st); known && !seen[st] {
			seen[st] = true
			q.uniqueTerms = append(q.uniqueTerms, st)
		}
		if g := (bigram{prev, st}); prev != "" && !grams[g] && !hanOverlap(prev, st) {
			if known := ix.bigrams.has(g); known {
				grams[g] = true
				q.bigrams = append(q.bigrams, g)
			}
		}
		prev = st
	}
	ix.joinWords(q, masked, seen, p.Stop)
	q.markMaterial(seen, ix.postings.has)
	sort.Strings(q.uniqueTerms)
	q.phrases = ix.matchPhrases(q, p.Stop)
	q.objects, q.acts = ix.objects.named(q.stems, p.Stop), ix.actions.named(q.stems, p.Stop)
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
func (q *Query) gap(k int) gapKind {
	kind, _ := q.gapWith(k, 0)
	return kind
}

// gapAllow is punctuation a negation reads through where a plain clause
// would end: a name may be wrapped or introduced.
type gapAllow uint8

const (
	// allowColon lets a colon introduce the names: "exclude: X".
	allowColon gapAllow = 1 << iota
	// allowOpen lets a bracket or an at sign open a name: "(X", "[X",
	// "{X", "@X".
	allowOpen
	// allowClose lets a bracket close a name that one opened: "(X) or Y".
	allowClose
)

// openers and closers are the brackets that may wrap a name in a
// negation, and the at sign that may mark one.
const (
	openers = "([{@"
	closers = ")]}"
)

// gapWith is gap reading through the punctuation allow lets through, and
// says whether an opening bracket or at sign was among it.
func (q *Query) gapWith(k int, allow gapAllow) (kind gapKind, opened bool) {
	if k < 0 || k+1 >= len(q.words) {
		return gapBreak, false
	}
	newlines := 0
	for _, r := range q.task[q.spans[k].end:q.spans[k+1].start] {
		switch {
		case r == '\n':
			if newlines++; newlines > 1 {
				return gapBreak, false
			}
		case r == ',' || r == '/' || r == '&':
			kind = gapList
		case unicode.IsSpace(r) || isApostrophe(r) || strings.ContainsRune("\"*_~-\u2013\u2014$\u201c\u201d\u00ab\u00bb", r):
		case r == ':' && allow&allowColon != 0:
		case allow&allowOpen != 0 && strings.ContainsRune(openers, r):
			opened = true
		case allow&allowClose != 0 && strings.ContainsRune(closers, r):
		default:
			return gapBreak, false
		}
	}
	return kind, opened
}

// A negation cue is read by a small grammar, so that the words people put
// around a refusal do not hide it:
//
//	cue     := negator [intensifier...] [", " interjection ","] [bridge] verb
//	         | refuser [gerund]
//	         | "stop" gerund
//	         | want                      (names must end the object)
//	         | start "not" [gerund | "with" | "via" | "through"]  (names must end the object)
//	bridge  := ("need" | "want") ["you" | "them" | "it"] "to"
//	want    := ("dont" | "do not" | "never") "want"
//	start   := the clause's first word, after a bracket, "but" or "and"
//	names   := [":"] [quantifier] [skillnoun] name {("," | connector) [quantifier] [skillnoun] name}
//	postfix := start names ["skill"] copula ["not" [intensifier]] predicate
//	         | start names ["skill"] copula "not" "to" "be" (predicate | participle)
//	         | start names ["skill"] (modal "not" | negmodal) [intensifier] "be" (predicate | participle)
//
// "do not use X", "never ever use X", "Do not, under any circumstances,
// use X", "I don't need to run X", "avoid X", "avoid using X", "stop using
// X", "exclude: X", "don't use any of X, Y", "instead of X", "leave out
// X", "don't bother with X", "I don't want X", "use X, not Y", "(not Y)",
// "..., not using Y", "other than X", "anything but X", "forget X",
// "Y is not needed". The words of a cue must stand in one clause: "Ready
// or not. Use X" negates nothing, and a comma right after a cue ends it
// ("No, X is what I want").
//
// Where the names must end the object ("I don't want X", "ignore X",
// "instead of X", "rather than X", a bare "not X"), a word after them that is no list joiner, no clause end
// and no word of objectFollowers is a noun they modify, and the cue
// refuses nothing: "I don't want the X notes to be long" wants notes,
// "ignore the X warnings" ignores warnings, "not X-related" is no refusal.
//
// A refuser is itself a negation, so one inside the scope of a negator
// in its clause is a double negation and refuses nothing: "we can't ship
// without X", "never deploy without X", "don't skip X", "use nothing
// except X" all ask for X. The scope runs from the negator (past its
// intensifiers and interjection) over at most maxScope words joined by
// blanks, up to any punctuation or a word of scopeEnders ("don't deploy,
// skip X" and "don't deploy but skip X" still skip X). "no" and "neither"
// are no refusers there: "I don't want no X" is negative concord, and
// refuses X.

// cueKind says what must follow a cue's words before the names.
type cueKind uint8

const (
	// cueVerb is a negator that a verb must finish: "do not use".
	cueVerb cueKind = iota
	// cueRefuse refuses the names that follow by itself ("avoid X"), or
	// with a gerund between ("avoid using X").
	cueRefuse
	// cueGerund refuses only with a gerund: "stop using X"; "stop X"
	// may ask to stop X running.
	cueGerund
	// cueWant is a verb of wanting after a negator: it refuses the names
	// that are its whole object ("I don't want X"), and leaves "I don't
	// want to use X" to the bridge.
	cueWant
	// cueBare is "not" opening a clause, straight before the names:
	// "use X, not Y", "(not Y)", "but not Y".
	cueBare
)

// cue is the opening words of a negation cue, as folded words.
type cue struct {
	words []string
	kind  cueKind
	// colon says whether a colon may stand between the cue and the first
	// name ("exclude: X"): not after a bare "no" or "neither", which
	// answer a question as often as they refuse ("No: tdd is what I want").
	colon bool
	// interject says whether a clause set off by commas may stand between
	// the negator and its verb ("Do not, under any circumstances, use X"):
	// only after an imperative negator, as a bare "not" ends a clause of
	// its own too often ("If not, then, use X").
	interject bool
	// scoped says whether a negator before the cue, in its scope, cancels
	// it: "can't ship without X" asks for X.
	scoped bool
	// object says whether the names must end the cue's object: a noun
	// after them is what the cue is about ("ignore the X warnings").
	object bool
	// commaEnds says whether a comma without a connector ends the list:
	// "instead of X, deploy it" and "not X, Y" open a clause of their own
	// before the comma.
	commaEnds bool
	// inner says whether the cue refuses only inside a clause, after a
	// word of it: "use any runner other than X" refuses X, while "Other
	// than X, which runners does this repo support?" sets X aside as
	// "besides" does, and asks about the rest.
	inner bool
	// stated says whether a verb of having or being before the cue makes
	// it a statement of what is missing: "it has no README at all right
	// now" asks for one, while "no README, just a man page" refuses it.
	stated bool
	// refusesWords says whether the cue refuses the words of an object that
	// names no unit: they are evidence for no unit ("use polars instead
	// of pandas" is no request for a pandas skill). Only a cue whose
	// object is a thing turned away from ("instead of", "rather than",
	// "don't use", "stop using", a bare "not"): "without", "no" and
	// "avoid" name what to avoid as often ("without downtime", "no
	// breaking changes", "avoid N+1 queries"), and a skill about avoiding
	// it is what is asked for.
	refusesWords bool
}

// havingWords before a bare "no" make it state an absence (cue.stated).
var havingWords = set([]string{"has", "have", "had", "got", "is", "are", "was", "were", "theres", "thats", "its"})

// negationCues introduce units the task does not want.
var negationCues = []cue{
	{words: []string{"do", "not"}, kind: cueVerb, colon: true, interject: true, refusesWords: true},
	{words: []string{"dont"}, kind: cueVerb, colon: true, interject: true, refusesWords: true},
	{words: []string{"never"}, kind: cueVerb, colon: true, interject: true, refusesWords: true},
	{words: []string{"not"}, kind: cueVerb, colon: true, refusesWords: true},
	// The contracted negators of a modal read as their "not":
	// "shouldn't use X" as "should not use X", "cannot use X" as "can not
	// use X". Those of a past or a conditional are left out: "why didn't
	// CI run X?" and "it couldn't load X" tell what went wrong with X.
	{words: []string{"cant"}, kind: cueVerb, colon: true, refusesWords: true},
	{words: []string{"cannot"}, kind: cueVerb, colon: true, refusesWords: true},
	{words: []string{"wont"}, kind: cueVerb, colon: true, refusesWords: true},
	{words: []string{"shouldnt"}, kind: cueVerb, colon: true, refusesWords: true},
	{words: []string{"mustnt"}, kind: cueVerb, colon: true, refusesWords: true},
	{words: []string{"neednt"}, kind: cueVerb, colon: true, refusesWords: true},
	{words: []string{"not"}, kind: cueBare, object: true, commaEnds: true, refusesWords: true},
	{words: []string{"do", "not", "want"}, kind: cueWant, colon: true, object: true},
	{words: []string{"dont", "want"}, kind: cueWant, colon: true, object: true},
	{words: []string{"never", "want"}, kind: cueWant, colon: true, object: true},
	{words: []string{"do", "not", "bother", "with"}, kind: cueRefuse, colon: true, refusesWords: true},
	{words: []string{"dont", "bother", "with"}, kind: cueRefuse, colon: true, refusesWords: true},
	{words: []string{"never", "bother", "with"}, kind: cueRefuse, colon: true, refusesWords: true},
	{words: []string{"no", "need", "to"}, kind: cueVerb, colon: true, refusesWords: true},
	{words: []string{"no", "need", "for"}, kind: cueRefuse, colon: true, refusesWords: true},
	{words: []string{"no"}, kind: cueRefuse, stated: true},
	{words: []string{"neither"}, kind: cueRefuse},
	{words: []string{"avoid"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"without"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"skip"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"exclude"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"excluding"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"except"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"except", "for"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"refrain", "from"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"stay", "away", "from"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"stop"}, kind: cueGerund, colon: true, scoped: true, refusesWords: true},
	{words: []string{"instead", "of"}, kind: cueRefuse, colon: true, scoped: true, object: true, commaEnds: true, refusesWords: true},
	{words: []string{"rather", "than"}, kind: cueRefuse, colon: true, scoped: true, object: true, commaEnds: true, refusesWords: true},
	{words: []string{"leave", "out"}, kind: cueRefuse, colon: true, scoped: true},
	{words: []string{"ignore"}, kind: cueRefuse, colon: true, scoped: true, object: true},
	{words: []string{"other", "than"}, kind: cueRefuse, colon: true, scoped: true, object: true, commaEnds: true, inner: true, refusesWords: true},
	{words: []string{"anything", "but"}, kind: cueRefuse, colon: true, scoped: true, object: true, commaEnds: true, refusesWords: true},
	{words: []string{"forget", "about"}, kind: cueRefuse, colon: true, scoped: true, object: true},
	{words: []string{"forget"}, kind: cueRefuse, colon: true, scoped: true, object: true},
}

// cuesFrom holds negationCues by their first word, longest first, so a
// word that opens no cue costs one map look-up.
var cuesFrom = func() map[string][]cue {
	m := map[string][]cue{}
	for _, c := range negationCues {
		m[c.words[0]] = append(m[c.words[0]], c)
	}
	for _, cs := range m {
		slices.SortStableFunc(cs, func(a, b cue) int { return len(b.words) - len(a.words) })
	}
	return m
}()

// negatedVerbs bring a unit into the work: "don't include the changelog"
// and "I don't need the changelog" refuse it as "don't use" does. Verbs of
// wanting are left out: "I don't want the changelog to be long" asks for
// one; "I don't want to use X" refuses X by its "use", through the bridge.
var negatedVerbs = map[string]bool{"use": true, "include": true, "load": true, "apply": true, "invoke": true, "call": true, "run": true, "need": true}

// bridgeObjects may stand between a bridge's verb and its "to": "I don't
// want you to use X", "I don't need them to run X".
var bridgeObjects = map[string]bool{"you": true, "them": true, "it": true}

// gerunds are negatedVerbs as a refuser takes them: "avoid using X",
// "without loading X", "skip running X".
var gerunds = map[string]bool{"using": true, "including": true, "loading": true, "applying": true, "invoking": true, "calling": true, "running": true, "needing": true}

// intensifiers may stand between a negator and its verb and change
// nothing: "never ever use X", "don't even load X". "just" and "always"
// are not among them: "don't just use X" and "don't always use X" ask for X.
var intensifiers = map[string]bool{"ever": true, "even": true, "really": true, "please": true, "actually": true}

// negators open the scope in which a refuser is a double negation: "can't
// ship without X", "never skip X". The contractions are folded without
// their apostrophe.
var negators = map[string]bool{
	"not": true, "never": true, "no": true, "dont": true, "cant": true, "cannot": true, "wont": true,
	"doesnt": true, "didnt": true, "shouldnt": true, "mustnt": true, "neednt": true, "wouldnt": true, "couldnt": true,
	"isnt": true, "arent": true, "nothing": true, "nobody": true,
}

// scopeEnders end a negator's scope within its clause: "don't deploy but
// skip X" skips X.
var scopeEnders = map[string]bool{"but": true, "so": true, "then": true, "yet": true, "instead": true, "just": true, "rather": true}

// concessives after the names of a bare "not" make it a fact conceded,
// not a refusal: "it starts fine locally, not with docker though".
var concessives = map[string]bool{"though": true, "tho": true}

// bareMeans may follow a bare "not" before the names, as a gerund may:
// "write the Dockerfile, not with X", "..., not via X". Inside a clause
// ("it does not work with X", "why is it not using X?") "not" is no bare
// one, and says what goes wrong with X.
var bareMeans = map[string]bool{"with": true, "via": true, "through": true}

// clauseOpeners may stand before a bare "not" or a postfix refusal's
// names as if a clause started there: "use X but not Y".
var clauseOpeners = map[string]bool{"but": true, "and": true}

// objectFollowers may follow names that must end an object: they are no
// noun the names modify ("I don't want X here"). "to" is one only after a
// bare "not" or "ignore" ("not X to production"): "I don't want X to be
// slow" wants X. A word of skillNouns may stand between ("ignore the X
// skill", but "I don't want the X skill to be slow").
var objectFollowers = map[string]bool{
	"here": true, "please": true,
	"now": true, "today": true, "anymore": true, "again": true, "at": true, "for": true, "in": true,
	"on": true, "this": true, "but": true, "either": true, "too": true, "though": true, "then": true,
	"so": true, "because": true, "since": true, "as": true, "when": true, "while": true, "if": true,
	"unless": true, "until": true, "whatsoever": true, "anywhere": true, "instead": true,
	// The verbs of a choice made instead: "instead of X use Y".
	"use": true, "try": true, "pick": true, "choose": true, "prefer": true, "go": true,
}

// skillNouns name what a name is: "the X skill".
var skillNouns = map[string]bool{"skill": true, "skills": true, "tool": true, "tools": true}

// madeNouns name what a skill makes or does, after its name in what a
// user does not want: "I don't want a changelog entry for this one"
// refuses the changelog as "I don't want a changelog" does. After other
// cues the name modifies a thing ("ignore the tdd file"), refused or not.
var madeNouns = map[string]bool{"entry": true, "entries": true, "file": true, "files": true, "update": true, "updates": true,
	"section": true, "sections": true, "step": true, "steps": true, "pass": true, "run": true, "check": true, "checks": true}

// copulas open a postfix refusal after its names, and predicates close
// it: "X is not needed", "X isn't required", "X is unnecessary".
var (
	copulas        = map[string]bool{"is": true, "are": true, "was": true, "were": true}
	negCopulas     = map[string]bool{"isnt": true, "arent": true, "wasnt": true, "werent": true}
	predicates     = map[string]bool{"needed": true, "wanted": true, "required": true, "necessary": true, "welcome": true}
	negPredicates  = map[string]bool{"unnecessary": true, "unneeded": true, "unwanted": true}
	postfixNameCap = 16 // how far before its copula a postfix refusal's names may start

	// modals open a postfix refusal with their "not" and "be" ("X must
	// not be used"), negModals with their "be" ("X shouldn't be loaded"),
	// and participles close one there, as predicates do. Only the modals
	// of what ought to be: "X can't be run because ..." and "X won't be
	// loaded" tell what goes wrong with X, which the user wants help with.
	modals      = map[string]bool{"should": true, "must": true}
	negModals   = map[string]bool{"shouldnt": true, "mustnt": true}
	participles = map[string]bool{"used": true, "loaded": true, "included": true, "applied": true, "invoked": true, "called": true, "run": true}
)

const (
	maxIntensifiers = 2
	// maxInterjection is how many words a clause set off by commas may
	// hold between a negator and its verb.
	maxInterjection = 6
	// maxScope is how many words may stand between a negator's scope
	// start and a refuser it cancels.
	maxScope = 8
)

// articles may sit between a cue or a connector and a name: "don't use the
// tdd skill", "don't use either X or Y". At most maxArticles are skipped;
// a quantifier with its "of" ("any of", "either of") counts as one.
var articles = map[string]bool{"the": true, "a": true, "an": true, "any": true, "either": true, "neither": true}

// quantifiers are the articles that may take "of": "don't use any of X, Y".
var quantifiers = map[string]bool{"any": true, "either": true, "neither": true}

const maxArticles = 2

// connectors continue a list of names after a cue: "X or Y", "X, Y and Z",
// "neither X nor Y". At most maxConnectors sit between two names ("and/or").
var connectors = map[string]bool{"or": true, "and": true, "nor": true}

const maxConnectors = 2

// maskRefusedForms marks, in masked (allocated when nil and needed),
// each gerund after a refuser ("without deploying", "avoid merging",
// "skip linting", "no refactoring for now") made of a one-word unit name,
// or of a two-word name's first word before its second ("without writing
// tests"), and each plural of a one-word name after a refusing "no" ("no
// benchmarks"): the act the task refuses is evidence for no unit, so "review the diff without deploying" is no
// request for the deploy skill. It refuses no unit: "we shipped without
// linting and CI is red; lint the code" asks for lint. After a negator
// of its clause it is a double negation, and asks: "never merge without
// linting", "don't skip linting".
func (ix *Index) maskRefusedForms(q *Query, masked []bool) []bool {
	for k := 1; k < len(q.words); k++ {
		w := q.words[k]
		if q.gap(k-1) != gapSpace {
			continue
		}
		if q.refusedPlural(k) && ix.isWholeName([]string{w[:len(w)-1]}) {
			masked = maskSpan(masked, len(q.words), k, k+1)
			q.refused(k-1, k+1)
			continue
		}
		if !isGerund(w) || !(gerundCues[q.words[k-1]] || q.refusingNo(k)) || q.negatedBefore(k-1) {
			continue
		}
		base := w[:len(w)-3]
		for _, b := range [...]string{base, base + "e", undouble(base)} {
			n := 0
			switch {
			case ix.isWholeName([]string{b}):
				n = 1
			case k+1 < len(q.words) && q.gap(k) == gapSpace && ix.isWholeName([]string{b, q.words[k+1]}):
				n = 2 // "without writing tests" for write-tests
			default:
				continue
			}
			masked = maskSpan(masked, len(q.words), k, k+n)
			q.refused(k-1, k+n)
			break
		}
	}
	return masked
}

// isGerund reports whether w reads as a verb's gerund: a word in -ing of
// six letters or more that is not one of the nouns and pronouns of that
// shape ("everything", "string", "morning").
func isGerund(w string) bool {
	return len(w) >= 6 && strings.HasSuffix(w, "ing") && !notGerunds[w]
}

// notGerunds are the nouns, pronouns and prepositions in -ing of six
// letters or more (shorter words are no gerund to isGerund anyway).
var notGerunds = set([]string{"anything", "something", "everything", "nothing", "string", "spring", "during", "morning", "evening", "ceiling",
	"pudding", "wedding", "ending", "heading", "setting", "building", "warning", "meeting"})

// refusedPlural reports whether word k is a plural in -s after a bare
// "no" that refuses ("write the tests, no benchmarks"), not one that
// states what is missing ("there are no benchmarks yet", "no backups were
// taken": havingWords).
func (q *Query) refusedPlural(k int) bool {
	w := q.words[k]
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && q.refusingNo(k) && !q.negatedBefore(k-1)
}

// refusingNo reports whether word k follows a "no" that refuses it ("no
// benchmarks", "no refactoring for now"), not one that states what is
// missing ("there are no benchmarks yet", "no backups were taken":
// havingWords before the "no" or after the word).
func (q *Query) refusingNo(k int) bool {
	return k >= 1 && q.words[k-1] == "no" && (k < 2 || !havingWords[q.words[k-2]]) && (k+1 >= len(q.words) || !havingWords[q.words[k+1]])
}

// gerundCues are the refusers a gerund follows.
var gerundCues = map[string]bool{"without": true, "avoid": true, "avoiding": true, "skip": true, "skipping": true, "stop": true}

// negatedBefore reports whether a negator stands within maxNegatorReach
// words before word k in its clause ("never merge without", "don't skip").
func (q *Query) negatedBefore(k int) bool {
	for j := k - 1; j >= 0 && j >= k-maxNegatorReach; j-- {
		if q.endsClause(j) {
			return false
		}
		if negators[q.words[j]] {
			return true
		}
	}
	return false
}

// maxNegatorReach is how many words a negator reaches over to a refuser
// it negates, as rule 5's double negation reads it.
const maxNegatorReach = 8

// maskSpan marks words from to to in masked, allocated for n words when
// nil.
func maskSpan(masked []bool, n, from, to int) []bool {
	if masked == nil {
		masked = make([]bool, n)
	}
	for j := from; j < to; j++ {
		masked[j] = true
	}
	return masked
}

// refused records words from to to as a refusal the explanation shows,
// cut after maxQuoteWords words, unless the words negate a unit (the
// negation says so already) or maxQuoted refusals are recorded.
func (q *Query) refused(from, to int) {
	if len(q.refusals) >= maxQuoted {
		return
	}
	said := q.written(from, min(to, from+maxQuoteWords))
	if to > from+maxQuoteWords {
		said += " \u2026"
	}
	if !q.negatesIn(said) {
		q.refusals = append(q.refusals, said)
	}
}

// listName is a name read in a list: its state, where it starts, its
// length in words, and where the words before it (its connector and
// articles) start.
type listName struct {
	state         int32
	at, len, from int
}

// negations returns the units the task negates, with the words that did
// it, and which words the negated names are (nil when none): those words
// are no evidence for any unit. A cue negates the longest name or alias
// that follows it in the same clause (so "do not use code-review-bot"
// spares code-review), and every name of a list that goes on from there:
// "don't use deploy or code-review" negates both. Each word is read a
// bounded number of times, whatever the names, and each distinct name is
// resolved to its units once, however often it is negated and however
// many units share it, so the pass is linear in the task. Cues are read
// from word from on: the words before it are a command's name and
// arguments (Index.command).
func (ix *Index) negations(q *Query, from int, p *pulse.Pulse) (map[string]string, []bool) {
	out := map[string]string{}
	var (
		masked []bool
		nameAt []int32              // the longest name starting at each word, once a cue is seen
		states []int32              // the names negated, as states, in the order first negated
		said   = map[int32]string{} // state -> the words that first negated it
		list   []listName           // the names of the list just read
		scope  = -1                 // where the last negator's scope starts, or -1
	)
	names := func() bool {
		if nameAt == nil {
			nameAt = ix.wholeNames.longestFrom(q.words, p.Stop)
		}
		return nameAt != nil
	}
	// refuse negates the name l, which the cue of n words at word i
	// refused, or, when n is 0, the postfix refusal from word i to word
	// post. The words are quoted once per name, the first time.
	refuse := func(l listName, i, n, post int) {
		if _, ok := said[l.state]; !ok {
			if n > 0 {
				said[l.state] = q.said(i, n, l.from, l.at+l.len)
			} else {
				said[l.state] = q.written(i, post)
			}
			states = append(states, l.state)
		}
		if masked == nil {
			masked = make([]bool, len(q.words))
		}
		for j := l.at; j < l.at+l.len; j++ {
			masked[j] = true
		}
	}
	for i := from; i < len(q.words); i++ {
		if p.Stop() {
			break
		}
		w := q.words[i]
		if copulas[w] || negCopulas[w] || modals[w] || negModals[w] {
			if post := q.postfixAt(i); post > 0 {
				if !names() {
					break
				}
				if from := ix.namesBefore(q, nameAt, i, &list); from >= 0 {
					for _, l := range list {
						refuse(l, from, 0, post)
					}
					i = post - 1
					continue
				}
			}
		}
		c, n := q.cueAt(i)
		inScope := scope >= 0 && scope <= i && q.inScope(scope, i)
		if negators[w] {
			interject := w == "dont" || w == "never" || (w == "not" && i > 0 && q.words[i-1] == "do" && q.gap(i-1) == gapSpace)
			scope = q.afterNegator(i+1, interject)
		}
		if c == nil || (c.scoped && inScope) {
			continue
		}
		if !names() {
			break
		}
		var end int
		list, end = ix.readNames(q, nameAt, i+n, c.colon, c.commaEnds, false, list[:0])
		conceded := c.kind == cueBare && q.nextIn(end, concessives)
		// An object that names no unit, or that a unit's name does not
		// end, refuses no unit, but is still turned away: "use polars
		// instead of pandas", "write the commit message but not a
		// changelog entry" (no request for a changelog skill).
		if c.refusesWords && !conceded && (len(list) == 0 || c.object && !q.endsObject(end, c.kind != cueWant)) {
			if at, to, ok := q.refusedWords(i+n, c); ok && !(c.kind == cueBare && q.nextIn(to, concessives)) {
				masked = maskSpan(masked, len(q.words), at, to)
				i = to - 1
			}
			continue
		}
		if len(list) == 0 || (c.object && !q.endsObject(end, c.kind != cueWant)) || conceded {
			continue
		}
		for _, l := range list {
			refuse(l, i, n, 0)
		}
		// A cue among the names just read is one of them, not a new cue.
		i = max(i, end-1)
	}
	if q.cjk && names() {
		q.cjkRefusals(nameAt, func(s int32) int { return int(ix.wholeNames.depth[s]) }, p.Stop, func(l listName, text string) {
			_, seen := said[l.state]
			refuse(l, l.at, 0, l.at+l.len)
			if !seen {
				said[l.state] = text
			}
		})
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

// maxRefusedWords bounds the object of a cue that names no unit whose
// words refusedWords masks: a thing named in a word or a few ("instead of
// pandas", "rather than a plain cron job"), not a clause.
const maxRefusedWords = 3

// refusedWords returns the words, from to to, of the object of cue c that
// starts at word k when it names no unit: after at most maxArticles
// articles, one to maxRefusedWords words joined by blanks that end the
// object as names must (endsObject). A comma right after the cue ends it,
// as it ends a list of names ("No, pandas is fine").
func (q *Query) refusedWords(k int, c *cue) (from, to int, ok bool) {
	if k <= 0 || k >= len(q.words) || q.gap(k-1) != gapSpace {
		return 0, 0, false
	}
	for a := 0; a < maxArticles && k < len(q.words) && articles[q.words[k]] && q.gap(k) == gapSpace; a++ {
		k++
	}
	if k >= len(q.words) || focusWords[q.words[k]] {
		return 0, 0, false // "not only X but also Y" asks for both
	}
	for to = k + 1; to <= min(len(q.words), k+maxRefusedWords); to++ {
		w := q.words[to-1]
		if negators[w] || connectors[w] || cuesFrom[w] != nil {
			return 0, 0, false
		}
		if q.endsObject(to, c.kind != cueWant) {
			return k, to, true
		}
		if to < len(q.words) && q.gap(to-1) != gapSpace {
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// focusWords after a cue make it no refusal of what follows: "not only
// X", "not just X", "not even X", "instead of just X".
var focusWords = set([]string{"only", "just", "merely", "simply", "even", "always", "necessarily", "quite", "really", "exactly", "sure", "yet", "so", "too", "very", "all", "that", "much"})

// readNames appends to list the names of the list that starts at word
// end, after a cue (colon says whether a colon may introduce it) or, when
// start is set, at a clause's start, where no gap before the first word
// is read; when commaEnds is set only a connector word goes on to a
// further name. It returns list and the end of the list's last name (end
// when it has none).
func (ix *Index) readNames(q *Query, nameAt []int32, end int, colon, commaEnds, start bool, list []listName) ([]listName, int) {
	wrapped := false // a bracket opened a name of this list
	for item := 0; ; item++ {
		k := end
		comma := false // only a comma joins this name to the list
		// before is what the gap before a name, or an article before
		// it, may hold.
		before := allowOpen
		if item == 0 && colon {
			before |= allowColon
		}
		if item == 0 && !start && k < len(q.words) && k > 0 && q.commaAfter(k-1) {
			// A comma right after the cue ends it: "No, X is what I want".
			break
		}
		if item > 0 {
			// A further name needs a comma or a connector word. A
			// bracket may close the name just read, if one opened it,
			// and open the next one after a comma, but not stand
			// before a connector: "avoid X (or Y)" is an aside.
			after := gapAllow(0)
			if wrapped {
				after = allowClose
			}
			if k < len(q.words) && !connectors[q.words[k]] {
				after |= allowOpen
			}
			g, _ := q.gapWith(k-1, after)
			listed := g == gapList && !commaEnds
			for c := 0; g != gapBreak && c < maxConnectors && k < len(q.words) && connectors[q.words[k]]; c++ {
				listed, k = true, k+1
				g, _ = q.gapWith(k-1, allowOpen)
			}
			if !listed || g == gapBreak {
				break
			}
			if k == end {
				// No connector: the gap just read is the one before
				// the next word, "(X), (Y)".
				before |= after
				comma = true
			}
		}
		first := item == 0 && start // the list's first word: no gap to read
		for a := 0; a < maxArticles && k < len(q.words) && articles[q.words[k]]; a++ {
			if !first || k > end {
				g, opened := q.gapWith(k-1, before)
				if g == gapBreak {
					break
				}
				wrapped = wrapped || opened
			}
			if k++; quantifiers[q.words[k-1]] && k < len(q.words) && q.words[k] == "of" && q.gap(k-1) == gapSpace {
				k++
			}
		}
		// A skill noun may stand before a name as after it: "don't use
		// the skill X", "avoid skills X or Y".
		if k+1 < len(q.words) && skillNouns[q.words[k]] && nameAt[k+1] >= 0 && q.gap(k) == gapSpace {
			if !first || k > end {
				g, opened := q.gapWith(k-1, before)
				if g == gapBreak {
					break
				}
				wrapped = wrapped || opened
			}
			k++
		}
		if k >= len(q.words) {
			break
		}
		if !first || k > end {
			g, opened := q.gapWith(k-1, before)
			if g == gapBreak {
				break
			}
			wrapped = wrapped || opened
		}
		state := nameAt[k]
		if state < 0 {
			break
		}
		m := int(ix.wholeNames.depth[state])
		if comma && !q.endsObject(k+m, false) {
			// A name after a bare comma that a word goes on from opens
			// a clause of its own: "avoid X, deploy it to production".
			break
		}
		list = append(list, listName{state: state, at: k, len: m, from: end})
		end = k + m
	}
	return list, end
}

// namesBefore reads into list the names of a postfix refusal whose
// copula is word c: a list that starts a clause and ends there, with an
// optional "skill" between ("the X skill is not needed"). It returns the
// list's first word, or -1 when no list ends at c.
func (ix *Index) namesBefore(q *Query, nameAt []int32, c int, list *[]listName) int {
	if c == 0 || q.gap(c-1) != gapSpace {
		return -1
	}
	stop := c
	if skillNouns[q.words[c-1]] {
		if stop = c - 1; stop == 0 || q.gap(stop-1) != gapSpace {
			return -1
		}
	}
	// The first clause start that opens a list ending at stop is the
	// longest list.
	for s := max(0, stop-postfixNameCap); s < stop; s++ {
		if nameAt[s] < 0 && !articles[q.words[s]] {
			continue
		}
		if s > 0 && q.gap(s-1) == gapSpace && !clauseOpeners[q.words[s-1]] {
			continue
		}
		var end int
		*list, end = ix.readNames(q, nameAt, s, false, false, true, (*list)[:0])
		if len(*list) > 0 && end == stop {
			return s
		}
	}
	return -1
}

// postfixAt returns the end of a postfix refusal's predicate when word c
// opens one ("is not needed", "isn't required", "are unnecessary"), or 0.
func (q *Query) postfixAt(c int) int {
	k := c + 1
	next := func(set map[string]bool) bool {
		if q.nextIn(k, set) {
			k++
			return true
		}
		return false
	}
	nextWord := func(w string) bool {
		if q.nextIs(k, w) {
			k++
			return true
		}
		return false
	}
	w := q.words[c]
	if modals[w] || negModals[w] {
		// "X should not be used", "X shouldn't be used": a modal's "not"
		// and its "be", then a predicate or the participle of a verb
		// that brings a unit into the work.
		if modals[w] && !nextWord("not") {
			return 0
		}
		next(intensifiers)
		if nextWord("be") && (next(predicates) || next(participles)) {
			return k
		}
		return 0
	}
	switch {
	case negCopulas[w]:
	case next(negPredicates):
		return k
	case nextWord("not"):
	case q.nextIs(k, "no") && q.nextIs(k+1, "longer"):
		k += 2
	default:
		return 0
	}
	next(intensifiers)
	if next(predicates) {
		return k
	}
	// "X is not to be used"
	if nextWord("to") && nextWord("be") && (next(predicates) || next(participles)) {
		return k
	}
	return 0
}

// endsObject reports whether the names of a list ending at word end are
// the whole object of their cue: the clause ends there, a list joiner or
// a word of objectFollowers follows, or "to" when to allows it.
func (q *Query) endsObject(end int, to bool) bool {
	if end < len(q.words) && q.gap(end-1) == gapSpace && (skillNouns[q.words[end]] || !to && madeNouns[q.words[end]]) {
		end++
	}
	if end >= len(q.words) || q.gap(end-1) != gapSpace {
		return true
	}
	w := q.words[end]
	return connectors[w] || objectFollowers[w] || (to && w == "to")
}

// inScope reports whether a refuser at word i is in the scope of a
// negator whose scope starts at word from: within maxScope words joined
// by blanks, no scopeEnders among them.
func (q *Query) inScope(from, i int) bool {
	if i-from > maxScope {
		return false
	}
	for j := from; j < i; j++ {
		if q.gap(j) != gapSpace || scopeEnders[q.words[j]] {
			return false
		}
	}
	return true
}

// cueAt returns the negation cue at word i and its length in words, or
// nil.
func (q *Query) cueAt(i int) (*cue, int) {
	cs := cuesFrom[q.words[i]]
	for j := range cs {
		c := &cs[j]
		k := q.wordsAt(i, c.words)
		if k < 0 || c.inner && (i == 0 || q.gap(i-1) != gapSpace) ||
			c.stated && i > 0 && q.gap(i-1) == gapSpace && havingWords[q.words[i-1]] {
			continue
		}
		switch c.kind {
		case cueVerb:
			k = q.verbAt(k, c.interject)
		case cueGerund:
			if !q.nextIn(k, gerunds) {
				k = -1
			} else {
				k++
			}
		case cueWant:
			// "I don't want to use X" is the bridge's, and so is "I
			// don't want you to use X".
			if q.nextIs(k, "to") || (q.nextIn(k, bridgeObjects) && q.nextIs(k+1, "to")) {
				k = -1
			}
		case cueBare:
			if i > 0 && q.gap(i-1) == gapSpace && !clauseOpeners[q.words[i-1]] {
				k = -1
			} else if q.nextIn(k, gerunds) || q.nextIn(k, bareMeans) {
				k++ // ", not using X", ", not with X"
			}
		default:
			if q.nextIn(k, gerunds) {
				k++
			}
		}
		if k >= 0 {
			return c, k - i
		}
	}
	return nil, 0
}

// wordsAt returns the end of words when the task has them at word i, in
// one clause, or -1.
func (q *Query) wordsAt(i int, words []string) int {
	if i+len(words) > len(q.words) {
		return -1
	}
	for j, w := range words {
		if q.words[i+j] != w || (j > 0 && q.gap(i+j-1) != gapSpace) {
			return -1
		}
	}
	return i + len(words)
}

// nextIn reports whether word k is in set and in the clause of word k-1.
func (q *Query) nextIn(k int, set map[string]bool) bool {
	return k < len(q.words) && set[q.words[k]] && q.gap(k-1) == gapSpace
}

// nextIs reports whether word k is w and in the clause of word k-1.
func (q *Query) nextIs(k int, w string) bool {
	return k < len(q.words) && q.words[k] == w && q.gap(k-1) == gapSpace
}

// afterNegator returns the word after a negator ending at word k, past
// its intensifiers and an interjection when interject allows one, or -1
// when the negator's clause ends first.
func (q *Query) afterNegator(k int, interject bool) int {
	for a := 0; a < maxIntensifiers && q.nextIn(k, intensifiers); a++ {
		k++
	}
	if k >= len(q.words) {
		return -1
	}
	if interject && q.gap(k-1) == gapList && q.commaAfter(k-1) {
		// The interjection runs to the next comma, within the clause.
		j := k + 1
		for ; j-k <= maxInterjection; j++ {
			g := q.gap(j - 1)
			if g == gapList && q.commaAfter(j-1) {
				break
			}
			if g != gapSpace {
				return -1
			}
		}
		if j-k > maxInterjection || j >= len(q.words) {
			return -1
		}
		return j
	}
	if q.gap(k-1) != gapSpace {
		return -1
	}
	return k
}

// verbAt returns the end of the verb that finishes a negator ending at
// word k, after intensifiers, an interjection when interject allows one
// and a bridge ("need to", "want to"), or -1 when no verb does.
func (q *Query) verbAt(k int, interject bool) int {
	if k = q.afterNegator(k, interject); k < 0 {
		return -1
	}
	// k is the word after the negator, in its clause (or after its
	// interjection): a bridge may come first.
	if k+1 < len(q.words) && (q.words[k] == "need" || q.words[k] == "want") && q.gap(k) == gapSpace {
		j := k + 1
		if bridgeObjects[q.words[j]] && q.nextIs(j+1, "to") {
			j++ // "I don't want you to use X"
		}
		if q.words[j] == "to" && q.nextIn(j+1, negatedVerbs) {
			k = j + 1
		}
	}
	if !negatedVerbs[q.words[k]] {
		return -1
	}
	return k + 1
}

// commaAfter reports whether a comma follows word k.
func (q *Query) commaAfter(k int) bool {
	return strings.IndexByte(q.task[q.spans[k].end:q.spans[k+1].start], ',') >= 0
}

// said quotes the words that negated a name, as the task wrote them
// (written): the cue of n words at i and the list up to the name, which
// ends at word end; a long list is elided after the cue down to the name
// and its connector, which started after word from. Folded words
// misquoted the task ("don't use Release Notes" said "dont use release
// notes").
func (q *Query) said(i, n, from, end int) string {
	if end-i <= 12 {
		return q.written(i, end)
	}
	return q.written(i, i+n) + " \u2026 " + q.written(from, end)
}

// written is words from up to to (excluded) as the task wrote them, for
// an explanation to quote: each word as written, and between two words
// what the task has there when it is a short run of spaces and marks on
// one line (", ", " - "), else one space: a quote is one line, and it
// must not carry the megabyte of blanks or the control characters a
// task may hold between two words. It is cut, with an ellipsis, past
// maxWrittenBytes.
func (q *Query) written(from, to int) string {
	var b strings.Builder
	for k := from; k < to; k++ {
		if k > from {
			if gap := q.task[q.spans[k-1].end:q.spans[k].start]; len(gap) <= maxWrittenGap && plainGap(gap) {
				b.WriteString(gap)
			} else {
				b.WriteByte(' ')
			}
		}
		w := q.task[q.spans[k].start:q.spans[k].end]
		if b.Len()+len(w) > maxWrittenBytes {
			cut := max(maxWrittenBytes-b.Len(), 0)
			for cut > 0 && !utf8.RuneStart(w[cut]) {
				cut--
			}
			b.WriteString(w[:cut])
			b.WriteString("\u2026")
			break
		}
		b.WriteString(w)
	}
	return b.String()
}

// maxWrittenGap and maxWrittenBytes bound what written keeps of the
// task between two words, and in all.
const (
	maxWrittenGap   = 8
	maxWrittenBytes = 200
)

// plainGap reports whether gap, the text between two words, shows as it
// is on one line: spaces and visible marks, no tab, line break or other
// control or invisible character.
func plainGap(gap string) bool {
	for _, r := range gap {
		if r != ' ' && !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

// joinWords adds to the task's terms each pair of consecutive words,
// neither a stop word, that the catalog writes as one word: a name or
// brand written as one word ("chucknorris", "wifi") is the same word as
// the two the task writes. Only pairs within a clause of words count, and
// a pair the task negates does not.
func (ix *Index) joinWords(q *Query, masked []bool, seen map[string]bool, stop func() bool) {
	for i := 0; i+1 < len(q.words); i++ {
		// A pasted megabyte's word pairs take tens of milliseconds.
		if stop() {
			return
		}
		if q.stems[i] == "" || q.stems[i+1] == "" || (masked != nil && (masked[i] || masked[i+1])) || q.gap(i) != gapSpace {
			continue
		}
		a, b := q.words[i], q.words[i+1]
		if isStop(a, q.stems[i]) || isStop(b, q.stems[i+1]) {
			continue
		}
		t := Stem(a + b)
		if at, ok := q.joined[t]; ok {
			q.joined[t] = append(at, i)
			continue
		}
		if known := ix.postings.has(t); !known || seen[t] {
			continue
		}
		seen[t] = true
		q.uniqueTerms = append(q.uniqueTerms, t)
		if q.joined == nil {
			q.joined = map[string][]int{}
		}
		q.joined[t] = []int{i}
	}
}

// quoteMarks are the double quotation marks a task may put around a value.
const quoteMarks = "\"\u201c\u201d\u00ab\u00bb"

// maskQuoted marks, in masked (allocated when nil and needed), the words
// the task puts between quotation marks: a title, a name or an id the
// task passes ("the article titled \"The Impact of Technology\"") is a
// value, not what the task asks for, as a number is. Double marks pair
// in the order they come, and an unpaired one quotes nothing; single
// marks quote a sentence a text verb works on ("Translate this into
// German: '...'", singleQuoted). A quoted span that is a unit's whole name or alias
// names that unit and stays evidence, and a task whose every content
// word is quoted is the task itself, quoted ("\"Can you find ...?\""),
// and so is an instruction quoted whole beside pasted material: nothing
// is masked then.
func (ix *Index) maskQuoted(q *Query, negated []bool) []bool {
	var (
		masked []bool
		quoted []string
	)
	mask := func(in span) {
		from := sort.Search(len(q.words), func(i int) bool { return q.spans[i].start >= in.start })
		w := from
		for w < len(q.words) && q.spans[w].end <= in.end {
			w++
		}
		if from == w || ix.isWholeName(q.words[from:w]) {
			return
		}
		if masked == nil {
			masked = make([]bool, len(q.words))
			if negated != nil {
				copy(masked, negated)
			}
		}
		for j := from; j < w; j++ {
			masked[j] = true
		}
		// A value quoted again (a path at every frame of a traceback) is
		// said once.
		if v := q.quote(from, w); len(quoted) < maxQuoted && !slices.Contains(quoted, v) {
			quoted = append(quoted, v)
		}
	}
	open := -1 // byte offset after an opening mark
	for i := 0; i < len(q.task); i++ {
		// A byte test first: every mark is '"' or starts with 0xc2 or
		// 0xe2 in UTF-8, and a long task is mostly other bytes.
		if c := q.task[i]; c != '"' && c != 0xc2 && c != 0xe2 {
			continue
		}
		r, size := utf8.DecodeRuneInString(q.task[i:])
		if !strings.ContainsRune(quoteMarks, r) {
			continue
		}
		if open < 0 {
			open = i + size
			continue
		}
		mask(span{int32(open), int32(i)})
		open = -1
	}
	for _, sp := range singleQuoted(q.task, q.pastedMaterial().spans) {
		mask(sp)
	}
	if masked == nil {
		return negated
	}
	// The instruction quoted whole, under pasted material or above it (a
	// client that quotes the request it sends beside an attached file),
	// is the task too.
	ms := q.pastedMaterial().spans
	m := 0
	for i, w := range q.words {
		for m < len(ms) && ms[m].end <= q.spans[i].start {
			m++
		}
		pasted := m < len(ms) && ms[m].start <= q.spans[i].start
		if !masked[i] && !pasted && !isStop(w, Stem(w)) {
			q.quoted = quoted
			return masked
		}
	}
	return negated
}

// quote is the task's text from word from up to word to (excluded), as
// the explanation quotes a value: a long one is cut after maxQuoteWords
// words.
func (q *Query) quote(from, to int) string {
	if to-from <= maxQuoteWords {
		return q.task[q.spans[from].start:q.spans[to-1].end]
	}
	return q.task[q.spans[from].start:q.spans[from+maxQuoteWords-1].end] + " \u2026"
}

// maxQuoteWords is how many words of a quoted value the explanation
// shows, and maxQuoted how many quoted values: a pasted log may quote a
// value on every line.
const (
	maxQuoteWords = 12
	maxQuoted     = 8
)

// isWholeName reports whether words are exactly a unit's name or alias:
// the names are stored reversed, so the words are walked from the last.
func (ix *Index) isWholeName(words []string) bool {
	m, s := ix.wholeNames, int32(0)
	for k := len(words) - 1; k >= 0; k-- {
		n, ok := m.next(s, words[k])
		if !ok {
			return false
		}
		s = n
	}
	return len(m.ends[s]) > 0
}

// maskRefused marks, in masked (allocated when nil and needed), the words
// of each clause that opens with an imperative negation ("Do not deploy.",
// "Don't touch the schema, just ...", "Never deploy on Fridays;",
// "Without deploying anything, ..."): a clause that says what not to do
// asks for nothing, so its words are evidence for no unit. Only a clause
// that the negation opens counts: "the build fails when I don't pin it"
// states a fact, and keeps its words.
func maskRefused(q *Query, masked []bool) []bool {
	for i := 0; i < len(q.words); i++ {
		if i > 0 && !q.endsClause(i-1) && !clauseJoins[q.words[i]] && !clauseTurns[q.words[i]] && !(speechVerbs[q.words[i-1]] && q.gap(i-1) == gapSpace) {
			continue
		}
		k := i
		// "..., but don't deploy", "please never ...", "but please
		// just don't ...": one word that opens the clause, then up to
		// maxRefusalLeads adverbs.
		if refusalOpeners[q.words[k]] {
			k++
		}
		for l := 0; l < maxRefusalLeads && k < len(q.words) && refusalLeads[q.words[k]]; l++ {
			k++
		}
		n := refusalAt(q, k)
		if n == 0 || !ordered(q, k, n) {
			continue
		}
		// The refusal runs as a negation's scope does: to a clause's
		// end, a comma, or a word that turns the sentence ("but", "just").
		end, double := k+n, false
		for end < len(q.words) && q.gap(end-1) == gapSpace && !q.endsRefusal(end-1) && !scopeEnders[q.words[end]] && !clauseJoins[q.words[end]] && !q.actsAfter(end) {
			double = double || negators[q.words[end]] || refusers[q.words[end]]
			end++
		}
		if double || q.questionAfter(end) {
			// "never deploy without tdd", "don't ship unless it passes":
			// a refusal of a refusal asks; "tests are green yet never
			// deploy, why?" asks about the deploy.
			continue
		}
		masked = maskSpan(masked, len(q.words), k, end)
		q.refused(k, end)
		i = end - 1
	}
	return masked
}

// endsRefusal reports whether a refusal's scope ends between word k and
// k+1 though a negation's would run on: at a clause's end a dash marks
// ("don't lint - write tests instead"), at a line's end (a list item, "-
// don't deploy", then "- roll back"), and at a closing quote ("the
// ticket \"Rollback - don't panic\" says to roll back").
func (q *Query) endsRefusal(k int) bool {
	if q.words[k+1] == "or" || q.words[k+1] == "nor" {
		return false // "don't deploy - or roll back - until QA signs off"
	}
	if q.endsClause(k) {
		return true
	}
	gap := q.task[q.spans[k].end:q.spans[k+1].start]
	if strings.Contains(gap, "\n") {
		return true
	}
	for i, r := range gap {
		if strings.ContainsRune("\"\u201d\u00bb", r) && i+utf8.RuneLen(r) < len(gap) && unicode.IsSpace(rune(gap[i+utf8.RuneLen(r)])) {
			return true
		}
	}
	return false
}

// maskVerbGo marks, in masked (allocated when nil and needed), each "go"
// of the task that is the verb, not the language: "First go over this
// change", "Go through Priya's pull request", "what could go wrong".
// The verb is one of the most common in English and Go-language skills
// are common in catalogs, so the verb's "go" gave them evidence of the
// whole name ("go over this diff, then write the PR description" loaded a
// Go concurrency skill). A lowercase "go" is the verb after a modal
// (goLeads) or before a particle or preposition (goParticles); a
// capitalised one only before a particle at a sentence's start. "Go" in
// the middle of a sentence ("our Go service", "port it to Go") and "go"
// before anything else ("go vet", "a go service") are the language.
func maskVerbGo(q *Query, masked []bool) []bool {
	for i, w := range q.words {
		if w != "go" || (masked != nil && masked[i]) {
			continue
		}
		next := ""
		if i+1 < len(q.words) && q.gap(i) == gapSpace {
			next = q.words[i+1]
		}
		lower := q.task[q.spans[i].start] == 'g'
		leads := i > 0 && !q.endsClause(i-1) && q.gap(i-1) == gapSpace && goLeads[q.words[i-1]]
		opens := i == 0 || q.endsClause(i-1)
		if !(lower && (leads || goParticles[next])) && !(!lower && opens && goParticles[next]) {
			continue
		}
		if masked == nil {
			masked = make([]bool, len(q.words))
		}
		masked[i] = true
	}
	return masked
}

// goLeads make the "go" after them a verb: "what could go wrong", "the
// tickets that should go to support", "let's go". Not "to": "port the
// service from Python to go" names the language.
var goLeads = set([]string{"can", "could", "should", "will", "would", "must", "might", "may", "shall", "let's", "lets", "don't", "dont", "cannot", "can't", "cant", "won't", "wont"})

// goParticles make the "go" before them a verb: "go over", "go through",
// "go ahead and ...". Only words the language is hardly ever named
// before: "go on arm64", "in go for speed", "go to wasm", "go with
// channels", "go get ./..." and "go fix" name the language (a red team
// of 126 tasks found each when this list held them).
var goParticles = set([]string{"through", "over", "ahead", "about", "back", "away", "wrong", "live"})

// actsAfter reports whether word k opens a clause a refusal does not
// reach: a subordinator before what the user or the model does ("Do not
// break the public API while you refactor the auth module" asks for the
// refactor, "Don't merge before running the tests" for the tests). A
// clause of what happens meanwhile stays refused ("don't deploy until
// the backup finishes" asks for no backup), and "unless" is a double
// negation ("don't merge unless it passes").
func (q *Query) actsAfter(k int) bool {
	if !subordinators[q.words[k]] || k+1 >= len(q.words) || q.gap(k) != gapSpace {
		return false
	}
	next := q.words[k+1]
	return actors[next] || isGerund(next)
}

var (
	subordinators = set([]string{"while", "when", "whenever", "until", "till", "before", "after", "because", "since", "although", "though", "once", "as"})
	actors        = set([]string{"you", "we", "i", "u"})
)

// questionAfter reports whether the clause that word end-1 is in ends in
// a question mark ("tests are green yet never deploy, why?"), looked for
// within maxQuestionReach bytes.
func (q *Query) questionAfter(end int) bool {
	from := int(q.spans[end-1].end)
	rest := q.task[from:]
	if len(rest) > maxQuestionReach {
		rest = rest[:maxQuestionReach]
	}
	i := strings.IndexAny(rest, ".!?\n")
	if i < 0 || rest[i] != '?' {
		return false
	}
	// A clause of its own before the mark asks the question: "Don't
	// deploy it, and can you explain this error?"
	for j := end; j < len(q.words) && int(q.spans[j].start) < from+i; j++ {
		if clauseJoins[q.words[j]] || clauseTurns[q.words[j]] || questionOpeners[q.words[j]] {
			return false
		}
	}
	return true
}

// questionOpeners open a question of their own after a refusal.
var questionOpeners = set([]string{"can", "could", "would", "will", "should", "please", "how", "what", "where", "which", "who"})

// maxQuestionReach bounds how far questionAfter looks for a sentence's end:
// a pasted megabyte without one is read once, not once per refusal.
const maxQuestionReach = 200

// refusalOpeners and refusalLeads may stand before a refusal that opens
// a clause: one opener, then up to maxRefusalLeads leads ("but please
// just don't", "and for now never").
var (
	refusalOpeners = map[string]bool{"and": true, "then": true, "but": true, "yet": true, "so": true}
	refusalLeads   = map[string]bool{"just": true, "please": true, "really": true, "still": true, "definitely": true, "for": true, "now": true}
)

const maxRefusalLeads = 3

// ordered reports whether the negation of n words at word k orders not
// to do a thing, rather than states what does not happen: the word
// after it is a verb's plain form ("don't deploy", "never merge on
// Fridays"), and after "without" a gerund ("without deploying anything").
// "It builds but never deploys", "but never deployed", "but don't know
// how to migrate" and "don't you think we should deploy?" state or ask;
// "without a doubt" is no refusal.
func ordered(q *Query, k, n int) bool {
	if k+n >= len(q.words) || q.gap(k+n-1) != gapSpace {
		return true // "Do not." refuses nothing the mask could take
	}
	v := q.words[k+n]
	switch q.words[k] {
	case "without":
		return isGerund(v)
	case "hold":
		return true // "hold off on" takes a thing or an act
	}
	switch {
	case statives[v] || subjects[v]:
		return false
	case len(v) > 3 && strings.HasSuffix(v, "ed") && !strings.HasSuffix(v, "eed") && !plainInEd[v]:
		return false
	case len(v) > 3 && strings.HasSuffix(v, "s") && !strings.HasSuffix(v, "ss") && !strings.HasSuffix(v, "us") && !strings.HasSuffix(v, "is"):
		return false
	}
	return true
}

// statives after a negation state a fact ("but don't know how to
// deploy"); subjects after it make a question ("don't you think ...?").
var (
	statives = set([]string{"know", "understand", "think", "see", "remember", "recall", "care", "seem", "have", "believe", "agree", "mean", "matter", "exist", "happen"})
	// plainInEd are verbs whose plain form ends in -ed: "don't embed
	// the files" orders.
	plainInEd = set([]string{"embed", "shed", "shred", "wed", "bed", "imbed"})
	subjects  = set([]string{"you", "we", "i", "they", "he", "she", "it", "u"})
)

// clauseTurns open a clause of their own within a sentence: "review the
// diff but don't deploy" asks for the review and refuses the deploy, as
// "review the diff, but don't deploy" does (the deploy skill was loaded
// on the word refused, and the review dropped beside it).
var clauseTurns = map[string]bool{"but": true, "yet": true}

// speechVerbs report an order that follows them as its own clause: "the
// on-call engineer says don't roll back, deploy the fix" refuses the
// rollback as "don't roll back" does.
var speechVerbs = map[string]bool{"says": true, "said": true, "saying": true, "writes": true, "wrote": true}

// refusalAt returns how many words an imperative negation at word k
// takes ("do not", "don't", "never", "without"), or 0 when none starts
// there, or when it
// asks after all ("don't forget to update the changelog", "do not
// hesitate to ...": doubleNegatives).
func refusalAt(q *Query, k int) int {
	n := 0
	switch {
	case k >= len(q.words):
	case q.words[k] == "dont" || q.words[k] == "never" || q.words[k] == "without":
		n = 1
	case q.words[k] == "do" && k+1 < len(q.words) && q.words[k+1] == "not" && q.gap(k) == gapSpace:
		n = 2
	case (q.words[k] == "lets" || q.words[k] == "let's") && q.spacedAfter(k, "not"):
		n = 2 // "let's not deploy"
	case q.words[k] == "no" && q.spacedAfter(k, "need") && q.spacedAfter(k+1, "to"):
		n = 3 // "no need to deploy"
	case q.words[k] == "hold" && q.spacedAfter(k, "off") && q.spacedAfter(k+1, "on"):
		n = 3 // "hold off on the release notes"
	case (q.words[k] == "id" || q.words[k] == "wed") && q.spacedAfter(k, "rather") && q.spacedAfter(k+1, "not"):
		n = 3 // "I'd rather not deploy"
	case actors[q.words[k]] && q.spacedAfter(k, "would") && q.spacedAfter(k+1, "rather") && q.spacedAfter(k+2, "not"):
		n = 4 // "I would rather not deploy"
	case (q.words[k] == "theres" || q.words[k] == "there's") && q.spacedAfter(k, "no") && q.spacedAfter(k+1, "need") && q.spacedAfter(k+2, "to"):
		n = 4 // "there's no need to deploy"
	case actors[q.words[k]] && k+1 < len(q.words) && q.gap(k) == gapSpace:
		// "you shouldn't deploy", "we must not deploy": advice or a
		// rule, which orders as "don't" does; "we can't deploy" states.
		switch m := q.words[k+1]; {
		case m == "shouldnt" || m == "mustnt":
			n = 2
		case (m == "should" || m == "must") && q.spacedAfter(k+1, "not"):
			n = 3
		}
	}
	if n > 0 && k+n < len(q.words) && doubleNegatives[q.words[k+n]] {
		return 0
	}
	return n
}

// spacedAfter reports whether word k+1 is w, a blank after word k.
func (q *Query) spacedAfter(k int, w string) bool {
	return k+1 < len(q.words) && q.words[k+1] == w && q.gap(k) == gapSpace
}

// doubleNegatives are the verbs whose negation asks for the thing:
// "don't forget to", "never fail to", "do not hesitate to", "don't miss".
var doubleNegatives = map[string]bool{
	"forget": true, "forgetting": true, "fail": true, "failing": true, "hesitate": true,
	"neglect": true, "neglecting": true, "miss": true, "missing": true, "omit": true, "omitting": true,
	"skip": true, "skipping": true, "ignore": true, "ignoring": true, "stop": true, "stopping": true,
}

// refusers in a refusal's scope make it a double negation ("never deploy
// without tdd" asks for tdd, "don't merge unless it passes" for the
// merge).
var refusers = map[string]bool{
	"without": true, "unless": true, "except": true, "skip": true, "skipping": true, "avoid": true, "avoiding": true,
}

// worksOnText reports whether the sentence that before ends in asks to
// work on a text (textVerbs: "Translate this sentence into German:
// '...'", "Summarize this thread: '...'"): the quoted sentence after it
// is that text, a value. A sentence quoted after anything else is what
// the task is about: an error message ("curl fails with 'Connection
// reset by peer.'"), an instruction relayed ("My lead told me: 'Roll
// back the deploy.'"); a red team of 266 tasks found both lost when
// every single-quoted sentence was a value. singleQuoted passes it at
// most maxSingleQuoted bytes before the mark, so that a megabyte of
// quotes on one line is read once, not once a quote (it took minutes).
func worksOnText(before string) bool {
	return slices.ContainsFunc(wordsSoFar(before), func(w string) bool { return textVerbs[w] })
}

// textVerbs ask for work on a text the task passes.
var textVerbs = set([]string{"translate", "translating", "summarize", "summarise", "summarizing", "rephrase", "reword", "paraphrase", "proofread", "shorten", "rewrite", "transcribe", "localize", "localise"})

// quotesSentence reports whether a single-quoted value is a sentence the
// task passes (it ends as one, or runs to sentenceWords words), not a
// term the task names its work by ("a 'us vs. Competitor X' page", "the
// 'monthly active customers' metric"), whose words say what is asked.
func quotesSentence(value string) bool {
	v := strings.TrimSpace(value)
	return strings.HasSuffix(v, ".") || strings.HasSuffix(v, "!") || strings.HasSuffix(v, "?") || len(Words(v)) >= sentenceWords
}

// sentenceWords is how many words make a single-quoted value a sentence
// however it ends.
const sentenceWords = 8

// maxSingleQuoted bounds, in bytes, the value single marks can quote: an
// opening mark that nothing closes within it, on its line, was an
// apostrophe ("'em", "'90s").
const maxSingleQuoted = 240

// singleQuoted returns the spans of task, outside its pasted material,
// that single quotation marks put a value between: a sentence
// (quotesSentence) a text verb asks to work on (worksOnText): "Translate
// this sentence into German: 'The deployment finished successfully.'". A mark opens where no letter or digit comes
// before it and one follows, and closes where something other than a
// blank comes before it and no letter or digit follows, so an apostrophe
// inside a word ("don't", "it's") does neither. In pasted code a quoted
// string is the code's own ("df['price']"), and material weighs as
// material already: it is left as it is.
func singleQuoted(task string, pasted []materialSpan) []span {
	var out []span
	open := -1
	m := 0
	for i := 0; i < len(task); i++ {
		c := task[i]
		if c == '\n' {
			open = -1
			continue
		}
		if c != '\'' && c != 0xe2 {
			continue
		}
		r, size := utf8.DecodeRuneInString(task[i:])
		if r != '\'' && r != '\u2018' && r != '\u2019' {
			continue
		}
		for m < len(pasted) && int(pasted[m].end) <= i {
			m++
		}
		if m < len(pasted) && int(pasted[m].start) <= i {
			open = -1
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(task[:i])
		after, _ := utf8.DecodeRuneInString(task[i+size:])
		wordBefore := i > 0 && (unicode.IsLetter(before) || unicode.IsDigit(before))
		wordAfter := i+size < len(task) && (unicode.IsLetter(after) || unicode.IsDigit(after))
		switch {
		case open >= 0 && i > 0 && !unicode.IsSpace(before) && !wordAfter && r != '\u2018':
			if i-open <= maxSingleQuoted && quotesSentence(task[open:i]) && worksOnText(task[max(0, open-maxSingleQuoted):open]) {
				out = append(out, span{int32(open), int32(i)})
			}
			open = -1
		case !wordBefore && wordAfter && r != '\u2019':
			open = i + size
		}
	}
	return out
}
