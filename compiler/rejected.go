package compiler

import (
	"maps"
	"slices"

	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/ir"
)

// A result lists every unit of the catalog that was not selected, so at
// 20,000 skills a compile writes 20,000 rejected entries, nearly all of
// them units the task gave no evidence. What such an entry holds does not
// depend on the task (name, root, path, and a reason its score decides),
// so it is laid out once per catalog, by position, in a table read in
// order: a compile reads no *ir.Unit and looks no name up for a unit it
// has nothing to say about.

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
func (r *compilation) reasonsAt(i int) []Reason {
	if rs, ok := r.special[i]; ok {
		return rs
	}
	return r.standingAt(i)
}

// standingAt returns the reasons of a unit at catalog position i that
// neither retrieval's Judge nor the policy decided, from the table.
func (r *compilation) standingAt(i int) []Reason {
	if rs := r.c.rows[i].static; rs != nil {
		return rs
	}
	return goReasons(retrieval.ScoreStanding(r.scoreAt(i)), nil)
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
			out = append(out, r.c.pos[u])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// buildRejected lists every rejected unit in catalog order, with its
// score, reasons, the confidence of the best (the candidates and the
// ranking's units) and the evidence the compile computed for it (by
// position: only the unit that bears a name, never a shadowed namesake).
func (r *compilation) buildRejected(evidence map[string][]Evidence) []Rejected {
	rows := r.c.rows
	out := make([]Rejected, 0, len(rows)-len(r.selected))
	special := slices.Sorted(maps.Keys(r.special))
	ranked := r.positionsOf(func(yield func(string) bool) {
		for _, c := range r.cands {
			if !yield(c.Name) {
				return
			}
		}
		for _, rk := range r.problem.Ranking {
			if !yield(rk.Name) {
				return
			}
		}
	})
	withEvidence := r.positionsOf(maps.Keys(evidence))
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
		var reasons []Reason
		if len(special) > 0 && special[0] == i {
			special = special[1:]
			if reasons = r.special[i]; reasons == nil {
				continue
			}
		} else if reasons = row.static; reasons == nil {
			reasons = goReasons(retrieval.ScoreStanding(r.scoreAt(i)), nil)
		}
		reasons = own.reasons(reasons, row.static)
		var score float64
		if !row.shadowed {
			score = r.scoreAt(i)
		}
		rj := Rejected{Name: row.name, Root: row.root, Path: row.path, Score: round3(score), Reasons: reasons}
		if isRanked && score > 0 {
			rj.Confidence = r.confidence(row.name)
		}
		if hasEvidence {
			rj.Evidence = evidence[row.name]
		}
		out = append(out, rj)
	}
	return out
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
