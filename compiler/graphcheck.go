package compiler

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

// edge is one requires edge of the dependency graph, with where it was
// declared: in the unit's own metadata, or in the host policy.
type edge struct {
	from, to string
	unit     *ir.Unit // the requiring unit
	policy   *Policy  // the host policy, when its requires declared it
}

// at returns a diagnostic located where e was declared.
func (e edge) at(code ir.Code, format string, args ...any) ir.Diagnostic {
	d := ir.Diagnostic{Code: code, Severity: ir.SeverityError, Message: fmt.Sprintf(format, args...)}
	if e.policy != nil {
		d.Path, d.Line = e.policy.at("requires", e.from)
		d.Message += " (an edge of the host policy's requires)"
	} else {
		d.Root, d.Path, d.Line = e.unit.Root, e.unit.Path, e.unit.RequiresLine
	}
	return d
}

// GraphProblems checks the dependency graph of cat under the host policy
// p for the whole catalog at once, as every compile would find it: every
// requires edge from a unit that can activate must lead to a unit that
// exists (missing_dependency), is valid and can be loaded as a dependency,
// that is, not explicit-user-only (unusable_dependency), and no edges may
// form a cycle (dependency_cycle, on each edge of it). Each failure makes
// the requiring unit impossible to select in any compile (its closure fails
// closed), so each is an error, located where the edge was declared (the
// unit's metadata line, or "policy"): a catalog that cannot work must not
// validate. A unit whose closure fails only further down is not reported
// again; its own edges are fine. A suggests, conflicts or supersedes edge
// that names no unit of the catalog (unknown_reference) or the unit itself
// (self_reference) is a warning: the policy reads it as nothing, so what
// its author meant is lost without a word. The result is sorted. A nil
// cat is an empty catalog: the policy's own edges are still checked.
func GraphProblems(cat *ir.Catalog, p Policy) ir.Diagnostics {
	if cat == nil {
		cat = ir.NewCatalog(nil, nil, nil)
	}
	var (
		hints *namer // made at the first missing dependency: most catalogs have none
		out   ir.Diagnostics
		edges = map[string][]edge{} // usable edges, by requiring unit
		names []string              // requiring units, in catalog order
	)
	for _, u := range cat.Units {
		if u.Status != ir.StatusOK {
			continue // invalid and shadowed units never activate
		}
		// An edge stated twice is one edge, the unit's own when both the
		// unit and the policy state it.
		var es []edge
		seen := map[string]bool{}
		add := func(to string, policy *Policy) {
			if !seen[to] {
				seen[to] = true
				es = append(es, edge{from: u.Name, to: to, unit: u, policy: policy})
			}
		}
		for _, d := range ir.SkillRefs(u.Requires) {
			add(d, nil)
		}
		for _, d := range p.Requires[u.Name] {
			add(d, &p)
		}
		for _, e := range es {
			dep, ok := cat.Lookup(e.to)
			switch {
			case !ok:
				if hints == nil {
					hints = newNamer(cat)
				}
				hint := hints.hint(e.to)
				if hint == "" && !loader.ValidName(e.to) {
					// A look-alike letter of another script, a
					// capital: the name reads as a unit's and is none.
					hint = "; no skill can bear that name (lowercase letters, digits and hyphens)"
				}
				out.Add(e.at(ir.CodeMissingDependency, "%s requires %s, which is not in the catalog%s", e.from, e.to, hint))
			case dep.Status != ir.StatusOK:
				out.Add(e.at(ir.CodeUnusableDependency, "%s requires %s, which is %s", e.from, e.to, dep.Status))
			case dep.Invocation == ir.InvocationExplicitUser:
				out.Add(e.at(ir.CodeUnusableDependency, "%s requires %s, which is explicit-user-only and never loads as a dependency", e.from, e.to))
			default:
				if len(edges[e.from]) == 0 {
					names = append(names, e.from)
				}
				edges[e.from] = append(edges[e.from], e)
			}
		}
	}
	for _, e := range cycleEdges(names, edges) {
		out.Add(e.at(ir.CodeDependencyCycle, "%s", e.cycle))
	}
	out = append(out, groupConflicts(cat, p, names, edges)...)
	out = append(out, mandatoryProblems(cat, p)...)
	out = append(out, referenceProblems(cat)...)
	out.Sort()
	return out
}

// groupConflicts reports each unit that requires, directly or through
// others, a unit it conflicts with, or two units that conflict
// (unusable_dependency, at its first requires edge): what it needs never
// loads together, so no compile selects it (rule 6, the closure's
// conflict, found as compiles find it: facts.groupConflict).
func groupConflicts(cat *ir.Catalog, p Policy, names []string, edges map[string][]edge) ir.Diagnostics {
	if len(names) == 0 || !slices.ContainsFunc(cat.Units, func(u *ir.Unit) bool { return len(u.Conflicts) > 0 }) {
		return nil // the closures are not walked for nothing
	}
	f := newFacts(cat, p)
	conflicted := map[string][2]string{}
	for _, n := range names {
		if c := f.Closure(n); c.Conflict != "" {
			dep, with := f.groupConflict(n, c.Deps)
			conflicted[n] = [2]string{dep, with}
		}
	}
	var out ir.Diagnostics
	for _, n := range names {
		c, ok := conflicted[n]
		// A unit that requires one whose group conflicts is not
		// reported again: its own edges are fine.
		if !ok || slices.ContainsFunc(edges[n], func(e edge) bool { _, bad := conflicted[e.to]; return bad }) {
			continue
		}
		if dep, with, e := c[0], c[1], edges[n][0]; with == n {
			out.Add(e.at(ir.CodeUnusableDependency, "%s requires %s, which it conflicts with: they never load together", n, dep))
		} else {
			out.Add(e.at(ir.CodeUnusableDependency, "%s requires %s and %s, which conflict: they never load together", n, dep, with))
		}
	}
	return out
}

// referenceProblems warns of each suggests, conflicts and supersedes edge
// of a unit that can activate that names no unit of the catalog
// (unknown_reference, with the name one or two edits away when there is
// one: a conflict with a misspelt name leaves both skills free to load
// together) or the unit itself (self_reference). An edge to a tool or a
// resource records what the host provides and is not checked.
func referenceProblems(cat *ir.Catalog) ir.Diagnostics {
	var (
		out    ir.Diagnostics
		names  *namer // built at the first unknown name
		hinted int
	)
	for _, u := range cat.Units {
		if u.Status != ir.StatusOK {
			continue
		}
		for _, e := range [...]struct {
			verb string
			refs []ir.Ref
		}{{"suggests", u.Suggests}, {"conflicts with", u.Conflicts}, {"supersedes", u.Supersedes}} {
			for _, to := range slices.Compact(slices.Sorted(slices.Values(ir.SkillRefs(e.refs)))) {
				if to == u.Name {
					out.Add(u.DeclaredAt(ir.CodeSelfReference, ir.SeverityWarning, fmt.Sprintf("%s %s itself; the edge has no effect", u.Name, e.verb)))
					continue
				}
				if _, ok := cat.Lookup(to); ok {
					continue
				}
				if !loader.ValidName(to) {
					// Control characters, capitals, look-alike letters
					// of another script: no unit can bear the name.
					out.Add(u.DeclaredAt(ir.CodeUnknownReference, ir.SeverityWarning,
						fmt.Sprintf("%s %s %s, which is not a skill name (lowercase letters, digits and hyphens); the edge has no effect", u.Name, e.verb, ir.Quote(to))))
					continue
				}
				hint := ""
				if hinted < maxUnknownNamed {
					if names == nil {
						names = newNamer(cat)
					}
					hint, hinted = names.hint(to), hinted+1
				}
				out.Add(u.DeclaredAt(ir.CodeUnknownReference, ir.SeverityWarning,
					fmt.Sprintf("%s %s %s, which is not in the catalog; the edge has no effect%s", u.Name, e.verb, ir.Quote(to), hint)))
			}
		}
	}
	return out
}

// mandatoryProblems reports each unit the policy makes mandatory that no
// compile can honor (unusable_mandatory): the catalog lacks it, it is not
// valid, or the policy also denies it. Every compile fails on it
// (unknown_unit, mandatory_rejected), so every prompt of a hook goes
// without skills: the policy must not validate.
func mandatoryProblems(cat *ir.Catalog, p Policy) ir.Diagnostics {
	var out ir.Diagnostics
	// What the deny list denies, as a compile reads it (denyTargets):
	// "Deploy" denies a mandatory deploy too.
	denied := sync.OnceValue(func() map[string]bool {
		spell := sync.OnceValue(func() *spellings { return newSpellings(cat) })
		m := map[string]bool{}
		for _, n := range p.Deny {
			for _, t := range denyTargets(cat, spell, n) {
				m[t] = true
			}
		}
		return m
	})
	for _, n := range slices.Compact(slices.Sorted(slices.Values(p.Mandatory))) {
		path, line := p.at("mandatory", n)
		at := func(format string, args ...any) {
			out.Add(ir.Diagnostic{Path: path, Line: line, Code: ir.CodeUnusableMandatory, Severity: ir.SeverityError,
				Message: fmt.Sprintf(format, args...) + "; every compile fails on it"})
		}
		u, ok := cat.Lookup(n)
		switch {
		case !ok:
			at("mandatory unit %s is not in the catalog", ir.Quote(n))
		case u.Status != ir.StatusOK:
			at("mandatory unit %s is %s", ir.Quote(n), u.Status)
		case denied()[n]:
			at("mandatory unit %s is denied by the same policy", ir.Quote(n))
		}
	}
	return out
}

// cycleEdge is a requires edge inside a cycle, with the message that shows
// it.
type cycleEdge struct {
	edge
	cycle string
}

// cycleEdges returns, in the order of names, every edge whose two ends lie
// on one cycle (a strongly connected component with an edge inside it),
// found with Tarjan's algorithm, each with one cycle of its component to
// show. The work is linear in the graph: each component's cycle is found
// once, and each message shows at most maxCycleShown of its units.
func cycleEdges(names []string, edges map[string][]edge) []cycleEdge {
	var (
		index   = map[string]int{}
		low     = map[string]int{}
		onStack = map[string]bool{}
		comp    = map[string]int{}
		stack   []string
		next    int
		ncomp   int
	)
	var visit func(n string)
	visit = func(n string) {
		index[n], low[n] = next, next
		next++
		stack = append(stack, n)
		onStack[n] = true
		for _, e := range edges[n] {
			if _, seen := index[e.to]; !seen {
				visit(e.to)
				low[n] = min(low[n], low[e.to])
			} else if onStack[e.to] {
				low[n] = min(low[n], index[e.to])
			}
		}
		if low[n] == index[n] {
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[m] = false
				comp[m] = ncomp
				if m == n {
					break
				}
			}
			ncomp++
		}
	}
	for _, n := range names {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	var (
		out    []cycleEdge
		cycles = map[int][]string{}       // component -> one cycle in it
		at     = map[int]map[string]int{} // component -> unit -> place on that cycle
	)
	for _, n := range names {
		for _, e := range edges[n] {
			k := comp[e.from]
			if k != comp[e.to] {
				continue
			}
			c, ok := cycles[k]
			if !ok {
				c = cycleThrough(e, edges, comp)
				cycles[k] = c
				at[k] = make(map[string]int, len(c))
				for i, u := range c[:len(c)-1] {
					at[k][u] = i
				}
			}
			out = append(out, cycleEdge{e, showCycle(e, c, at[k])})
		}
	}
	return out
}

// maxCycleShown bounds the units a dependency_cycle message lists, so a
// catalog-long cycle costs each of its edges a short line.
const maxCycleShown = 8

// showCycle renders cycle c (first unit repeated at the end) for edge e:
// from e's requiring unit when it lies on c, as "a -> b -> a".
func showCycle(e edge, c []string, at map[string]int) string {
	n := len(c) - 1
	start, on := at[e.from]
	var b strings.Builder
	if !on || c[(start+1)%n] != e.to {
		fmt.Fprintf(&b, "%s requires %s, inside the ", e.from, e.to)
		start = 0
	}
	b.WriteString("requires cycle ")
	for i := 0; i <= n; i++ {
		if i == maxCycleShown && n > maxCycleShown {
			fmt.Fprintf(&b, " -> ... (%d units) -> %s", n, c[start])
			break
		}
		if i > 0 {
			b.WriteString(" -> ")
		}
		b.WriteString(c[(start+i)%n])
	}
	return b.String()
}

// cycleThrough returns the shortest cycle through e (e.from, e.to, ...,
// e.from), found breadth first inside e's component.
func cycleThrough(e edge, edges map[string][]edge, comp map[string]int) []string {
	prev := map[string]string{e.to: ""}
	queue := []string{e.to}
	for len(queue) > 0 && e.to != e.from {
		n := queue[0]
		queue = queue[1:]
		for _, x := range edges[n] {
			if _, seen := prev[x.to]; !seen && comp[x.to] == comp[e.from] {
				prev[x.to] = n
				queue = append(queue, x.to)
			}
		}
		if _, ok := prev[e.from]; ok {
			break
		}
	}
	var back []string
	for n := e.from; n != e.to; n = prev[n] {
		back = append(back, n)
	}
	path := []string{e.from, e.to}
	for i := len(back) - 1; i >= 0; i-- {
		path = append(path, back[i])
	}
	return path
}
