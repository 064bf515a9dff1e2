package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ichiban/prolog/engine"
)

// ReasonCode says why a unit was selected or rejected. The codes are a
// public contract (docs/how-a-compile-decides.md, "Output"): policy.pl decides most of them,
// and a few are decided in Go before the policy runs (see GoReasons).
type ReasonCode string

// Why a unit was selected. The comment of each code is what
// docs/how-a-compile-decides.md says it means (TestDocsGenerated).
const (
	// ReasonExplicit: the host selected it.
	ReasonExplicit ReasonCode = "explicit"
	// ReasonInvoked: the task opens by invoking it as a command ("/name";
	// its facts say invoked), and the host policy lets the task select.
	ReasonInvoked ReasonCode = "invoked"
	// ReasonMandatory: the host policy makes it mandatory.
	ReasonMandatory ReasonCode = "mandatory"
	// ReasonLexical: rule 10 kept it on the task's evidence (its clause
	// says how); the detail lists the strongest evidence.
	ReasonLexical ReasonCode = "lexical"
	// ReasonDependency: a selected unit requires it.
	ReasonDependency ReasonCode = "dependency"
)

// Why a unit was rejected. The comment of each code is what
// docs/how-a-compile-decides.md says it means (TestDocsGenerated).
const (
	// ReasonNoEvidence: nothing in the task points at it (rule 1).
	ReasonNoEvidence ReasonCode = "no_evidence"
	// ReasonBelowThreshold: some evidence, not enough: rule 10 (its
	// clause says which test failed), or rule 1 (below the candidate
	// floor, or outside the best 4).
	ReasonBelowThreshold ReasonCode = "below_threshold"
	// ReasonExplicitOnly: explicit-user-only, and neither selected by the
	// host nor invoked by the task (rule 4).
	ReasonExplicitOnly ReasonCode = "explicit_only"
	// ReasonNegated: the task asks not to use it (rule 5; never for a host
	// selection, a mandatory unit or their dependencies).
	ReasonNegated ReasonCode = "negated"
	// ReasonDenied: the host denied it (rule 2).
	ReasonDenied ReasonCode = "denied"
	// ReasonMissingDependency: its closure needs a unit the catalog does
	// not have (rule 6).
	ReasonMissingDependency ReasonCode = "missing_dependency"
	// ReasonDependencyCycle: its closure holds a cycle (rule 6).
	ReasonDependencyCycle ReasonCode = "dependency_cycle"
	// ReasonDependencyRejected: a unit of its closure is denied, invalid,
	// explicit-only and not selected, or, for a lexical candidate,
	// negated (rule 6).
	ReasonDependencyRejected ReasonCode = "dependency_rejected"
	// ReasonConflict: it, or a unit of its closure (named as `dependency`, with `dependency_reason` `conflict`), conflicts with a unit that ranks higher (rule 12).
	ReasonConflict ReasonCode = "conflict"
	// ReasonSuperseded: a selected unit supersedes it (rules 7, 12).
	ReasonSuperseded ReasonCode = "superseded"
	// ReasonOverBudget: it and its closure do not fit, not even as
	// references (rule 12).
	ReasonOverBudget ReasonCode = "over_budget"
	// ReasonShadowed: a unit of the same name from a higher-precedence
	// root wins (rule 3).
	ReasonShadowed ReasonCode = "shadowed"
	// ReasonInvalid: its skill has an error diagnostic (rule 3).
	ReasonInvalid ReasonCode = "invalid"
	// ReasonAmbiguous: too close to call against a rival competing for
	// the same task words or object (rule 9).
	ReasonAmbiguous ReasonCode = "ambiguous"
	// ReasonCovered: a better-ranked selected unit already covers its
	// evidence (rules 11, 12).
	ReasonCovered ReasonCode = "covered"
	// ReasonHeldBack: it would have been selected, but the task is
	// ambiguous: nothing is selected from the task until the host
	// settles the tie (rule 9).
	ReasonHeldBack ReasonCode = "held_back"
)

// Reasons lists every reason code, selections first.
var Reasons = []ReasonCode{
	ReasonExplicit, ReasonInvoked, ReasonMandatory, ReasonLexical, ReasonDependency,
	ReasonNoEvidence, ReasonBelowThreshold, ReasonExplicitOnly, ReasonNegated,
	ReasonDenied, ReasonMissingDependency, ReasonDependencyCycle,
	ReasonDependencyRejected, ReasonConflict, ReasonSuperseded, ReasonOverBudget,
	ReasonShadowed, ReasonInvalid, ReasonAmbiguous, ReasonCovered, ReasonHeldBack,
}

// GoReasons are the codes the compiler decides itself, before the policy
// runs, with the place that decides each (rule 1 and a unit's standing in
// the catalog): every other code is policy.pl's alone.
var GoReasons = map[ReasonCode]string{
	ReasonNoEvidence:     "retrieval: nothing in the task matches the unit (rule 1)",
	ReasonBelowThreshold: "retrieval: below the candidate floor, or outside the best four candidates (rule 1)",
	ReasonShadowed:       "retrieval: the name belongs to a higher-precedence unit (rule 3); a shadowed unit never reaches the policy",
}

// RuleName names one of the policy's twelve rules (docs/how-a-compile-decides.md, "How a
// compile decides"); every decision cites the rule that made it.
type RuleName string

// The rules, in the order they apply. The comment of each is what
// docs/how-a-compile-decides.md says it decides (TestDocsGenerated).
const (
	// RuleEvidence: scores every unit on the task's words and puts the
	// best before the policy as lexical candidates (in Go:
	// internal/retrieval).
	RuleEvidence RuleName = "evidence"
	// RuleDeny: the host's --deny, or the policy's deny, removes a unit
	// outright.
	RuleDeny RuleName = "deny"
	// RuleStanding: invalid and shadowed units never activate.
	RuleStanding RuleName = "standing"
	// RuleExplicitOnly: an explicit-user-only unit activates only by a
	// host selection or a task that opens by invoking it (/name), never
	// from the task's words or as a dependency.
	RuleExplicitOnly RuleName = "explicit_user_only"
	// RuleNegation: a unit the task refuses by name ("do not use X") is
	// not activated from the task.
	RuleNegation RuleName = "negation"
	// RuleDependencies: requires edges close transitively; a closure that
	// fails rejects the unit.
	RuleDependencies RuleName = "dependencies"
	// RuleSupersedes: a lexical candidate an admitted eligible unit
	// supersedes is rejected.
	RuleSupersedes RuleName = "supersedes"
	// RuleOrder: ranks the candidates (mandatory, explicit, invoked,
	// priority, score, name); it decides nothing alone.
	RuleOrder RuleName = "order"
	// RuleAmbiguity: a tie between close rivals: the host policy's
	// ambiguity says ask, top or all.
	RuleAmbiguity RuleName = "ambiguity"
	// RuleStrength: whether a lexical candidate's evidence is strong
	// enough to select it.
	RuleStrength RuleName = "strength"
	// RuleRedundancy: a candidate whose evidence a kept unit already
	// covers is dropped.
	RuleRedundancy RuleName = "redundancy"
	// RulePacking: conflicts, then the token budget: a unit and its
	// closure are admitted together, inline or as references, or not at
	// all.
	RulePacking RuleName = "packing"
)

// RuleNames lists the rules in order: rule n is RuleNames[n-1].
var RuleNames = []RuleName{
	RuleEvidence, RuleDeny, RuleStanding, RuleExplicitOnly, RuleNegation, RuleDependencies,
	RuleSupersedes, RuleOrder, RuleAmbiguity, RuleStrength, RuleRedundancy, RulePacking,
}

// Number returns the rule's number (1-12), or 0 for an unknown name.
func (n RuleName) Number() int { return slices.Index(RuleNames, n) + 1 }

// Clause names which clause of a rule with several made a decision.
type Clause string

// Clauses of rule 1 (decided in Go, before the policy).
const (
	// ClauseBelowCandidateFloor: the unit's score is below the candidate
	// floor (1.5), so it is never put before the policy.
	ClauseBelowCandidateFloor Clause = "below_candidate_floor"
	// ClauseOutsideCap: the unit scores at least the candidate floor,
	// but four better eligible units took the candidates' places (it may
	// not have been judged by rules 2-6 at all).
	ClauseOutsideCap Clause = "outside_cap"
)

// Clauses of rule 9 (ambiguity).
const (
	ClauseAsk Clause = "ask" // the host is asked: the best and its rivals are rejected
	ClauseTop Clause = "top" // the best is kept, its rivals rejected
)

// Clauses of rule 10 (strength): why a lexical candidate was kept, or not.
const (
	// ClauseAboveThreshold: its score reaches the threshold.
	ClauseAboveThreshold Clause = "above_threshold"
	// ClauseMargin: below the threshold, it is the best candidate, at
	// least the support floor, and at least the needed margin times the
	// runner-up (twice at the support floor, 1.75 times at the threshold).
	ClauseMargin Clause = "margin"
	// ClauseSole: below the threshold, it is the only unit with
	// evidence, at least the support floor, on at least two task words.
	ClauseSole Clause = "sole"
	// ClauseSecondary: below the threshold, at least the support floor,
	// beside a stronger candidate already kept.
	ClauseSecondary Clause = "secondary"
	// ClauseTied: a tie kept it (ambiguity top or all).
	ClauseTied Clause = "tied"
	// ClauseBelowSupportFloor: below the support floor, it can only have
	// revealed a tie.
	ClauseBelowSupportFloor Clause = "below_support_floor"
	// ClauseNoMargin: the best candidate, below the threshold, and less
	// than the needed margin times the runner-up.
	ClauseNoMargin Clause = "no_margin"
	// ClauseOwnWords: the best candidate, below the threshold, at least
	// the support floor and less than the needed margin times the runner-up, but resting on
	// at least two task words, one of them its own trigger words, while
	// the runner-up rests on one task word and on none of its own.
	ClauseOwnWords Clause = "own_words"
	// ClauseOutweighs: the best candidate, below the threshold, at least
	// the support floor and less than the needed margin times the runner-up, but the
	// runner-up rests on nothing of the task the best does not, while the
	// best's evidence beyond the runner-up's reaches the support floor.
	ClauseOutweighs Clause = "outweighs"
	// ClauseConfirmed: the best candidate, below the threshold, at least
	// the support floor and less than the needed margin times the runner-up, but the
	// material the user pasted (a log, a trace, code) confirms it: its
	// evidence found only there reaches the material floor and is at
	// least twice that of every other candidate the instruction gives
	// evidence too, and the instruction gives it evidence.
	ClauseConfirmed Clause = "confirmed"
	// ClauseWholeTask: the only unit with evidence, below the threshold
	// and at least the support floor, on one task word, but its evidence
	// rests on every content word of the task ("make a dockerfile").
	ClauseWholeTask Clause = "whole_task"
	// ClauseOneWord: the only unit with evidence, below the threshold, and
	// its evidence rests on one task word.
	ClauseOneWord Clause = "one_word"
	// ClauseMaterialAlone: the only unit with evidence, below the
	// threshold, and at least half its evidence is found only in material
	// pasted with the task: material routes on its own only past the
	// threshold.
	ClauseMaterialAlone Clause = "material_alone"
	// ClauseNotBest: below the threshold, not the best candidate, and no
	// stronger candidate is kept beside it.
	ClauseNotBest Clause = "not_best"
	// ClauseBelowMinConfidence: the best lexical candidate's confidence is
	// below the host's min_confidence, so no lexical candidate is selected
	// from the task (the first check of the rule).
	ClauseBelowMinConfidence Clause = "below_min_confidence"
	// ClauseIntents: below the threshold, one of several confident,
	// non-competing candidates a task that asks for several things names;
	// each is kept as if the threshold were the weakest one's score.
	ClauseIntents Clause = "intents"
	// ClauseNoOwnPart: beside a stronger kept candidate, it answers no
	// part of the task of its own: its evidence outside that one's
	// rests on one task word or one pair of words its text pairs, or
	// (own_part) reaches neither the threshold nor the support floor in a clause of
	// the task it mostly answers or as that one's peer (at the threshold
	// itself, that one scoring at most twice it, nothing pasted).
	ClauseNoOwnPart Clause = "no_own_part"
	// ClauseInCrowd: beside a stronger kept candidate, its score is less
	// than 1.8 times the crowd's, the score of the unit ranked fifth on
	// the task, and no clause of the task is its own: many skills share
	// the task's words this much, as they share a long request's or a
	// pasted log's.
	ClauseInCrowd Clause = "in_crowd"
	// ClausePastedOnly: its evidence rests only on what the user pasted,
	// while the instruction itself gives another candidate evidence
	// reaching the support floor: the request asks for that one, and the
	// paste is what it is about.
	ClausePastedOnly Clause = "pasted_only"
	// ClauseExplicitOnlyWords: an explicit-user-only unit, which may not
	// be selected from the task, scores at least the margin ratio times
	// it, and beside that unit it answers no part of the task of its own:
	// the task's words are that unit's, which the user asks for by name.
	ClauseExplicitOnlyWords Clause = "explicit_only_words"
)

// Clauses of rule 11 (redundancy): why a lexical candidate is covered
// by a stronger one kept before it.
const (
	// ClauseRedundant: its evidence resting on task words the other's
	// does not rest on scores under a quarter of its score: beside the
	// other, it would add almost nothing.
	ClauseRedundant Clause = "redundant"
	// ClauseSameClause: the task was read clause by clause, and it
	// answers none of them at least as well as the other: the words it
	// rests on are in a clause the other answers better, and a second
	// skill is asked for in a clause of its own.
	ClauseSameClause Clause = "same_clause"
)

// Clauses of rule 12 (packing).
const (
	// ClauseWithoutKept: kept by rule 10 only beside a stronger candidate
	// (clause secondary) that was not admitted, so it leaves with it: a
	// second skill does not take the first one's place.
	ClauseWithoutKept Clause = "without_kept"
)

// Clauses lists every clause a decision may name.
var Clauses = []Clause{
	ClauseBelowCandidateFloor, ClauseOutsideCap, ClauseAsk, ClauseTop,
	ClauseAboveThreshold, ClauseMargin, ClauseSole, ClauseSecondary, ClauseTied,
	ClauseBelowSupportFloor, ClauseNoMargin, ClauseOwnWords, ClauseOutweighs, ClauseConfirmed, ClauseWholeTask, ClauseOneWord, ClauseMaterialAlone, ClauseNotBest,
	ClauseBelowMinConfidence, ClauseIntents, ClauseNoOwnPart, ClauseInCrowd, ClausePastedOnly, ClauseExplicitOnlyWords,
	ClauseRedundant, ClauseSameClause, ClauseWithoutKept,
}

// factKeys are the facts a decision's because(Rule, Facts) may carry, by
// functor and arity; Decision's fields say what each means.
var factKeys = map[string]int{
	"clause": 1, "score": 1, "threshold": 1, "support_floor": 1, "margin": 1,
	"runner_up": 2, "withdrawn_runner_up": 1, "no_runner_up": 0, "breadth": 1, "material": 1,
	"kept": 2, "crowd": 2, "by": 1, "tokens": 1, "budget_left": 1, "path": 1,
	"dependency": 2, "missing": 1, "reference": 2, "own_part": 1,
}

// checkVocabulary reads the policy's terms and fails unless every reason
// atom a select/3 or reject/3 term names, every rule a because/2 term
// cites and every fact and clause it carries is known to Go: a new reason
// in policy.pl must reach the JSON contract as a typed code, never as a
// string Go passes through.
func checkVocabulary(terms []sourceTerm) error {
	var errs []string
	for _, t := range terms {
		walkTerms(t.term, func(c engine.Compound) {
			if err := checkTerm(c); err != "" {
				errs = append(errs, err)
			}
		})
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return fmt.Errorf("rules: policy speaks outside Go's vocabulary: %s", strings.Join(slices.Compact(errs), "; "))
	}
	return nil
}

// PolicyAtoms returns the reason codes, rules and clauses policy.pl can
// emit, sorted, as its source spells them; tests compare them with Go's.
func PolicyAtoms() (reasons []ReasonCode, rules []RuleName, clauses []Clause, err error) {
	e, err := New(noFacts{}) // its interpreter has the policy's operators
	if err != nil {
		return nil, nil, nil, err
	}
	terms, err := readPolicy(&e.interp.VM, policySource)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, t := range terms {
		walkTerms(t.term, func(c engine.Compound) {
			switch {
			case decisionTerm(c):
				if a, ok := c.Arg(1).(engine.Atom); ok {
					reasons = append(reasons, ReasonCode(a.String()))
				}
			case c.Functor() == atomBecause && c.Arity() == 2:
				if a, ok := c.Arg(0).(engine.Atom); ok {
					rules = append(rules, RuleName(a.String()))
				}
			case c.Functor() == atomClause && c.Arity() == 1:
				if a, ok := c.Arg(0).(engine.Atom); ok {
					clauses = append(clauses, Clause(a.String()))
				}
			}
		})
	}
	slices.Sort(reasons)
	slices.Sort(rules)
	slices.Sort(clauses)
	return slices.Compact(reasons), slices.Compact(rules), slices.Compact(clauses), nil
}

// noFacts is an empty catalog, for reading the policy's source.
type noFacts struct{}

func (noFacts) Unit(string) (UnitFacts, bool) { return UnitFacts{}, false }
func (noFacts) Closure(string) Closure        { return Closure{} }
func (noFacts) Conflict(_, _ string) bool     { return false }
func (noFacts) Supersedes(_, _ string) bool   { return false }

var (
	atomBecause = engine.NewAtom("because")
	atomClause  = engine.NewAtom("clause")
)

func decisionTerm(c engine.Compound) bool {
	return (c.Functor() == atomSelect || c.Functor() == atomReject) && c.Arity() == 3
}

// checkTerm returns what is unknown in one source term, or "".
func checkTerm(c engine.Compound) string {
	switch {
	case decisionTerm(c):
		if a, ok := c.Arg(1).(engine.Atom); ok && !slices.Contains(Reasons, ReasonCode(a.String())) {
			return fmt.Sprintf("reason %s has no Go ReasonCode", a)
		}
		if _, ok := c.Arg(2).(engine.Variable); !ok && !isBecause(c.Arg(2)) {
			return fmt.Sprintf("%s(_, %s, _) gives no because(Rule, Facts)", c.Functor(), c.Arg(1))
		}
	case c.Functor() == atomBecause && c.Arity() == 2:
		switch a := c.Arg(0).(type) {
		case engine.Variable:
		case engine.Atom:
			if RuleName(a.String()).Number() == 0 {
				return fmt.Sprintf("because/2 cites rule %s, which Go does not number", a)
			}
		default:
			return "because/2 cites no rule by name"
		}
		iter := engine.ListIterator{List: c.Arg(1)}
		for iter.Next() {
			switch f := iter.Current().(type) {
			case engine.Atom:
				if n, ok := factKeys[f.String()]; !ok || n != 0 {
					return fmt.Sprintf("fact %s is unknown to Go", f)
				}
			case engine.Compound:
				if n, ok := factKeys[f.Functor().String()]; !ok || n != f.Arity() {
					return fmt.Sprintf("fact %s/%d is unknown to Go", f.Functor(), f.Arity())
				}
				if f.Functor() == atomClause {
					if a, ok := f.Arg(0).(engine.Atom); ok && !slices.Contains(Clauses, Clause(a.String())) {
						return fmt.Sprintf("clause %s has no Go Clause", a)
					}
				}
			}
		}
	}
	return ""
}

func isBecause(t engine.Term) bool {
	c, ok := t.(engine.Compound)
	return ok && c.Functor() == atomBecause && c.Arity() == 2
}

// walkTerms calls f on every compound inside t, t included.
func walkTerms(t engine.Term, f func(engine.Compound)) {
	c, ok := t.(engine.Compound)
	if !ok {
		return
	}
	f(c)
	for i := 0; i < c.Arity(); i++ {
		walkTerms(c.Arg(i), f)
	}
}
