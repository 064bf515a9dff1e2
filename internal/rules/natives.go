package rules

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ichiban/prolog/engine"
)

// argType is what a native needs of one argument. A miscalled native
// raises, as ISO builtins do, instead of answering false: in a policy,
// "false" reads as "not denied", "not negated", "no conflict", so a clause
// that passes arguments in the wrong order would fail open and select what
// it should reject. An exception ends the run, and the compile with it.
type argType uint8

const (
	argAny     argType = iota // ?Term: anything, unchecked
	argOut                    // -Term: an output, unchecked
	argRequest                // +Req: the request term Go passed in
	argAtom                   // +Atom
	argTerm                   // +Term: bound, of any type
	argAtoms                  // +List of atoms
	argList                   // +List of any terms
	argLists                  // +List of lists
	argCands                  // +List of cand/3 terms
	argPairs                  // +List of Key-Value pairs
	argOutAtom                // -Atom: unbound, or an atom to compare with
	argOutInt                 // -Integer: unbound, or an integer to compare with
)

var (
	atomRequest = engine.NewAtom("request")
	atomAtom    = engine.NewAtom("atom")
	atomInteger = engine.NewAtom("integer")
	atomPair    = engine.NewAtom("pair")
	// atomListType is the type list; atomList is a function here.
	atomListType = engine.NewAtom("list")
	atomDot      = engine.NewAtom(".")
	atomEmpty    = engine.NewAtom("[]")
)

// check returns t resolved, which the native is then given, or the
// exception a call passing t for an argument of type a raises. It
// allocates only when it raises, and resolves t once: resolving a bound
// variable allocates, so the native must not do it a second time. An
// output, or an argAny argument, is passed on as it is.
func (a argType) check(t engine.Term, env *engine.Env) (engine.Term, error) {
	switch a {
	case argAny, argOut:
		return t, nil
	case argOutAtom, argOutInt:
		// An output the caller bound is a comparison: the native's answer
		// does not unify with a wrong one, as with any other value. A
		// variable is not resolved to check its type, which would cost
		// an allocation in most calls (resolving a bound variable
		// allocates); a constant of the wrong type, which could only make
		// the call fail, raises as ISO builtins do (and the load refuses
		// it first: checkCalls).
		switch t.(type) {
		case engine.Variable:
		case engine.Atom:
			if a == argOutInt {
				return nil, engine.TypeError(atomInteger, t, env)
			}
		case engine.Integer:
			if a == argOutAtom {
				return nil, engine.TypeError(atomAtom, t, env)
			}
		default:
			if a == argOutInt {
				return nil, engine.TypeError(atomInteger, t, env)
			}
			return nil, engine.TypeError(atomAtom, t, env)
		}
		return t, nil
	}
	t = env.Resolve(t)
	if _, ok := t.(engine.Variable); ok {
		return nil, engine.InstantiationError(env)
	}
	switch a {
	case argRequest:
		if _, ok := t.(reqTerm); !ok {
			return nil, engine.TypeError(atomRequest, t, env)
		}
	case argAtom:
		if _, ok := t.(engine.Atom); !ok {
			return nil, engine.TypeError(atomAtom, t, env)
		}
	case argAtoms, argList, argLists, argCands, argPairs:
		// Only the first cell: walking a list Go built allocates at every
		// element (ichiban boxes each tail), so the native checks the rest,
		// and each element, in the one walk it makes anyway (walk).
		if c, ok := t.(engine.Compound); !(ok && c.Functor() == atomDot && c.Arity() == 2) && t != atomEmpty {
			return nil, engine.TypeError(atomListType, t, env)
		}
	}
	return t, nil
}

// walk calls f on each element of a list argument of type a, checked and
// resolved, and returns the exception of the first bad element, or of a
// list that turns out partial or improper, if any.
func (a argType) walk(list engine.Term, env *engine.Env, f func(engine.Term)) error {
	iter := engine.ListIterator{List: list, Env: env}
	for iter.Next() {
		t, err := a.elem(iter.Current(), env)
		if err != nil {
			return err
		}
		f(t)
	}
	return iter.Err()
}

// elem checks one element of a list argument and returns it resolved.
func (a argType) elem(t engine.Term, env *engine.Env) (engine.Term, error) {
	switch a {
	case argAtoms:
		return argAtom.check(t, env)
	case argLists:
		return argList.check(t, env)
	case argCands:
		return compoundElem(env.Resolve(t), atomCand, 3, atomCand, env)
	case argPairs:
		return compoundElem(env.Resolve(t), atomMinus, 2, atomPair, env)
	}
	return t, nil
}

// compoundElem returns t when it is functor/arity, else raises
// type_error(typ, t).
func compoundElem(t engine.Term, functor engine.Atom, arity int, typ engine.Atom, env *engine.Env) (engine.Term, error) {
	switch c := t.(type) {
	case engine.Variable:
		return nil, engine.InstantiationError(env)
	case engine.Compound:
		if c.Functor() == functor && c.Arity() == arity {
			return t, nil
		}
	}
	return nil, engine.TypeError(typ, t, env)
}

// arg is one argument of a native: its name in policy.pl's documentation
// and its type.
type arg struct {
	name string
	typ  argType
}

// native is one Go-native predicate: its name, its arguments and its
// implementation (an engine.Predicate1 to engine.Predicate4 of as many
// arguments), which runs only once every argument passed its check, so
// it may assume the types its arguments declare.
type native struct {
	name string
	args []arg
	pred any
}

// indicator is the native's name/arity, as the allowlist spells it.
func (n native) indicator() string { return fmt.Sprintf("%s/%d", n.name, len(n.args)) }

// mode is the native's template, as policy.pl documents it:
// denied(+Req, +Name).
func (n native) mode() string {
	var b strings.Builder
	b.WriteString(n.name)
	b.WriteByte('(')
	for i, a := range n.args {
		if i > 0 {
			b.WriteString(", ")
		}
		switch a.typ {
		case argAny:
			b.WriteByte('?')
		case argOut, argOutAtom, argOutInt:
			b.WriteByte('-')
		default:
			b.WriteByte('+')
		}
		b.WriteString(a.name)
	}
	b.WriteByte(')')
	return b.String()
}

// register installs n on vm behind its argument checks.
func (n native) register(vm *engine.VM) {
	name, as := engine.NewAtom(n.name), n.args
	bad := func() { panic(fmt.Sprintf("rules: native %s has %d arguments and a %T", n.name, len(as), n.pred)) }
	// Each wrapper checks the arguments in order, so that the first bad
	// one is the one reported, and gives the native the resolved terms.
	switch p := n.pred.(type) {
	case engine.Predicate1:
		if len(as) != 1 {
			bad()
		}
		vm.Register1(name, func(vm *engine.VM, a engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			var err error
			if a, err = as[0].typ.check(a, env); err != nil {
				return engine.Error(err)
			}
			return p(vm, a, k, env)
		})
	case engine.Predicate2:
		if len(as) != 2 {
			bad()
		}
		vm.Register2(name, func(vm *engine.VM, a, b engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			var err error
			if a, err = as[0].typ.check(a, env); err != nil {
				return engine.Error(err)
			}
			if b, err = as[1].typ.check(b, env); err != nil {
				return engine.Error(err)
			}
			return p(vm, a, b, k, env)
		})
	case engine.Predicate3:
		if len(as) != 3 {
			bad()
		}
		vm.Register3(name, func(vm *engine.VM, a, b, c engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			var err error
			if a, err = as[0].typ.check(a, env); err != nil {
				return engine.Error(err)
			}
			if b, err = as[1].typ.check(b, env); err != nil {
				return engine.Error(err)
			}
			if c, err = as[2].typ.check(c, env); err != nil {
				return engine.Error(err)
			}
			return p(vm, a, b, c, k, env)
		})
	case engine.Predicate4:
		if len(as) != 4 {
			bad()
		}
		vm.Register4(name, func(vm *engine.VM, a, b, c, d engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			var err error
			if a, err = as[0].typ.check(a, env); err != nil {
				return engine.Error(err)
			}
			if b, err = as[1].typ.check(b, env); err != nil {
				return engine.Error(err)
			}
			if c, err = as[2].typ.check(c, env); err != nil {
				return engine.Error(err)
			}
			if d, err = as[3].typ.check(d, env); err != nil {
				return engine.Error(err)
			}
			return p(vm, a, b, c, d, k, env)
		})
	default:
		bad()
	}
}

// The argument lists natives share.
var (
	reqName  = []arg{{"Req", argRequest}, {"Name", argAtom}}
	reqPair  = []arg{{"Req", argRequest}, {"A", argAtom}, {"B", argAtom}}
	reqValue = func(name string) []arg { return []arg{{"Req", argRequest}, {name, argOutInt}} }
)

// natives describes every Go-native predicate once: registerFacts
// installs them, the sandbox's allowlist lists them and policy.pl's header
// documents each by its mode (TestPolicyDocumentsNatives). Each is
// deterministic and answers in one step, which matters with an
// interpreter that costs microseconds per inference. The implementations
// answer from f; natives(nil) serves for the descriptions alone.
func natives(f Facts) []native {
	// any(test) answers "some A in As and the B in Bs with test(A, B)".
	any := func(test func(a, b string) bool) engine.Predicate3 {
		return func(vm *engine.VM, as, bs, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			xs, err := atoms(as, env)
			if err != nil {
				return engine.Error(err)
			}
			ys, err := atoms(bs, env)
			if err != nil {
				return engine.Error(err)
			}
			for _, a := range xs {
				for _, b := range ys {
					if a != b && test(a, b) {
						return unifyAll(env, k, out, engine.NewAtom(b))
					}
				}
			}
			return engine.Bool(false)
		}
	}
	requestFact := func(pick func(*Request) map[string]bool) engine.Predicate2 {
		return func(vm *engine.VM, req, name engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			if !pick(reqOf(req))[atomOf(name)] {
				return engine.Bool(false)
			}
			return k(env)
		}
	}
	pairFact := func(pick func(*Request) map[[2]string]bool) engine.Predicate3 {
		return func(vm *engine.VM, req, a, b engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			if !pick(reqOf(req))[[2]string{atomOf(a), atomOf(b)}] {
				return engine.Bool(false)
			}
			return k(env)
		}
	}
	number := func(pick func(*Request) int) engine.Predicate2 {
		return func(vm *engine.VM, req, t engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			return unifyAll(env, k, t, engine.Integer(pick(reqOf(req))))
		}
	}
	return []native{
		// Facts about the catalog.
		{"unit", []arg{{"Name", argAtom}, {"Status", argOutAtom}, {"Invocation", argOutAtom}, {"Priority", argOutInt}},
			engine.Predicate4(func(vm *engine.VM, name, status, inv, prio engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				u, ok := f.Unit(atomOf(name))
				if !ok {
					return engine.Bool(false)
				}
				return unifyAll(env, k,
					status, engine.NewAtom(string(u.Status)),
					inv, engine.NewAtom(string(u.Invocation)),
					prio, engine.Integer(u.Priority))
			})},
		{"closure", []arg{{"Name", argAtom}, {"Closure", argOut}},
			engine.Predicate2(func(vm *engine.VM, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				c := f.Closure(atomOf(name))
				var t engine.Term
				switch {
				case c.Missing != "":
					t = atomMissing.Apply(engine.NewAtom(c.Missing))
				case len(c.Cycle) > 0:
					t = atomCycle.Apply(atomList(c.Cycle))
				case c.Conflict != "":
					t = atomConflict.Apply(engine.NewAtom(c.Conflict))
				default:
					t = atomDeps.Apply(atomList(c.Deps))
				}
				return unifyAll(env, k, out, t)
			})},
		{"conflicting", []arg{{"As", argAtoms}, {"Bs", argAtoms}, {"B", argOutAtom}}, any(func(a, b string) bool { return f.Conflict(a, b) })},
		{"superseded_by", []arg{{"A", argAtom}, {"Bs", argAtoms}, {"B", argOutAtom}},
			engine.Predicate3(func(vm *engine.VM, a, bs, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				return any(func(x, y string) bool { return f.Supersedes(y, x) })(vm, engine.List(a), bs, out, k, env)
			})},

		// Facts about the request.
		{"explicit", reqName, requestFact(func(r *Request) map[string]bool { return r.Explicit })},
		{"mandatory", reqName, requestFact(func(r *Request) map[string]bool { return r.Mandatory })},
		{"denied", reqName, requestFact(func(r *Request) map[string]bool { return r.Denied })},
		{"negated", reqName, requestFact(func(r *Request) map[string]bool { return r.Negated })},
		{"tokens", []arg{{"Req", argRequest}, {"Names", argAtoms}, {"N", argOutInt}},
			engine.Predicate3(func(vm *engine.VM, req, names, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				ns, err := atoms(names, env)
				if err != nil {
					return engine.Error(err)
				}
				r, sum := reqOf(req), 0
				if r.Tokens == nil {
					// Nothing is measured yet (eligible/3 runs before
					// the bodies are read): fail closed, more than
					// any budget.
					return unifyAll(env, k, out, engine.Integer(math.MaxInt32))
				}
				for _, n := range ns {
					sum += r.Tokens(n)
				}
				return unifyAll(env, k, out, engine.Integer(sum))
			})},
		{"reference_tokens", []arg{{"Req", argRequest}, {"Names", argAtoms}, {"N", argOutInt}},
			engine.Predicate3(func(vm *engine.VM, req, names, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				ns, err := atoms(names, env)
				if err != nil {
					return engine.Error(err)
				}
				r := reqOf(req)
				if r.ReferenceTokens == nil {
					// No reference can be rendered: it costs more
					// than any budget.
					return unifyAll(env, k, out, engine.Integer(math.MaxInt32))
				}
				sum := 0
				for _, n := range ns {
					sum += r.ReferenceTokens(n)
				}
				return unifyAll(env, k, out, engine.Integer(sum))
			})},
		{"ambiguity_mode", []arg{{"Req", argRequest}, {"Mode", argOutAtom}},
			engine.Predicate2(func(vm *engine.VM, req, mode engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				m := reqOf(req).Ambiguity
				if m == "" {
					m = "ask"
				}
				return unifyAll(env, k, mode, engine.NewAtom(m))
			})},
		{"redundant", reqPair, pairFact(func(r *Request) map[[2]string]bool { return r.Redundant })},
		// clauses_compared/1 holds when the request compared the task's
		// clauses (Apart is computed): only then does answering no clause
		// as well as a kept unit make a candidate redundant.
		{"clauses_compared", []arg{{"Req", argRequest}},
			engine.Predicate1(func(vm *engine.VM, req engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				if reqOf(req).Apart == nil {
					return engine.Bool(false)
				}
				return k(env)
			})},
		{"same_object", reqPair, pairFact(func(r *Request) map[[2]string]bool { return r.SameObject })},
		{"apart", reqPair, engine.Predicate3(func(vm *engine.VM, req, a, b engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			return engine.Bool(apartIn(reqOf(req).Apart, [2]string{atomOf(a), atomOf(b)}))
		})},
		// apart/4 answers the score of B's evidence in the clause it
		// answers at least as well as A, and fails when there is none.
		{"apart", []arg{{"Req", argRequest}, {"A", argAtom}, {"B", argAtom}, {"W", argOutInt}},
			engine.Predicate4(func(vm *engine.VM, req, a, b, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				w, ok := reqOf(req).Apart[[2]string{atomOf(a), atomOf(b)}]
				if !ok {
					return engine.Bool(false)
				}
				return unifyAll(env, k, out, engine.Integer(w))
			})},
		// own_part/4 answers B's score on a part of the task of its own
		// beside A, and fails for a pair without one. A request that
		// carries no OwnPart answers notComputed for every pair: a
		// caller that does not compute it has no candidate held back
		// for want of a part of its own.
		{"own_part", []arg{{"Req", argRequest}, {"A", argAtom}, {"B", argAtom}, {"W", argOutInt}},
			engine.Predicate4(func(vm *engine.VM, req, a, b, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				r := reqOf(req)
				if r.OwnPart == nil {
					return unifyAll(env, k, out, engine.Integer(notComputed))
				}
				w, ok := r.OwnPart[[2]string{atomOf(a), atomOf(b)}]
				if !ok {
					return engine.Bool(false)
				}
				return unifyAll(env, k, out, engine.Integer(w))
			})},
		{"breadth", []arg{{"Req", argRequest}, {"Name", argAtom}, {"B", argOutInt}},
			engine.Predicate3(func(vm *engine.VM, req, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				return unifyAll(env, k, out, engine.Integer(reqOf(req).Breadth[atomOf(name)]))
			})},
		{"material", []arg{{"Req", argRequest}, {"Name", argAtom}, {"M", argOutInt}},
			engine.Predicate3(func(vm *engine.VM, req, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				w, ok := reqOf(req).Material[atomOf(name)]
				if !ok {
					return engine.Bool(false)
				}
				return unifyAll(env, k, out, engine.Integer(w))
			})},
		{"material_floor", reqValue("F"), number(func(r *Request) int { return r.MaterialFloor })},
		{"states_own_words", reqName, requestFact(func(r *Request) map[string]bool { return r.OwnWords })},
		{"whole_task", reqName, requestFact(func(r *Request) map[string]bool { return r.WholeTask })},
		{"threshold", reqValue("T"), number(func(r *Request) int { return r.Threshold })},
		{"support_floor", reqValue("F"), number(func(r *Request) int { return r.SupportFloor })},
		{"candidate_floor", reqValue("F"), number(func(r *Request) int { return r.CandidateFloor })},
		{"tie_ratio", reqValue("R"), number(func(r *Request) int { return r.TieRatio })},
		{"threshold_margin", reqValue("M"), number(func(r *Request) int { return r.ThresholdMargin })},
		{"margin_ratio", reqValue("M"), number(func(r *Request) int { return r.MarginRatio })},
		{"min_breadth", reqValue("B"), number(func(r *Request) int { return r.MinBreadth })},
		{"withdrawn", reqValue("W"), number(func(r *Request) int { return r.Withdrawn })},
		// unavailable/2 answers u(Name, W), the explicit-user-only unit
		// kept from the candidates with the best score W, or none.
		{"unavailable", []arg{{"Req", argRequest}, {"U", argOut}}, engine.Predicate2(func(vm *engine.VM, req, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
			r := reqOf(req)
			if r.UnavailableBy == "" {
				return unifyAll(env, k, out, atomNone)
			}
			return unifyAll(env, k, out, atomU.Apply(engine.NewAtom(r.UnavailableBy), engine.Integer(r.Unavailable)))
		})},
		{"crowd", reqValue("C"), number(func(r *Request) int { return r.Crowd })},
		{"crowd_bar", reqValue("B"), number(func(r *Request) int { return r.CrowdBar })},
		{"confidence", []arg{{"Req", argRequest}, {"Name", argAtom}, {"C", argOutInt}},
			engine.Predicate3(func(vm *engine.VM, req, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				r := reqOf(req)
				if r.Confidence == nil {
					return engine.Bool(false)
				}
				c, ok := r.Confidence(atomOf(name))
				if !ok {
					return engine.Bool(false)
				}
				return unifyAll(env, k, out, engine.Integer(c))
			})},
		{"explained", []arg{{"Req", argRequest}, {"Name", argAtom}, {"E", argOutInt}},
			engine.Predicate3(func(vm *engine.VM, req, name, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				r := reqOf(req)
				if r.Explained == nil { // not computed: every tie is asked about
					return unifyAll(env, k, out, engine.Integer(wholeShare))
				}
				e, ok := r.Explained(atomOf(name))
				if !ok {
					return engine.Bool(false)
				}
				return unifyAll(env, k, out, engine.Integer(e))
			})},
		{"tie_task_share", reqValue("S"), number(func(r *Request) int { return r.TieTaskShare })},
		{"min_confidence", reqValue("M"), number(func(r *Request) int { return r.MinConfidence })},
		{"intent_confidence", reqValue("I"), number(func(r *Request) int { return r.IntentConfidence })},
		{"explains_more", reqPair,
			engine.Predicate3(func(vm *engine.VM, req, a, b engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				r := reqOf(req)
				if r.ExplainsMore == nil || !r.ExplainsMore(atomOf(a), atomOf(b)) {
					return engine.Bool(false)
				}
				return k(env)
			})},
		{"pasted", []arg{{"Req", argRequest}},
			engine.Predicate1(func(vm *engine.VM, req engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				if len(reqOf(req).Material) == 0 {
					return engine.Bool(false)
				}
				return k(env)
			})},
		{"judged", []arg{{"Req", argRequest}},
			engine.Predicate1(func(vm *engine.VM, req engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				if !reqOf(req).Judged {
					return engine.Bool(false)
				}
				return k(env)
			})},

		// List helpers, in Go because the sandbox lacks them or because
		// one Go step beats one interpreter step per element.
		{"memberchk", []arg{{"X", argAny}, {"List", argList}},
			engine.Predicate2(func(vm *engine.VM, x, list engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				iter := engine.ListIterator{List: list, Env: env}
				for iter.Next() {
					if e, ok := env.Unify(x, iter.Current()); ok {
						return k(e)
					}
				}
				if err := iter.Err(); err != nil {
					return engine.Error(err)
				}
				return engine.Bool(false)
			})},
		{"subtract", []arg{{"Xs", argAtoms}, {"Ys", argAtoms}, {"Zs", argOut}},
			engine.Predicate3(func(vm *engine.VM, xs, ys, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				as, err := atoms(xs, env)
				if err != nil {
					return engine.Error(err)
				}
				bs, err := atoms(ys, env)
				if err != nil {
					return engine.Error(err)
				}
				drop := map[string]bool{}
				for _, y := range bs {
					drop[y] = true
				}
				var keep []string
				for _, x := range as {
					if !drop[x] {
						keep = append(keep, x)
					}
				}
				return unifyAll(env, k, out, atomList(keep))
			})},
		{"append", []arg{{"Lists", argLists}, {"List", argOut}},
			engine.Predicate2(func(vm *engine.VM, lists, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
				var all []engine.Term
				err := argLists.walk(lists, env, func(l engine.Term) {
					inner := engine.ListIterator{List: l, Env: env}
					for inner.Next() {
						all = append(all, inner.Current())
					}
				})
				if err != nil {
					return engine.Error(err)
				}
				return unifyAll(env, k, out, engine.List(all...))
			})},
		{"names", []arg{{"Cands", argCands}, {"Names", argOut}}, mapList(argCands, func(c engine.Compound, _ *engine.Env) (engine.Term, bool) {
			return c.Arg(0), true
		})},
		// Highest first: rule 10's best is the best on evidence, whatever
		// priority ranked first (rule 8).
		{"lexical_scores", []arg{{"Cands", argCands}, {"Scores", argOut}}, sortedList(argCands, func(c engine.Compound, env *engine.Env) (engine.Term, bool) {
			return env.Resolve(c.Arg(2)), env.Resolve(c.Arg(1)) == atomLexical
		}, func(x, y engine.Term) int { return cmp.Compare(y.(engine.Integer), x.(engine.Integer)) })},
		{"values", []arg{{"Pairs", argPairs}, {"Values", argOut}}, mapList(argPairs, func(c engine.Compound, _ *engine.Env) (engine.Term, bool) {
			return c.Arg(1), true
		})},
	}
}

// registerFacts installs the natives, answering from f.
func registerFacts(vm *engine.VM, f Facts) {
	for _, n := range natives(f) {
		n.register(vm)
	}
}

// mapList makes a predicate p(+List, -Out) over a list of elements of
// type a: Out holds pick's term for each element it keeps, in order.
func mapList(a argType, pick func(engine.Compound, *engine.Env) (engine.Term, bool)) engine.Predicate2 {
	return sortedList(a, pick, nil)
}

// sortedList is mapList with the picked terms stably sorted by order
// (kept in list order when order is nil).
func sortedList(a argType, pick func(engine.Compound, *engine.Env) (engine.Term, bool), order func(x, y engine.Term) int) engine.Predicate2 {
	return func(vm *engine.VM, list, out engine.Term, k engine.Cont, env *engine.Env) *engine.Promise {
		var ts []engine.Term
		err := a.walk(list, env, func(e engine.Term) {
			if t, keep := pick(e.(engine.Compound), env); keep {
				ts = append(ts, t)
			}
		})
		if err != nil {
			return engine.Error(err)
		}
		if order != nil {
			slices.SortStableFunc(ts, order)
		}
		return unifyAll(env, k, out, engine.List(ts...))
	}
}

// atoms returns the atoms of a list argument, or the exception a bad
// element or an improper list raises.
func atoms(list engine.Term, env *engine.Env) ([]string, error) {
	var out []string
	err := argAtoms.walk(list, env, func(t engine.Term) {
		out = append(out, atomOf(t))
	})
	return out, err
}

// reqOf and atomOf read an argument its check has vetted and resolved.
func reqOf(t engine.Term) *Request { return t.(reqTerm).r }

func atomOf(t engine.Term) string { return t.(engine.Atom).String() }

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

// apartIn reports whether the pair is apart.
func apartIn(m map[[2]string]int, p [2]string) bool {
	_, ok := m[p]
	return ok
}

// notComputed is the weight own_part/4 answers when the request does not
// compute OwnPart: more than any score.
const notComputed = 1 << 30

// wholeShare is explained/3's answer when the request does not compute
// it: a share x 1000 of the whole task.
const wholeShare = 1000
