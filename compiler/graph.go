package compiler

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/ir"
)

// EdgeKind names a relation between two units in a Graph.
type EdgeKind string

// Edge kinds, in the order a Graph lists them for one unit.
const (
	EdgeRequires   EdgeKind = "requires"
	EdgeSuggests   EdgeKind = "suggests"
	EdgeConflicts  EdgeKind = "conflicts"
	EdgeSupersedes EdgeKind = "supersedes"
)

var edgeOrder = map[EdgeKind]int{EdgeRequires: 0, EdgeSuggests: 1, EdgeConflicts: 2, EdgeSupersedes: 3}

// GraphNode is one unit of a Graph, or a name an edge points at that no
// unit answers to (Missing).
type GraphNode struct {
	Name       string        `json:"name"`
	Status     ir.Status     `json:"status,omitempty"`
	Invocation ir.Invocation `json:"invocation,omitempty"`
	Missing    bool          `json:"missing,omitempty"`
}

// GraphEdge is one relation. Conflicts are symmetric and appear once, From
// before To in byte order. Policy marks a requires edge the host policy
// adds.
type GraphEdge struct {
	From   string   `json:"from"`
	To     string   `json:"to"`
	Kind   EdgeKind `json:"kind"`
	Policy bool     `json:"policy,omitempty"`
}

// Graph is the catalog's relation graph: every unit that answers to its
// name (shadowed units take no part in any relation) and every skill
// relation between them.
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// BuildGraph returns the relation graph of cat under the host policy p:
// nodes sorted by name, edges by source, kind and target, so that the same
// catalog always renders the same picture.
func BuildGraph(cat *ir.Catalog, p Policy) *Graph {
	g := &Graph{Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	names := map[string]bool{}
	for _, u := range cat.Units {
		if u.Status == ir.StatusShadowed || names[u.Name] {
			continue
		}
		names[u.Name] = true
		g.Nodes = append(g.Nodes, GraphNode{Name: u.Name, Status: u.Status, Invocation: u.Invocation})
	}
	seen := map[GraphEdge]bool{}
	add := func(e GraphEdge) {
		if e.Kind == EdgeConflicts && e.To < e.From {
			e.From, e.To = e.To, e.From
		}
		key := e
		key.Policy = false
		if seen[key] {
			return
		}
		seen[key] = true
		g.Edges = append(g.Edges, e)
	}
	for _, u := range cat.Units {
		if u.Status == ir.StatusShadowed {
			continue
		}
		for _, rel := range []struct {
			kind EdgeKind
			refs []ir.Ref
		}{{EdgeRequires, u.Requires}, {EdgeSuggests, u.Suggests}, {EdgeConflicts, u.Conflicts}, {EdgeSupersedes, u.Supersedes}} {
			for _, n := range ir.SkillRefs(rel.refs) {
				add(GraphEdge{From: u.Name, To: n, Kind: rel.kind})
			}
		}
	}
	// Policy edges come after the unit's own, so an edge both state is
	// the unit's.
	for _, from := range slices.Sorted(maps.Keys(p.Requires)) {
		if !names[from] {
			continue // the policy names a unit the catalog lacks: unknown_policy_unit says so
		}
		for _, to := range p.Requires[from] {
			add(GraphEdge{From: from, To: to, Kind: EdgeRequires, Policy: true})
		}
	}
	missing := map[string]bool{}
	for _, e := range g.Edges {
		for _, n := range []string{e.From, e.To} {
			if !names[n] {
				missing[n] = true
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(missing)) {
		g.Nodes = append(g.Nodes, GraphNode{Name: n, Missing: true})
	}
	slices.SortStableFunc(g.Nodes, func(a, b GraphNode) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(g.Edges, func(a, b GraphEdge) int {
		if c := strings.Compare(a.From, b.From); c != 0 {
			return c
		}
		if a.Kind != b.Kind {
			return edgeOrder[a.Kind] - edgeOrder[b.Kind]
		}
		return strings.Compare(a.To, b.To)
	})
	return g
}

// GraphProblems checks the dependency graph of cat under the host policy
// p, the way every compile would find it, but for the whole catalog at
// once: a unit that requires a unit the catalog lacks
// (missing_dependency), one that is invalid or explicit-user-only and so
// can never be loaded as a dependency (unusable_dependency), and every
// cycle of requires edges (dependency_cycle, reported once, at the first
// unit of the cycle in byte order). Only units that can activate (status
// ok) are checked: an invalid unit's own edges never take effect. Each is
// an error, because each makes every compile reject the unit. The result
// is sorted.
func GraphProblems(cat *ir.Catalog, p Policy) ir.Diagnostics {
	var out ir.Diagnostics
	type dep struct {
		to     string
		policy bool
	}
	requires := map[string][]dep{}
	var order []*ir.Unit
	for _, u := range cat.Units {
		if w, ok := cat.Lookup(u.Name); !ok || w != u || u.Status != ir.StatusOK {
			continue
		}
		order = append(order, u)
		seen := map[string]bool{}
		for _, n := range ir.SkillRefs(u.Requires) {
			if !seen[n] {
				seen[n] = true
				requires[u.Name] = append(requires[u.Name], dep{to: n})
			}
		}
		for _, n := range p.Requires[u.Name] {
			if !seen[n] {
				seen[n] = true
				requires[u.Name] = append(requires[u.Name], dep{to: n, policy: true})
			}
		}
	}
	for _, u := range order {
		for _, d := range requires[u.Name] {
			at := ir.Diagnostic{Root: u.Root, Path: u.Path, Severity: ir.SeverityError}
			via := ""
			if d.policy {
				at = ir.Diagnostic{Path: "policy", Severity: ir.SeverityError}
				via = " (a requires edge of the host policy)"
			}
			t, ok := cat.Lookup(d.to)
			switch {
			case !ok:
				at.Code = ir.CodeMissingDependency
				at.Message = fmt.Sprintf("%q requires %q, which is not in the catalog%s; %q can never be loaded", u.Name, d.to, via, u.Name)
			case t.Status != ir.StatusOK:
				at.Code = ir.CodeUnusableDependency
				at.Message = fmt.Sprintf("%q requires %q, which is %s%s; %q can never be loaded", u.Name, d.to, t.Status, via, u.Name)
			case t.Invocation == ir.InvocationExplicitUser:
				at.Code = ir.CodeUnusableDependency
				at.Message = fmt.Sprintf("%q requires %q, which is explicit-user-only and never loaded as a dependency%s; %q loads only when the host selects both", u.Name, d.to, via, u.Name)
			default:
				continue
			}
			out.Add(at)
		}
	}
	// Cycles: the strongly connected components of the requires edges
	// between ok units, each reported once with one concrete cycle.
	adj := map[string][]string{}
	for _, u := range order {
		for _, d := range requires[u.Name] {
			if t, ok := cat.Lookup(d.to); ok && t.Status == ir.StatusOK {
				adj[u.Name] = append(adj[u.Name], d.to)
			}
		}
		slices.Sort(adj[u.Name])
	}
	for _, comp := range components(order, adj) {
		first := comp[0]
		in := map[string]bool{}
		for _, n := range comp {
			in[n] = true
		}
		if len(comp) == 1 && !slices.Contains(adj[first], first) {
			continue
		}
		u, _ := cat.Lookup(first)
		out.Add(ir.Diagnostic{Root: u.Root, Path: u.Path, Code: ir.CodeDependencyCycle, Severity: ir.SeverityError,
			Message: fmt.Sprintf("requires edges form a cycle: %s; none of %s can ever be loaded", strings.Join(cycleFrom(first, adj, in), " -> "), strings.Join(quoteAll(comp), ", "))})
	}
	out.Sort()
	return out
}

// components returns the strongly connected components of the graph over
// units (Tarjan's algorithm, iterating names in order), each sorted, in the
// order of their first member.
func components(units []*ir.Unit, adj map[string][]string) [][]string {
	var (
		index   = map[string]int{}
		low     = map[string]int{}
		onStack = map[string]bool{}
		stack   []string
		out     [][]string
		next    int
		visit   func(n string)
	)
	visit = func(n string) {
		index[n], low[n] = next, next
		next++
		stack = append(stack, n)
		onStack[n] = true
		for _, m := range adj[n] {
			if _, ok := index[m]; !ok {
				visit(m)
				low[n] = min(low[n], low[m])
			} else if onStack[m] {
				low[n] = min(low[n], index[m])
			}
		}
		if low[n] == index[n] {
			var comp []string
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[m] = false
				comp = append(comp, m)
				if m == n {
					break
				}
			}
			slices.Sort(comp)
			out = append(out, comp)
		}
	}
	for _, u := range units {
		if _, ok := index[u.Name]; !ok {
			visit(u.Name)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// cycleFrom returns a shortest cycle from start back to itself inside the
// component in (breadth first, neighbours in byte order).
func cycleFrom(start string, adj map[string][]string, in map[string]bool) []string {
	prev := map[string]string{}
	queue := []string{start}
	visited := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range adj[n] {
			if !in[m] {
				continue
			}
			if m == start {
				path := []string{start}
				for at := n; at != start; at = prev[at] {
					path = append(path, at)
				}
				path = append(path, start)
				slices.Reverse(path[1 : len(path)-1])
				return quoteAll(path)
			}
			if !visited[m] {
				visited[m] = true
				prev[m] = n
				queue = append(queue, m)
			}
		}
	}
	return quoteAll([]string{start, start})
}

// quoteAll returns the names Go-quoted, so that a message stays one line
// and two names never print alike.
func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
