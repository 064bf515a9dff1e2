package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// graphCases are the graphs the renderers are pinned on. "hostile" names
// its nodes with everything that could end a quoted label or start syntax
// in Mermaid or DOT: quotes, brackets, pipes, arrows, backslashes, a
// newline, an entity, a backtick, a semicolon and a right-to-left override.
var graphCases = []struct {
	name  string
	graph *compiler.Graph
}{
	{"empty", &compiler.Graph{}},
	{"every-kind", &compiler.Graph{
		Nodes: []compiler.GraphNode{
			{Name: "a", Status: ir.StatusOK, Invocation: ir.InvocationAutomatic},
			{Name: "b", Status: ir.StatusOK, Invocation: ir.InvocationExplicitUser},
			{Name: "bad", Status: ir.StatusInvalid, Invocation: ir.InvocationAutomatic},
			{Name: "c", Status: ir.StatusOK, Invocation: ir.InvocationAutomatic},
			{Name: "old", Missing: true},
		},
		Edges: []compiler.GraphEdge{
			{From: "a", To: "b", Kind: compiler.EdgeRequires},
			{From: "a", To: "c", Kind: compiler.EdgeConflicts},
			{From: "a", To: "old", Kind: compiler.EdgeSupersedes},
			{From: "b", To: "a", Kind: compiler.EdgeSuggests},
			{From: "c", To: "bad", Kind: compiler.EdgeRequires, Policy: true},
		},
	}},
	{"hostile", &compiler.Graph{
		Nodes: []compiler.GraphNode{
			{Name: "end", Status: ir.StatusOK, Invocation: ir.InvocationAutomatic},
			{Name: "x\"]; evil[\"y", Status: ir.StatusInvalid},
			{Name: "a|b-->c\\\"", Status: ir.StatusInvalid},
			{Name: "line\nbreak #quot; `md` ;}\u202egnp.exe", Status: ir.StatusInvalid},
			{Name: "<b>html</b> & é", Missing: true},
		},
		Edges: []compiler.GraphEdge{
			{From: "end", To: "x\"]; evil[\"y", Kind: compiler.EdgeRequires},
			{From: "end", To: "<b>html</b> & é", Kind: compiler.EdgeSuggests},
		},
	}},
}

// TestRenderGraph pins both renderers on golden files; run with -update to
// rewrite them after a deliberate change.
func TestRenderGraph(t *testing.T) {
	for _, tc := range graphCases {
		t.Run(tc.name, func(t *testing.T) {
			testkit.Golden(t, filepath.Join("testdata", "graph", tc.name+".mmd"), []byte(renderMermaid(tc.graph)))
			testkit.Golden(t, filepath.Join("testdata", "graph", tc.name+".dot"), []byte(renderDOT(tc.graph)))
		})
	}
}

// TestRenderGraphLabelsRoundTrip reads every node line back the way
// Mermaid and DOT read a quoted label (up to the first unescaped quote,
// decoding entity codes or backslash escapes) and checks that it gives the
// label back whole and that the line goes on with syntax of ours only: no
// name can close its label early or inject syntax, whatever it holds.
func TestRenderGraphLabelsRoundTrip(t *testing.T) {
	entity := regexp.MustCompile(`#([0-9]+);`)
	for _, tc := range graphCases {
		mmd := strings.Split(renderMermaid(tc.graph), "\n")[1:]
		dot := strings.Split(renderDOT(tc.graph), "\n")[3:]
		for i, n := range tc.graph.Nodes {
			want := nodeLabel(n)
			if strings.ContainsAny(want, "\n\r\u202e") {
				t.Errorf("%s: label %q holds a raw line break or override", tc.name, want)
			}
			// Mermaid: n0["..."] then optionally :::class.
			line := mmd[i]
			prefix := fmt.Sprintf("  n%d[\"", i)
			rest, ok := strings.CutPrefix(line, prefix)
			end := strings.IndexByte(rest, '"')
			if !ok || end < 0 {
				t.Fatalf("%s: mermaid line %q", tc.name, line)
			}
			got := entity.ReplaceAllStringFunc(rest[:end], func(m string) string {
				v, _ := strconv.Atoi(m[1 : len(m)-1])
				return string(rune(v))
			})
			if got != want || !regexp.MustCompile(`^"\](:::[a-z]+)?$`).MatchString(rest[end:]) {
				t.Errorf("%s: mermaid label reads back as %q then %q; want %q then ] and a class", tc.name, got, rest[end:], want)
			}
			// DOT: n0 [label="..." then our attributes.
			line = dot[i]
			rest, ok = strings.CutPrefix(line, fmt.Sprintf("  n%d [label=\"", i))
			if !ok {
				t.Fatalf("%s: dot line %q", tc.name, line)
			}
			var b strings.Builder
			j := 0
			for ; j < len(rest) && rest[j] != '"'; j++ {
				if rest[j] == '\\' {
					j++
				}
				b.WriteByte(rest[j])
			}
			if b.String() != want || !regexp.MustCompile(`^"(, [a-z]+=("#[0-9a-f]+"|[a-z]+))*\];$`).MatchString(rest[j:]) {
				t.Errorf("%s: dot label reads back as %q then %q; want %q then attributes", tc.name, b.String(), rest[j:], want)
			}
		}
	}
}

// TestDocsGraphIsReal checks that the Mermaid chart docs/commands.md shows
// ("Doctor and graph") is what `rlmc graph` prints for Matt Pocock's collection with its policy,
// read in place from ../shared.
func TestDocsGraphIsReal(t *testing.T) {
	skills := testkit.Shared(t, "third_party", "mattpocock-skills", "skills")
	doc, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```mermaid\n")
	block, _, ok2 := strings.Cut(block, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/commands.md has no mermaid block")
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"graph", "--root", skills, "--policy", "../../THIRD_PARTY/mattpocock-skills/policy.yaml"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("got exit code %d; want 0 (%s)", code, stderr.String())
	}
	if diff := cmp.Diff(block, stdout.String()); diff != "" {
		t.Errorf("docs/commands.md's mermaid block differs from rlmc graph (-doc +graph):\n%s", diff)
	}
}
