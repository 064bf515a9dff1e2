package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/ir"
)

// graphFormats are the values of `rlmc graph --format`, the default first.
var graphFormats = []string{"mermaid", "dot"}

func newGraphCmd(stdout, stderr io.Writer) *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Draw the catalog's requires, suggests, conflicts and supersedes edges as Mermaid or Graphviz DOT",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			return runGraph(cmd.Context(), f, stdout, stderr)
		},
	}
	f.register(cmd, graphFormats...)
	return cmd
}

// runGraph loads the catalog and prints its graph in the chosen format.
func runGraph(ctx context.Context, f catalogFlags, stdout, stderr io.Writer) error {
	f.sayNoRoot = true // an empty graph must not pass for a catalog without edges
	c, err := f.load(ctx, stderr)
	if err != nil {
		return err
	}
	if len(c.Catalog().Units) == 0 {
		fmt.Fprintln(stderr, "rlmc: warning: "+noSkill(c.Catalog()))
	}
	g := compiler.BuildGraph(c.Catalog(), c.Policy())
	out := renderMermaid(g)
	if f.format == "dot" {
		out = renderDOT(g)
	}
	_, err = io.WriteString(stdout, out)
	return err
}

// nodeMark is what a node's label says besides its name: why it can never
// be loaded, or why it loads only on the host's word.
func nodeMark(n compiler.GraphNode) string {
	switch {
	case n.Missing:
		return "missing"
	case n.Status == ir.StatusInvalid:
		return "invalid"
	case n.Invocation == ir.InvocationExplicitUser:
		return "explicit-only"
	}
	return ""
}

// nodeLabel is the text a node shows: its name, escaped onto one line,
// and its mark.
func nodeLabel(n compiler.GraphNode) string {
	// Names of invalid units come from folder names and may hold anything
	// but "/" and NUL: EscapeText keeps each on one visible line before the
	// format's own escaping.
	label := ir.EscapeText(n.Name)
	if m := nodeMark(n); m != "" {
		label += " (" + m + ")"
	}
	return label
}

// nodeIDs gives every node a generated identifier (n0, n1, ... in name
// order), so that no name, however hostile, is ever written where the
// syntax expects an identifier: names only appear inside quoted labels.
func nodeIDs(g *compiler.Graph) map[string]string {
	ids := make(map[string]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[n.Name] = fmt.Sprintf("n%d", i)
	}
	return ids
}

// mermaidText escapes s for a double-quoted Mermaid label: every character
// but ASCII letters, digits, space and a few plain punctuation marks is
// written as a numeric entity code (#35; for "#"), which Mermaid decodes,
// so no quote, bracket, pipe, backtick or markup in a name can end the
// label or start syntax.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(" -_.,()", r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}

// mermaidClasses style the marked nodes: explicit-only dashed, invalid
// red, missing grey and dotted.
var mermaidClasses = []struct{ mark, def string }{
	{"explicit-only", "classDef explicit stroke-dasharray: 5 3"},
	{"invalid", "classDef invalid fill:#fdd,stroke:#c00"},
	{"missing", "classDef missing fill:#eee,stroke:#999,stroke-dasharray: 2 2"},
}

// renderMermaid draws g as a Mermaid flowchart: requires as solid arrows,
// suggests dotted, conflicts as undirected links, supersedes thick; a
// requires edge the host policy adds is labelled "policy requires".
func renderMermaid(g *compiler.Graph) string {
	ids := nodeIDs(g)
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	used := map[string]bool{}
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "  %s[\"%s\"]", ids[n.Name], mermaidText(nodeLabel(n)))
		if m := nodeMark(n); m != "" {
			used[m] = true
			fmt.Fprintf(&b, ":::%s", strings.TrimSuffix(m, "-only"))
		}
		b.WriteByte('\n')
	}
	for _, e := range g.Edges {
		from, to := ids[e.From], ids[e.To]
		fmt.Fprintf(&b, "  %s %s|%s| %s\n", from, mermaidArrows[e.Kind], edgeLabel(e), to)
	}
	for _, c := range mermaidClasses {
		if used[c.mark] {
			fmt.Fprintf(&b, "  %s\n", c.def)
		}
	}
	return b.String()
}

// mermaidArrows and dotStyles draw each kind of edge: requires solid,
// suggests dotted, conflicts undirected, supersedes bold.
var (
	mermaidArrows = map[compiler.EdgeKind]string{
		compiler.EdgeRequires: "-->", compiler.EdgeSuggests: "-.->",
		compiler.EdgeConflicts: "---", compiler.EdgeSupersedes: "==>",
	}
	dotStyles = map[compiler.EdgeKind]string{
		compiler.EdgeSuggests:   ", style=dotted",
		compiler.EdgeConflicts:  `, dir=none, color="#cc0000"`,
		compiler.EdgeSupersedes: ", style=bold",
	}
)

// edgeLabel names an edge's kind as both renderers print it; a requires
// edge the host policy adds says so.
func edgeLabel(e compiler.GraphEdge) string {
	if e.Kind == compiler.EdgeRequires && e.Policy {
		return "policy requires"
	}
	return string(e.Kind)
}

// dotText escapes s for a double-quoted DOT string: a backslash (which
// would start an escape such as \N or \l) and a quote are escaped; s holds
// no line break once EscapeText has run.
func dotText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// renderDOT draws g as a Graphviz digraph with the same conventions as
// renderMermaid.
func renderDOT(g *compiler.Graph) string {
	ids := nodeIDs(g)
	var b strings.Builder
	b.WriteString("digraph rlmc {\n  rankdir=LR;\n  node [shape=box];\n")
	for _, n := range g.Nodes {
		attrs := ""
		switch nodeMark(n) {
		case "explicit-only":
			attrs = ", style=dashed"
		case "invalid":
			attrs = `, style=filled, fillcolor="#ffdddd", color="#cc0000"`
		case "missing":
			attrs = `, style=dotted, color="#999999"`
		}
		fmt.Fprintf(&b, "  %s [label=\"%s\"%s];\n", ids[n.Name], dotText(nodeLabel(n)), attrs)
	}
	for _, e := range g.Edges {
		from, to := ids[e.From], ids[e.To]
		fmt.Fprintf(&b, "  %s -> %s [label=\"%s\"%s];\n", from, to, edgeLabel(e), dotStyles[e.Kind])
	}
	b.WriteString("}\n")
	return b.String()
}
