package retrieval

import (
	"maps"
	"slices"
	"strings"
	"unicode"
)

// relate computes the pair facts the policy's ambiguity and redundancy
// rules read (rules 9 and 11), and each candidate's breadth. For every
// ordered pair (a, b) of distinct candidates where b is lexical: b is
// redundant beside a when what b's positive evidence rests on beyond a's
// covered terms (residual) is less than redundantShare of b's score; a and
// b share an object when the task names an object both declare. It is a
// pure function of the index, the query, the candidates and their
// evidence (as evidence computes it).
func (ix *Index) relate(q *Query, cands []Candidate, ev map[string][]Evidence, byName map[[2]string]bool, passing map[string]bool) (redundant, sameObject map[[2]string]bool, width map[string]int) {
	redundant, sameObject = map[[2]string]bool{}, map[[2]string]bool{}
	width = make(map[string]int, len(cands))
	for _, c := range cands {
		width[c.Name] = breadth(ev[c.Name])
	}
	// A phrase of several words the unit declares (a multi-word trigger,
	// a quoted phrase, its name or an alias), matched whole, rests on all
	// of them, stop words included: "debug this" quoted by a unit is not
	// one incidental word.
	for _, m := range q.phrases {
		ph := &ix.phrases[m.id]
		if ph.kind == notWhen || len(ph.stems) < 2 || m.score <= 0 {
			continue
		}
		if n := ix.units[m.unit].Name; width[n] > 0 && width[n] < len(ph.stems) {
			width[n] = len(ph.stems)
		}
	}
	objects := map[string][]string{} // candidate -> its objects the task names
	for _, c := range cands {
		if id, ok := ix.ids[c.Name]; ok {
			objects[c.Name] = intersect(ix.unitObjects[id], q.objects)
		}
	}
	for _, a := range cands {
		for _, b := range cands {
			if a.Name == b.Name || b.Origin != OriginLexical {
				continue
			}
			pair := [2]string{a.Name, b.Name}
			if isRedundant(ev[a.Name], ev[b.Name], byName[pair], passing, b.Score) {
				redundant[pair] = true
			}
			if shares(objects[a.Name], set(objects[b.Name])) {
				sameObject[pair] = true
			}
		}
	}
	return redundant, sameObject, width
}

// ownWords lists the lexical candidates whose positive evidence rests on
// their trigger field or a trigger phrase (Problem.OwnWords); nil when
// none does.
func ownWords(cands []Candidate, ev map[string][]Evidence) map[string]bool {
	var out map[string]bool
	for _, c := range cands {
		if c.Origin != OriginLexical {
			continue
		}
		for _, e := range ev[c.Name] {
			if e.Weight > 0 && isTriggerEvidence(e.Field) {
				if out == nil {
					out = map[string]bool{}
				}
				out[c.Name] = true
				break
			}
		}
	}
	return out
}

// materialWeights sums, for each lexical candidate, the weight of its
// positive evidence found only in pasted material (Problem.Material); nil
// when no candidate has any.
func materialWeights(cands []Candidate, ev map[string][]Evidence) map[string]float64 {
	var out map[string]float64
	for _, c := range cands {
		if c.Origin != OriginLexical {
			continue
		}
		for _, e := range ev[c.Name] {
			if e.Weight > 0 && e.Source == SourceMaterial {
				if out == nil {
					out = map[string]float64{}
				}
				out[c.Name] += e.Weight
			}
		}
	}
	return out
}

// isTriggerEvidence reports whether an evidence field ("name+trigger",
// "trigger phrase") names the trigger field.
func isTriggerEvidence(f string) bool {
	trigger := fieldNames[fieldTrigger]
	if f == trigger+" phrase" {
		return true
	}
	for f != "" {
		part, rest, _ := strings.Cut(f, "+")
		if part == trigger {
			return true
		}
		f = rest
	}
	return false
}

// ownParts computes OwnPart (see Problem.OwnPart) for every ordered pair
// (a, b) of distinct candidates where b is lexical and has a part of its
// own beside a; passing as ownTerm's.
func ownParts(cands []Candidate, ev map[string][]Evidence, byName map[[2]string]bool, passing map[string]bool, pasted func(Evidence) bool, modifier func(string) bool) map[[2]string]float64 {
	out := map[[2]string]float64{}
	if len(cands) < 2 {
		return out
	}
	covered := make([]map[string]float64, len(cands))
	for i, c := range cands {
		covered[i] = termWeights(ev[c.Name])
	}
	for i, a := range cands {
		for j, b := range cands {
			if a.Name == b.Name || b.Origin != OriginLexical {
				continue
			}
			if w, ok := ownPart(covered[i], covered[j], byName[[2]string{a.Name, b.Name}], passing, ev[b.Name], pasted, modifier); ok {
				out[[2]string{a.Name, b.Name}] = w
			}
		}
	}
	return out
}

// nameAsked reports whether the task states the name of the unit called
// name in clauses that ask for something (askingClauses): "add a django
// migration for the new price column + show it in the admin list
// display" asks for a migrations skill by name, though its clause holds
// more words than the name; "We're hiring two senior backend engineers
// this quarter" names a hiring skill in a sentence that states.
func (ix *Index) nameAsked(q *Query, name string) bool {
	id, ok := ix.ids[name]
	if !ok {
		return false
	}
	asked := q.askingClauses()
	stated := false
	for _, s := range Terms(nameWords(ix.units[id])) {
		if _, in := slices.BinarySearch(q.uniqueTerms, s); !in || stopWords[s] {
			continue
		}
		if asked[s] == 0 {
			return false
		}
		stated = true
	}
	return stated
}

// clearParts returns, for each ordered pair (a, b) of distinct
// candidates where b is lexical, the weight of b's evidence in the clause
// of the task it answers most clearly beside a, when it answers one so:
// a clause that asks for something (not one that states: "the new
// release is crashing"), where b's evidence weighs at least
// clearPartRatio times a's, rests on two task words or more besides word
// pairs, and covers two thirds of the clause's words (clauseCoverNum /
// clauseCoverDen). On that clause alone, b
// would be selected: "load test the checkout api and then profile
// whatever is hot" asks a profiling skill for the second clause, though
// a load-testing skill's body mentions profiling too, so that "profile"
// is no word of the profiling skill's own (ownPart). Clauses end as in
// clauseNumbers, but not at "and", which joins two nouns ("PDFs and
// slide decks") as often as two requests.
func clearParts(q *Query, cands []Candidate, ev map[string][]Evidence) map[[2]string]float64 {
	out := map[[2]string]float64{}
	if len(cands) < 2 {
		return out
	}
	in := q.askingClauses()
	// size counts each clause's informative terms, as apart's does.
	var size [64]int
	for _, t := range q.uniqueTerms {
		for i := range size {
			if in[t]&(1<<i) != 0 {
				size[i]++
			}
		}
	}
	// weight, terms and plain (terms besides word pairs) per clause.
	type part struct {
		weight       [64]float64
		terms, plain [64]int
	}
	parts := make([]part, len(cands))
	for k, c := range cands {
		p := &parts[k]
		seen, seenPlain := map[string]bool{}, map[string]bool{}
		for _, e := range ev[c.Name] {
			if e.Weight <= 0 {
				continue
			}
			pair := e.Field == "bigram"
			var m uint64
			for _, t := range e.Terms {
				m |= in[t]
				for i := range size {
					if in[t]&(1<<i) == 0 {
						continue
					}
					if !seen[t] {
						p.terms[i]++
					}
					if !pair && !seenPlain[t] {
						p.plain[i]++
					}
				}
				seen[t] = true
				seenPlain[t] = seenPlain[t] || !pair
			}
			for i := range size {
				if m&(1<<i) != 0 {
					p.weight[i] += e.Weight
				}
			}
		}
	}
	for i, a := range cands {
		for j, b := range cands {
			if i == j || b.Origin != OriginLexical {
				continue
			}
			pa, pb := &parts[i], &parts[j]
			for c := range size {
				if pb.weight[c] > 0 && pb.weight[c] >= clearPartRatio*pa.weight[c] && pb.plain[c] >= 2 &&
					clauseCoverDen*pb.terms[c] >= clauseCoverNum*size[c] {
					pair := [2]string{a.Name, b.Name}
					out[pair] = max(out[pair], pb.weight[c])
				}
			}
		}
	}
	return out
}

// askingClauses maps each stem of the instruction to the clauses that
// ask for something it occurs in, as a bit set (see clearParts): the
// clauses of sentences that ask (sentenceRead.asking, read with pasted
// material blanked out), each of which asks on its own, a joining word
// ("then", "also") aside. A task longer than maxContextTask has none.
// The answer is read once per query.
func (q *Query) askingClauses() map[string]uint64 {
	if q.asking == nil {
		q.asking = q.readAskingClauses()
	}
	return q.asking
}

// readAskingClauses is askingClauses, read; never nil.
func (q *Query) readAskingClauses() map[string]uint64 {
	if len(q.task) > maxContextTask {
		return map[string]uint64{}
	}
	text := q.task
	if ms := q.pastedMaterial().spans; len(ms) > 0 {
		text = blankSpans(text, ms)
	}
	var asking []span
	for _, r := range readSentences(text) {
		if r.asking() || asksAfterJoin(text[r.span.start:r.span.end]) {
			asking = append(asking, r.span)
		}
	}
	asks := q.wordsIn(asking)
	nums := q.clauseNumbersJoinedBy(requestJoins)
	for from := 0; from < len(nums); {
		to := from
		for to+1 < len(nums) && nums[to+1] == nums[from] {
			to++
		}
		if rs := readSentences(text[q.spans[from].start:q.spans[to].end]); len(rs) == 0 || !rs[0].asking() && !asksAfterJoin(text[q.spans[from].start:q.spans[to].end]) {
			for i := from; i <= to; i++ {
				asks[i] = false
			}
		}
		from = to + 1
	}
	out := make(map[string]uint64, len(q.stems))
	for i, st := range q.stems {
		if _, pasted := q.material[st]; st != "" && !pasted && asks[i] {
			out[st] |= 1 << nums[i]
		}
	}
	return out
}

// asksAfterJoin reports whether text opens with a word that joins a
// further request to what came before ("then", "also", "plus",
// "separately") and asks for something after it: "Also profile whatever
// is hot" asks, though a sentence opening with "also" is read as an
// aside.
func asksAfterJoin(text string) bool {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	first = strings.ToLower(strings.TrimRight(first, ",:;"))
	return (clauseJoins[first] || requestMarkers[first]) && asksIn(rest)
}

// coveredTerms is the set of task terms positive evidence rests on.
func coveredTerms(ev []Evidence) map[string]bool {
	covered := map[string]bool{}
	for _, e := range ev {
		if e.Weight > 0 {
			for _, s := range e.Terms {
				covered[s] = true
			}
		}
	}
	return covered
}

// ownPart returns the weight of b's positive evidence that rests on task
// terms outside covered (another unit's), and whether that is a part of
// the task of its own: at least two such terms (two that the task says
// as one of b's word pairs, and no third, are one), a phrase of several
// words (a name, alias, trigger or quoted phrase matched whole) one of
// whose words is outside covered, or a word of b's own name outside it
// ("news" for a news tool), unless the task says that word only as the
// modifier of another noun ("tests for the signup page": Query.onlyModifier).
// One other word beside a kept unit is
// as often a word of the same request as a second one: a pasted log or a
// long description shares a word with every skill. How much own weight
// is enough is the policy's to say (rule 10).
func ownPart(covered, mine map[string]float64, byName bool, passing map[string]bool, b []Evidence, pasted func(Evidence) bool, modifier func(string) bool) (weight float64, ok bool) {
	// b's first two terms of its own, and whether it has a third: three
	// need no set.
	var first, second string
	third := false
	for _, e := range b {
		if e.Weight <= 0 || (pasted != nil && pasted(e)) {
			continue
		}
		own := false
		for _, s := range e.Terms {
			if !ownTerm(covered, mine, byName, passing, e, s) {
				continue
			}
			own = true
			if (len(e.Terms) >= 2 && strings.HasSuffix(e.Field, " phrase")) || isNameEvidence(e.Field) && (modifier == nil || !modifier(s)) {
				ok = true
			}
			switch {
			case first == "" || s == first:
				first = s
			case second == "" || s == second:
				second = s
			default:
				third = true
			}
		}
		if own {
			weight += e.Weight
		}
	}
	// Two words of its own that the task says as one of b's word pairs,
	// and nothing else of its own ("... and it rolls back on its own"),
	// are one part of the task, said in passing, not two; a third word
	// makes it a request ("add a GitHub Actions workflow").
	ok = ok || third || second != "" && !pairedIn(b, first, second)
	return weight, ok
}

// pairedIn reports whether x and y are one of the word pairs (bigrams)
// ev rests on.
func pairedIn(ev []Evidence, x, y string) bool {
	for _, e := range ev {
		if e.Field == "bigram" && len(e.Terms) == 2 && (e.Terms[0] == x && e.Terms[1] == y || e.Terms[0] == y && e.Terms[1] == x) {
			return true
		}
	}
	return false
}

// termWeights maps each task term positive evidence rests on to the
// weight of that evidence, an item on several terms shared among them.
func termWeights(ev []Evidence) map[string]float64 {
	w := map[string]float64{}
	for _, e := range ev {
		if e.Weight > 0 {
			for _, s := range e.Terms {
				w[s] += e.Weight / float64(len(e.Terms))
			}
		}
	}
	return w
}

// ownTerm reports whether the task term s of b's evidence item e is b's
// own beside a unit whose evidence weighs covered on each term (b's own
// weighs mine): that unit's evidence does not rest on s; or, when s is
// one of passing (a term of a sentence of an instruction without pasted
// material that does not state: Query.passingTerms) and e is not b's
// name, that unit's evidence on s weighs less than passingShare of b's, a
// mention in passing ("containerize it and add a GitHub Actions workflow":
// a Dockerfile skill with a heading on GitHub Actions does not answer the
// workflow's clause); or, when byName (the task states b's whole name in
// a clause b answers: see apart), e matches b's name and that unit's
// evidence weighs less than ownNameShare of b's on s. "squash and open a
// pull request" asks for a squash skill by name in a clause of its own; a
// pull-request skill whose body mentions squashing answers the other
// clause, not that one. A name word needs its name stated ("find local
// plumbers" is no request for a skill named "local"), and a task with
// pasted material mentions everything in passing.
func ownTerm(covered, mine map[string]float64, byName bool, passing map[string]bool, e Evidence, s string) bool {
	c := covered[s]
	name := isNameEvidence(e.Field) || e.Field == fieldNames[fieldName]+" phrase"
	if c == 0 || (passing[s] && !name && c < passingShare*mine[s]) {
		return true
	}
	return byName && name && c < ownNameShare*mine[s]
}

// isRedundant reports whether b, scoring score, adds too little beside a:
// less than redundantShare of its score rests on terms a's positive
// evidence does not cover (named and passing as ownTerm's byName and
// passing).
func isRedundant(a, b []Evidence, named bool, passing map[string]bool, score float64) bool {
	return residual(a, b, named, passing) < redundantShare*score
}

func set(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// apart computes, for every ordered pair (a, b) of distinct candidates
// where b is lexical, whether b answers a part of the task at least as
// well as a does: a clause (clauses) where the positive evidence b rests
// on weighs at least as much as a's, and more than nothing. The pair maps
// to the most b's evidence weighs in such a clause whose informative
// terms it covers at least two thirds of (clauseCoverNum/clauseCoverDen;
// what b would score on that part alone), or to 0 when b covers no such
// clause that much: one word of a long sentence is not that sentence's
// request. An evidence item weighs in every clause one
// of its terms occurs in. A task that asks for two things says each in
// its own clause ("debug and commit this", "diagnose it, then fix it
// test-first"); a unit whose every matched word sits in a clause that
// another already answers ("grill me on my plan to migrate from REST to
// GraphQL") is one more word of that clause, not a second request. In a
// sentence that opens by saying a further request begins there ("Also
// add correlation IDs to its logs", "Separately, the nav fails axe
// checks": markedClauses), a third of a clause's words is enough for the
// candidate whose evidence weighs most there: the user said the sentence
// is a request of its own, and it names the specifics a skill does not
// (the service, the table, the alert). A unit whose name the task states
// is apart with its whole score.
func (ix *Index) apart(q *Query, cands []Candidate, ev map[string][]Evidence) (out map[[2]string]float64, byName map[[2]string]bool) {
	out, byName = map[[2]string]float64{}, map[[2]string]bool{}
	if len(cands) < 2 {
		return out, byName
	}
	nums := q.clauseNumbers()
	in, loose := q.clauseSets(nums), q.markedClauses(nums)
	// size counts each clause's informative terms, for the share of a
	// clause a unit's evidence covers.
	var size [64]int
	for _, t := range q.uniqueTerms {
		for i := range size {
			if in[t]&(1<<i) != 0 {
				size[i]++
			}
		}
	}
	parts := make(map[string]*[64]float64, len(cands))
	covers := make(map[string]*[64]int, len(cands))
	for _, c := range cands {
		var w [64]float64
		var n [64]int
		seen := map[string]bool{}
		for _, e := range ev[c.Name] {
			if e.Weight <= 0 {
				continue
			}
			var m uint64
			for _, t := range e.Terms {
				m |= in[t]
				if !seen[t] {
					seen[t] = true
					for i := range n {
						if in[t]&(1<<i) != 0 {
							n[i]++
						}
					}
				}
			}
			for i := range w {
				if m&(1<<i) != 0 {
					w[i] += e.Weight
				}
			}
		}
		parts[c.Name], covers[c.Name] = &w, &n
	}
	// A unit whose name the task states (most of its informative weight)
	// is asked for by name, whatever else the clause asks.
	named := make(map[string]bool, len(cands))
	for _, c := range cands {
		if id, ok := ix.ids[c.Name]; ok && ix.nameStated(q, id) >= apartNamed {
			named[c.Name] = true
		}
	}
	// top is the most any candidate's evidence weighs in each clause.
	var top [64]float64
	for _, w := range parts {
		for i := range top {
			top[i] = max(top[i], w[i])
		}
	}
	for _, a := range cands {
		for _, b := range cands {
			if a.Name == b.Name || b.Origin != OriginLexical {
				continue
			}
			wa, wb := parts[a.Name], parts[b.Name]
			pair := [2]string{a.Name, b.Name}
			apart, best := false, 0.0
			for i := range wb {
				if wb[i] > 0 && wb[i] >= wa[i] {
					apart = true
					num, den := clauseCoverNum, clauseCoverDen
					if loose&(1<<i) != 0 && wb[i] >= top[i] {
						num, den = markedCoverNum, markedCoverDen
					}
					if nb := covers[b.Name][i]; den*nb >= num*size[i] {
						best = max(best, wb[i])
					}
				}
			}
			switch {
			case named[b.Name]:
				out[pair] = b.Score
				byName[pair] = best > 0 || apart && ix.nameAsked(q, b.Name)
			case apart:
				out[pair] = best
			}
		}
	}
	return out, byName
}

// clauses maps each stem of the task to the clauses it occurs in, as a
// bit set (clauses past the 64th share the last bit). A clause ends at a
// comma, semicolon, colon or blank line, at a full stop, question or
// exclamation mark followed by a blank ("package.json" is one clause) or
// at their full-width forms (and the ideographic comma), at
// a "+" or "&" between blanks, and before a word that joins two requests
// (clauseJoins). A stem found only
// in pasted material is in no clause: a clause is a part of the request,
// and the material asks for nothing.
func (q *Query) clauses() map[string]uint64 { return q.clauseSets(q.clauseNumbers()) }

// clauseNumbers returns the number of the clause each word of the task
// is in (see clauses).
func (q *Query) clauseNumbers() []int { return q.clauseNumbersJoinedBy(clauseJoins) }

// clauseNumbersJoinedBy is clauseNumbers with joins for the words that
// start a new clause within a sentence.
func (q *Query) clauseNumbersJoinedBy(joins map[string]bool) []int {
	nums := make([]int, len(q.words))
	c := 0
	for i := range q.words {
		if i > 0 && (q.endsClause(i-1) || joins[q.words[i]]) {
			c = min(c+1, 63)
		}
		nums[i] = c
	}
	return nums
}

// requestJoins are clauseJoins but "and", which joins two nouns ("PDFs
// and slide decks") as often as two requests (see askingClauses).
var requestJoins = func() map[string]bool {
	m := maps.Clone(clauseJoins)
	delete(m, "and")
	return m
}()

// clauseSets is clauses over the clause numbers nums (clauseNumbers).
func (q *Query) clauseSets(nums []int) map[string]uint64 {
	out := make(map[string]uint64, len(q.stems))
	for i, st := range q.stems {
		if _, pasted := q.material[st]; st != "" && !pasted {
			out[st] |= 1 << nums[i]
		}
	}
	for t, ats := range q.joined {
		if _, pasted := q.material[t]; !pasted {
			for _, at := range ats {
				out[t] |= 1 << nums[at]
			}
		}
	}
	return out
}

// markedClauses returns, as a bit set of the clause numbers nums
// (clauseNumbers), the clauses of the sentences that open with a word
// saying that a further request begins there (requestMarkers: "Also,
// ...", "Separately, ...") and ask for something after it.
func (q *Query) markedClauses(nums []int) uint64 {
	var out uint64
	marked := false
	for i := range q.words {
		if i == 0 || q.endsSentence(i-1) {
			marked = requestMarkers[q.words[i]] && q.asksAfter(i)
		}
		if marked {
			out |= 1 << nums[i]
		}
	}
	return out
}

// asksAfter reports whether the sentence that word k opens asks for
// something after that word: "Also add correlation IDs to its logs", "Also
// the receipt template looks broken — redo it in MJML". "Also, the logs
// come from nginx" and "Plus it fixes the flaky test" state context, as
// contextSentences reads a sentence; a dash or a semicolon may open the
// ask after a statement.
func (q *Query) asksAfter(k int) bool {
	e := k
	for e+1 < len(q.words) && !q.endsSentence(e) {
		e++
	}
	text := strings.TrimLeft(q.task[q.spans[k].end:q.spans[e].end], " ,:;\u2014\u2013-")
	return asksIn(dashes.Replace(text))
}

// dashes turns the dashes that join two clauses into semicolons, which
// readSentences ends a sentence at.
var dashes = strings.NewReplacer(" \u2014 ", "; ", " \u2013 ", "; ", " - ", "; ", "\u2014", "; ")

// requestMarkers open a sentence that asks for a further thing. Not
// "then", "finally" or "second": they order the steps of one request as
// often ("Then run the tests"), and on Seal-Tools' multi-tool tasks,
// which open every step with one, they let a tool in beside the right
// ones on a third of a long step's words.
var requestMarkers = map[string]bool{"also": true, "separately": true, "additionally": true, "unrelated": true, "plus": true, "besides": true}

// endsSentence reports whether a sentence ends between word k and k+1.
func (q *Query) endsSentence(k int) bool {
	gap := q.task[q.spans[k].end:q.spans[k+1].start]
	return strings.Contains(gap, "\n") || endsWithMark(gap)
}

// clauseJoins are words that start a new request within a sentence
// ("debug and commit this", "fix it then push").
var clauseJoins = map[string]bool{"and": true, "then": true, "also": true, "plus": true}

// endsClause reports whether a clause ends between word k and word k+1.
func (q *Query) endsClause(k int) bool {
	gap := q.task[q.spans[k].end:q.spans[k+1].start]
	if strings.Contains(gap, "\n\n") || strings.ContainsAny(gap, ",;:，；：、。？！") {
		// The full-width marks of Chinese and Japanese need no blank
		// after them.
		return true
	}
	if j := strings.TrimSpace(gap); (j == "+" || j == "&") && len(j) < len(gap)-1 {
		// A "+" or "&" standing between blanks joins two requests as
		// "and" does ("skeleton states + data fetching"); "C++" and
		// "R&D" are words.
		return true
	} else if q.dashBreak(k, j, gap) {
		return true
	}
	return endsWithMark(gap)
}

// dashBreak reports whether gap, between word k and k+1 and j trimmed,
// is a dash that ends a clause: "the db got corrupted - don't restore
// it", "... corrupted—don't ...", "... module–don't ...". A
// hyphen or two need blanks on both sides ("on-call" is a word), and no
// dash between two numbers is a break ("from 2 - 4 am", "2–3").
func (q *Query) dashBreak(k int, j, gap string) bool {
	switch {
	case j != "-" && j != "--" && j != "\u2013" && j != "\u2014":
		return false
	case isNumber(q.words[k]) && isNumber(q.words[k+1]):
		return false
	case j == "-" || j == "--":
		return len(j) < len(gap)-1 && unicode.IsSpace(rune(gap[0])) && unicode.IsSpace(rune(gap[len(gap)-1]))
	}
	return true
}

// endsWithMark reports whether the gap between two words holds a full
// stop, question or exclamation mark followed by a blank ("package.json"
// is one word).
func endsWithMark(gap string) bool {
	for i := 0; i+1 < len(gap); i++ {
		if strings.IndexByte(".?!", gap[i]) >= 0 && (gap[i+1] == ' ' || gap[i+1] == '\n' || gap[i+1] == '\t') {
			return true
		}
	}
	return false
}

// apartNamed is the share of a unit's name's informative weight the task
// must state for the unit to answer a part of it apart from another in
// the same clause: "discounts for online courses" states course-tool's
// name, "my plan to migrate from REST" only the common half of
// migrate-to-shoehorn's.
const apartNamed = 0.75

// isNameEvidence reports whether an evidence field ("name+description")
// names the unit's name field: the word is one of the unit's own name.
func isNameEvidence(f string) bool {
	for f != "" {
		part, rest, _ := strings.Cut(f, "+")
		if part == fieldNames[fieldName] {
			return true
		}
		f = rest
	}
	return false
}

// wholeTask returns the lexical candidates whose positive evidence rests
// on every content word of the task (Problem.WholeTask); nil when none
// does or the task has no content word. A word the catalog does not know
// counts too: "What's the composition of species in my garden?" says more
// than a unit matching "composition" answers.
func wholeTask(q *Query, cands []Candidate, ev map[string][]Evidence) map[string]bool {
	content := map[string]bool{}
	for i, st := range q.stems {
		if st != "" && !isStop(q.words[i], st) {
			content[st] = true
		}
	}
	if len(content) == 0 {
		return nil
	}
	var out map[string]bool
	for _, c := range cands {
		if c.Origin != OriginLexical {
			continue
		}
		covered := coveredTerms(ev[c.Name])
		all := true
		for st := range content {
			if !covered[st] {
				all = false
				break
			}
		}
		if all {
			if out == nil {
				out = map[string]bool{}
			}
			out[c.Name] = true
		}
	}
	return out
}
