package rules

import (
	"context"
	"fmt"
	"slices"

	"github.com/ichiban/prolog"
	"github.com/ichiban/prolog/engine"
)

// allowlist is every predicate implemented in Go that the policy's
// interpreter can call, as name/arity, sorted: the ISO control constructs,
// arithmetic and term predicates policy.pl uses (builtins), then rlmc's
// natives (the table in natives.go). Nothing else is registered: the
// interpreter starts empty (new(prolog.Interpreter), the sandbox ichiban/prolog
// documents), so no stream, file, flag, operator-table, database or process
// predicate exists in it, and a goal naming one throws existence_error. An
// ichiban upgrade adds nothing here. TestAllowlistIsWhatTheInterpreterCalls
// compares this list with the interpreter's procedure table in both
// directions, so adding a builtin is a visible change to builtins, and a
// native one to the natives table.
//
// Clauses, conjunction (,/2) and cut (!/0) need no entry: ichiban compiles
// them into the clause's bytecode. Arithmetic functions (max/2, * and so
// on) need none either: is/2 and the comparisons evaluate them in Go.
var allowlist = func() []string {
	out := slices.Clone(builtins)
	for _, n := range natives(nil) {
		out = append(out, n.indicator())
	}
	slices.Sort(out)
	return out
}()

// builtins are the ISO predicates registerBuiltins installs, sorted.
var builtins = []string{
	"</2",
	"=/2",
	"=</2",
	">=/2",
	`\+/1`,
	`\==/2`,
	"append/3",
	"is/2",
	"keysort/2",
}

// operators is the ISO standard operator table, as ichiban's own bootstrap
// defines it. Operators are syntax only: they let policy.pl read as
// ordinary Prolog and grant no predicate. They are set from Go, so op/3
// itself is never registered and the table cannot change after load.
var operators = []struct {
	priority  int
	specifier string
	names     []string
}{
	{1200, "xfx", []string{":-", "-->"}},
	{1200, "fx", []string{":-", "?-"}},
	{1105, "xfy", []string{"|"}},
	{1100, "xfy", []string{";"}},
	{1050, "xfy", []string{"->"}},
	{1000, "xfy", []string{","}},
	{900, "fy", []string{`\+`}},
	{700, "xfx", []string{"=", `\=`, "==", `\==`, "@<", "@=<", "@>", "@>=", "=..", "is", "=:=", `=\=`, "<", "=<", ">", ">="}},
	{600, "xfy", []string{":"}},
	{500, "yfx", []string{"+", "-", `/\`, `\/`}},
	{400, "yfx", []string{"*", "/", "//", "div", "rem", "mod", "<<", ">>"}},
	{200, "xfx", []string{"**"}},
	{200, "xfy", []string{"^"}},
	{200, "fy", []string{"+", "-", `\`}},
}

// newInterpreter returns an interpreter with no predicates but the
// allowlisted ones, bound to facts, and the standard operators.
func newInterpreter(facts Facts) (*prolog.Interpreter, error) {
	p := new(prolog.Interpreter)
	for _, op := range operators {
		names := make([]engine.Term, len(op.names))
		for i, n := range op.names {
			names[i] = engine.NewAtom(n)
		}
		if _, err := engine.Op(&p.VM, engine.Integer(op.priority), engine.NewAtom(op.specifier), engine.List(names...), engine.Success, nil).Force(context.Background()); err != nil {
			return nil, fmt.Errorf("rules: operator table: %w", err)
		}
	}
	registerBuiltins(&p.VM)
	registerFacts(&p.VM, facts)
	// The VM fills a nil Unknown hook in at its first call, a write that
	// races when compiles share one engine; set it here so a run only reads.
	p.VM.Unknown = func(engine.Atom, []engine.Term, *engine.Env) {}
	return p, nil
}

// registerBuiltins installs the ISO predicates policy.pl calls. Each is
// ichiban's own Go implementation except \==/2, which ichiban writes in
// Prolog over compare/3 and \+/1 in the bootstrap library left out here.
func registerBuiltins(vm *engine.VM) {
	vm.Register1(engine.NewAtom(`\+`), engine.Negate)
	vm.Register2(engine.NewAtom("="), engine.Unify)
	vm.Register2(engine.NewAtom(`\==`), notIdentical)
	vm.Register3(engine.NewAtom("append"), engine.Append)
	vm.Register2(engine.NewAtom("keysort"), engine.KeySort)
	vm.Register2(engine.NewAtom("is"), engine.Is)
	vm.Register2(engine.NewAtom("<"), engine.LessThan)
	vm.Register2(engine.NewAtom("=<"), engine.LessThanOrEqual)
	vm.Register2(engine.NewAtom(">="), engine.GreaterThanOrEqual)
}

// notIdentical is X \== Y: the terms differ in the standard order.
func notIdentical(_ *engine.VM, x, y engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
	if env.Resolve(x).Compare(y, env) == 0 {
		return engine.Bool(false)
	}
	return k(env)
}

// checkDefinitions checks the loaded text against the sandbox: it must
// define every entry point Go calls, and no predicate of the allowlist,
// whose Go implementation its clauses would silently replace. It asks
// ichiban's current_predicate/1 from Go, which is not registered in the
// interpreter, once for every predicate the text defines.
func checkDefinitions(vm *engine.VM, entries ...string) error {
	defined := map[string]bool{}
	pi := engine.NewVariable()
	_, err := engine.CurrentPredicate(vm, pi, func(env *engine.Env) *engine.Promise {
		if c, ok := env.Resolve(pi).(engine.Compound); ok && c.Arity() == 2 {
			defined[fmt.Sprintf("%s/%d", env.Resolve(c.Arg(0)), env.Resolve(c.Arg(1)))] = true
		}
		return engine.Bool(false) // backtrack into the next predicate
	}, nil).Force(context.Background())
	if err != nil {
		return fmt.Errorf("rules: listing the policy's predicates: %w", err)
	}
	for _, e := range entries {
		if !defined[e] {
			return fmt.Errorf("rules: policy does not define %s", e)
		}
	}
	for _, a := range allowlist {
		if defined[a] {
			return fmt.Errorf("rules: policy defines %s, which the sandbox implements in Go", a)
		}
	}
	return nil
}
