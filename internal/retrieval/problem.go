package retrieval

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"slices"

	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/ir"
)

// Origin says why a candidate is put before the policy.
type Origin string

// Origins, in the order the policy serves them.
const (
	OriginMandatory Origin = "mandatory"
	OriginExplicit  Origin = "explicit"
	OriginInvoked   Origin = "invoked"
	OriginLexical   Origin = "lexical"
)

// originUnavailable marks the unavailable unit (Problem.UnavailableBy)
// where the pair facts are computed: it is the first of a pair, never the
// second, and never a candidate.
const originUnavailable Origin = "unavailable"

// Candidate is a unit put before the policy, with its evidence score.
type Candidate struct {
	Name   string
	Origin Origin
	Score  float64
}

// Verdict is the Judge's rejection of a unit: Code is its reason and
// Detail, optional, says more. Retrieval only passes them on, in the
// unit's Exclusion: what they mean is the Judge's.
type Verdict struct {
	Name   string
	Code   Code
	Detail string
}

// Judge decides eligibility (rules 2-6) for retrieval, which decides none
// of it. Ineligible returns a verdict for every unit of cands that can never
// be selected in this request, in any order, and none for the others.
type Judge interface {
	Ineligible(ctx context.Context, cands []Candidate) ([]Verdict, error)
}

// Request is what retrieval reads from a compile besides the task: the
// host's candidates and denials. Names need not be sorted.
type Request struct {
	Mandatory []string
	Explicit  []string
	// Invoked is the unit the task invokes (Query.Command), when the host
	// lets the task select; "" for none.
	Invoked string
	Denied  map[string]bool
	// Wraps reports whether unit requires dep, directly or through
	// others; nil when nothing requires anything. A withdrawn unit that
	// wraps the best lexical candidate is no rival of it (see Withdrawn).
	Wraps func(unit, dep string) bool
}

// Code is why a unit is not a candidate: one of Codes, or, for an
// Exclusion that is Judged, the Judge's own code.
type Code string

// Reasons retrieval gives a unit that is not a candidate. They make no
// claim about eligibility: that is the Judge's. Shadowed and Invalid report
// the loader's status. They are spelled like the public reason codes of
// package rules, which retrieval does not import; package compiler maps
// them, in one place.
const (
	// NoEvidence: the task holds nothing for the unit (score 0).
	NoEvidence Code = "no_evidence"
	// BelowThreshold: some evidence, but below CandidateFloor, or
	// outranked by the candidates (outside CandidateCap).
	BelowThreshold Code = "below_threshold"
	// Shadowed: a unit of higher precedence bears the name.
	Shadowed Code = "shadowed"
	// Invalid: the loader found the unit invalid.
	Invalid Code = "invalid"
)

// Codes lists every code retrieval gives by itself.
var Codes = []Code{NoEvidence, BelowThreshold, Shadowed, Invalid}

// Exclusion is why a unit that is not a candidate stays out of the
// policy's problem.
type Exclusion struct {
	// Code is NoEvidence, BelowThreshold, Shadowed or Invalid, or, when
	// Judged, the Judge's code.
	Code Code
	// Detail is the Judge's detail when Judged; for Shadowed, the unit that
	// shadows it; else empty.
	Detail string
	// Judged says the Judge decided it (rules 2-6).
	Judged bool
	// Outranked says a BelowThreshold unit had evidence at or above
	// CandidateFloor but was not among the CandidateCap best eligible
	// units: the Judge found it eligible, or never saw it because enough
	// eligible units ranked before it.
	Outranked bool
}

// Judgment is a lexical unit the Judge found ineligible while the
// candidates were chosen, with its score; Evidence is set for the units
// judged among the first CandidateCap, whose evidence the explanation shows.
type Judgment struct {
	Verdict
	Score    float64
	Evidence []Evidence
}

// Problem is what the policy judges: the candidates, the facts about them
// and about each pair, and (Exclusions) why every other unit stays out. It
// never changes after Retrieve.
type Problem struct {
	// Query is the analysed task the problem was built from.
	Query *Query
	// Candidates are the mandatory units (sorted), then the explicit ones
	// (sorted), then the eligible lexical units, best first: at most
	// CandidateCap best ones and at most CandidateCap more that answer a
	// clause of the task best (Index.withClauseBests).
	Candidates []Candidate
	// Evidence holds each indexed candidate's evidence, largest first.
	Evidence map[string][]Evidence
	// Redundant holds [a, b] for a lexical candidate b when less than
	// redundantShare (25%) of b's score rests on task terms a's positive
	// evidence does not cover (a term a's rests on only in passing stays
	// b's when the task asks for b by name: see ownTerm).
	Redundant map[[2]string]bool
	// SameObject holds [a, b] for a lexical candidate b when the task names
	// an object both declare.
	SameObject map[[2]string]bool
	// Apart holds [a, b] for a lexical candidate b when b's evidence rests
	// on a task term in a clause of the task where a's rests on none: b
	// answers a part of the task of its own (see Index.apart).
	// The pair maps to the weight of b's evidence in the clause it
	// answers best that way.
	Apart map[[2]string]float64
	// OwnPart holds, for [a, b] where b is a lexical candidate with a
	// part of the task of its own beside a (at least two task terms a's
	// positive evidence does not cover, or a phrase of several words it
	// declares or quotes that a's does not wholly cover), the weight of
	// b's evidence on that part: what b would score on it alone; or, for
	// a pair without one, a clause of the task that asks for something
	// and that b answers clearly beside a, the weight of b's evidence
	// there (see clearParts). Pairs without either are absent (see
	// ownPart; "cover" as in Redundant).
	OwnPart map[[2]string]float64
	// Breadth counts the distinct task terms each candidate's positive
	// evidence rests on, or the words of its longest phrase matched whole
	// when that is more.
	Breadth map[string]int
	// Material holds, for each lexical candidate with evidence found only
	// in material the user pasted (Evidence.Source), the weight of that
	// evidence; candidates without any are absent.
	Material map[string]float64
	// OwnWords holds each lexical candidate whose positive evidence rests
	// on a task word or phrase of its own triggers: a trigger it declares,
	// a phrase its description or when_to_use quotes, or a word of its
	// "Use when" clauses (the unit's own words for when it is wanted).
	OwnWords map[string]bool
	// WholeTask holds each lexical candidate whose positive evidence rests
	// on every content word of the task, known to the catalog or not
	// ("make a dockerfile"): the task says nothing the unit does not
	// answer. Nil when none does.
	WholeTask map[string]bool
	// Withdrawn is the best score of a lexical unit the Judge kept from
	// the candidates while they were chosen, or 0 (rule 10), leaving out
	// a unit that requires the best lexical candidate (Request.Wraps); WithdrawnBy
	// names that unit (the first judged, on a tie), so that a rule citing
	// the withdrawn score as a runner-up can name it.
	Withdrawn   float64
	WithdrawnBy string
	// Unavailable is the best score of a lexical unit the Judge kept from
	// the candidates that is explicit-user-only (it activates only when
	// the host selects it: a user's /name), or 0; UnavailableBy names it.
	// A unit the host denies or the task negates is none (they chose to
	// leave it out), nor is one that requires a lexical candidate
	// (Request.Wraps): it drew the task's words for the unit it runs. The pair facts
	// Apart and OwnPart hold [UnavailableBy, b] for every lexical
	// candidate b, so rule 10 can tell whether b answers a part of the
	// task of its own beside it.
	Unavailable   float64
	UnavailableBy string
	// Ranking lists the RankingSize units with the most evidence, best
	// first, eligible or not.
	Ranking []Ranked
	// Ineligible lists the lexical units the Judge rejected in the
	// best-first batches, in the order judged. A unit the request names
	// that the Judge rejected outside them is not listed here; Exclusions
	// gives its verdict.
	Ineligible []Judgment

	ix *Index
	// taskWeight is the task's informative weight (see Confidence).
	taskWeight float64
	scores     []float64 // by index position
	candPos    []int     // catalog positions of the candidates, ascending
	// marked are the units the Judge rejected, by ascending catalog
	// position; every other non-candidate's reason is its standing,
	// computed as Exclusions walks.
	marked []marked
}

type marked struct {
	pos int
	x   Exclusion
}

// Exclusions yields, in catalog order, the catalog position of every unit
// that is not a candidate and why it stays out. It computes the reasons as
// it walks: a catalog of thousands of units costs no table per compile.
func (pr *Problem) Exclusions() iter.Seq2[int, Exclusion] {
	return func(yield func(int, Exclusion) bool) {
		cands, marks := pr.candPos, pr.marked
		for i, u := range pr.ix.cat.Units {
			if len(cands) > 0 && cands[0] == i {
				cands = cands[1:]
				continue
			}
			var x Exclusion
			if len(marks) > 0 && marks[0].pos == i {
				x, marks = marks[0].x, marks[1:]
			} else {
				x = Standing(u, pr.ScoreAt(i))
			}
			if !yield(i, x) {
				return
			}
		}
	}
}

// Judged yields, in catalog order, the catalog position of every unit that
// is not a candidate and that the Judge kept out, and its Exclusion: the
// units whose Exclusions entry is not their standing. A caller that
// computes standings itself walks these few instead of the catalog.
func (pr *Problem) Judged() iter.Seq2[int, Exclusion] {
	return func(yield func(int, Exclusion) bool) {
		for _, m := range pr.marked {
			if _, cand := slices.BinarySearch(pr.candPos, m.pos); cand {
				continue
			}
			if !yield(m.pos, m.x) {
				return
			}
		}
	}
}

// CandidatePositions returns the catalog positions of the candidates,
// ascending: the units Exclusions skips.
func (pr *Problem) CandidatePositions() []int { return slices.Clone(pr.candPos) }

// Exclusion returns why the unit at catalog position i stays out, or a
// zero Exclusion for a candidate.
func (pr *Problem) Exclusion(i int) Exclusion {
	if _, ok := slices.BinarySearch(pr.candPos, i); ok {
		return Exclusion{}
	}
	if j, ok := slices.BinarySearchFunc(pr.marked, i, func(m marked, i int) int { return cmp.Compare(m.pos, i) }); ok {
		return pr.marked[j].x
	}
	return Standing(pr.ix.cat.Units[i], pr.ScoreAt(i))
}

// EvidenceOf returns a unit's evidence, largest first: the candidates'
// from Evidence, any other indexed unit's computed now, so an explanation
// can show why a unit that never became a candidate scored what it did. It
// returns nil for a unit that is not indexed.
func (pr *Problem) EvidenceOf(name string) []Evidence {
	if ev, ok := pr.Evidence[name]; ok {
		return ev
	}
	id, ok := pr.ix.ids[name]
	if !ok {
		return nil
	}
	return pr.ix.evidence(pr.Query, id, func() bool { return false })
}

// Score returns a unit's evidence score, or 0 when it has none or is not
// indexed.
func (pr *Problem) Score(name string) float64 {
	if id, ok := pr.ix.ids[name]; ok {
		return pr.scores[id]
	}
	return 0
}

// ScoreAt returns the evidence score of the unit at catalog position i.
func (pr *Problem) ScoreAt(i int) float64 {
	if id := pr.ix.byCatalog[i]; id >= 0 {
		return pr.scores[id]
	}
	return 0
}

// Retrieve scores q and states the problem the policy judges. Eligibility
// is the Judge's: it is shown the best lexical units best first, in
// batches, until CandidateCap eligible ones are found, and, in the first
// call, every unit req denies or the task negates that it would not
// otherwise see, so that those get the policy's reason whatever their
// score. A unit the Judge rejects takes no candidate's place. The error is
// ctx's, or the Judge's as it returned it. When p stops, Retrieve returns
// a partial problem the caller must discard (p.Err says so).
func (ix *Index) Retrieve(ctx context.Context, q *Query, req Request, judge Judge, p *pulse.Pulse) (*Problem, error) {
	scores, above := ix.score(q, p.Stop)
	pr := &Problem{Query: q, ix: ix, scores: scores, taskWeight: ix.weightOf(q)}
	host := make(map[string]bool, len(req.Mandatory)+len(req.Explicit))
	mandatory := slices.Sorted(slices.Values(req.Mandatory))
	for _, n := range slices.Compact(mandatory) {
		host[n] = true
		pr.Candidates = append(pr.Candidates, Candidate{Name: n, Origin: OriginMandatory, Score: pr.Score(n)})
	}
	explicit := slices.Sorted(slices.Values(req.Explicit))
	for _, n := range slices.Compact(explicit) {
		if !host[n] {
			host[n] = true
			pr.Candidates = append(pr.Candidates, Candidate{Name: n, Origin: OriginExplicit, Score: pr.Score(n)})
		}
	}
	if n := req.Invoked; n != "" && !host[n] {
		host[n] = true
		pr.Candidates = append(pr.Candidates, Candidate{Name: n, Origin: OriginInvoked, Score: pr.Score(n)})
	}
	var lexical []scored
	for _, s := range above {
		if !host[ix.units[s.unit].Name] {
			lexical = append(lexical, s)
		}
	}
	top, marks, err := ix.eligibleTop(ctx, pr, lexical, ix.named(q, req, host), judge, p)
	if err != nil {
		return nil, err
	}
	top, err = ix.withClauseBests(ctx, pr, top, marks, q, judge, p)
	if err != nil {
		return nil, err
	}
	for pos, x := range marks {
		pr.marked = append(pr.marked, marked{pos, x})
	}
	slices.SortFunc(pr.marked, func(a, b marked) int { return cmp.Compare(a.pos, b.pos) })
	for _, s := range top {
		pr.Candidates = append(pr.Candidates, Candidate{Name: ix.units[s.unit].Name, Origin: OriginLexical, Score: s.score})
	}
	if req.Wraps != nil && pr.Withdrawn > 0 && len(top) > 0 {
		pr.unwrap(ix.units[top[0].unit].Name, req.Wraps)
	}
	pr.Evidence = make(map[string][]Evidence, len(pr.Candidates))
	for _, c := range pr.Candidates {
		if id, ok := ix.ids[c.Name]; ok {
			pr.Evidence[c.Name] = ix.evidence(q, id, p.Stop)
		}
	}
	// The pair facts of rules 10 and 11 are computed over the candidates
	// and, as the first of a pair only, the unavailable unit.
	pr.unavailable(ix, req)
	related, relatedEv := pr.Candidates, pr.Evidence
	if id, ok := ix.ids[pr.UnavailableBy]; ok {
		relatedEv = maps.Clone(pr.Evidence)
		relatedEv[pr.UnavailableBy] = ix.evidence(q, id, p.Stop)
		related = append(slices.Clone(pr.Candidates), Candidate{Name: pr.UnavailableBy, Origin: originUnavailable, Score: pr.Unavailable})
	}
	var byName map[[2]string]bool
	pr.Apart, byName = ix.apart(q, related, relatedEv)
	passing := q.passingTerms()
	pr.Redundant, pr.SameObject, pr.Breadth = ix.relate(q, pr.Candidates, pr.Evidence, byName, passing)
	pr.OwnWords = ownWords(pr.Candidates, pr.Evidence)
	pr.Material = materialWeights(pr.Candidates, pr.Evidence)
	pr.WholeTask = wholeTask(q, pr.Candidates, pr.Evidence)
	pr.OwnPart = ownParts(related, relatedEv, byName, passing, func(e Evidence) bool { return q.pastedOnly(e) || q.fromSource(e) }, q.onlyModifier)
	for pair, w := range clearParts(q, related, relatedEv) {
		if _, ok := pr.OwnPart[pair]; !ok {
			pr.OwnPart[pair] = w
		}
	}
	pr.Ranking = ix.top(scores, RankingSize)
	for _, c := range pr.Candidates {
		if i, ok := ix.catalogPos(c.Name); ok {
			pr.candPos = append(pr.candPos, i)
		}
	}
	slices.Sort(pr.candPos)
	pr.candPos = slices.Compact(pr.candPos)
	return pr, nil
}

// unavailable sets Unavailable: the best judged unit that is
// explicit-user-only, which neither the host denies nor the task negates
// (they chose to leave it out, and another unit may be what they want
// instead), and which requires no lexical candidate (it runs that one).
func (pr *Problem) unavailable(ix *Index, req Request) {
	pr.Unavailable, pr.UnavailableBy = 0, ""
	for _, j := range pr.Ineligible {
		id, ok := ix.ids[j.Name]
		if !ok || j.Score <= pr.Unavailable || ix.units[id].Invocation != ir.InvocationExplicitUser || req.Denied[j.Name] || pr.Query.Negated(j.Name) != "" {
			continue
		}
		if req.Wraps != nil && slices.ContainsFunc(pr.Candidates, func(c Candidate) bool { return c.Origin == OriginLexical && req.Wraps(j.Name, c.Name) }) {
			continue
		}
		pr.Unavailable, pr.UnavailableBy = j.Score, j.Name
	}
}

// unwrap leaves out of Withdrawn the judged units that require best, the
// best lexical candidate: a unit that runs another ("grill-me" runs a
// "grilling" session) drew the task's words for it, so taking the wrapper
// away (it activates only when the host selects it, say) leaves best no
// weaker than it was. The best of the other judged units, the first
// judged on a tie, is the withdrawn rival.
func (pr *Problem) unwrap(best string, wraps func(unit, dep string) bool) {
	pr.Withdrawn, pr.WithdrawnBy = 0, ""
	for _, j := range pr.Ineligible {
		if j.Score > pr.Withdrawn && !wraps(j.Name, best) {
			pr.Withdrawn, pr.WithdrawnBy = j.Score, j.Name
		}
	}
}

// Standing is the reason a unit that is neither a candidate nor judged
// ineligible stays out: its loader status, else how much evidence it has.
// A unit at or above the candidate floor was outranked: it was left
// outside the cap, judged eligible or never judged because four eligible
// units ranked before it.
func Standing(u *ir.Unit, score float64) Exclusion {
	switch {
	case u.Status == ir.StatusShadowed:
		return Exclusion{Code: Shadowed, Detail: u.ShadowedBy}
	case u.Status == ir.StatusInvalid:
		return Exclusion{Code: Invalid}
	}
	return ScoreStanding(score)
}

// ScoreStanding is the standing of a unit the loader neither shadowed nor
// found invalid, which its score alone decides. A caller that knows a
// unit's status (from a table of the catalog, say) asks it directly.
func ScoreStanding(score float64) Exclusion {
	switch {
	case score >= CandidateFloor:
		return Exclusion{Code: BelowThreshold, Outranked: true}
	case score != 0:
		return Exclusion{Code: BelowThreshold}
	}
	return Exclusion{Code: NoEvidence}
}

// catalogPos returns the catalog position of the unit that bears name.
func (ix *Index) catalogPos(name string) (int, bool) {
	u, ok := ix.cat.Lookup(name)
	if !ok {
		return 0, false
	}
	return ix.pos[u], true
}

// named returns the indexed units the request names besides its host
// candidates, the denied ones and those the task negates, sorted by name:
// the Judge sees them whatever their score. Both sets are bounded by the
// request, not the catalog.
func (ix *Index) named(q *Query, req Request, host map[string]bool) []int32 {
	if len(req.Denied) == 0 && len(q.negated) == 0 {
		return nil
	}
	var names []string
	for n := range req.Denied {
		names = append(names, n)
	}
	for n := range q.negated {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []int32
	for _, n := range slices.Compact(names) {
		if id, ok := ix.ids[n]; ok && !host[n] {
			out = append(out, id)
		}
	}
	return out
}

// eligibleTop returns the CandidateCap best of the lexical units that the
// Judge finds eligible, and records in pr why the others stay out. A unit
// that can never be selected in this request takes no candidate's place;
// the best score among those judged in the batches is kept for rule 10,
// since taking a unit away must not manufacture a margin for a weaker one.
// Units are judged best first, in batches, so the usual compile asks once
// about the four best; the first call also judges named, the units the
// request names.
func (ix *Index) eligibleTop(ctx context.Context, pr *Problem, lexical []scored, named []int32, judge Judge, p *pulse.Pulse) (top []scored, marks map[int]Exclusion, err error) {
	batch, rest := ix.best(lexical, CandidateCap)
	var (
		verdicts map[int32]Verdict // judged ineligible, by index position
		asked    map[int32]bool    // judged at all
	)
	ask := func(units []int32) error {
		cands := make([]Candidate, 0, len(units))
		for _, u := range units {
			if !asked[u] {
				cands = append(cands, Candidate{Name: ix.units[u].Name, Origin: OriginLexical, Score: pr.scores[u]})
			}
		}
		if len(cands) == 0 {
			return nil
		}
		if asked == nil {
			asked, verdicts = map[int32]bool{}, map[int32]Verdict{}
		}
		// In calls of at most ineligibleBatch units: the interpreter's
		// bindings grow with its input, and a task that negates a name
		// thousands of units share must cost them linear time.
		var vs []Verdict
		for len(cands) > 0 {
			n := min(len(cands), ineligibleBatch)
			v, err := judge.Ineligible(ctx, cands[:n])
			if err != nil {
				return err
			}
			vs = append(vs, v...)
			cands = cands[n:]
		}
		for _, u := range units {
			asked[u] = true
		}
		for _, v := range vs {
			if id, ok := ix.ids[v.Name]; ok {
				verdicts[id] = v
			}
		}
		return nil
	}
	exclude := func(u int32, v Verdict) {
		if marks == nil {
			marks = map[int]Exclusion{}
		}
		marks[ix.catPos[u]] = Exclusion{Code: v.Code, Detail: v.Detail, Judged: true}
	}
	sorted := false
	grow := 0 // the last batch past the first, doubled at each (see below)
	for first := true; len(batch) > 0 || (first && len(named) > 0); first = false {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		units := make([]int32, len(batch), len(batch)+len(named))
		for i, s := range batch {
			units[i] = s.unit
		}
		if first {
			units = append(units, named...)
		}
		if err := ask(units); err != nil {
			return nil, nil, err
		}
		if first {
			for _, u := range named {
				if v, bad := verdicts[u]; bad {
					exclude(u, v)
				}
			}
		}
		for _, s := range batch {
			v, bad := verdicts[s.unit]
			switch {
			case bad:
				exclude(s.unit, v)
				j := Judgment{Verdict: v, Score: s.score}
				if !sorted {
					// Among the best four: explain what the task said for it.
					j.Evidence = ix.evidence(pr.Query, s.unit, p.Stop)
				}
				pr.Ineligible = append(pr.Ineligible, j)
				// A negated unit's score holds no evidence from the words
				// that negate it (Analyze masks them), so it all came from
				// the rest of the task and counts as a rival.
				if s.score > pr.Withdrawn {
					pr.Withdrawn, pr.WithdrawnBy = s.score, v.Name
				}
			case len(top) < CandidateCap:
				top = append(top, s)
			}
		}
		need := CandidateCap - len(top)
		if need == 0 || len(rest) == 0 {
			break
		}
		if !sorted {
			// Rare: some of the best were ineligible. Walk the rest in
			// order, in batches no smaller than ineligibleBatch so that a
			// catalog of many ineligible matches costs few calls.
			slices.SortFunc(rest, func(a, b scored) int {
				if ix.before(a, b) {
					return -1
				}
				return 1
			})
			sorted = true
		}
		// The batch doubles from the number of candidates still wanted up
		// to ineligibleBatch: a few units left out among the best (an
		// explicit-only skill) cost a few more judged, not thirty, and a
		// catalog of many ineligible matches still costs few calls.
		grow = min(max(need, 2*grow), ineligibleBatch)
		n := min(max(need, grow), len(rest))
		batch, rest = rest[:n], rest[n:]
	}
	// The eligible units left outside, and those never judged, are
	// outranked: standing tells them by their score.
	return top, marks, nil
}

// withClauseBests adds to the lexical candidates top, best first, the
// units that answer a clause of the task best (clauseBests) and are not
// among them yet, up to CandidateCap more, if the Judge finds them
// eligible, and returns the candidates best first. A task that asks for
// several things, one per clause, gets its parts before the policy even
// when units that pick up words across the whole task outscore them; the
// policy still decides each on its evidence (rules 9 to 11). A unit the
// Judge rejected already (marks) is left out; one it rejects now stays
// outside with its standing, as any unit outside the cap.
func (ix *Index) withClauseBests(ctx context.Context, pr *Problem, top []scored, marks map[int]Exclusion, q *Query, judge Judge, p *pulse.Pulse) ([]scored, error) {
	if len(top) == 0 {
		return top, nil
	}
	var extra []Candidate
	for _, u := range ix.clauseBests(q, p.Stop) {
		if len(extra) == CandidateCap {
			break
		}
		name := ix.units[u].Name
		if pr.scores[u] < ClauseFloor {
			continue
		}
		if _, judged := marks[ix.catPos[u]]; judged || slices.ContainsFunc(top, func(s scored) bool { return s.unit == u }) || host(pr, name) {
			continue
		}
		extra = append(extra, Candidate{Name: name, Origin: OriginLexical, Score: pr.scores[u]})
	}
	if len(extra) == 0 {
		return top, nil
	}
	vs, err := judge.Ineligible(ctx, extra)
	if err != nil {
		return nil, err
	}
	for _, c := range extra {
		if !slices.ContainsFunc(vs, func(v Verdict) bool { return v.Name == c.Name }) {
			top = append(top, scored{ix.ids[c.Name], c.Score})
		}
	}
	slices.SortStableFunc(top, func(a, b scored) int {
		if ix.before(a, b) {
			return -1
		}
		if ix.before(b, a) {
			return 1
		}
		return 0
	})
	return top, nil
}

// host reports whether name is one of the host's candidates (mandatory
// or explicit), which come first in pr.Candidates.
func host(pr *Problem, name string) bool {
	for _, c := range pr.Candidates {
		if c.Origin != OriginLexical && c.Name == name {
			return true
		}
	}
	return false
}

// ineligibleBatch is the most units eligibleTop judges at once past the
// first four.
const ineligibleBatch = 32
