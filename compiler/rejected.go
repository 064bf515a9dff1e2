package compiler

import (
	"maps"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/ir"
)

// A result accounts for every unit of the catalog, and at 20,000 skills
// nearly all of them are units the task gave no evidence. What such a
// unit's entry would hold does not depend on the task (name, root, path,
// and a reason its score decides), so it is laid out once per catalog, by
// position, in a table read in order: a compile reads no *ir.Unit and
// looks no name up for a unit it has nothing to say about, whether it
// lists it (Request.AllRejected) or only counts it.

// unitRow is what a rejected entry takes from the unit at one catalog
// position.
type unitRow struct {
	name, root, path string
	shadowed         bool
	// static holds the reasons of a unit the loader shadowed or found
	// invalid, which its score never changes; nil for every other unit,
	// whose standing its score decides (retrieval.ScoreStanding).
	static []Reason
}

// newRows builds the table of cat's units, by catalog position.
func newRows(cat *ir.Catalog) []unitRow {
	rows := make([]unitRow, len(cat.Units))
	for i, u := range cat.Units {
		rows[i] = unitRow{name: u.Name, root: u.Root, path: u.Path, shadowed: u.Status == ir.StatusShadowed}
		if u.Status == ir.StatusShadowed || u.Status == ir.StatusInvalid {
			rows[i].static = goReasons(retrieval.Standing(u, 0), u)
		}
	}
	return rows
}

// reasonsAt returns the reasons of the unit at catalog position i: those
// the compile set for it (nil when it is not rejected: a candidate not
// rejected by the policy, or a selected unit), else its standing's.
func (r *compilation) reasonsAt(st *statement, i int) []Reason {
	if rs, ok := r.special[i]; ok {
		return rs
	}
	return r.standingAt(st, i)
}

// standingAt returns the reasons of a unit at catalog position i that
// neither retrieval's Judge nor the policy decided, from the table.
func (r *compilation) standingAt(st *statement, i int) []Reason {
	if rs := r.c.rows[i].static; rs != nil {
		return rs
	}
	return goReasons(retrieval.ScoreStanding(st.scoreAt(i)), nil)
}

// setReasons records the reasons of the unit at catalog position i; nil
// says it is not rejected.
func (r *compilation) setReasons(i int, rs []Reason) {
	if r.special == nil {
		r.special = map[int][]Reason{}
	}
	r.special[i] = rs
}

// positionsOf returns the catalog positions of the units that bear names,
// ascending and once each.
func (r *compilation) positionsOf(names func(yield func(string) bool)) []int {
	var out []int
	for n := range names {
		if u, ok := r.c.cat.Lookup(n); ok {
			out = append(out, r.c.posOf(u))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// buildRejected returns the rejected units the result lists (see
// Result.Rejected), in catalog order, and counts every other one by its
// reason code. An entry holds the unit's score, reasons, the confidence of
// the best (the candidates, the ranking's units and the near misses) and
// the evidence the compile computed for it (by position: only the unit
// that bears a name, never a shadowed namesake). Which units are listed
// changes no entry: a unit's entry is the same listed by default, by
// Request.Why or by Request.AllRejected.
func (r *compilation) buildRejected(v *verdict, evidence map[string][]Evidence, near []int) ([]Rejected, map[ReasonCode]int) {
	rows := r.c.rows
	special := slices.Sorted(maps.Keys(r.special))
	ranked := r.positionsOf(func(yield func(string) bool) {
		for _, c := range v.cands {
			if !yield(c.Name) {
				return
			}
		}
		for _, rk := range v.problem.Ranking {
			if !yield(rk.Name) {
				return
			}
		}
	})
	ranked = merge(ranked, near)
	listed := merge(r.named(v.input), near)
	withEvidence := r.positionsOf(maps.Keys(evidence))
	// Most of a large catalog is unlisted, under one of a few codes:
	// counted in a short list, a catalog of thousands costs no map update
	// per unit (a quarter of this walk's time at 5,000 skills).
	var unlisted codeCounts
	size := len(special) + len(listed)
	if v.req.AllRejected {
		size = len(rows) - len(v.selected)
	}
	out := make([]Rejected, 0, size)
	var own owner
	for i := range rows {
		row := &rows[i]
		isRanked := len(ranked) > 0 && ranked[0] == i
		if isRanked {
			ranked = ranked[1:]
		}
		hasEvidence := len(withEvidence) > 0 && withEvidence[0] == i
		if hasEvidence {
			withEvidence = withEvidence[1:]
		}
		isListed := v.req.AllRejected || len(listed) > 0 && listed[0] == i
		if len(listed) > 0 && listed[0] == i {
			listed = listed[1:]
		}
		var reasons []Reason
		if len(special) > 0 && special[0] == i {
			// Retrieval's Judge or the policy decided about it: always
			// listed, unless it is not rejected at all.
			special = special[1:]
			if reasons = r.special[i]; reasons == nil {
				continue
			}
			isListed = true
		} else if reasons = row.static; reasons == nil {
			reasons = goReasons(retrieval.ScoreStanding(v.scoreAt(i)), nil)
		}
		if !isListed {
			unlisted.add(reasons[0].Code)
			continue
		}
		reasons = own.reasons(reasons, row.static)
		var score float64
		if !row.shadowed {
			score = v.scoreAt(i)
		}
		rj := Rejected{Name: row.name, Root: row.root, Path: row.path, Score: round3(score), Reasons: reasons}
		if isRanked && score > 0 {
			rj.Confidence = v.confidence(row.name)
		}
		switch {
		case hasEvidence:
			rj.Evidence = evidence[row.name]
		case score > 0:
			// A unit listed with a score shows what it came from,
			// however it came to be listed: asked about (Request.Why),
			// named by the task ("do not use tdd"), or every one
			// (Request.AllRejected). Only Why computed it, so an entry
			// differed between listings.
			if ev := v.statement.problem.EvidenceOf(row.name); len(ev) > 0 {
				rj.Evidence = v.statement.shown(ev)
			}
		}
		out = append(out, rj)
	}
	return out, unlisted.byCode()
}

// codeCounts counts units by reason code, for the few codes a compile's
// unlisted units have.
type codeCounts []codeCount

type codeCount struct {
	code ReasonCode
	n    int
}

func (c *codeCounts) add(code ReasonCode) {
	for i := range *c {
		if (*c)[i].code == code {
			(*c)[i].n++
			return
		}
	}
	*c = append(*c, codeCount{code, 1})
}

func (c codeCounts) byCode() map[ReasonCode]int {
	m := make(map[ReasonCode]int, len(c))
	for _, e := range c {
		m[e.code] = e.n
	}
	return m
}

// nearMisses returns the catalog positions, ascending, of the NearMisses
// units with the best scores above 0 among those whose reason is their
// standing (neither judged nor a candidate, neither shadowed nor
// invalid): rule 1 left them out, below the candidate floor or outranked.
// Ties go to the first name, as in the ranking. It depends on the compile
// alone, never on what the request asks the result to list, so that a
// unit's entry does not either.
func (r *compilation) nearMisses(st *statement) []int {
	type miss struct {
		pos   int
		score float64
	}
	better := func(a, b miss) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return r.c.rows[a.pos].name < r.c.rows[b.pos].name // rows are in name order; so are equal names by position
	}
	var best []miss
	for i := range r.c.rows {
		s := st.scoreAt(i)
		if s <= 0 || r.c.rows[i].static != nil {
			continue
		}
		m := miss{i, s}
		if len(best) == NearMisses && !better(m, best[len(best)-1]) {
			continue
		}
		if _, decided := r.special[i]; decided {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, m, func(e, t miss) int {
			if better(e, t) {
				return -1
			}
			return 1
		})
		best = slices.Insert(best, at, m)
		if len(best) > NearMisses {
			best = best[:NearMisses]
		}
	}
	out := make([]int, len(best))
	for k, m := range best {
		out[k] = m.pos
	}
	slices.Sort(out)
	return out
}

// named returns the catalog positions, ascending and once each, of every
// unit bearing a name the request or the host policy names: selected,
// mandatory, denied, negated by the task, or asked about (Request.Why).
// Each is listed whatever became of it, shadowed namesakes too.
func (r *compilation) named(in *input) []int {
	var out []int
	add := func(n string) {
		rows := r.c.rows
		i, _ := slices.BinarySearchFunc(rows, n, func(row unitRow, n string) int { return strings.Compare(row.name, n) })
		for ; i < len(rows) && rows[i].name == n; i++ {
			out = append(out, i)
		}
	}
	for _, n := range in.req.Why {
		add(n)
	}
	for _, set := range []map[string]bool{in.explicit, in.mandatory, in.denied} {
		for n := range set {
			add(n)
		}
	}
	if in.invoked != "" {
		add(in.invoked)
	}
	for _, n := range in.q.Negations() {
		add(n.Unit)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// merge returns the ascending union of two ascending lists of positions.
func merge(a, b []int) []int {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// owner gives one result its own copy of the reasons the catalog's table
// and rule 1 share between compiles, so that a host that changes a result
// changes no other. Rule 1's three are copied once per result, not once
// per entry: at 20,000 skills nearly every entry holds one, and entries of
// one result may share a reason (Reason says so), results never do.
type owner struct {
	noEvidence, outsideCap, belowFloor []Reason
	outsideCapFacts, belowFloorFacts   *Facts
}

// reasons returns rs, or this result's copy of it when rs, or a Facts in
// it, is shared beyond the result: rule 1's reasons and facts, or static,
// the unit's reasons in the catalog's table. Every other reason the
// compile made for this result alone.
func (o *owner) reasons(rs, static []Reason) []Reason {
	if len(rs) == 0 {
		return rs
	}
	switch &rs[0] {
	case &noEvidenceReasons[0]:
		return o.shared(&o.noEvidence, rs)
	case &outsideCapReasons[0]:
		return o.shared(&o.outsideCap, rs)
	case &belowFloorReasons[0]:
		return o.shared(&o.belowFloor, rs)
	}
	if len(static) > 0 && &rs[0] == &static[0] {
		rs = slices.Clone(rs)
	}
	for i := range rs {
		rs[i].Facts = o.facts(rs[i].Facts)
	}
	return rs
}

// shared returns this result's copy of one of rule 1's reasons slices,
// made at its first use.
func (o *owner) shared(copy *[]Reason, rs []Reason) []Reason {
	if *copy == nil {
		*copy = slices.Clone(rs)
		for i := range *copy {
			(*copy)[i].Facts = o.facts((*copy)[i].Facts)
		}
	}
	return *copy
}

// facts returns f, or this result's copy of it when it is one of rule 1's
// shared facts. Those hold numbers alone, so a shallow copy owns them.
func (o *owner) facts(f *Facts) *Facts {
	switch f {
	case outsideCapFacts:
		if o.outsideCapFacts == nil {
			c := *f
			o.outsideCapFacts = &c
		}
		return o.outsideCapFacts
	case belowFloorFacts:
		if o.belowFloorFacts == nil {
			c := *f
			o.belowFloorFacts = &c
		}
		return o.belowFloorFacts
	}
	return f
}
