package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// The reference tables of the documents are generated from the code, between
//
//	<!-- generated: NAME -->
//	...
//	<!-- end -->
//
// TestDocsGenerated regenerates each and compares; -update rewrites them.
// NAME is one of:
//
//	commands         README.md: one line per command (the cobra tree)
//	flags PATH       docs/commands.md: the usage line and flags of `rlmc PATH`
//	rules            docs/how-a-compile-decides.md: the twelve rules
//	reasons selected the reason codes of a selection
//	reasons rejected the reason codes of a rejection
//	clauses          the clauses a rule's decision may name
//
// The rules, reasons and clauses are internal/rules/vocab.go's typed
// constants, each described by its comment there.
var generatedRE = regexp.MustCompile(`(?m)^<!-- generated: (.+?) -->\n`)

const generatedEnd = "<!-- end -->"

// wantGenerated lists the sections each document must hold.
func wantGenerated(t testing.TB) map[string][]string {
	want := map[string][]string{
		"README.md":                     {"commands"},
		"docs/how-a-compile-decides.md": {"rules", "reasons selected", "reasons rejected", "clauses"},
		"docs/routing.md":               {"pasted kinds"},
	}
	for _, c := range docCommandList(newRootCmd(nil, io.Discard, io.Discard)) {
		want["docs/commands.md"] = append(want["docs/commands.md"], "flags "+commandPath(c))
	}
	return want
}

// generate returns the contents of the section NAME.
func generate(root *cobra.Command, vocab []vocabConst, name string) (string, error) {
	switch {
	case name == "commands":
		return genCommands(root), nil
	case strings.HasPrefix(name, "flags "):
		path := strings.TrimPrefix(name, "flags ")
		for _, c := range docCommandList(root) {
			if commandPath(c) == path {
				return genFlags(c), nil
			}
		}
		return "", fmt.Errorf("no command rlmc %s", path)
	case name == "rules":
		return genRules(vocab)
	case name == "reasons selected", name == "reasons rejected":
		return genReasons(vocab, strings.TrimPrefix(name, "reasons "))
	case name == "clauses":
		return genClauses(vocab)
	case name == "pasted kinds":
		var b strings.Builder
		b.WriteString("| pasted file | stands for |\n|---|---|\n")
		for _, k := range retrieval.PastedKinds() {
			fmt.Fprintf(&b, "| %s | %s |\n", k.Name, k.Words)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("unknown generated section %q", name)
}

// docCommandList is every command a user runs, in the tree's order: the
// leaves, and completion, whose subcommands are the shells it takes.
func docCommandList(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		switch {
		case sub.Hidden || sub.Name() == "help":
		case sub.HasSubCommands() && sub.Name() != "completion":
			out = append(out, docCommandList(sub)...)
		default:
			out = append(out, sub)
		}
	}
	return out
}

// commandPath is a command's path below rlmc: "vendor verify".
func commandPath(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// usage is a command's usage line without cobra's "[flags]".
func usage(c *cobra.Command) string {
	return strings.TrimSuffix(c.UseLine(), " [flags]")
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// sentence is a constant's comment as a table cell: one line, no final
// full stop.
func sentence(s string) string { return strings.TrimSuffix(cell(s), ".") }

func genCommands(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, c := range docCommandList(root) {
		fmt.Fprintf(&b, "| `%s` | %s. |\n", cell(usage(c)), cell(c.Short))
	}
	return b.String()
}

func genFlags(c *cobra.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s`: %s.\n", usage(c), c.Short)
	var rows []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name, text := pflag.UnquoteUsage(f)
		flag := "--" + f.Name
		if f.Shorthand != "" {
			flag = "-" + f.Shorthand + ", " + flag
		}
		if name != "" {
			flag += " " + name
		}
		def := " "
		if !zeroDefault(f) {
			def = " `" + cell(f.DefValue) + "` "
		}
		rows = append(rows, fmt.Sprintf("| `%s` |%s| %s |", cell(flag), def, cell(text)))
	})
	if len(rows) > 0 {
		b.WriteString("\n| flag | default | |\n|---|---|---|\n")
		b.WriteString(strings.Join(rows, "\n") + "\n")
	}
	return b.String()
}

// zeroDefault reports whether a flag's default is its type's zero value,
// which --help leaves out too.
func zeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "0s", "[]", "<nil>":
		return true
	}
	return false
}

// vocabConst is one typed constant of internal/rules/vocab.go.
type vocabConst struct {
	typ, name, value string
	doc              string // its comment, without its name
	group            string // the comment of its const block
}

// vocabConsts reads the typed constants of internal/rules/vocab.go and
// their comments.
func vocabConsts(t testing.TB) []vocabConst {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../internal/rules/vocab.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []vocabConst
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			typ, ok := vs.Type.(*ast.Ident)
			if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok {
				continue
			}
			value, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			doc := vs.Doc.Text()
			if doc == "" {
				doc = vs.Comment.Text()
			}
			name := vs.Names[0].Name
			doc = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(doc), name+":"), name+" ")
			out = append(out, vocabConst{typ: typ.Name, name: name, value: value, doc: strings.TrimSpace(doc), group: gd.Doc.Text()})
		}
	}
	return out
}

func ofType(vocab []vocabConst, typ string) []vocabConst {
	var out []vocabConst
	for _, v := range vocab {
		if v.typ == typ {
			out = append(out, v)
		}
	}
	return out
}

// described fails on a constant without a comment: the comment is what the
// documents say it means.
func described(v vocabConst) error {
	if v.doc == "" {
		return fmt.Errorf("internal/rules/vocab.go: %s has no comment saying what it means; the documents' tables are made from it", v.name)
	}
	return nil
}

func genRules(vocab []vocabConst) (string, error) {
	var b strings.Builder
	b.WriteString("| rule | name | |\n|---|---|---|\n")
	var names []rules.RuleName
	for _, v := range ofType(vocab, "RuleName") {
		if err := described(v); err != nil {
			return "", err
		}
		n := rules.RuleName(v.value).Number()
		if n == 0 {
			return "", fmt.Errorf("%s (%s) is not in rules.RuleNames", v.name, v.value)
		}
		names = append(names, rules.RuleName(v.value))
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", n, v.value, sentence(v.doc))
	}
	if !slices.Equal(names, rules.RuleNames) {
		return "", fmt.Errorf("the RuleName constants %v are not rules.RuleNames %v, in order", names, rules.RuleNames)
	}
	return b.String(), nil
}

func genReasons(vocab []vocabConst, kind string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s because | |\n|---|---|\n", kind)
	var all []rules.ReasonCode
	for _, v := range ofType(vocab, "ReasonCode") {
		all = append(all, rules.ReasonCode(v.value))
		if !strings.HasPrefix(v.group, "Why a unit was "+kind) {
			continue
		}
		if err := described(v); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", v.value, sentence(v.doc))
	}
	if !slices.Equal(all, rules.Reasons) {
		return "", fmt.Errorf("the ReasonCode constants %v are not rules.Reasons %v, in order", all, rules.Reasons)
	}
	return b.String(), nil
}

var clauseGroupRE = regexp.MustCompile(`^Clauses of rule (\d+)\b`)

func genClauses(vocab []vocabConst) (string, error) {
	var b strings.Builder
	b.WriteString("| clause | rule | when |\n|---|---|---|\n")
	var all []rules.Clause
	for _, v := range ofType(vocab, "Clause") {
		if err := described(v); err != nil {
			return "", err
		}
		m := clauseGroupRE.FindStringSubmatch(v.group)
		if m == nil {
			return "", fmt.Errorf("internal/rules/vocab.go: %s is in a const block whose comment does not start \"Clauses of rule N\"", v.name)
		}
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(rules.RuleNames) {
			return "", fmt.Errorf("internal/rules/vocab.go: %s: there is no rule %d", v.name, n)
		}
		all = append(all, rules.Clause(v.value))
		fmt.Fprintf(&b, "| `%s` | %d `%s` | %s |\n", v.value, n, rules.RuleNames[n-1], sentence(v.doc))
	}
	if !slices.Equal(all, rules.Clauses) {
		return "", fmt.Errorf("the Clause constants %v are not rules.Clauses %v, in order", all, rules.Clauses)
	}
	return b.String(), nil
}

// TestDocsGenerated checks that every generated section of README.md and
// docs/*.md is what the code generates now, and that each document holds
// the sections it must. -update rewrites them.
func TestDocsGenerated(t *testing.T) {
	root := newRootCmd(nil, io.Discard, io.Discard)
	vocab := vocabConsts(t)
	want := wantGenerated(t)
	for _, file := range docFiles(t) {
		path := filepath.Join("../..", filepath.FromSlash(file))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		var out strings.Builder
		var seen []string
		rest := text
		for {
			loc := generatedRE.FindStringSubmatchIndex(rest)
			if loc == nil {
				out.WriteString(rest)
				break
			}
			name := rest[loc[2]:loc[3]]
			body := rest[loc[1]:] // from the line after the marker
			end := 0              // where the end marker starts in body
			if !strings.HasPrefix(body, generatedEnd+"\n") {
				i := strings.Index(body, "\n"+generatedEnd+"\n")
				if i < 0 {
					t.Errorf("%s: section %q has no %s line", file, name, generatedEnd)
					out.WriteString(rest)
					break
				}
				end = i + 1
			}
			got := body[:end]
			seen = append(seen, name)
			gen, err := generate(root, vocab, name)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				gen = got
			}
			if gen != got && !*testkit.Update {
				t.Errorf("%s: the generated section %q is stale (-doc +code; go test ./cmd/rlmc -run TestDocsGenerated -update rewrites it):\n%s",
					file, name, cmp.Diff(strings.Split(got, "\n"), strings.Split(gen, "\n")))
			}
			out.WriteString(rest[:loc[1]])
			out.WriteString(gen)
			rest = body[end:]
		}
		for _, name := range want[file] {
			if !slices.Contains(seen, name) {
				t.Errorf("%s has no section <!-- generated: %s -->", file, name)
			}
		}
		for _, name := range seen {
			if slices.Contains(seen[slices.Index(seen, name)+1:], name) {
				t.Errorf("%s: section %q appears twice", file, name)
			}
		}
		if *testkit.Update && out.String() != text {
			if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the generated sections of %s", file)
		}
	}
}
