package rules

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ichiban/prolog"
	"github.com/ichiban/prolog/engine"
)

// procedures reads the interpreter's procedure table, which ichiban keeps
// unexported in VM.procedures: every name/arity the interpreter can call,
// mapped to true when Go implements it and false when clauses define it.
// Reading the table itself, not a list of ours, is what makes the
// allowlist test see a builtin nobody meant to add.
func procedures(t *testing.T, vm *engine.VM) map[string]bool {
	t.Helper()
	table := reflect.ValueOf(vm).Elem().FieldByName("procedures")
	if !table.IsValid() || table.Kind() != reflect.Map {
		t.Fatal("engine.VM has no procedures map any more: teach procedures() where this ichiban version keeps its predicates")
	}
	out := map[string]bool{}
	iter := table.MapRange()
	for iter.Next() {
		k := iter.Key()
		name, arity := k.FieldByName("name"), k.FieldByName("arity")
		if !name.IsValid() || !arity.IsValid() {
			t.Fatal("engine.procedureIndicator changed shape: teach procedures() to read it")
		}
		pi := fmt.Sprintf("%s/%d", engine.Atom(name.Uint()), arity.Int())
		out[pi] = iter.Value().Elem().Kind() == reflect.Func
	}
	return out
}

func TestAllowlistIsSorted(t *testing.T) {
	if !slices.IsSorted(builtins) {
		t.Errorf("got unsorted builtins; want them sorted so a change reads as one line")
	}
	if !slices.IsSorted(allowlist) {
		t.Errorf("got an unsorted allowlist; want it sorted so a change reads as one line")
	}
	if c := slices.Compact(slices.Clone(allowlist)); len(c) != len(allowlist) {
		t.Errorf("got %d entries with duplicates; want %d unique", len(allowlist), len(c))
	}
}

// TestAllowlistIsWhatTheInterpreterCalls enumerates the predicates
// implemented in Go that the loaded interpreter can call and compares them
// with the written allowlist, both ways.
func TestAllowlistIsWhatTheInterpreterCalls(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var native []string
	for pi, isGo := range procedures(t, &e.interp.VM) {
		if isGo {
			native = append(native, pi)
		}
	}
	slices.Sort(native)
	if diff := cmp.Diff(allowlist, native); diff != "" {
		t.Errorf("Go predicates the interpreter can call differ from allowlist (-allowlist +interpreter):\n%s", diff)
	}
}

// TestPolicyCallsOnlyAllowedPredicates reads policy.pl's clauses and checks
// that every goal in a body is defined by the policy or allowlisted, and
// that every allowlisted predicate is called: the list is what the policy
// needs, no more.
func TestPolicyCallsOnlyAllowedPredicates(t *testing.T) {
	p, err := newInterpreter(catalog(map[string]UnitFacts{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	defined, called := map[string]bool{}, map[string]bool{}
	var goal func(engine.Term)
	goal = func(g engine.Term) {
		switch g := g.(type) {
		case engine.Variable:
			called["call/1"] = true
		case engine.Atom:
			if g != engine.NewAtom("!") {
				called[g.String()+"/0"] = true
			}
		case engine.Compound:
			if g.Functor() == engine.NewAtom(",") && g.Arity() == 2 {
				goal(g.Arg(0))
				goal(g.Arg(1))
				return
			}
			called[fmt.Sprintf("%s/%d", g.Functor(), g.Arity())] = true
			switch fmt.Sprintf("%s/%d", g.Functor(), g.Arity()) {
			case `\+/1`, ";/2", "->/2":
				for i := 0; i < g.Arity(); i++ {
					goal(g.Arg(i))
				}
			}
		}
	}
	parser := engine.NewParser(&p.VM, strings.NewReader(policySource))
	for parser.More() {
		term, err := parser.Term()
		if err != nil {
			t.Fatal(err)
		}
		head := term
		if c, ok := term.(engine.Compound); ok && c.Functor() == engine.NewAtom(":-") {
			if c.Arity() == 1 {
				goal(c.Arg(0))
				continue
			}
			head = c.Arg(0)
			goal(c.Arg(1))
		}
		switch h := head.(type) {
		case engine.Atom:
			defined[h.String()+"/0"] = true
		case engine.Compound:
			defined[fmt.Sprintf("%s/%d", h.Functor(), h.Arity())] = true
		}
	}
	allowed := map[string]bool{}
	for _, pi := range allowlist {
		allowed[pi] = true
		if defined[pi] {
			t.Errorf("policy.pl defines %s; want it to leave allowlisted predicates to Go", pi)
		}
		if !called[pi] {
			t.Errorf("allowlist holds %s; want only predicates policy.pl calls", pi)
		}
	}
	for pi := range called {
		if !allowed[pi] && !defined[pi] {
			t.Errorf("policy.pl calls %s; want it defined by the policy or in allowlist", pi)
		}
	}
}

// existence returns the predicate indicator of an existence error for a
// procedure, and whether err is one.
func existence(err error) (string, bool) {
	var ex engine.Exception
	if !errors.As(err, &ex) {
		return "", false
	}
	e, ok := ex.Term().(engine.Compound)
	if !ok || e.Functor() != engine.NewAtom("error") || e.Arity() != 2 {
		return "", false
	}
	x, ok := e.Arg(0).(engine.Compound)
	if !ok || x.Functor() != engine.NewAtom("existence_error") || x.Arity() != 2 || x.Arg(0) != engine.NewAtom("procedure") {
		return "", false
	}
	pi, ok := x.Arg(1).(engine.Compound)
	if !ok || pi.Arity() != 2 {
		return "", false
	}
	return fmt.Sprintf("%s/%d", pi.Arg(0), pi.Arg(1)), true
}

// TestSandboxLacksEveryOtherBuiltin calls, in the sandbox, every predicate
// ichiban's full interpreter (prolog.New, builtins and bootstrap library)
// defines that is neither allowlisted nor defined by the policy: each must
// not exist. This covers halt, open, consult, assert, op, the flags and
// every stream predicate, as they are in the ichiban version in use.
func TestSandboxLacksEveryOtherBuiltin(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	ours := procedures(t, &e.interp.VM)
	full := procedures(t, &prolog.New(nil, nil).VM)
	var absent []string
	for pi := range full {
		// ichiban compiles conjunction and cut into a clause's bytecode,
		// and a goal's top-level disjunction into alternative clauses, so
		// these three act without a procedure (and grant nothing).
		if pi == ",/2" || pi == "!/0" || pi == ";/2" {
			continue
		}
		if _, ok := ours[pi]; !ok {
			absent = append(absent, pi)
		}
	}
	slices.Sort(absent)
	if len(absent) < 100 {
		t.Fatalf("got %d predicates of the full interpreter outside the sandbox; want the ~150 ichiban defines", len(absent))
	}
	for _, want := range []string{"halt/0", "halt/1", "open/3", "open/4", "consult/1", "asserta/1", "assertz/1", "retract/1", "abolish/1", "op/3", "set_prolog_flag/2", "call/1", "catch/3", "current_predicate/1", "write/1"} {
		if !slices.Contains(absent, want) {
			t.Errorf("got %s in the sandbox; want it absent", want)
		}
	}
	atomX := engine.NewAtom("x")
	for _, pi := range absent {
		t.Run(pi, func(t *testing.T) {
			i := strings.LastIndexByte(pi, '/')
			name := engine.NewAtom(pi[:i])
			var arity int
			fmt.Sscan(pi[i+1:], &arity)
			var goal engine.Term = name
			if arity > 0 {
				args := make([]engine.Term, arity)
				for j := range args {
					args[j] = atomX
				}
				goal = name.Apply(args...)
			}
			_, err := engine.Call(&e.interp.VM, goal, engine.Success, nil).Force(context.Background())
			if got, ok := existence(err); !ok || got != pi {
				t.Errorf("got %v; want existence_error for %s", err, pi)
			}
		})
	}
}

// TestSandboxRefusesThroughQueries runs hostile queries, parsed as Prolog
// text the way no request data ever is, against the loaded interpreter.
func TestSandboxRefusesThroughQueries(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ query, missing string }{
		{"halt.", "halt/0"},
		{"halt(1).", "halt/1"},
		{"open('/etc/passwd', read, S).", "open/3"},
		{"open('/tmp/x', write, S, []).", "open/4"},
		{"consult('/etc/passwd').", "consult/1"},
		{"['/etc/passwd'].", "./2"},
		{"ensure_loaded('/etc/passwd').", "ensure_loaded/1"},
		{"op(700, xfx, ===>).", "op/3"},
		{"set_prolog_flag(unknown, fail).", "set_prolog_flag/2"},
		{"assertz(unit(a, ok, automatic, 1)).", "assertz/1"},
		{"asserta(decide(_, _, _, [])).", "asserta/1"},
		{"retract(decide(_, _, _, _)).", "retract/1"},
		{"abolish(decide/4).", "abolish/1"},
		{"current_output(S).", "current_output/1"},
		{"write(hello).", "write/1"},
		{"call(halt).", "call/1"},
		{"catch(halt, E, true).", "catch/3"},
		{"findall(X, unit(X, _, _, _), L).", "findall/3"},
		{"\\+ halt.", "halt/0"},
		{"memberchk(x, [x]), halt.", "halt/0"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			err := e.interp.QuerySolution(tt.query).Err()
			if got, ok := existence(err); !ok || got != tt.missing {
				t.Errorf("got %v; want existence_error for %s", err, tt.missing)
			}
		})
	}
}

// TestPolicyCannotShadowANative checks that a policy text defining clauses
// for an allowlisted predicate does not load: its clauses would replace the
// Go implementation the allowlist names.
func TestPolicyCannotShadowANative(t *testing.T) {
	f := catalog(map[string]UnitFacts{}, nil)
	for _, tt := range []struct{ name, extra string }{
		{"native fact", "unit(a, ok, automatic, 1)."},
		{"native rule", "explicit(_, _) :- 0 < 1."},
		{"builtin", "X \\== Y :- X = Y."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewWithPolicy(f, policySource+"\n"+tt.extra+"\n"); err == nil || !strings.Contains(err.Error(), "sandbox implements in Go") {
				t.Errorf("got %v; want the policy refused for defining an allowlisted predicate", err)
			}
		})
	}
}

// TestRulesImportsOnlyIR pins what ARCHITECTURE.md says: of rlmc's
// packages, rules imports only ir, so the policy engine sees no skill text
// and no compiler state except through its Request.
func TestRulesImportsOnlyIR(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var ours []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/rlmc-dev/rlmc/") && !slices.Contains(ours, path) {
				ours = append(ours, path)
			}
		}
	}
	if want := []string{"github.com/rlmc-dev/rlmc/ir"}; !slices.Equal(ours, want) {
		t.Errorf("got rules importing %v; want only %v", ours, want)
	}
}
