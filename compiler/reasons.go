package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/ir"
)

// Details of the rejections Go decides before the policy runs (rule 1);
// goReason gives them with their rule and facts.
var (
	belowThreshold = fmt.Sprintf("score is below the candidate floor %.1f", CandidateFloor)
	outsideCap     = fmt.Sprintf("score is outside the top %d candidates", CandidateCap)
)

// ruleOf numbers a rule the policy or Go cites.
func ruleOf(name rules.RuleName, clause rules.Clause) Rule {
	return Rule{Number: name.Number(), Name: name, Clause: clause}
}

// retrievalReasons maps each code retrieval gives a unit it kept out of the
// candidates by itself to the public reason code and the rule behind it:
// the one place retrieval's vocabulary meets the contract's, since
// retrieval does not import rules (TestRetrievalCodes ties the two).
var retrievalReasons = map[retrieval.Code]struct {
	code ReasonCode
	rule rules.RuleName
}{
	retrieval.NoEvidence:     {ReasonNoEvidence, rules.RuleEvidence},
	retrieval.BelowThreshold: {ReasonBelowThreshold, rules.RuleEvidence},
	retrieval.Shadowed:       {ReasonShadowed, rules.RuleStanding},
	retrieval.Invalid:        {ReasonInvalid, rules.RuleStanding},
}

// goReason is the reason of unit u, which retrieval kept out of the
// candidates by itself (x is not Judged), with its rule and facts: a unit
// with some evidence either scored below the candidate floor or was
// outranked (eligible, or never judged, outside the best CandidateCap),
// as x says.
func goReason(x retrieval.Exclusion, u *ir.Unit) Reason {
	m, ok := retrievalReasons[x.Code]
	if !ok {
		m.code = ReasonCode(x.Code) // TestRetrievalCodes keeps this unreached
	}
	rs := Reason{Code: m.code, Rule: ruleOf(m.rule, "")}
	switch x.Code {
	case retrieval.Shadowed:
		rs.Detail = "by " + x.Detail
	case retrieval.Invalid:
		rs.Detail = "see diagnostics for " + u.Path
	case retrieval.BelowThreshold:
		if x.Outranked {
			rs.Rule.Clause, rs.Detail, rs.Facts = rules.ClauseOutsideCap, outsideCap, outsideCapFacts
		} else {
			rs.Rule.Clause, rs.Detail, rs.Facts = rules.ClauseBelowCandidateFloor, belowThreshold, belowFloorFacts
		}
	}
	return rs
}

// The facts of rule 1's rejections are the same for every unit (its score
// is Rejected.Score), so all share these: a large catalog has thousands of
// units with a little evidence, and a Result is read, not changed.
var (
	belowFloorFacts = &Facts{CandidateFloor: CandidateFloor}
	outsideCapFacts = &Facts{CandidateFloor: CandidateFloor, Candidates: CandidateCap}
)

// goReasons is goReason as a unit's reasons. Rule 1's reasons name no unit
// (no_evidence, below_candidate_floor, outside_cap), so every unit with one
// shares its slice, as they share its facts: a catalog of thousands of
// units pays for three reasons, not one each.
func goReasons(x retrieval.Exclusion, u *ir.Unit) []Reason {
	switch {
	case x.Code == retrieval.NoEvidence:
		return noEvidenceReasons
	case x.Code == retrieval.BelowThreshold && x.Outranked:
		return outsideCapReasons
	case x.Code == retrieval.BelowThreshold:
		return belowFloorReasons
	}
	return []Reason{goReason(x, u)}
}

var (
	noEvidenceReasons = []Reason{goReason(retrieval.Exclusion{Code: retrieval.NoEvidence}, nil)}
	outsideCapReasons = []Reason{goReason(retrieval.Exclusion{Code: retrieval.BelowThreshold, Outranked: true}, nil)}
	belowFloorReasons = []Reason{goReason(retrieval.Exclusion{Code: retrieval.BelowThreshold}, nil)}
)

// facts converts the policy's facts (scores x 1000) into the result's.
func (st *statement) facts(d rules.Decision) *Facts {
	f := d.Facts
	out := &Facts{
		Score: unmilli(f.Score), Threshold: unmilli(f.Threshold), SupportFloor: unmilli(f.SupportFloor),
		Margin: float64(f.Margin) / 100, RunnerUp: f.RunnerUp, Kept: f.Kept, KeptScore: unmilli(f.KeptScore),
		Crowd: unmilli(f.Crowd), CrowdBar: unmilli(f.CrowdBar), Material: unmilli(f.Material),
		By: f.By, Dependency: f.Dependency, DependencyReason: f.DependencyReason, Missing: f.Missing, Cycle: f.Path,
	}
	if f.RunnerUpWithdrawn {
		out.RunnerUp = st.problem.WithdrawnBy
	}
	if f.HasOwnPart {
		w := unmilli(f.OwnPart)
		out.OwnPart = &w
	}
	if c, ok := st.crowd(); ok && f.Crowd > 0 {
		out.CrowdUnit = c.Name
	}
	if f.RunnerUp != "" || f.RunnerUpWithdrawn || f.NoRunnerUp {
		s := unmilli(f.RunnerUpScore)
		out.RunnerUpScore = &s
	}
	if f.Clause == rules.ClauseSole || f.Clause == rules.ClauseOneWord || f.Clause == rules.ClauseMaterialAlone || f.Clause == rules.ClauseOwnWords || f.Clause == rules.ClauseWholeTask {
		b := f.Breadth
		out.Breadth = &b
	}
	if f.Budgeted {
		t, l := f.Tokens, f.BudgetLeft
		out.Tokens, out.BudgetLeft = &t, &l
	}
	if f.Clause == rules.ClauseBelowMinConfidence {
		// What the clause compared, which the policy read through
		// confidence/3 and min_confidence/2 rather than as facts.
		out.Confidence, out.MinConfidence = st.confidence(f.By), unmilli(st.policyReq.MinConfidence)
	}
	if f.Reference {
		t, l := f.InlineTokens, f.InlineLeft
		out.InlineTokens, out.InlineLeft = &t, &l
	}
	if f.Clause == "" && f.Score == 0 && f.By == "" && f.Missing == "" && f.Dependency == "" && len(f.Path) == 0 && !f.Budgeted && !f.Reference {
		return nil // rules 2-5 need no fact beyond the unit itself
	}
	return out
}

// reason turns one policy decision into a result reason: its code, the
// rule and clause that made it, the facts the rule used and a detail that
// says the same for people.
func (st *statement) reason(d rules.Decision) Reason {
	rs := Reason{Code: d.Reason, Rule: ruleOf(d.Rule, d.Facts.Clause), Facts: st.facts(d)}
	if d.Name == st.invoked {
		// Selected or not, the task asked for it by name: a host can
		// tell its user what became of their command.
		if rs.Facts == nil {
			rs.Facts = &Facts{}
		}
		rs.Facts.Invoked = st.invokedAs
	}
	ev := st.problem.Evidence[d.Name]
	if d.Reason == ReasonLexical && len(ev) > 0 {
		// The detail quotes the task's words, not their stems.
		ev = slices.Clone(ev[:min(len(ev), summarized)])
		st.withWords(ev)
	}
	rs.Detail = detail(d, rs.Facts, ev)
	if d.Selected && d.Facts.Reference {
		rs.Detail += "; " + referenceDetail(rs.Facts)
	}
	return rs
}

// referenceDetail says why rule 12 rendered a selected unit as a
// reference.
func referenceDetail(f *Facts) string {
	if f == nil {
		f = &Facts{}
	}
	return fmt.Sprintf("rendered as reference: %d body tokens do not fit in the %d left of the budget", deref(f.InlineTokens), deref(f.InlineLeft))
}

// detail renders a decision for people from its facts.
func detail(d rules.Decision, f *Facts, ev []Evidence) string {
	if f == nil {
		f = &Facts{}
	}
	switch d.Reason {
	case ReasonDependency:
		return "required by " + f.By
	case ReasonLexical:
		return strength(d.Facts.Clause, f) + "; " + summarize(ev)
	case ReasonExplicit:
		return "selected by the host" + packed(f)
	case ReasonInvoked:
		return "the task invokes it as " + f.Invoked + packed(f)
	case ReasonMandatory:
		return "mandatory in the host policy" + packed(f)
	case ReasonDenied:
		return "denied by the host"
	case ReasonInvalid:
		return "the unit is invalid; see diagnostics"
	case ReasonShadowed:
		return "the name belongs to a higher-precedence unit"
	case ReasonExplicitOnly:
		return "explicit-user-only: activates only when the host selects it or the user invokes it by name"
	case ReasonNegated:
		return "the task asks not to use it"
	case ReasonMissingDependency:
		return "requires " + f.Missing + ", which is not in the catalog"
	case ReasonDependencyCycle:
		return "requires cycle " + strings.Join(f.Cycle, " -> ")
	case ReasonDependencyRejected:
		if f.DependencyReason == ReasonConflict {
			return "requires " + f.Dependency + ", which conflicts with it or with another unit it requires: they never load together"
		}
		return "requires " + f.Dependency + " (" + string(f.DependencyReason) + ")"
	case ReasonConflict:
		if f.Dependency != "" {
			return "requires " + f.Dependency + ", which conflicts with " + f.By + ", which ranks higher"
		}
		return "conflicts with " + f.By + ", which ranks higher"
	case ReasonSuperseded:
		return "superseded by " + f.By
	case ReasonOverBudget:
		if left := deref(f.BudgetLeft); left < 0 {
			// Rule 12's second packing counts what is left after the
			// room it keeps for the references of the host's other
			// units, which can be more than the budget left.
			return fmt.Sprintf("%d tokens do not fit: the other selected or mandatory units need %d tokens more than the budget left, even as references", deref(f.Tokens), -left)
		}
		return fmt.Sprintf("%d tokens do not fit in the %d left of the budget", deref(f.Tokens), deref(f.BudgetLeft))
	case ReasonAmbiguous:
		if f.By == d.Name {
			return "the best candidate, but a rival competing for the same task words or object scores too close to call"
		}
		return "too close to call against " + f.By + ": they compete for the same task words or object"
	case ReasonCovered:
		if d.Facts.Clause == rules.ClauseSameClause {
			return f.By + " answers better every clause of the task this one has evidence in: a second skill is asked for in a clause of its own"
		}
		return "its evidence is already covered by " + f.By
	case ReasonHeldBack:
		return "the task is ambiguous between " + f.By + " and a rival: no unit is selected from the task until the host settles it"
	case ReasonBelowThreshold:
		if d.Facts.Clause == rules.ClauseWithoutKept {
			return fmt.Sprintf("score %.3f was kept only beside %s, which was not admitted", f.Score, f.By)
		}
		return strength(d.Facts.Clause, f)
	}
	return string(d.Reason)
}

// strength says which clause of rule 10 kept or dropped a candidate, with
// the numbers it compared.
func strength(c rules.Clause, f *Facts) string {
	switch c {
	case rules.ClauseAboveThreshold:
		return fmt.Sprintf("score %.3f reaches the threshold %.1f", f.Score, f.Threshold)
	case rules.ClauseTied:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, but a tie kept it (ambiguity top or all)", f.Score, f.Threshold)
	case rules.ClauseMargin:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, but the best candidate at least the support floor %.1f scores at least %gx its runner-up %s", f.Score, f.Threshold, f.SupportFloor, f.Margin, runnerUp(f))
	case rules.ClauseSole:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, but at least the support floor %.1f with no runner-up at the candidate floor, on %d task words", f.Score, f.Threshold, f.SupportFloor, deref(f.Breadth))
	case rules.ClauseSecondary:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, but at least the support floor %.1f beside %s (%.3f), which this rule kept before it", f.Score, f.Threshold, f.SupportFloor, f.Kept, f.KeptScore)
	case rules.ClauseBelowSupportFloor:
		return fmt.Sprintf("score %.3f is below the support floor %.1f (and the threshold %.1f): it could only reveal a tie", f.Score, f.SupportFloor, f.Threshold)
	case rules.ClauseNoMargin:
		if f.RunnerUp != "" && deref(f.RunnerUpScore) > f.Score {
			// The runner-up drew more of the task's words but cannot be
			// selected from it (denied, negated, explicit-user-only):
			// "the best candidate" would read as a contradiction.
			return fmt.Sprintf("score %.3f is below the threshold %.1f, and the best candidate that may be selected needs %gx its runner-up %s, which the task's words point to more but which cannot be selected from the task", f.Score, f.Threshold, f.Margin, runnerUp(f))
		}
		return fmt.Sprintf("score %.3f is below the threshold %.1f, and the best candidate needs %gx its runner-up %s", f.Score, f.Threshold, f.Margin, runnerUp(f))
	case rules.ClauseOwnWords:
		return fmt.Sprintf("score %.3f is below the threshold %.1f and less than %gx its runner-up %s, but the best candidate at least the support floor %.1f rests on %d task words, one of them its own trigger words, and the runner-up on one word and none of its own", f.Score, f.Threshold, f.Margin, runnerUp(f), f.SupportFloor, deref(f.Breadth))
	case rules.ClauseOutweighs:
		return fmt.Sprintf("score %.3f is below the threshold %.1f and less than %gx its runner-up %s, but the runner-up rests on no task word the best candidate does not, and the best candidate's evidence beyond it reaches the support floor %.1f", f.Score, f.Threshold, f.Margin, runnerUp(f), f.SupportFloor)
	case rules.ClauseConfirmed:
		return fmt.Sprintf("score %.3f is below the threshold %.1f and less than %gx its runner-up %s, but the best candidate at least the support floor %.1f is confirmed by the material pasted with the task: its evidence found only there, %.3f, reaches the material floor %.1f and is at least %gx any other candidate's, and the instruction gives it evidence too", f.Score, f.Threshold, f.Margin, runnerUp(f), f.SupportFloor, f.Material, MaterialFloor, float64(MarginRatio))
	case rules.ClauseWholeTask:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, but at least the support floor %.1f with no runner-up at the candidate floor, on %d task word(s) that are every content word of the task", f.Score, f.Threshold, f.SupportFloor, deref(f.Breadth))
	case rules.ClauseMaterialAlone:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, and with no runner-up at the candidate floor, %.3f of it is found only in the material pasted with the task: material routes on its own only past the threshold", f.Score, f.Threshold, f.Material)
	case rules.ClauseOneWord:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, and with no runner-up at the candidate floor its evidence rests on %d task word(s), not two", f.Score, f.Threshold, deref(f.Breadth))
	case rules.ClauseIntents:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, but the task asks for several things, each plainly, and it is one of them: each is kept as if the threshold were the weakest one's score (%s)", f.Score, f.Threshold, f.By)
	case rules.ClauseBelowMinConfidence:
		return fmt.Sprintf("score %.3f: the best candidate %s's confidence %.3f is below the host's min_confidence %.3f, so nothing is selected from the task", f.Score, f.By, deref(f.Confidence), f.MinConfidence)
	case rules.ClauseNoOwnPart:
		if f.OwnPart == nil {
			return fmt.Sprintf("score %.3f, but beside %s (%.3f) it answers no part of the task of its own: its evidence outside that one's rests on one task word at most, or on one pair of words its text pairs, said as one thing (a part of its own needs two words, a word of its name or a phrase of its own)", f.Score, f.Kept, f.KeptScore)
		}
		return fmt.Sprintf("score %.3f, but beside %s (%.3f) it answers no part of the task of its own: its evidence outside that one's (%.3f) reaches neither the threshold %.1f nor the support floor %.1f in a clause of the task it mostly answers or as that one's peer", f.Score, f.Kept, f.KeptScore, *f.OwnPart, f.Threshold, f.SupportFloor)
	case rules.ClauseInCrowd:
		return fmt.Sprintf("score %.3f beside %s (%.3f), but below %.3f, %gx the crowd's %.3f (%s, ranked %d on this task: many skills share the task's words this much), and no clause of the task is its own", f.Score, f.Kept, f.KeptScore, f.CrowdBar, CrowdRatio, f.Crowd, f.CrowdUnit, CrowdRank)
	case rules.ClausePastedOnly:
		return fmt.Sprintf("score %.3f rests only on what the user pasted (%.3f), while the instruction itself points at another candidate, its own evidence reaching the candidate floor %.1f: the paste is what the request is about", f.Score, f.Material, CandidateFloor)
	case rules.ClauseExplicitOnlyWords:
		return fmt.Sprintf("score %.3f, but the task's words are %s's (%s), which is explicit-user-only: the user asks for it by name (/%s), never the task; it scores at least %gx this candidate, and beside it this one answers no part of the task of its own", f.Score, f.By, fmt.Sprintf("%.3f", deref(f.RunnerUpScore)), f.By, f.Margin)
	case rules.ClauseNotBest:
		return fmt.Sprintf("score %.3f is below the threshold %.1f, it is not the best candidate, and no stronger one is kept beside it", f.Score, f.Threshold)
	}
	return string(c)
}

func runnerUp(f *Facts) string {
	if f.RunnerUp == "" {
		return "(none at the candidate floor)"
	}
	return fmt.Sprintf("%s (%.3f)", f.RunnerUp, deref(f.RunnerUpScore))
}

func packed(f *Facts) string {
	if f.Tokens == nil {
		return ""
	}
	return fmt.Sprintf("; %d tokens of the %d left", *f.Tokens, deref(f.BudgetLeft))
}

func deref[T int | float64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

func unmilli(n int) float64 { return float64(n) / 1000 }

// String renders the reason on one line, as explanations write it: its
// code, its rule and its detail.
func (r Reason) String() string { return describe(r) }

// describe renders a reason on one line: its code, its rule and its detail.
func describe(r Reason) string {
	s := string(r.Code)
	if r.Rule.Number != 0 {
		s += " [" + r.Rule.String() + "]"
	}
	if r.Detail != "" {
		s += " (" + r.Detail + ")"
	}
	return s
}
