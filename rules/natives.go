package rules

import (
	"github.com/ichiban/prolog/engine"
)

// registerFacts installs the Go-native predicates that answer catalog and
// request questions. Each is deterministic and answers in one step, which
// matters with an interpreter that costs microseconds per inference.
func registerFacts(vm *engine.VM, f Facts) {
	vm.Register4(engine.NewAtom("unit"), func(vm *engine.VM, name, status, inv, prio engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		n, ok := atomArg(name, env)
		if !ok {
			return engine.Bool(false)
		}
		u, ok := f.Unit(n)
		if !ok {
			return engine.Bool(false)
		}
		return unifyAll(env, k,
			status, engine.NewAtom(string(u.Status)),
			inv, engine.NewAtom(string(u.Invocation)),
			prio, engine.Integer(u.Priority))
	})
	vm.Register2(engine.NewAtom("closure"), func(vm *engine.VM, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		n, ok := atomArg(name, env)
		if !ok {
			return engine.Bool(false)
		}
		c := f.Closure(n)
		var t engine.Term
		switch {
		case c.Missing != "":
			t = atomMissing.Apply(engine.NewAtom(c.Missing))
		case len(c.Cycle) > 0:
			t = atomCycle.Apply(atomList(c.Cycle))
		default:
			t = atomDeps.Apply(atomList(c.Deps))
		}
		return unifyAll(env, k, out, t)
	})
	// any(test) answers "some A in As and the B in Bs with test(A, B)".
	any := func(test func(a, b string) bool) engine.Predicate3 {
		return func(vm *engine.VM, as, bs, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			for _, a := range atoms(as, env) {
				for _, b := range atoms(bs, env) {
					if a != b && test(a, b) {
						return unifyAll(env, k, out, engine.NewAtom(b))
					}
				}
			}
			return engine.Bool(false)
		}
	}
	vm.Register3(engine.NewAtom("conflicting"), any(f.Conflict))
	vm.Register3(engine.NewAtom("superseded_by"), func(vm *engine.VM, a, bs, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		return any(func(x, y string) bool { return f.Supersedes(y, x) })(vm, engine.List(a), bs, out, k, env)
	})
	vm.Register2(engine.NewAtom("memberchk"), func(vm *engine.VM, x, list engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		iter := engine.ListIterator{List: list, Env: env}
		for iter.Next() {
			if e, ok := env.Unify(x, iter.Current()); ok {
				return k(e)
			}
		}
		return engine.Bool(false)
	})
	// names/2, lexical_scores/2, values/2 and append/2 are list plumbing,
	// not policy: each is one step here instead of one interpreter step per
	// element.
	vm.Register2(engine.NewAtom("names"), mapList(atomCand, 3, func(c engine.Compound, _ *engine.Env) (engine.Term, bool) {
		return c.Arg(0), true
	}))
	vm.Register2(engine.NewAtom("lexical_scores"), mapList(atomCand, 3, func(c engine.Compound, env *engine.Env) (engine.Term, bool) {
		return c.Arg(2), env.Resolve(c.Arg(1)) == atomLexical
	}))
	vm.Register2(engine.NewAtom("values"), mapList(atomMinus, 2, func(c engine.Compound, _ *engine.Env) (engine.Term, bool) {
		return c.Arg(1), true
	}))
	vm.Register2(engine.NewAtom("append"), func(vm *engine.VM, lists, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		var all []engine.Term
		outer := engine.ListIterator{List: lists, Env: env}
		for outer.Next() {
			inner := engine.ListIterator{List: outer.Current(), Env: env}
			for inner.Next() {
				all = append(all, inner.Current())
			}
			if inner.Err() != nil {
				return engine.Bool(false)
			}
		}
		if outer.Err() != nil {
			return engine.Bool(false)
		}
		return unifyAll(env, k, out, engine.List(all...))
	})
	vm.Register3(engine.NewAtom("subtract"), func(vm *engine.VM, xs, ys, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		drop := map[string]bool{}
		for _, y := range atoms(ys, env) {
			drop[y] = true
		}
		var keep []string
		for _, x := range atoms(xs, env) {
			if !drop[x] {
				keep = append(keep, x)
			}
		}
		return unifyAll(env, k, out, atomList(keep))
	})

	requestFact := func(pick func(*Request) map[string]bool) engine.Predicate2 {
		return func(vm *engine.VM, req, name engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			r, ok := env.Resolve(req).(reqTerm)
			n, ok2 := atomArg(name, env)
			if !ok || !ok2 || !pick(r.r)[n] {
				return engine.Bool(false)
			}
			return k(env)
		}
	}
	vm.Register2(engine.NewAtom("explicit"), requestFact(func(r *Request) map[string]bool { return r.Explicit }))
	vm.Register2(engine.NewAtom("mandatory"), requestFact(func(r *Request) map[string]bool { return r.Mandatory }))
	vm.Register2(engine.NewAtom("denied"), requestFact(func(r *Request) map[string]bool { return r.Denied }))
	vm.Register2(engine.NewAtom("negated"), requestFact(func(r *Request) map[string]bool { return r.Negated }))
	pairFact := func(pick func(*Request) map[[2]string]bool) engine.Predicate3 {
		return func(vm *engine.VM, req, a, b engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			r, ok := env.Resolve(req).(reqTerm)
			x, ok2 := atomArg(a, env)
			y, ok3 := atomArg(b, env)
			if !ok || !ok2 || !ok3 || !pick(r.r)[[2]string{x, y}] {
				return engine.Bool(false)
			}
			return k(env)
		}
	}
	vm.Register3(engine.NewAtom("redundant"), pairFact(func(r *Request) map[[2]string]bool { return r.Redundant }))
	vm.Register3(engine.NewAtom("same_object"), pairFact(func(r *Request) map[[2]string]bool { return r.SameObject }))
	vm.Register3(engine.NewAtom("apart"), pairFact(func(r *Request) map[[2]string]bool { return r.Apart }))
	vm.Register4(engine.NewAtom("covered_by"), func(vm *engine.VM, req, name, seen, by engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		r, ok := env.Resolve(req).(reqTerm)
		n, ok2 := atomArg(name, env)
		if !ok || !ok2 {
			return engine.Bool(false)
		}
		for _, a := range atoms(seen, env) {
			if p := [2]string{a, n}; r.r.Redundant[p] || (r.r.Apart != nil && !r.r.Apart[p]) {
				return unifyAll(env, k, by, engine.NewAtom(a))
			}
		}
		return engine.Bool(false)
	})
	vm.Register2(engine.NewAtom("ambiguity_mode"), func(vm *engine.VM, req, mode engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		r, ok := env.Resolve(req).(reqTerm)
		if !ok {
			return engine.Bool(false)
		}
		m := r.r.Ambiguity
		if m == "" {
			m = "ask"
		}
		return unifyAll(env, k, mode, engine.NewAtom(m))
	})
	number := func(pick func(*Request) int) engine.Predicate2 {
		return func(vm *engine.VM, req, t engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			r, ok := env.Resolve(req).(reqTerm)
			if !ok {
				return engine.Bool(false)
			}
			return unifyAll(env, k, t, engine.Integer(pick(r.r)))
		}
	}
	vm.Register2(engine.NewAtom("threshold"), number(func(r *Request) int { return r.Threshold }))
	vm.Register2(engine.NewAtom("tie_ratio"), number(func(r *Request) int { return r.TieRatio }))
	vm.Register3(engine.NewAtom("breadth"), func(vm *engine.VM, req, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		r, ok := env.Resolve(req).(reqTerm)
		n, ok2 := atomArg(name, env)
		if !ok || !ok2 {
			return engine.Bool(false)
		}
		return unifyAll(env, k, out, engine.Integer(r.r.Breadth[n]))
	})
	vm.Register4(engine.NewAtom("own_words"), func(vm *engine.VM, req, best, rfact, own engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		r, ok := env.Resolve(req).(reqTerm)
		n, ok2 := atomArg(best, env)
		if !ok || !ok2 {
			return engine.Bool(false)
		}
		b, clear := r.r.ownWordsClear(n, runnerUpName(rfact, env))
		if !clear {
			return engine.Bool(false)
		}
		return unifyAll(env, k, own, engine.Integer(b))
	})
	vm.Register2(engine.NewAtom("support_floor"), number(func(r *Request) int { return r.SupportFloor }))
	vm.Register2(engine.NewAtom("withdrawn"), number(func(r *Request) int { return r.Withdrawn }))
	vm.Register2(engine.NewAtom("min_confidence"), number(func(r *Request) int { return r.MinConfidence }))
	vm.Register2(engine.NewAtom("intent_confidence"), number(func(r *Request) int { return r.IntentConfidence }))
	vm.Register3(engine.NewAtom("confidence"), func(vm *engine.VM, req, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		r, ok := env.Resolve(req).(reqTerm)
		n, ok2 := atomArg(name, env)
		if !ok || !ok2 {
			return engine.Bool(false)
		}
		if r.r.Confidence == nil {
			return engine.Bool(false)
		}
		c, ok := r.r.Confidence(n)
		if !ok {
			return engine.Bool(false)
		}
		return unifyAll(env, k, out, engine.Integer(c))
	})
	vm.Register3(engine.NewAtom("explains_more"), func(vm *engine.VM, req, a, b engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		r, ok := env.Resolve(req).(reqTerm)
		x, ok2 := atomArg(a, env)
		y, ok3 := atomArg(b, env)
		if !ok || !ok2 || !ok3 || r.r.ExplainsMore == nil || !r.r.ExplainsMore(x, y) {
			return engine.Bool(false)
		}
		return k(env)
	})
	vm.Register1(engine.NewAtom("judged"), func(vm *engine.VM, req engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		if r, ok := env.Resolve(req).(reqTerm); ok && r.r.Judged {
			return k(env)
		}
		return engine.Bool(false)
	})
	vm.Register3(engine.NewAtom("tokens"), func(vm *engine.VM, req, names, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		r, ok := env.Resolve(req).(reqTerm)
		if !ok {
			return engine.Bool(false)
		}
		sum := 0
		for _, n := range atoms(names, env) {
			sum += r.r.Tokens(n)
		}
		return unifyAll(env, k, out, engine.Integer(sum))
	})
}

// mapList makes a predicate p(+List, -Out) for a proper list of
// functor/arity terms: Out holds pick's term for each element it keeps, in
// order. Any other element fails the call.
func mapList(functor engine.Atom, arity int, pick func(engine.Compound, *engine.Env) (engine.Term, bool)) engine.Predicate2 {
	return func(vm *engine.VM, list, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		var ts []engine.Term
		iter := engine.ListIterator{List: list, Env: env}
		for iter.Next() {
			c, ok := env.Resolve(iter.Current()).(engine.Compound)
			if !ok || c.Functor() != functor || c.Arity() != arity {
				return engine.Bool(false)
			}
			if t, keep := pick(c, env); keep {
				ts = append(ts, t)
			}
		}
		if iter.Err() != nil {
			return engine.Bool(false)
		}
		return unifyAll(env, k, out, engine.List(ts...))
	}
}

// atoms returns the atoms of a proper list of atoms; anything else in it is
// skipped, which for these helpers means "no match".
func atoms(list engine.Term, env *engine.Env) []string {
	var out []string
	iter := engine.ListIterator{List: list, Env: env}
	for iter.Next() {
		if a, ok := env.Resolve(iter.Current()).(engine.Atom); ok {
			out = append(out, a.String())
		}
	}
	return out
}

func atomArg(t engine.Term, env *engine.Env) (string, bool) {
	a, ok := env.Resolve(t).(engine.Atom)
	if !ok {
		return "", false
	}
	return a.String(), true
}

var atomRunnerUp = engine.NewAtom("runner_up")

// runnerUpName returns U of a runner_up(U, _) fact, or "" for any other
// (a withdrawn runner-up, none).
func runnerUpName(t engine.Term, env *engine.Env) string {
	c, ok := env.Resolve(t).(engine.Compound)
	if !ok || c.Functor() != atomRunnerUp || c.Arity() != 2 {
		return ""
	}
	n, _ := atomArg(c.Arg(0), env)
	return n
}

func atomList(names []string) engine.Term {
	ts := make([]engine.Term, len(names))
	for i, n := range names {
		ts[i] = engine.NewAtom(n)
	}
	return engine.List(ts...)
}

// unifyAll unifies pairs of terms and continues with k when all unify.
func unifyAll(env *engine.Env, k engine.Cont, pairs ...engine.Term) *engine.Promise {
	for i := 0; i+1 < len(pairs); i += 2 {
		var ok bool
		if env, ok = env.Unify(pairs[i], pairs[i+1]); !ok {
			return engine.Bool(false)
		}
	}
	return k(env)
}
