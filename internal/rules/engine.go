// Package rules embeds rlmc's Prolog policy (policy.pl) in a sandboxed
// interpreter and exposes it as one Go call, Engine.Decide. It owns the
// decide stage of the pipeline. The interpreter starts with no builtins and
// can call only the predicates in allowlist (sandbox.go).
//
// Nothing from a skill is ever parsed as Prolog: catalog facts are answered
// by Go-native predicates, and per-request data enters as constructed terms.
package rules

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/ichiban/prolog"
	"github.com/ichiban/prolog/engine"

	"github.com/rlmc-dev/rlmc/ir"
)

//go:embed policy.pl
var policySource string

// UnitFacts are the catalog facts the policy reads about one unit.
type UnitFacts struct {
	Status     ir.Status
	Invocation ir.Invocation
	Priority   int
}

// Closure is a unit's transitive requires closure, computed once per catalog.
// Exactly one of the outcomes holds: Missing names an absent unit, Cycle
// lists a loop, or Deps lists every dependency, dependencies first; with
// Deps, Conflict names a dependency that conflicts with the unit or with
// another of them, so the closure never loads together.
type Closure struct {
	Deps     []string
	Missing  string
	Cycle    []string
	Conflict string
}

// Facts answers the policy's catalog questions. Implementations must be
// safe for concurrent use and must not change while an Engine uses them.
type Facts interface {
	Unit(name string) (UnitFacts, bool)
	Closure(name string) Closure
	Conflict(a, b string) bool
	Supersedes(a, b string) bool
}

// Origin says why a candidate was put before the policy.
type Origin string

// Origins, in the order the policy serves them.
const (
	OriginMandatory Origin = "mandatory"
	OriginExplicit  Origin = "explicit"
	OriginInvoked   Origin = "invoked"
	OriginLexical   Origin = "lexical"
)

// Candidate is a unit put before the policy.
type Candidate struct {
	Name   string
	Origin Origin
	Score  int // evidence x 1000, so that comparisons are exact
}

// Request is everything the policy knows about one compile besides the
// catalog. Tokens must answer for every candidate and every unit in a
// candidate's closure.
type Request struct {
	Candidates []Candidate
	Budget     int
	Explicit   map[string]bool
	Mandatory  map[string]bool
	Denied     map[string]bool
	Negated    map[string]bool
	// Redundant holds [a, b] when b's evidence rests only on task words
	// a's evidence covers.
	Redundant map[[2]string]bool
	// SameObject holds [a, b] when the task names an object both declare.
	SameObject map[[2]string]bool
	// Apart holds [a, b] when b has evidence in a clause of the task
	// where a has none; nil when not computed, which changes no decision:
	// rule 11 covers b by a when b is redundant beside a or, with Apart
	// set, not apart from it, and rule 9 drops an object tie with b only
	// when Apart holds it.
	// The pair maps to the score (x 1000) of b's evidence in that
	// clause: what b would score on that part alone.
	Apart map[[2]string]int
	// OwnPart holds, for [a, b] where b has a part of the task of its
	// own beside a (retrieval's Problem.OwnPart), the score (x 1000) of
	// b's evidence on that part; absent pairs have none. Nil when not
	// computed: every pair then has a part of its own larger than any
	// score, so that no candidate is held back for want of one.
	OwnPart map[[2]string]int
	// Breadth counts the distinct task words each candidate's evidence
	// rests on.
	Breadth map[string]int
	// OwnWords holds the candidates whose evidence rests on their own
	// trigger words (a trigger, a quoted phrase, a "Use when" clause).
	OwnWords map[string]bool
	// WholeTask holds the candidates whose evidence rests on every
	// content word of the task (retrieval's Problem.WholeTask).
	WholeTask map[string]bool
	// Material holds the score (x 1000) of each candidate's evidence
	// found only in material the user pasted (retrieval's
	// Problem.Material); absent names have none.
	Material map[string]int
	// MaterialFloor is the score (x 1000) a best candidate's evidence from
	// pasted material needs to confirm it without a margin (rule 10,
	// clause confirmed).
	MaterialFloor int
	// Ambiguity is the host's mode for ties: ask (default), top or all.
	Ambiguity string
	// Threshold is the score (x 1000) a lexical candidate needs to be
	// selected on its own; weaker candidates can only make a tie.
	Threshold int
	// TieRatio is how close, in percent of the best score, a competing
	// candidate must be to make the task ambiguous.
	TieRatio int
	// MarginRatio is how many times its runner-up's score the best
	// candidate at SupportFloor needs to be clear of it.
	MarginRatio int
	// ThresholdMargin is the margin, in percent of its runner-up's
	// score, the best candidate just below Threshold needs; between
	// SupportFloor and Threshold the margin slides from MarginRatio to it.
	ThresholdMargin int
	// MinBreadth is how many distinct task words a candidate's evidence
	// rests on for it to be grounded without a margin.
	MinBreadth int
	// SupportFloor is the score (x 1000) a candidate below Threshold needs
	// to be selected as a clear best or beside a stronger kept candidate.
	SupportFloor int
	// CandidateFloor is the score (x 1000) a unit needs to be a lexical
	// candidate at all: what a candidate's evidence from the instruction
	// alone must reach for the instruction to point at it (rule 10,
	// pasted_only).
	CandidateFloor int
	// Withdrawn is the best score (x 1000) of a unit with evidence that
	// Eligible kept from the candidates, or 0: rule 10 measures a weak
	// candidate's margin against it too.
	Withdrawn int
	// Unavailable is the best score (x 1000) of an explicit-user-only
	// unit Eligible kept from the candidates, which requires no lexical
	// candidate, or 0; UnavailableBy names it (rule 10, clause
	// explicit_only_words).
	Unavailable   int
	UnavailableBy string
	// Crowd is the score (x 1000) of the unit ranked CrowdRank on the
	// task, eligible or not, or 0 when fewer units have evidence; and
	// CrowdBar the score (x 1000) a candidate kept beside a stronger one
	// must reach to stand out of it (CrowdRatio times Crowd; rule 10,
	// clause in_crowd). A CrowdBar of 0 keeps every such candidate.
	Crowd    int
	CrowdBar int
	// Judged says the lexical candidates passed Ineligible in this request
	// already: Decide then judges rules 2-6 for host candidates only.
	Judged bool
	Tokens func(name string) int
	// ReferenceTokens answers for the same units as Tokens: the tokens of
	// the unit rendered as a reference (its name, description, the path
	// of its SKILL.md and the line telling the model to read it), which
	// rule 12 counts instead of its body when the body does not fit. Nil
	// answers as if no reference fits: the unit is over_budget.
	ReferenceTokens func(name string) int
	// Confidence returns a lexical candidate's confidence (retrieval's,
	// in [0, 1], to three decimals) x 1000, and false for any other name;
	// nil answers no confidence/3 fact. The policy asks for it only in
	// its rarer cases, so Go computes it on demand.
	Confidence func(name string) (int, bool)
	// Explained returns the share of the task's informative weight a
	// lexical candidate's evidence rests on (retrieval's
	// Problem.Explained, in [0, 1], to three decimals) x 1000, and false
	// for any other name. Nil answers the whole task (1000) for every
	// name: a caller that does not compute it has every tie asked about.
	// Rule 9 asks for it only when a tie is found.
	Explained func(name string) (int, bool)
	// TieTaskShare is the share x 1000 of the task's informative weight
	// one of a tie's units must explain for the tie to be asked about
	// (rule 9); 0 asks about every tie.
	TieTaskShare int
	// ExplainsMore says a fits the task at least TieExplained times as
	// well as b (rule 9; retrieval's Problem.ExplainsMore: what each
	// explains of the task's informative weight, and, when the task
	// states part of both names, how much of each name). Nil answers no
	// explains_more/3 fact.
	ExplainsMore func(a, b string) bool
	// MinConfidence is the host's min_confidence x 1000, rounded up (a
	// confidence to three decimals reaches it exactly when it reaches the
	// host's figure), or 0 when unset:
	// below it, the best lexical candidate's confidence drops the lexical
	// candidates (rule 10).
	MinConfidence int
	// IntentConfidence is the confidence x 1000 each part of a task that
	// asks for several things needs (rule 10, intents); 0 disables it.
	IntentConfidence int
}

// Decision is the policy's verdict on one unit: the reason, the rule that
// made it and the facts that rule used.
type Decision struct {
	Name     string
	Selected bool
	// Reason: selected: mandatory, explicit, lexical, dependency;
	// rejected: see docs/how-a-compile-decides.md.
	Reason ReasonCode
	Rule   RuleName
	Facts  DecisionFacts
}

// DecisionFacts are what a decision's rule used, as policy.pl reports them in
// because(Rule, Facts). Scores are evidence x 1000, like Candidate.Score;
// a field the rule did not use is zero.
type DecisionFacts struct {
	Clause       Clause // which clause of the rule decided, when it has several
	Score        int    // the unit's score
	Threshold    int    // rule 10: the score needed to be selected alone
	SupportFloor int    // rule 10: the score needed with a margin or beside a kept unit
	Margin       int    // rule 10: the percent of the runner-up's score the best needs
	// RunnerUp and RunnerUpScore: rule 10's runner-up, the next lexical
	// candidate; RunnerUpWithdrawn says it is instead the best unit
	// eligible/3 kept out (Request.Withdrawn), whose name Go knows.
	RunnerUp          string
	RunnerUpScore     int
	RunnerUpWithdrawn bool
	NoRunnerUp        bool // rule 10: no other unit has evidence
	Breadth           int  // rule 10: distinct task words the evidence rests on
	Material          int  // rule 10: the score of the evidence found only in pasted material
	// Kept and KeptScore: rule 10's stronger candidate kept before this one.
	Kept      string
	KeptScore int
	// OwnPart is, for rule 10's no_own_part, the weight of the unit's
	// evidence outside Kept's when that is a part of the task of its own
	// at all (HasOwnPart), too little to stand beside Kept.
	OwnPart    int
	HasOwnPart bool
	// Crowd and CrowdBar: rule 10's crowd, the score of the unit ranked
	// CrowdRank on the task, and the score a candidate beside a kept one
	// needs to stand out of it.
	Crowd    int
	CrowdBar int
	// By is the unit the decision cites: the superseder (7), the best of a
	// tie (9), the coverer (11), the unit conflicted with (12), the
	// dependent a dependency was selected for (6).
	By               string
	Tokens           int  // rule 12: the tokens the unit and its closure add
	BudgetLeft       int  // rule 12: the budget left when it was packed
	Budgeted         bool // Tokens and BudgetLeft were given
	Path             []string
	Dependency       string     // rule 6: the dependency that blocks the unit
	DependencyReason ReasonCode // rule 6: why it blocks
	Missing          string     // rule 6: the required unit that does not exist
	// Reference says rule 12 admitted the unit rendered as a reference,
	// its body not fitting: InlineTokens is what the body (and its
	// closure's bodies) would have added, InlineLeft the budget left
	// for them then.
	Reference    bool
	InlineTokens int
	InlineLeft   int
}

// Engine is a loaded, sandboxed policy bound to one catalog's facts. Its
// database is read-only after New, so Decide is safe for concurrent use.
type Engine struct {
	interp *prolog.Interpreter
}

// New loads the embedded policy.
func New(facts Facts) (*Engine, error) {
	return Prepare().Engine(facts)
}

// NewWithPolicy loads a policy text; tests use it to prove that a broken
// policy is a hard error.
func NewWithPolicy(facts Facts, source string) (*Engine, error) {
	return prepare(source).Engine(facts)
}

// Pending is the embedded policy being loaded into a fresh interpreter in
// the background. Parsing and compiling the policy costs about as much as
// reading a cached catalog, and needs nothing from it: a caller that starts
// both at once pays for the longer of the two, not their sum, before its
// first compile. The catalog's facts are bound when the engine is taken.
type Pending struct {
	done  chan struct{}
	p     *prolog.Interpreter
	facts *boundFacts
	err   error
	taken atomic.Bool
}

// boundFacts is the Facts an interpreter's natives answer from, set when
// its Pending is taken, after the policy was loaded without them. Before
// that (a directive of a policy text given to NewWithPolicy calling a
// native while it loads) it knows no unit, rather than crash the load.
type boundFacts struct{ Facts }

func (b *boundFacts) Unit(name string) (UnitFacts, bool) {
	if b.Facts == nil {
		return UnitFacts{}, false
	}
	return b.Facts.Unit(name)
}

func (b *boundFacts) Closure(name string) Closure {
	if b.Facts == nil {
		return Closure{Missing: name}
	}
	return b.Facts.Closure(name)
}

func (b *boundFacts) Conflict(x, y string) bool { return b.Facts != nil && b.Facts.Conflict(x, y) }

func (b *boundFacts) Supersedes(x, y string) bool {
	return b.Facts != nil && b.Facts.Supersedes(x, y)
}

// Prepare starts loading the embedded policy and returns at once.
func Prepare() *Pending {
	return prepare(policySource)
}

func prepare(source string) *Pending {
	pd := &Pending{done: make(chan struct{}), facts: &boundFacts{}}
	go func() {
		defer close(pd.done)
		pd.p, pd.err = loadPolicy(pd.facts, source)
	}()
	return pd
}

// Engine waits for the policy and returns it bound to facts. A Pending
// yields one engine: a second call is an error, since the interpreter's
// natives answer from the facts bound first.
func (pd *Pending) Engine(facts Facts) (*Engine, error) {
	if !pd.taken.CompareAndSwap(false, true) {
		return nil, errors.New("rules: a pending policy yields one engine")
	}
	<-pd.done
	if pd.err != nil {
		return nil, pd.err
	}
	pd.facts.Facts = facts
	return &Engine{interp: pd.p}, nil
}

// Wait blocks until the policy has loaded (or failed to), for a caller
// that will not take the engine: nothing it started outlives it.
func (pd *Pending) Wait() { <-pd.done }

// loadPolicy builds a sandboxed interpreter whose natives answer from
// facts and loads source into it. The checks that read the text
// (checkText) run unless it is the text they passed when
// TestEmbeddedPolicyChecked recorded it: reading policy.pl once more
// costs about as much again as loading it, which every per-prompt hook
// would pay before its first compile. A copy of rlmc whose policy.pl was
// edited since has another text, which they check at every load.
func loadPolicy(facts Facts, source string) (*prolog.Interpreter, error) {
	return load(facts, source, !checkedText(source))
}

// load is loadPolicy with the text's checks on or off; tests turn them
// off to see what a run of a text they refuse would do.
func load(facts Facts, source string, check bool) (*prolog.Interpreter, error) {
	p, err := newInterpreter(facts)
	if err != nil {
		return nil, err
	}
	// The text is checked before it runs: a directive calling a native
	// wrongly is refused as any other call is.
	if check {
		if err := checkText(&p.VM, source); err != nil {
			return nil, err
		}
	}
	if err := p.Exec(source); err != nil {
		return nil, fmt.Errorf("rules: policy does not load: %w", err)
	}
	entries := make([]string, len(entryPoints))
	for i, e := range entryPoints {
		entries[i] = fmt.Sprintf("%s/%d", e.name, e.arity)
	}
	if err := checkDefinitions(&p.VM, entries...); err != nil {
		return nil, err
	}
	return p, nil
}

// policyChecked is the SHA-256 of the policy text whose checks passed, in
// sha256sum's format (TestEmbeddedPolicyChecked writes it under -update).
//
//go:embed policy.pl.sha256
var policyChecked string

// checkedText reports whether source is the text recorded in
// policyChecked.
func checkedText(source string) bool {
	h := sha256.New()
	_, _ = io.WriteString(h, source)
	sum := hex.EncodeToString(h.Sum(nil))
	return len(policyChecked) > len(sum) && policyChecked[:len(sum)] == sum && policyChecked[len(sum)] == ' '
}

// checkText reads the policy text once and checks its vocabulary
// (checkVocabulary) and its calls (checkCalls).
func checkText(vm *engine.VM, source string) error {
	terms, err := readPolicy(vm, source)
	if err != nil {
		return err
	}
	return errors.Join(checkVocabulary(terms), checkCalls(source, terms))
}

// reqTerm carries a *Request into the interpreter as an opaque constant, so
// request facts are answered by Go without touching the database.
type reqTerm struct{ r *Request }

func (reqTerm) WriteTerm(w io.Writer, _ *engine.WriteOptions, _ *engine.Env) error {
	_, err := w.Write([]byte("'$request'"))
	return err
}

func (t reqTerm) Compare(u engine.Term, _ *engine.Env) int {
	if o, ok := u.(reqTerm); ok && o.r == t.r {
		return 0
	}
	return 1
}

var (
	atomDecide    = engine.NewAtom("decide")
	atomEligible  = engine.NewAtom("eligible")
	atomCand      = engine.NewAtom("cand")
	atomSelect    = engine.NewAtom("select")
	atomReject    = engine.NewAtom("reject")
	atomDeps      = engine.NewAtom("deps")
	atomMissing   = engine.NewAtom("missing")
	atomCycle     = engine.NewAtom("cycle")
	atomConflict  = engine.NewAtom("conflict")
	atomMinus     = engine.NewAtom("-")
	atomLexical   = engine.NewAtom(string(OriginLexical))
	atomNone      = engine.NewAtom("none")
	atomU         = engine.NewAtom("u")
	errNoDecision = errors.New("rules: policy produced no decision")
)

// Decide runs decide/4 over the request. The context bounds the run.
func (e *Engine) Decide(ctx context.Context, req *Request) ([]Decision, error) {
	out := engine.NewVariable()
	return e.run(ctx, atomDecide.Apply(reqTerm{req}, candTerms(req.Candidates), engine.Integer(req.Budget), out), out)
}

// Ineligible runs eligible/3 (rules 2-6) over cands, which need not be
// req.Candidates, and returns a rejection for each candidate that can never
// be selected in this request.
func (e *Engine) Ineligible(ctx context.Context, req *Request, cands []Candidate) ([]Decision, error) {
	out := engine.NewVariable()
	return e.run(ctx, atomEligible.Apply(reqTerm{req}, candTerms(cands), out), out)
}

func candTerms(cs []Candidate) engine.Term {
	terms := make([]engine.Term, len(cs))
	for i, c := range cs {
		terms[i] = atomCand.Apply(engine.NewAtom(c.Name), engine.NewAtom(string(c.Origin)), engine.Integer(c.Score))
	}
	return engine.List(terms...)
}

// run proves goal once and reads the decisions bound to out.
func (e *Engine) run(ctx context.Context, goal engine.Term, out engine.Variable) ([]Decision, error) {
	var (
		result  []Decision
		convErr error
	)
	ok, err := engine.Call(&e.interp.VM, goal, func(env *engine.Env) *engine.Promise {
		result, convErr = decisions(env.Resolve(out), env)
		return engine.Bool(true)
	}, nil).Force(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("rules: %w", err)
	case !ok:
		return nil, errNoDecision
	case convErr != nil:
		return nil, convErr
	}
	return result, nil
}

func decisions(t engine.Term, env *engine.Env) ([]Decision, error) {
	var out []Decision
	iter := engine.ListIterator{List: t, Env: env}
	for iter.Next() {
		c, ok := env.Resolve(iter.Current()).(engine.Compound)
		if !ok || !decisionTerm(c) {
			return nil, fmt.Errorf("rules: unexpected decision term")
		}
		d := Decision{
			Name:     atomText(c.Arg(0), env),
			Selected: c.Functor() == atomSelect,
			Reason:   ReasonCode(atomText(c.Arg(1), env)),
		}
		why, ok := env.Resolve(c.Arg(2)).(engine.Compound)
		if !ok || why.Functor() != atomBecause || why.Arity() != 2 {
			return nil, fmt.Errorf("rules: decision on %s gives no because(Rule, Facts)", d.Name)
		}
		d.Rule = RuleName(atomText(why.Arg(0), env))
		if err := readFacts(&d.Facts, why.Arg(1), env); err != nil {
			return nil, fmt.Errorf("rules: decision on %s: %w", d.Name, err)
		}
		out = append(out, d)
	}
	return out, iter.Err()
}

// readFacts fills f from a list of fact terms (see factKeys).
func readFacts(f *DecisionFacts, list engine.Term, env *engine.Env) error {
	iter := engine.ListIterator{List: list, Env: env}
	for iter.Next() {
		switch t := env.Resolve(iter.Current()).(type) {
		case engine.Atom:
			if t.String() != "no_runner_up" {
				return fmt.Errorf("unknown fact %s", t)
			}
			f.NoRunnerUp = true
		case engine.Compound:
			arg := func(i int) engine.Term { return t.Arg(i) }
			switch t.Functor().String() {
			case "clause":
				f.Clause = Clause(atomText(arg(0), env))
			case "score":
				f.Score = integer(arg(0), env)
			case "threshold":
				f.Threshold = integer(arg(0), env)
			case "support_floor":
				f.SupportFloor = integer(arg(0), env)
			case "margin":
				f.Margin = integer(arg(0), env)
			case "runner_up":
				f.RunnerUp, f.RunnerUpScore = atomText(arg(0), env), integer(arg(1), env)
			case "withdrawn_runner_up":
				f.RunnerUpWithdrawn, f.RunnerUpScore = true, integer(arg(0), env)
			case "breadth":
				f.Breadth = integer(arg(0), env)
			case "material":
				f.Material = integer(arg(0), env)
			case "kept":
				f.Kept, f.KeptScore = atomText(arg(0), env), integer(arg(1), env)
			case "own_part":
				f.OwnPart, f.HasOwnPart = integer(arg(0), env), true
			case "crowd":
				f.Crowd, f.CrowdBar = integer(arg(0), env), integer(arg(1), env)
			case "by":
				f.By = atomText(arg(0), env)
			case "tokens":
				f.Tokens, f.Budgeted = integer(arg(0), env), true
			case "budget_left":
				f.BudgetLeft, f.Budgeted = integer(arg(0), env), true
			case "path":
				f.Path = atomsOf(arg(0), env)
			case "dependency":
				f.Dependency, f.DependencyReason = atomText(arg(0), env), ReasonCode(atomText(arg(1), env))
			case "missing":
				f.Missing = atomText(arg(0), env)
			case "reference":
				f.Reference, f.InlineTokens, f.InlineLeft = true, integer(arg(0), env), integer(arg(1), env)
			default:
				return fmt.Errorf("unknown fact %s/%d", t.Functor(), t.Arity())
			}
		default:
			return fmt.Errorf("unexpected fact")
		}
	}
	return iter.Err()
}

// atomText returns an atom verbatim, even one that spells "[]".
func atomText(t engine.Term, env *engine.Env) string {
	if a, ok := env.Resolve(t).(engine.Atom); ok {
		return a.String()
	}
	return ""
}

func integer(t engine.Term, env *engine.Env) int {
	if i, ok := env.Resolve(t).(engine.Integer); ok {
		return int(i)
	}
	return 0
}

// atomsOf returns the atoms of a list (a cycle path).
func atomsOf(t engine.Term, env *engine.Env) []string {
	var out []string
	iter := engine.ListIterator{List: t, Env: env}
	for iter.Next() {
		out = append(out, atomText(iter.Current(), env))
	}
	return out
}
