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
		{"lexical scores highest first", "lexical_scores([cand(b, lexical, 2), cand(a, explicit, 5), cand(c, lexical, 3), cand(d, lexical, 2)], X)", "[3 2 2]"},
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
	// A bound output is a comparison, but only with a value of its type:
	// a constant of another type raises.
	wrongOut := map[argType][]engine.Term{
		argOutAtom: {engine.Integer(7), engine.Float(0.5), engine.NewAtom("f").Apply(engine.NewAtom("a")), engine.List(engine.NewAtom("a"))},
		argOutInt:  {engine.NewAtom("a"), engine.Float(0.5), engine.NewAtom("f").Apply(engine.Integer(1)), engine.List(engine.Integer(1))},
	}
	for _, n := range natives(nil) {
		for i, a := range n.args {
			var bads []engine.Term
			switch _, checked := good[a.typ]; {
			case wrongOut[a.typ] != nil:
				bads = wrongOut[a.typ]
			case !checked:
				continue // an output of any type
			case a.typ == argTerm:
				bads = []engine.Term{engine.NewVariable()}
			default:
				bads = append([]engine.Term{engine.NewVariable()}, wrong[a.typ]...)
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
