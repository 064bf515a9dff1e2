package compiler

import (
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
// catalog always renders the same picture. A nil cat is an empty catalog.
func BuildGraph(cat *ir.Catalog, p Policy) *Graph {
	if cat == nil {
		cat = ir.NewCatalog(nil, nil, nil)
	}
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
