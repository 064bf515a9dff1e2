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
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"

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
// lists a loop, or Deps lists every dependency, dependencies first.
type Closure struct {
	Deps    []string
	Missing string
	Cycle   []string
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
	// Breadth counts the distinct task words each candidate's evidence
	// rests on.
	Breadth map[string]int
	// Ambiguity is the host's mode for ties: ask (default), top or all.
	Ambiguity string
	// Threshold is the score (x 1000) a lexical candidate needs to be
	// selected on its own; weaker candidates can only make a tie.
	Threshold int
	// TieRatio is how close, in percent of the best score, a competing
	// candidate must be to make the task ambiguous.
	TieRatio int
	// SupportFloor is the score (x 1000) a candidate below Threshold needs
	// to be selected as a clear best or beside a stronger kept candidate.
	SupportFloor int
	// Withdrawn is the best score (x 1000) of a unit with evidence that
	// Eligible kept from the candidates, or 0: rule 10 measures a weak
	// candidate's margin against it too.
	Withdrawn int
	// Judged says the lexical candidates passed Ineligible in this request
	// already: Decide then judges rules 2-6 for host candidates only.
	Judged bool
	Tokens func(name string) int
}

// Decision is the policy's verdict on one unit.
type Decision struct {
	Name     string
	Selected bool
	Reason   string // selected: mandatory, explicit, lexical, dependency; rejected: see README
	Detail   string // for dependency: the dependent; for rejections: the reason's object
}

// Engine is a loaded, sandboxed policy bound to one catalog's facts. Its
// database is read-only after New, so Decide is safe for concurrent use.
type Engine struct {
	interp *prolog.Interpreter
}

// New loads the embedded policy.
func New(facts Facts) (*Engine, error) {
	return NewWithPolicy(facts, policySource)
}

// NewWithPolicy loads a policy text; tests use it to prove that a broken
// policy is a hard error.
func NewWithPolicy(facts Facts, source string) (*Engine, error) {
	p, err := newInterpreter(facts)
	if err != nil {
		return nil, err
	}
	if err := p.Exec(source); err != nil {
		return nil, fmt.Errorf("rules: policy does not load: %w", err)
	}
	if err := checkDefinitions(&p.VM, "decide/4", "eligible/3"); err != nil {
		return nil, err
	}
	return &Engine{interp: p}, nil
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
	atomDep       = engine.NewAtom("dep")
	atomMinus     = engine.NewAtom("-")
	atomLexical   = engine.NewAtom(string(OriginLexical))
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
		if !ok || c.Arity() != 3 || (c.Functor() != atomSelect && c.Functor() != atomReject) {
			return nil, fmt.Errorf("rules: unexpected decision term")
		}
		out = append(out, Decision{
			Name:     atomText(c.Arg(0), env),
			Selected: c.Functor() == atomSelect,
			Reason:   text(c.Arg(1), env),
			Detail:   text(c.Arg(2), env),
		})
	}
	return out, iter.Err()
}

// atomText returns a unit name verbatim, even one that spells "[]".
func atomText(t engine.Term, env *engine.Env) string {
	if a, ok := env.Resolve(t).(engine.Atom); ok {
		return a.String()
	}
	return text(t, env)
}

// text renders a decision argument for people: atoms as themselves, lists
// joined with " -> " (cycle paths), dep(D, Why) as "D (Why)".
func text(t engine.Term, env *engine.Env) string {
	switch t := env.Resolve(t).(type) {
	case engine.Atom:
		if t == engine.NewAtom("[]") {
			return ""
		}
		return t.String()
	case engine.Integer:
		return fmt.Sprint(int64(t))
	case engine.Compound:
		if t.Functor() == atomDep && t.Arity() == 2 {
			return text(t.Arg(0), env) + " (" + text(t.Arg(1), env) + ")"
		}
		var parts []string
		iter := engine.ListIterator{List: t, Env: env}
		for iter.Next() {
			parts = append(parts, text(iter.Current(), env))
		}
		if iter.Err() == nil {
			return strings.Join(parts, " -> ")
		}
	}
	return "?"
}
