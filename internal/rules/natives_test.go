package rules

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ichiban/prolog"
	"github.com/ichiban/prolog/engine"
)

// TestListHelpers checks the Go-native list plumbing the policy relies on,
// each against the answer its Prolog definition would give.
func TestListHelpers(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, goal, want string
	}{
		{"names", "names([cand(a, lexical, 1), cand(b, explicit, 2)], X)", "[a b]"},
		{"names of nothing", "names([], X)", "[]"},
		{"names refuses other terms", "names([cand(a, lexical, 1), x], X)", "type_error"},
		{"append refuses a partial list", "append([[a], _], X)", "instantiation_error"},
		{"memberchk refuses a non-list", "memberchk(a, b), X = yes", "type_error"},
		{"lexical scores", "lexical_scores([cand(a, explicit, 5), cand(b, lexical, 3), cand(c, lexical, 2)], X)", "[3 2]"},
		{"values", "values([k(1)-a, k(2)-b], X)", "[a b]"},
		{"append lists", "append([[a], [], [b, c]], X)", "[a b c]"},
		{"append nothing", "append([], X)", "[]"},
		{"memberchk", "memberchk(b, [a, b]), X = yes", "yes"},
		{"subtract keeps order", "subtract([c, a, b], [a], X)", "[c b]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sol := e.interp.QuerySolution(tt.goal + ".")
			got := "fail"
			var out struct{ X any }
			switch err := sol.Err(); {
			case errors.Is(err, prolog.ErrNoSolutions):
			case errorKind(err) != "":
				got = errorKind(err)
			case err != nil:
				t.Fatalf("%s: %v", tt.goal, err)
			default:
				if err := sol.Scan(&out); err != nil {
					t.Fatal(err)
				}
				got = fmt.Sprint(out.X)
			}
			if got != tt.want {
				t.Errorf("%s: got %s; want %s", tt.goal, got, tt.want)
			}
		})
	}
}

// errorKind returns the formal term's functor of a Prolog error an
// engine run raised (type_error, instantiation_error, ...), or "".
func errorKind(err error) string {
	var ex engine.Exception
	if !errors.As(err, &ex) {
		return ""
	}
	e, ok := ex.Term().(engine.Compound)
	if !ok || e.Functor() != engine.NewAtom("error") || e.Arity() != 2 {
		return ""
	}
	switch f := e.Arg(0).(type) {
	case engine.Atom:
		return f.String()
	case engine.Compound:
		return f.Functor().String()
	}
	return ""
}

// TestMiscalledNativeFailsClosed loads policy texts whose deny rule (rule
// 2) calls denied/2 wrongly, the way a host's edited policy might: the
// run must end in an error, never in a selection of the denied unit, which
// it would be if a miscalled native answered false.
func TestMiscalledNativeFailsClosed(t *testing.T) {
	const deny = "judge(Req, N, _, _, _, V) :- denied(Req, N), !,"
	if !strings.Contains(policySource, deny) {
		t.Fatalf("policy.pl has no line %q; update this test to its deny rule", deny)
	}
	f := catalog(map[string]UnitFacts{"a": ok(100)}, nil)
	for _, tt := range []struct {
		name, call, want string
	}{
		{"arguments swapped", "denied(N, Req)", "type_error"},
		{"name unbound", "denied(Req, _)", "instantiation_error"},
		{"request unbound", "denied(_, N)", "instantiation_error"},
		{"name not an atom", "denied(Req, 7)", "type_error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(policySource, deny, strings.Replace(deny, "denied(Req, N)", tt.call, 1), 1)
			e, err := NewWithPolicy(f, src)
			if err != nil {
				t.Fatal(err)
			}
			req := &Request{
				Candidates: []Candidate{sel("a")}, Budget: 1000, Tokens: func(string) int { return 1 },
				Explicit: set("a"), Mandatory: set(), Denied: set("a"), Negated: set(),
			}
			ds, err := e.Decide(context.Background(), req)
			if got := errorKind(err); got != tt.want {
				t.Errorf("decide: got %v (%s); want %s", err, render(ds), tt.want)
			}
			ds, err = e.Ineligible(context.Background(), req, []Candidate{lex("a", 9000)})
			if got := errorKind(err); got != tt.want {
				t.Errorf("eligible: got %v (%s); want %s", err, render(ds), tt.want)
			}
		})
	}
}

// TestNativesRaiseOnBadArguments calls every native, from its description,
// with each checked argument unbound and then of the wrong type, the
// others well formed: each call must raise instantiation_error or
// type_error, never answer.
func TestNativesRaiseOnBadArguments(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{"a": ok(100)}, nil))
	if err != nil {
		t.Fatal(err)
	}
	req := reqTerm{&Request{Tokens: func(string) int { return 1 }}}
	good := map[argType]engine.Term{
		argRequest: req,
		argAtom:    engine.NewAtom("a"),
		argTerm:    engine.NewAtom("no_runner_up"),
		argAtoms:   engine.List(engine.NewAtom("a")),
		argList:    engine.List(engine.NewAtom("a")),
		argLists:   engine.List(engine.List(engine.NewAtom("a"))),
		argCands:   engine.List(atomCand.Apply(engine.NewAtom("a"), atomLexical, engine.Integer(1))),
		argPairs:   engine.List(atomMinus.Apply(engine.Integer(1), engine.NewAtom("a"))),
	}
	// wrong gives, per type, terms of another type, and lists with a bad
	// element or a bad tail.
	wrong := map[argType][]engine.Term{
		argRequest: {engine.NewAtom("a"), engine.Integer(7)},
		argAtom:    {engine.Integer(7), req, engine.List(engine.NewAtom("a"))},
		argAtoms:   {engine.NewAtom("a"), engine.List(engine.Integer(7)), engine.List(req), engine.PartialList(engine.NewAtom("b"), engine.NewAtom("a"))},
		argList:    {engine.NewAtom("a"), engine.Integer(7)},
		argLists:   {engine.NewAtom("a"), engine.List(engine.NewAtom("a"))},
		argCands:   {engine.NewAtom("a"), engine.List(engine.NewAtom("a"))},
		argPairs:   {engine.Integer(7), engine.List(engine.NewAtom("a"))},
	}
	for _, n := range natives(nil) {
		for i, a := range n.args {
			if _, checked := good[a.typ]; !checked {
				continue // an output: a bound one is a comparison
			}
			bads := []engine.Term{engine.NewVariable()}
			if a.typ != argTerm {
				bads = append(bads, wrong[a.typ]...)
			}
			for j, bad := range bads {
				t.Run(fmt.Sprintf("%s/%s/%d", n.indicator(), a.name, j), func(t *testing.T) {
					args := make([]engine.Term, len(n.args))
					for k, b := range n.args {
						if g, ok := good[b.typ]; ok {
							args[k] = g
						} else {
							args[k] = engine.NewVariable()
						}
					}
					args[i] = bad
					goal := engine.NewAtom(n.name).Apply(args...)
					_, err := engine.Call(&e.interp.VM, goal, engine.Success, nil).Force(context.Background())
					if got := errorKind(err); got != "instantiation_error" && got != "type_error" {
						t.Errorf("%v: got %v; want instantiation_error or type_error", goal, err)
					}
				})
			}
		}
	}
}

// TestPolicyDocumentsNatives checks that policy.pl's header documents every
// native by the mode its description in natives.go gives.
func TestPolicyDocumentsNatives(t *testing.T) {
	for _, n := range natives(nil) {
		if !strings.Contains(policySource, "%   "+n.mode()) {
			t.Errorf("got policy.pl without %q; want every native documented by its mode", n.mode())
		}
	}
}
