package retrieval

import (
	"math"
	"slices"
)

// confidence measures, in [0, 1], how plainly the task asks for a unit,
// from evidence relative to the task and the catalog rather than from raw
// scores, whose scale shifts with a catalog's size, description lengths
// and vocabulary. It is the product of two shares, scaled by the share of
// the unit's positive evidence its penalties leave (a task that names
// objects the unit is not about, or says one of its not_when phrases,
// takes its confidence away with its score):
//
//   - Explained: the share of the task's informative weight the unit's
//     evidence rests on. The task's weight is the sum of the idf of its
//     words the catalog knows; the unit explains the idf of those of them
//     its own term evidence matches. A unit matching the task's rare words
//     explains much of it; one matching a single common word, little. It
//     is softened (square root): a task of many words rarely has all of
//     them explained by the one unit it wants.
//   - Margin: how far the unit stands above its strongest rival, as a
//     ratio: 1 - rival/score. Its rivals are the other lexical candidates
//     that compete with it for the same task words (one is redundant
//     beside the other, or both declare an object the task names) and the
//     best unit the Judge withdrew (for a unit that is no candidate, the
//     best-ranked unit); a unit with no rival has margin 1, one
//     a rival matches or beats has 0. Two units each resting on its own
//     task words ("debug and commit this") are no rivals.
func (pr *Problem) confidence(name string, score float64) float64 {
	if score <= 0 || pr.taskWeight <= 0 {
		return 0
	}
	rival := pr.Withdrawn
	if !pr.isLexical(name) {
		// Not a candidate: every unit ranked above it is its rival.
		for _, r := range pr.Ranking {
			if r.Name != name && r.Score > rival {
				rival = r.Score
			}
		}
	}
	for _, c := range pr.Candidates {
		if c.Origin != OriginLexical || c.Name == name || c.Score <= rival {
			continue
		}
		a, b := [2]string{c.Name, name}, [2]string{name, c.Name}
		if pr.Redundant[a] || pr.Redundant[b] || pr.SameObject[a] {
			rival = c.Score
		}
	}
	margin := 1.0
	if rival > 0 {
		margin = max(0, 1-rival/score)
	}
	ev := pr.EvidenceOf(name) // once: a non-candidate's is computed on each call
	explained := min(1, pr.explained(ev)/pr.taskWeight)
	return round3(math.Sqrt(explained) * margin * kept(ev, score))
}

// explained sums the idf of the distinct task terms the unit's positive
// term evidence (a field match, not a phrase, bigram or declared key)
// rests on.
func (pr *Problem) explained(ev []Evidence) float64 {
	seen := map[string]bool{}
	var sum float64
	for _, e := range ev {
		if e.Weight <= 0 || !isFieldEvidence(e.Field) {
			continue
		}
		for _, t := range e.Terms {
			if !seen[t] {
				seen[t] = true
				if df := len(pr.ix.postings.get(t)); df > 0 {
					sum += pr.ix.idf(t, df)
				}
			}
		}
	}
	return sum
}

// isFieldEvidence reports whether an evidence field names index fields
// ("description", "name+description"): a term match.
func isFieldEvidence(f string) bool {
	for _, n := range fieldNames {
		if len(f) >= len(n) && f[:len(n)] == n && (len(f) == len(n) || f[len(n)] == '+') {
			return true
		}
	}
	return false
}

// weightOf is the task's informative weight: the idf of each distinct task
// term the catalog knows.
func (ix *Index) weightOf(q *Query) float64 {
	var w float64
	for _, t := range q.uniqueTerms {
		if df := len(ix.postings.get(t)); df > 0 {
			w += ix.idf(t, df)
		}
	}
	return w
}

// Confidence returns how plainly the task asks for the named unit, in
// [0, 1]: the square root of the share of the task's informative weight its
// evidence explains, times its margin over its strongest competing rival
// as a ratio (see confidence). It is 0 for a unit with no evidence.
func (pr *Problem) Confidence(name string) float64 {
	return pr.confidence(name, pr.Score(name))
}

// Explained returns the share of the task's informative weight the named
// unit's term evidence rests on, in [0, 1] (see confidence).
func (pr *Problem) Explained(name string) float64 {
	if pr.taskWeight <= 0 {
		return 0
	}
	return min(1, pr.explained(pr.EvidenceOf(name))/pr.taskWeight)
}

// isLexical reports whether name is a lexical candidate.
func (pr *Problem) isLexical(name string) bool {
	for _, c := range pr.Candidates {
		if c.Name == name && c.Origin == OriginLexical {
			return true
		}
	}
	return false
}

// kept is the share of the unit's positive evidence that its score keeps
// after penalties (object mismatch, not_when), in [0, 1].
func kept(ev []Evidence, score float64) float64 {
	var pos float64
	for _, e := range ev {
		if e.Weight > 0 {
			pos += e.Weight
		}
	}
	if pos <= 0 {
		return 0
	}
	return min(1, max(0, score)/pos)
}

// ExplainsMore reports whether unit a fits the task at least ratio times
// as well as unit b (rule 9's explains_more/3). When the task states part
// of both names, each one's Explained is scaled by 1 plus the share of its
// name's informative weight the task states (nameStated), plus the share
// of the task's informative weight its name states (nameTask): near-duplicate units
// ("check-ssl", "check-ssl-validity") explain the same words of a task,
// and the one whose name the task states whole fits it better than the
// one whose name adds a word the task never says. Otherwise they compare
// by what they explain of the task (Explained): a name the task never
// states (a brand, "cataas") says nothing about the fit, and a name the
// task states beside one it does not is no reason to prefer it.
func (pr *Problem) ExplainsMore(a, b string, ratio float64) bool {
	na, nb := pr.nameStated(a), pr.nameStated(b)
	if na > 0 && nb > 0 {
		fa := pr.Explained(a)*(1+na) + pr.nameTask(a)
		fb := pr.Explained(b)*(1+nb) + pr.nameTask(b)
		return fa >= ratio*fb
	}
	return pr.Explained(a) >= ratio*pr.Explained(b)
}

// nameTask is the share of the task's informative weight that the unit's
// name states: of two names the task states whole, "create marketing
// campaign" states more of "create a marketing campaign named ..." than
// "create campaign" does.
func (pr *Problem) nameTask(name string) float64 {
	id, ok := pr.ix.ids[name]
	if !ok || pr.taskWeight <= 0 {
		return 0
	}
	var stated float64
	seen := map[string]bool{}
	for _, s := range Terms(nameWords(pr.ix.units[id])) {
		if df := len(pr.ix.postings.get(s)); df > 0 && !seen[s] {
			seen[s] = true
			if _, in := slices.BinarySearch(pr.Query.uniqueTerms, s); in {
				stated += pr.ix.idf(s, df)
			}
		}
	}
	return min(1, stated/pr.taskWeight)
}

// nameStated is the share of the informative weight of the unit's name
// words that the task's terms hold, in [0, 1]; 0 for a unit that is not
// indexed or whose name has no informative word.
func (pr *Problem) nameStated(name string) float64 {
	id, ok := pr.ix.ids[name]
	if !ok {
		return 0
	}
	return pr.ix.nameStated(pr.Query, id)
}

// nameStated is Problem.nameStated for the unit at index position id.
func (ix *Index) nameStated(q *Query, id int32) float64 {
	var all, stated float64
	for _, s := range Terms(nameWords(ix.units[id])) {
		df := len(ix.postings.get(s))
		if df == 0 {
			continue
		}
		w := ix.idf(s, df)
		all += w
		if _, in := slices.BinarySearch(q.uniqueTerms, s); in {
			stated += w
		}
	}
	if all == 0 {
		return 0
	}
	return stated / all
}
