package compiler

import (
	"slices"
	"sort"
	"strings"

	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/ir"
)

// facts is the catalog as the policy sees it: standing, priorities and the
// relation graph, with every unit's closure outcome (complete, missing or
// cycle) computed once at New in time and memory linear in the graph. The
// dependency lists themselves are walked on demand: kept for every unit
// they would cost the square of a long chain. facts never changes after
// New, so concurrent compiles can share it.
type facts struct {
	cat *ir.Catalog
	// priority holds the host policy's priorities for the units of the
	// catalog it names; every other unit's is the default (priorityOf).
	priority   map[string]int
	requires   map[string][]string
	broken     map[string]rules.Closure // units whose closure is missing or cyclic
	done       map[string]bool          // units whose outcome is known
	conflicts  map[[2]string]bool       // both orders
	supersedes map[[2]string]bool       // [superseder, superseded]
	runs       map[[2]string]bool       // [command, unit it runs] (runsOf)
}

func newFacts(cat *ir.Catalog, p Policy) *facts {
	f := &facts{
		cat:        cat,
		priority:   map[string]int{},
		requires:   map[string][]string{},
		broken:     map[string]rules.Closure{},
		done:       map[string]bool{},
		conflicts:  map[[2]string]bool{},
		supersedes: map[[2]string]bool{},
		runs:       map[[2]string]bool{},
	}
	for _, u := range cat.Units {
		if u.Status == ir.StatusShadowed {
			continue
		}
		for _, dep := range runsOf(u, cat) {
			f.runs[[2]string{u.Name, dep}] = true
		}
		// A unit that requires nothing has no entry: most have none.
		if reqs := dedupe(ir.SkillRefs(u.Requires)); len(reqs) > 0 {
			f.requires[u.Name] = reqs
		}
		for _, c := range ir.SkillRefs(u.Conflicts) {
			if c == u.Name {
				continue // a self_reference: the edge has no effect
			}
			f.conflicts[[2]string{u.Name, c}] = true
			f.conflicts[[2]string{c, u.Name}] = true
		}
		for _, s := range ir.SkillRefs(u.Supersedes) {
			f.supersedes[[2]string{u.Name, s}] = true
		}
	}
	for n, prio := range p.Priority {
		if _, ok := cat.Lookup(n); ok {
			f.priority[n] = prio
		}
	}
	extra := make([]string, 0, len(p.Requires))
	for n := range p.Requires {
		extra = append(extra, n)
	}
	sort.Strings(extra)
	for _, n := range extra {
		if _, ok := cat.Lookup(n); ok {
			f.requires[n] = dedupe(append(f.requires[n], p.Requires[n]...))
		}
	}
	g := closureBuilder{f: f, onStack: map[string]int{}}
	for _, u := range cat.Units {
		if u.Status != ir.StatusShadowed {
			g.closure(u.Name)
		}
	}
	return f
}

func dedupe(names []string) []string {
	out := names[:0:0]
	if len(names) <= dedupeScan {
		// A unit requires a few others: a scan beats a map.
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// dedupeScan is the longest list dedupe scans rather than maps: a
// frontmatter may list thousands of names, and a scan is quadratic.
const dedupeScan = 16

// closureBuilder finds each unit's closure outcome depth first, visiting
// every unit and edge once. A unit that reaches a cycle or a missing unit
// gets that outcome: closures fail closed. Outcomes are shared, never
// copied, so the work is linear in the graph.
type closureBuilder struct {
	f       *facts
	onStack map[string]int // name -> index in stack
	stack   []string
}

func (g *closureBuilder) closure(n string) rules.Closure {
	if g.f.done[n] {
		return g.f.broken[n]
	}
	if len(g.f.requires[n]) == 0 {
		return rules.Closure{} // most units: a closure of their own alone, not recorded
	}
	g.onStack[n] = len(g.stack)
	g.stack = append(g.stack, n)
	var res rules.Closure
	for _, d := range g.f.requires[n] {
		if d == "" {
			// A closure's Missing "" means none is missing: an empty
			// name (a catalog a Go host built) is missing as written.
			res = rules.Closure{Missing: `""`}
			break
		}
		if _, ok := g.f.cat.Lookup(d); !ok {
			res = rules.Closure{Missing: d}
			break
		}
		if i, ok := g.onStack[d]; ok {
			res = rules.Closure{Cycle: append(append([]string{}, g.stack[i:]...), d)}
			break
		}
		if c := g.closure(d); c.Missing != "" || len(c.Cycle) > 0 {
			res = c
			break
		}
	}
	g.stack = g.stack[:len(g.stack)-1]
	delete(g.onStack, n)
	g.f.done[n] = true
	if res.Missing != "" || len(res.Cycle) > 0 {
		g.f.broken[n] = res
	}
	return res
}

// Unit implements rules.Facts.
func (f *facts) Unit(name string) (rules.UnitFacts, bool) {
	u, ok := f.cat.Lookup(name)
	if !ok {
		return rules.UnitFacts{}, false
	}
	return rules.UnitFacts{Status: u.Status, Invocation: u.Invocation, Priority: f.priorityOf(u)}, true
}

// priorityOf is u's priority: the host policy's for it, else the
// default. A skill's own (metadata.prolog-rlm) is recorded and orders
// nothing: declared beside a conflict, it let a weak skill knock the one
// the task asked for out of the compile (rule 12 keeps the higher
// priority of two conflicting units), and only the host re-prioritizes.
func (f *facts) priorityOf(u *ir.Unit) int {
	if p, ok := f.priority[u.Name]; ok {
		return p
	}
	return ir.DefaultPriority
}

// Closure implements rules.Facts. A complete closure lists every
// dependency once, dependencies first (depth-first post-order over requires
// in their written order); the walk costs the size of that closure.
func (f *facts) Closure(name string) rules.Closure {
	if c, ok := f.broken[name]; ok || !f.done[name] {
		return c
	}
	var (
		deps []string
		seen = map[string]bool{name: true}
		walk func(n string)
	)
	walk = func(n string) {
		for _, d := range f.requires[n] {
			if !seen[d] {
				seen[d] = true
				walk(d)
				deps = append(deps, d)
			}
		}
	}
	walk(name)
	dep, _ := f.groupConflict(name, deps)
	return rules.Closure{Deps: deps, Conflict: dep}
}

// groupConflict returns the first of deps that conflicts with unit or
// with another of deps, and that one (with), or "" when none does: the
// group never loads together, so the unit is never selected (rule 6),
// where rule 12 had admitted every unit of it, and validate says so
// (GraphProblems).
func (f *facts) groupConflict(unit string, deps []string) (dep, with string) {
	if len(f.conflicts) == 0 {
		return "", ""
	}
	for i, d := range deps {
		if f.conflicts[[2]string{unit, d}] {
			return d, unit
		}
		for _, e := range deps[i+1:] {
			if f.conflicts[[2]string{d, e}] {
				return d, e
			}
		}
	}
	return "", ""
}

// wraps reports whether unit's complete closure holds dep, or unit is a
// command that runs dep (runsOf), retrieval's Request.Wraps: either way
// unit drew the task's words for dep.
func (f *facts) wraps(unit, dep string) bool {
	return f.runs[[2]string{unit, dep}] || slices.Contains(f.Closure(unit).Deps, dep)
}

// runsOf returns the units of cat that u, an explicit-user-only unit (a
// command the user types), runs by their command in its opening prose:
// "Run a `/grilling` session." A command that runs a skill shares its
// words, and is no rival of it when the task asks for that skill; without
// a requires edge, which a wrapper's author rarely writes, it was. It
// reads /name after a blank, a quote, a bracket or the start, where name
// is a whole unit name of the catalog: not a path ("src/grilling") nor a
// URL. It adds no dependency: what a selected command loads is its
// closure's to say.
func runsOf(u *ir.Unit, cat *ir.Catalog) []string {
	if u.Invocation != ir.InvocationExplicitUser {
		return nil
	}
	var out []string
	lead := u.Lead
	for i := 0; i < len(lead); i++ {
		if lead[i] != '/' || (i > 0 && !strings.ContainsRune(" \t\n`'\"(", rune(lead[i-1]))) {
			continue
		}
		j := i + 1
		for j < len(lead) && (lead[j] >= 'a' && lead[j] <= 'z' || lead[j] >= '0' && lead[j] <= '9' || lead[j] == '-' || lead[j] == '_') {
			j++
		}
		name := lead[i+1 : j]
		if name == "" || name == u.Name || slices.Contains(out, name) {
			continue
		}
		if dep, ok := cat.Lookup(name); ok && dep.Status == ir.StatusOK {
			out = append(out, name)
		}
	}
	return out
}

// Conflict implements rules.Facts.
func (f *facts) Conflict(a, b string) bool { return f.conflicts[[2]string{a, b}] }

// Supersedes implements rules.Facts.
func (f *facts) Supersedes(a, b string) bool { return f.supersedes[[2]string{a, b}] }
