package rules

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ichiban/prolog"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestEmbeddedPolicyChecked checks the embedded policy as a load checks
// any other policy text (its vocabulary and its calls), then pins its
// digest in policy.pl.sha256: the text no process checks again at run
// time (checkedText). After an edit to policy.pl that passes,
// `go test ./internal/rules -run TestEmbeddedPolicyChecked -update`
// records the new text; until then every load checks it.
func TestEmbeddedPolicyChecked(t *testing.T) {
	p, err := newInterpreter(catalog(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkText(&p.VM, policySource); err != nil {
		t.Fatalf("got %v; want the embedded policy to pass the load checks", err)
	}
	sum := sha256.Sum256([]byte(policySource))
	testkit.Golden(t, "policy.pl.sha256", []byte(hex.EncodeToString(sum[:])+"  policy.pl\n"))
	if !*testkit.Update && !checkedText(policySource) {
		t.Error("got the embedded policy unrecorded; want checkedText to know it")
	}
	if checkedText(policySource + "\n") {
		t.Error("got an edited policy taken as checked; want every other text checked at load")
	}
}

// TestMiscalledNativeRefused edits the embedded policy's calls to natives
// the ways a hand editing policy.pl might get them wrong (arguments
// swapped, a wrong arity, a number where a name goes, an output used as
// an input, a constant output of the wrong type) and asserts that the
// load refuses the text with a *CallError naming the predicate and the
// call's path:line, or, for a mistake only a run can see, that the
// compile fails. Each text is then run with the load's check off: every
// run that reaches the mistaken call must raise (never answer false, which
// would read as "not denied"), and every other run decide as the shipped
// policy does, so no request ever selects a unit it denies.
func TestMiscalledNativeRefused(t *testing.T) {
	tests := []struct {
		name     string
		old, new string // the policy's text and its edit
		call     string // the mistaken call in new
		pred     string // the *CallError's predicate; "" when only a run sees it
	}{
		{"deny: arguments swapped",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- denied(N, Req), !,", "denied(N, Req)", "denied/2"},
		{"deny: swapped below a comment naming the call",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- % not denied(Req, N)\n    denied(N, Req), !,", "denied(N, Req)", "denied/2"},
		{"deny: arity 3",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- denied(Req, N, host), !,", "denied(Req, N, host)", "denied/3"},
		{"deny: arity 1",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- denied(N), !,", "denied(N)", "denied/1"},
		{"deny: an integer for the name",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- denied(Req, 7), !,", "denied(Req, 7)", "denied/2"},
		{"deny: the name unbound",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- denied(Req, _), !,", "denied(Req, _)", "denied/2"},
		{"deny: an atom for the request",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- denied(req, N), !,", "denied(req, N)", "denied/2"},
		{"deny: the request unbound",
			"judge(Req, N, _, _, _, V) :- denied(Req, N), !,", "judge(Req, N, _, _, _, V) :- denied(_, N), !,", "denied(_, N)", "denied/2"},
		{"dependency deny: arguments swapped",
			"blocked_dependency(Req, _, D, denied) :- denied(Req, D), !.", "blocked_dependency(Req, _, D, denied) :- denied(D, Req), !.", "denied(D, Req)", "denied/2"},
		{"negation: arguments swapped",
			"judge(Req, N, lexical, _, _, V) :- negated(Req, N), !,", "judge(Req, N, lexical, _, _, V) :- negated(N, Req), !,", "negated(N, Req)", "negated/2"},
		{"explicit under \\+: arguments swapped",
			"unit(D, _, explicit_user, _), \\+ explicit(Req, D), !.", "unit(D, _, explicit_user, _), \\+ explicit(D, Req), !.", "explicit(D, Req)", "explicit/2"},
		{"breadth: an integer for the name",
			"grounded(Req, _, _, N) :- breadth(Req, N, W), min_breadth(Req, B), W >= B, !.", "grounded(Req, _, _, N) :- breadth(Req, 3, W), min_breadth(Req, B), W >= B, !.", "breadth(Req, 3, W)", "breadth/3"},
		{"breadth: the output used as the name",
			"clear(_, _, Req, N, C) :- breadth(Req, N, B), min_breadth(Req, Min), sole(B, Min, C).", "clear(_, _, Req, N, C) :- breadth(Req, B, N), min_breadth(Req, Min), sole(B, Min, C).", "breadth(Req, B, N)", "breadth/3"},
		{"threshold: arguments swapped",
			"grounded(Req, _, S, _) :- threshold(Req, T), S >= T, !.", "grounded(Req, _, S, _) :- threshold(T, Req), S >= T, !.", "threshold(T, Req)", "threshold/2"},
		{"withdrawn: swapped, the request passed in w/4",
			"runner_up(Req, _, _, [Next|_], withdrawn_runner_up(W), W) :- withdrawn(Req, W), Next < W, !.", "runner_up(Req, _, _, [Next|_], withdrawn_runner_up(W), W) :- withdrawn(W, Req), Next < W, !.", "withdrawn(W, Req)", "withdrawn/2"},
		{"unit: an atom for the priority",
			"blocked_dependency(_, _, D, invalid) :- unit(D, invalid, _, _), !.", "blocked_dependency(_, _, D, invalid) :- unit(D, _, _, invalid), !.", "unit(D, _, _, invalid)", "unit/4"},
		{"unit: an integer for the status",
			"blocked_dependency(_, _, D, invalid) :- unit(D, invalid, _, _), !.", "blocked_dependency(_, _, D, invalid) :- unit(D, 0, _, _), !.", "unit(D, 0, _, _)", "unit/4"},
		{"tokens: arguments swapped",
			"    subtract(Group, Adm, New),\n    tokens(Req, New, Cost),\n    left(Req, Budget, Adm, New, Used, Left),\n    Cost =< Left, !,", "    subtract(Group, Adm, New),\n    tokens(New, Req, Cost),\n    left(Req, Budget, Adm, New, Used, Left),\n    Cost =< Left, !,", "tokens(New, Req, Cost)", "tokens/3"},
		{"closure: arguments swapped",
			"group(N, Group) :- closure(N, deps(Ds)), append(Ds, [N], Group).", "group(N, Group) :- closure(deps(Ds), N), append(Ds, [N], Group).", "closure(deps(Ds), N)", "closure/2"},
		{"conflicting: an atom for a list",
			"    conflicting(Group, Adm, With), !,", "    conflicting(Group, adm, With), !,", "conflicting(Group, adm, With)", "conflicting/3"},
		// Rule 10's own_words and rule 11's coverage are policy clauses
		// over fact natives: a swap in them is refused as any other.
		{"states_own_words: request and name swapped",
			"    states_own_words(Req, N),\n", "    states_own_words(N, Req),\n", "states_own_words(N, Req)", "states_own_words/2"},
		{"apart in covers: request and unit swapped",
			"clauses_compared(Req), \\+ apart(Req, A, N).", "clauses_compared(Req), \\+ apart(A, Req, N).", "apart(A, Req, N)", "apart/3"},
	}
	f := catalog(map[string]UnitFacts{
		"a": ok(100), "b": ok(100), "c": ok(100), "d": ok(100), "e": ok(100), "f": ok(100),
		"g": invalid(), "h": explicitOnly(100), "k": ok(100),
	}, map[string][]string{"b": {"d"}, "f": {"g"}, "e": {"h"}})
	runs := miscallRuns()
	want := make([]string, len(runs))
	shipped, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range runs {
		ds, err := run(shipped)
		if err != nil {
			t.Fatalf("run %d of the shipped policy: %v", i, err)
		}
		want[i] = render(ds)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := strings.Count(policySource, tt.old); n != 1 {
				t.Fatalf("policy.pl holds %q %d times; want once: update this test to the policy", tt.old, n)
			}
			src := strings.Replace(policySource, tt.old, tt.new, 1)
			at := strings.Index(src, tt.new) + strings.Index(tt.new, tt.call)
			line := 1 + strings.Count(src[:at], "\n")

			_, err := NewWithPolicy(f, src)
			var ce *CallError
			switch {
			case tt.pred == "" && err != nil:
				t.Errorf("load: got %v; want the text to load (only a run sees this mistake)", err)
			case tt.pred == "":
			case !errors.As(err, &ce):
				t.Errorf("load: got %v; want a *CallError", err)
			case ce.Pred != tt.pred || ce.Path != policyPath || ce.Line != line:
				t.Errorf("load: got %s at %s:%d; want %s at %s:%d (%v)", ce.Pred, ce.Path, ce.Line, tt.pred, policyPath, line, err)
			case !strings.Contains(err.Error(), fmt.Sprintf("%s:%d: %s", policyPath, line, tt.pred)):
				t.Errorf("load: got %q; want it to name %s:%d and %s", err, policyPath, line, tt.pred)
			}

			// The run, had the load not refused the text.
			p, err := load(f, src, false)
			if err != nil {
				t.Fatalf("unchecked load: %v", err)
			}
			e, raised := &Engine{interp: p}, false
			for i, run := range runs {
				ds, err := run(e)
				switch kind := errorKind(err); {
				case err == nil:
					if got := render(ds); got != want[i] {
						t.Errorf("run %d: got %s; want an error or the shipped policy's %s", i, got, want[i])
					}
				case kind == "type_error" || kind == "instantiation_error" || kind == "existence_error":
					raised = true
				default:
					t.Errorf("run %d: got %v; want a type, instantiation or existence error", i, err)
				}
			}
			if !raised {
				t.Error("no run raised; want the requests to reach the mistaken call")
			}
		})
	}
}

// miscallRuns are compiles over a small catalog that between them reach
// every rule TestMiscalledNativeRefused edits: a denied host selection, a
// denied dependency, invalid and explicit-only ones, a sole candidate, a
// clear pair, a tie on the same words, a best without a margin on its own
// words and a task whose clauses were compared.
func miscallRuns() []func(*Engine) ([]Decision, error) {
	base := func(cands ...Candidate) *Request {
		return &Request{
			Candidates: cands, Budget: 1000,
			Tokens: func(string) int { return 1 }, ReferenceTokens: func(string) int { return 1 },
			Explicit: set("a", "f"), Mandatory: set(), Denied: set("a", "d"), Negated: set(),
			Breadth: map[string]int{"b": 2, "c": 1, "k": 2}, Threshold: 4500, TieRatio: 75, SupportFloor: 2000, CandidateFloor: 1500, MarginRatio: 2, ThresholdMargin: 175, MinBreadth: 2,
		}
	}
	hosts := base(sel("a"), sel("f"), lex("b", 9000), lex("e", 5000), lex("k", 4000), lex("c", 3000))
	tie := base(lex("k", 6000), lex("c", 5500))
	tie.Redundant = map[[2]string]bool{{"k", "c"}: true}
	tie.Breadth = map[string]int{"k": 1, "c": 1}
	clauses := base(lex("k", 6000), lex("c", 5000))
	clauses.Apart = map[[2]string]int{{"c", "k"}: 5000}
	own := base(lex("k", 3000), lex("c", 2000))
	own.OwnWords = set("k")
	decide := func(r *Request) func(*Engine) ([]Decision, error) {
		return func(e *Engine) ([]Decision, error) { return e.Decide(context.Background(), r) }
	}
	return []func(*Engine) ([]Decision, error){
		decide(hosts),
		func(e *Engine) ([]Decision, error) {
			return e.Ineligible(context.Background(), hosts, []Candidate{lex("a", 9000), lex("b", 8000), lex("c", 7000)})
		},
		decide(base(lex("k", 3000))),
		decide(base(lex("k", 6000), lex("c", 2500))),
		decide(tie),
		decide(own),
		decide(clauses),
	}
}

// TestCallCheckFollowsTheRequest loads edits that call natives rightly in
// ways the check must follow: the request renamed by =/2, a quoted
// functor, a call inside \+, and a comment naming a call.
func TestCallCheckFollowsTheRequest(t *testing.T) {
	const deny = "judge(Req, N, _, _, _, V) :- denied(Req, N), !,"
	for _, edit := range []string{
		"judge(Req, N, _, _, _, V) :- R = Req, denied(R, N), !,",
		"judge(Req, N, _, _, _, V) :- x(R) = x(Req), 'denied'(R, N), !,",
		"judge(Req, N, _, _, _, V) :- \\+ \\+ denied(Req, N), !,",
		"judge(Req, N, _, _, _, V) :- /* denied(N, Req) */ denied(Req, N), !,",
	} {
		if _, err := NewWithPolicy(catalog(nil, nil), strings.Replace(policySource, deny, edit, 1)); err != nil {
			t.Errorf("%s: got %v; want it to load", edit, err)
		}
	}
	for _, tt := range []struct{ text, pred string }{
		{":- denied(a, b).\n", "denied/2"},
		{"extra(X) :- no_such(X).\n", "no_such/1"},
		{"extra(X) :- X.\n", "goal"},
		{"extra(N) :- memberchk(N, [a|_]).\n", "memberchk/2"},
		{"extra(N) :- subtract([N], [a|b], _).\n", "subtract/3"},
		{"extra(X) :- names([x], X).\n", "names/2"},
		{"extra(X) :- values([a-1, b], X).\n", "values/2"},
		{"extra(X) :- append([[a], b], X).\n", "append/2"},
		{"extra(X) :- Y is 1 + 1, conflicting([Y], [a], X).\n", "conflicting/3"},
	} {
		_, err := NewWithPolicy(catalog(nil, nil), policySource+tt.text)
		var ce *CallError
		if !errors.As(err, &ce) || ce.Pred != tt.pred {
			t.Errorf("%s: got %v; want a *CallError for %s", strings.TrimSpace(tt.text), err, tt.pred)
		}
	}
}

// TestBoundOutputsCompare checks that a native's output bound to a value
// of its type is a comparison, answering true or false, not an error.
func TestBoundOutputsCompare(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{"a": ok(100)}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for goal, want := range map[string]bool{
		"unit(a, ok, automatic, 100)": true,
		"unit(a, invalid, _, _)":      false,
		"unit(a, _, _, 7)":            false,
	} {
		sol := e.interp.QuerySolution(goal + ".")
		switch err := sol.Err(); {
		case err == nil && !want, errors.Is(err, prolog.ErrNoSolutions) && want:
			t.Errorf("%s: got %v; want %v", goal, err == nil, want)
		case err != nil && !errors.Is(err, prolog.ErrNoSolutions):
			t.Errorf("%s: got %v; want %v", goal, err, want)
		}
	}
}
