package rules

import (
	"github.com/rlmc-dev/rlmc/ir"
)

// fakeFacts is a small in-memory catalog for policy tests.
type fakeFacts struct {
	units      map[string]UnitFacts
	requires   map[string][]string
	conflicts  [][2]string
	supersedes [][2]string
}

func (f *fakeFacts) Unit(n string) (UnitFacts, bool) { u, ok := f.units[n]; return u, ok }

func (f *fakeFacts) Closure(n string) Closure {
	var (
		order []string
		state = map[string]int{}
		stack []string
		res   Closure
	)
	var visit func(string) bool
	visit = func(x string) bool {
		switch state[x] {
		case 1:
			res.Cycle = append(append([]string{}, stack...), x)
			return false
		case 2:
			return true
		}
		if _, ok := f.units[x]; !ok {
			res.Missing = x
			return false
		}
		state[x] = 1
		stack = append(stack, x)
		for _, d := range f.requires[x] {
			if !visit(d) {
				return false
			}
		}
		stack = stack[:len(stack)-1]
		state[x] = 2
		if x != n {
			order = append(order, x)
		}
		return true
	}
	if visit(n) {
		res.Deps = order
	}
	return res
}

func (f *fakeFacts) Conflict(a, b string) bool {
	for _, c := range f.conflicts {
		if (c[0] == a && c[1] == b) || (c[0] == b && c[1] == a) {
			return true
		}
	}
	return false
}

func (f *fakeFacts) Supersedes(a, b string) bool {
	for _, c := range f.supersedes {
		if c[0] == a && c[1] == b {
			return true
		}
	}
	return false
}

func ok(prio int) UnitFacts {
	return UnitFacts{Status: ir.StatusOK, Invocation: ir.InvocationAutomatic, Priority: prio}
}
