package retrieval

import (
	"cmp"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
)

// Evidence is one reason a unit scored: one field or phrase match and what
// it contributed to the score. Field is a field name ("name",
// "description", or several joined by "+" for a term found in several),
// a phrase kind ("name phrase", "alias phrase", "trigger phrase"),
// "not_when", "bigram", "object", "object mismatch" or "action". Terms are
// the task's terms (stems) the match rests on; Weight is what it added
// (negative for not_when and object mismatch).
type Evidence struct {
	Field  string   `json:"field"`
	Terms  []string `json:"terms"`
	Weight float64  `json:"weight"`
	// Source is "material" for a term found only in material the user
	// pasted (a log, code, a diff, a config, quoted mail: see
	// materialSpans), weighed at MaterialWeight; "pasted_kind" for a word
	// that names the kind of file the user pasted (a Dockerfile: see
	// pastedKinds), weighed as the instruction's, with Kind naming it;
	// empty for the instruction's words.
	Source string `json:"source,omitempty"`
	Kind   string `json:"kind,omitempty"`
	// Words are the task's words the terms stand for, one a term, as the
	// task folds them ("policy" for the term "polici"), when one differs
	// from its term; a term no word of the task stems to (a pasted
	// file's kind, an object the task lacks) stands for itself.
	Words []string `json:"words,omitempty"`
}

// Said is the evidence as a reader recognises it: its words, else its
// terms, joined by blanks.
func (e Evidence) Said() string {
	if e.Words != nil {
		return strings.Join(e.Words, " ")
	}
	return strings.Join(e.Terms, " ")
}

// From says where the evidence came from when not from the instruction:
// "material", or "pasted Dockerfile" for a word naming the kind of file
// the user pasted; "" for the instruction's words.
func (e Evidence) From() string {
	if e.Source == SourcePastedKind {
		return "pasted " + e.Kind
	}
	return e.Source
}

// scored is a unit with its evidence score.
type scored struct {
	unit  int32
	score float64
}

// score computes every unit's evidence for the task, by unit position, and
// lists the units at or above CandidateFloor, in index order. It stops
// early, with partial scores, when stop reports true.
func (ix *Index) score(q *Query, stop func() bool) (scores []float64, above []scored) {
	scores = make([]float64, len(ix.units))
	for _, t := range q.uniqueTerms {
		if stop() {
			return scores, nil
		}
		ps := ix.postings.get(t)
		if len(ps) == 0 {
			continue
		}
		idf := ix.idf(t, len(ps)) * q.weightOf(t)
		for _, p := range ps {
			scores[p.unit] += idf * float64(p.sat)
		}
	}
	for _, m := range q.phrases {
		scores[m.unit] += m.score
	}
	for _, g := range q.bigrams {
		if stop() {
			return scores, nil
		}
		bonus := bonusBigram * q.weightOfAll(g[:])
		for _, u := range ix.bigrams.get(g) {
			scores[u] += bonus
		}
	}
	if objs := q.objects; len(objs) > 0 {
		for u := range scores {
			switch {
			case shares(ix.unitObjects[u], objs):
				scores[u] += bonusObject * q.keysWeight(intersect(ix.unitObjects[u], objs))
			case scores[u] > 0 && len(ix.unitObjects[u]) > 0:
				scores[u] -= penaltyObjectMismatch
			}
		}
	}
	if acts := q.acts; len(acts) > 0 {
		for u := range scores {
			if shares(ix.unitActions[u], acts) {
				scores[u] += bonusAction * q.keysWeight(intersect(ix.unitActions[u], acts))
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
func (ix *Index) before(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return ix.units[a.unit].Name < ix.units[b.unit].Name
}

// best returns the k best of units, best first, and the others in no
// particular order. Only a handful are wanted out of possibly thousands, so
// it keeps a short sorted list instead of sorting them all.
func (ix *Index) best(units []scored, k int) (top, rest []scored) {
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

// shares reports whether any of keys is in set.
func shares(keys []string, set map[string]bool) bool {
	for _, k := range keys {
		if set[k] {
			return true
		}
	}
	return false
}

// RankingSize is how many units Problem.Ranking lists.
const RankingSize = 10

// Ranked is a unit and its evidence score.
type Ranked struct {
	Name  string
	Score float64
}

// round3 rounds a score to three decimals, as results report it.
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// top returns the k units with the highest positive scores, best first.
func (ix *Index) top(scores []float64, k int) []Ranked {
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
//
// A Chinese, Japanese or Korean term's catalog is the units that hold
// such terms: in a catalog of English skills with a few described in
// Chinese, "测试" (test), in a third of those few, is as common as "test"
// is among all, not as rare as a word of one skill in the whole.
func (ix *Index) idf(term string, df int) float64 {
	n := float64(len(ix.units))
	if ix.cjkUnits > 0 && isCJKTerm(term) {
		n = float64(ix.cjkUnits)
	}
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
		fw := fieldWeight[f]
		if f == fieldName && tf[fieldDescription] == 0 && tf[fieldWhenToUse] == 0 && tf[fieldTrigger] == 0 {
			fw = nameAloneWeight
		}
		w += fw * float64(tf[f]) / norm
	}
	return w / (bm25K1 + w)
}

type phraseMatch struct {
	unit  int32
	score float64
	id    int32 // the phrase, in Index.phrases
}

// matchPhrases finds every unit phrase that occurs in the task, in one
// pass over it. Each phrase counts once however often it occurs; matches
// are listed by where they first start, then in index order, so scores add
// up in the same order whatever the pass visits first.
func (ix *Index) matchPhrases(q *Query, stop func() bool) []phraseMatch {
	type hit struct{ start, id int32 }
	var hits []hit
	seen := map[int32]bool{} // states already reported
	m := ix.phraseSeqs
	m.scan(q.stems, stop, func(end int, state int32) bool {
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
	var task float64 // the task's informative weight, once a name matches
	for _, h := range hits {
		ph := &ix.phrases[h.id]
		var sc float64
		switch ph.kind {
		case fieldName, fieldAlias:
			if len(ph.stems) == 1 && q.onlyModifier(ph.stems[0]) {
				continue
			}
			if task == 0 {
				task = ix.weightOf(q)
			}
			sc = bonusAlias
			if ph.kind == fieldName {
				sc = bonusName
			}
			sc *= ph.weight * ix.nameShare(ph, task)
		case fieldTrigger:
			sc = bonusTrigger * ph.weight
		case notWhen:
			sc = -penaltyNotWhen
		}
		if sc > 0 {
			// A phrase pasted material says routes as its words do.
			sc *= q.weightOfAll(ph.stems)
		}
		out = append(out, phraseMatch{unit: ph.unit, score: sc, id: h.id})
	}
	return out
}

// nameShare scales a name or alias phrase's bonus by the share of the
// task's informative weight its words hold, over nameShareFull: a task
// that is mostly the name ("deploy the app") earns the whole bonus, one
// where the name is one word among many ("... including their verse
// numbers") a share of it, since its term match already counts the word.
func (ix *Index) nameShare(ph *phrase, task float64) float64 {
	if task <= 0 {
		return 1
	}
	var info float64
	for _, s := range ph.stems {
		if df := len(ix.postings.get(s)); df > 0 && !stopWords[s] {
			info += ix.idf(s, df)
		}
	}
	return min(1, info/(nameShareFull*task))
}

// evidence explains a unit's score: its matched terms and phrases, largest
// contribution first, then by terms and field. It returns nil when stop
// reports true.
func (ix *Index) evidence(q *Query, unit int32, stop func() bool) []Evidence {
	var out []Evidence
	for _, t := range q.uniqueTerms {
		if stop() {
			return nil
		}
		ps := ix.postings.get(t)
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
		e := Evidence{Field: strings.Join(fs, "+"), Terms: []string{t}, Weight: ix.idf(t, len(ps)) * q.weightOf(t) * float64(ps[i].sat)}
		if _, pasted := q.material[t]; pasted {
			e.Source = SourceMaterial
		} else if kind, ok := q.pasted[t]; ok {
			e.Source, e.Kind = SourcePastedKind, kind
		}
		out = append(out, e)
	}
	for _, m := range q.phrases {
		if m.unit == unit {
			ph := &ix.phrases[m.id]
			kind := "not_when"
			if ph.kind >= 0 {
				kind = fieldNames[ph.kind] + " phrase"
			}
			out = append(out, q.sourced(Evidence{Field: kind, Terms: Terms(ph.text), Weight: m.score}, ph.stems))
		}
	}
	for _, g := range q.bigrams {
		us := ix.bigrams.get(g)
		if i := sort.Search(len(us), func(i int) bool { return us[i] >= unit }); i < len(us) && us[i] == unit {
			out = append(out, q.sourced(Evidence{Field: "bigram", Terms: []string{g[0], g[1]}, Weight: bonusBigram * q.weightOfAll(g[:])}, g[:]))
		}
	}
	if objs := q.objects; len(objs) > 0 {
		// As score does: the mismatch applies only to a unit with evidence
		// so far, summed in the order score adds it up.
		var sofar float64
		for _, e := range out {
			sofar += e.Weight
		}
		if shared := intersect(ix.unitObjects[unit], objs); len(shared) > 0 {
			out = append(out, q.sourced(Evidence{Field: "object", Terms: keyTerms(shared), Weight: bonusObject * q.keysWeight(shared)}, keyTerms(shared)))
		} else if sofar > 0 && len(ix.unitObjects[unit]) > 0 {
			out = append(out, Evidence{Field: "object mismatch", Terms: keyTerms(slices.Sorted(maps.Keys(objs))), Weight: -penaltyObjectMismatch})
		}
	}
	if acts := q.acts; len(acts) > 0 {
		if shared := intersect(ix.unitActions[unit], acts); len(shared) > 0 {
			out = append(out, q.sourced(Evidence{Field: "action", Terms: keyTerms(shared), Weight: bonusAction * q.keysWeight(shared)}, keyTerms(shared)))
		}
	}
	slices.SortStableFunc(out, func(a, b Evidence) int {
		return cmp.Or(-cmp.Compare(a.Weight, b.Weight), slices.Compare(a.Terms, b.Terms), cmp.Compare(a.Field, b.Field))
	})
	return out
}

// keyTerms is the terms of declared object or action keys (stems joined
// by spaces), in order.
func keyTerms(keys []string) []string { return strings.Fields(strings.Join(keys, " ")) }

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
		if e.Weight > 0 {
			for _, s := range e.Terms {
				terms[s] = true
			}
		}
	}
	return len(terms)
}

// residual is the part of b's evidence that rests on task terms a's
// evidence does not (see ownTerm): what b would add to a prompt that
// already has a.
func residual(a, b []Evidence, byName bool, passing map[string]bool) float64 {
	covered, mine := termWeights(a), termWeights(b)
	var r float64
	for _, e := range b {
		if e.Weight <= 0 {
			continue
		}
		for _, s := range e.Terms {
			if ownTerm(covered, mine, byName, passing, e, s) {
				r += e.Weight
				break
			}
		}
	}
	return r
}

// clauseBests returns, for a task of several clauses (see Query.clauses),
// the unit whose term evidence on each clause's own terms is the highest,
// at or above CandidateFloor, each once, in clause order (a tie goes to
// the unit first in the index). A task that asks for several things says
// each in its own clause; the unit one clause asks for may score below
// units that pick up words across the whole task, and would never be put
// before the policy. It returns nil for a task of one clause, and stops
// early, with what it found so far, when stop reports true.
func (ix *Index) clauseBests(q *Query, stop func() bool) []int32 {
	in := q.clauses()
	var last int
	for _, m := range in {
		if m != 0 {
			last = max(last, 63-bits.LeadingZeros64(m))
		}
	}
	if last == 0 {
		return nil
	}
	scores := make([]float64, len(ix.units))
	var touched []int32
	var out []int32
	for c := 0; c <= last; c++ {
		if stop() {
			return out
		}
		for _, t := range q.uniqueTerms {
			if in[t]&(1<<c) == 0 {
				continue
			}
			ps := ix.postings.get(t)
			idf := ix.idf(t, len(ps))
			for _, p := range ps {
				if scores[p.unit] == 0 {
					touched = append(touched, p.unit)
				}
				scores[p.unit] += idf * float64(p.sat)
			}
		}
		best := int32(-1)
		for _, u := range touched {
			if s := scores[u]; s >= CandidateFloor && (best < 0 || s > scores[best] || (s == scores[best] && u < best)) {
				best = u
			}
		}
		if best >= 0 && !slices.Contains(out, best) {
			out = append(out, best)
		}
		for _, u := range touched {
			scores[u] = 0
		}
		touched = touched[:0]
	}
	return out
}
