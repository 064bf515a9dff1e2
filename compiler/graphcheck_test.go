package compiler

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestGraphProblems pins that every dependency edge no compile can
// honor is an error diagnostic with a stable code, located where the edge
// was declared: a catalog that reports "0 errors" must be one whose units
// can all be selected.
func TestGraphProblems(t *testing.T) {
	skill := func(name, extra string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill.\n" + extra + "---\nBody.\n"
	}
	requires := func(names ...string) string {
		refs := ""
		for i, n := range names {
			if i > 0 {
				refs += ", "
			}
			refs += `{"kind": "skill", "name": "` + n + `"}`
		}
		return "metadata:\n  prolog-rlm: '{\"schema\": 1, \"requires\": [" + refs + "]}'\n"
	}
	type diag struct {
		Path string
		Line int
		Code ir.Code
	}
	tests := []struct {
		name   string
		skills map[string]string
		policy Policy
		want   []diag
	}{
		{name: "clean", skills: map[string]string{"a": skill("a", requires("b")), "b": skill("b", "")}},
		// A unit that requires one it conflicts with, or two that
		// conflict, never loads; one that requires it is not reported
		// again.
		{name: "requires what it conflicts with", skills: map[string]string{
			"alpha": skill("alpha", "metadata:\n  prolog-rlm: '{\"schema\": 1, \"requires\": [{\"kind\": \"skill\", \"name\": \"beta\"}], \"conflicts\": [{\"kind\": \"skill\", \"name\": \"beta\"}]}'\n"),
			"beta":  skill("beta", ""), "user": skill("user", requires("alpha"))},
			want: []diag{{"alpha/SKILL.md", 5, ir.CodeUnusableDependency}}},
		{name: "requires two that conflict", skills: map[string]string{
			"two":   skill("two", requires("beta", "gamma")),
			"beta":  skill("beta", "metadata:\n  prolog-rlm: '{\"schema\": 1, \"conflicts\": [{\"kind\": \"skill\", \"name\": \"gamma\"}]}'\n"),
			"gamma": skill("gamma", "")},
			want: []diag{{"two/SKILL.md", 5, ir.CodeUnusableDependency}}},
		{name: "missing", skills: map[string]string{"deploy": skill("deploy", requires("smoke-tests"))},
			want: []diag{{"deploy/SKILL.md", 5, ir.CodeMissingDependency}}},
		{name: "cycle", skills: map[string]string{"cyc-a": skill("cyc-a", requires("cyc-b")), "cyc-b": skill("cyc-b", requires("cyc-a")), "user": skill("user", requires("cyc-a"))},
			want: []diag{{"cyc-a/SKILL.md", 5, ir.CodeDependencyCycle}, {"cyc-b/SKILL.md", 5, ir.CodeDependencyCycle}}},
		{name: "explicit-only dependency", skills: map[string]string{"a": skill("a", requires("b")), "b": skill("b", "disable-model-invocation: true\n")},
			want: []diag{{"a/SKILL.md", 5, ir.CodeUnusableDependency}}},
		{name: "invalid dependency", skills: map[string]string{"a": skill("a", requires("b")), "b": "---\nname: b\n---\n"},
			want: []diag{{"a/SKILL.md", 5, ir.CodeUnusableDependency}}},
		{name: "policy self-cycle", skills: map[string]string{"tdd": skill("tdd", "")}, policy: Policy{Requires: map[string][]string{"tdd": {"tdd"}}},
			want: []diag{{"policy", 0, ir.CodeDependencyCycle}}},
		{name: "edge stated twice", skills: map[string]string{"deploy": skill("deploy", requires("smoke-tests", "smoke-tests"))}, policy: Policy{Requires: map[string][]string{"deploy": {"smoke-tests"}}},
			want: []diag{{"deploy/SKILL.md", 5, ir.CodeMissingDependency}}},
		{name: "policy missing", skills: map[string]string{"implement": skill("implement", "")}, policy: Policy{Requires: map[string][]string{"implement": {"tdd"}}},
			want: []diag{{"policy", 0, ir.CodeMissingDependency}}},
		// A mandatory unit no compile can honor fails every compile.
		{name: "mandatory missing", skills: map[string]string{"tdd": skill("tdd", "")}, policy: Policy{Mandatory: []string{"nosuch"}},
			want: []diag{{"policy", 0, ir.CodeUnusableMandatory}}},
		{name: "mandatory denied", skills: map[string]string{"tdd": skill("tdd", "")}, policy: Policy{Mandatory: []string{"tdd"}, Deny: []string{"tdd"}},
			want: []diag{{"policy", 0, ir.CodeUnusableMandatory}}},
		{name: "mandatory invalid", skills: map[string]string{"b": "---\nname: b\n---\n"}, policy: Policy{Mandatory: []string{"b"}},
			want: []diag{{"policy", 0, ir.CodeUnusableMandatory}}},
		{name: "mandatory fine", skills: map[string]string{"tdd": skill("tdd", "")}, policy: Policy{Mandatory: []string{"tdd"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.skills {
				testkit.WriteFile(t, filepath.Join(root, name, "SKILL.md"), text)
			}
			c, err := Load(context.Background(), loader.Options{Roots: []string{root}}, tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			var got []diag
			for _, d := range GraphProblems(c.Catalog(), tt.policy) {
				switch d.Code {
				case ir.CodeMissingDependency, ir.CodeDependencyCycle, ir.CodeUnusableDependency, ir.CodeUnusableMandatory:
					if d.Severity != ir.SeverityError {
						t.Errorf("%s: got severity %s; want error", d.Code, d.Severity)
					}
					got = append(got, diag{d.Path, d.Line, d.Code})
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("graph diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReferenceProblems pins that a suggests, conflicts or supersedes
// edge the policy reads as nothing is a warning located where it was
// declared: one naming no unit of the catalog (with the unit one edit
// away named) or the unit itself. Both went unreported: a conflict with a
// misspelt name let the two skills load together without a word.
func TestReferenceProblems(t *testing.T) {
	skill := func(name, refs string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill.\nmetadata:\n  prolog-rlm: '{\"schema\": 1, " + refs + "}'\n---\nBody.\n"
	}
	type diag struct {
		Path    string
		Line    int
		Code    ir.Code
		Hint    bool
		Warning bool
	}
	tests := []struct {
		name   string
		skills map[string]string
		want   []diag
	}{
		{name: "known", skills: map[string]string{"a": skill("a", `"conflicts": [{"kind": "skill", "name": "b"}], "supersedes": [{"kind": "skill", "name": "b"}], "suggests": [{"kind": "skill", "name": "b"}]`), "b": skill("b", `"schema": 1`)}},
		{name: "misspelt conflict", skills: map[string]string{"a": skill("a", `"conflicts": [{"kind": "skill", "name": "code-reveiw"}]`), "code-review": skill("code-review", `"schema": 1`)},
			want: []diag{{"a/SKILL.md", 5, ir.CodeUnknownReference, true, true}}},
		{name: "unknown suggests, stated twice", skills: map[string]string{"a": skill("a", `"suggests": [{"kind": "skill", "name": "elsewhere"}, {"kind": "skill", "name": "elsewhere"}]`)},
			want: []diag{{"a/SKILL.md", 5, ir.CodeUnknownReference, false, true}}},
		{name: "itself", skills: map[string]string{"a": skill("a", `"supersedes": [{"kind": "skill", "name": "a"}], "conflicts": [{"kind": "skill", "name": "a"}]`)},
			want: []diag{{"a/SKILL.md", 5, ir.CodeSelfReference, false, true}, {"a/SKILL.md", 5, ir.CodeSelfReference, false, true}}},
		{name: "not a name", skills: map[string]string{"a": skill("a", `"conflicts": [{"kind": "skill", "name": "Code-Review"}]`), "code-review": skill("code-review", `"schema": 1`)},
			want: []diag{{"a/SKILL.md", 5, ir.CodeUnknownReference, false, true}}},
		{name: "a tool is not checked", skills: map[string]string{"a": skill("a", `"conflicts": [{"kind": "tool", "name": "bash"}]`)}},
		{name: "manifest", skills: map[string]string{"r": "---\nname: r\ndescription: Route.\n---\nBody.\n", "r/manifest.json": `{"name": "r", "conflicts_with": ["nosuch"]}`},
			want: []diag{{"r/manifest.json", 0, ir.CodeUnknownReference, false, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.skills {
				file := filepath.Join(root, name, "SKILL.md")
				if filepath.Ext(name) != "" {
					file = filepath.Join(root, name)
				}
				testkit.WriteFile(t, file, text)
			}
			c, err := Load(context.Background(), loader.Options{Roots: []string{root}}, Policy{})
			if err != nil {
				t.Fatal(err)
			}
			var got []diag
			for _, d := range GraphProblems(c.Catalog(), Policy{}) {
				got = append(got, diag{d.Path, d.Line, d.Code, strings.Contains(d.Message, `did you mean "code-review"?`), d.Severity == ir.SeverityWarning})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reference diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShowCycle pins how a dependency_cycle message shows its cycle: from
// the edge's requiring unit, and at most maxCycleShown units of a long one,
// so that a catalog-long cycle costs each of its edges one short line
// rather than the whole cycle (3,000 units once took validate 6.5 s).
func TestShowCycle(t *testing.T) {
	long := make([]string, 0, 21)
	for i := range 20 {
		long = append(long, "s"+strconv.Itoa(i))
	}
	long = append(long, "s0")
	tests := []struct {
		name  string
		e     edge
		cycle []string
		want  string
	}{
		{"self", edge{from: "tdd", to: "tdd"}, []string{"tdd", "tdd"}, "requires cycle tdd -> tdd"},
		{"pair, from the other end", edge{from: "b", to: "a"}, []string{"a", "b", "a"}, "requires cycle b -> a -> b"},
		{"edge off the cycle shown", edge{from: "c", to: "a"}, []string{"a", "b", "a"}, "c requires a, inside the requires cycle a -> b -> a"},
		{"long, cut", edge{from: "s5", to: "s6"}, long, "requires cycle s5 -> s6 -> s7 -> s8 -> s9 -> s10 -> s11 -> s12 -> ... (20 units) -> s5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := map[string]int{}
			for i, u := range tt.cycle[:len(tt.cycle)-1] {
				at[u] = i
			}
			if got := showCycle(tt.e, tt.cycle, at); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestMissingDependencyHint: a dependency one edit from a unit names the
// unit likely meant, as an unknown reference does, and one no unit can
// bear says so; it said only "not in the catalog", of a look-alike
// letter too ("tdԁ" for "tdd").
func TestMissingDependencyHint(t *testing.T) {
	for to, want := range map[string]string{"tdb": `did you mean "tdd"?`, "tdԁ": "no skill can bear that name"} {
		cat := ir.NewCatalog(nil, []*ir.Unit{
			{Name: "tdd", Path: "tdd/SKILL.md", Status: ir.StatusOK},
			{Name: "implement", Path: "implement/SKILL.md", Status: ir.StatusOK},
		}, nil)
		ds := GraphProblems(cat, Policy{Requires: map[string][]string{"implement": {to}}})
		if len(ds) != 1 || ds[0].Code != ir.CodeMissingDependency || !strings.Contains(ds[0].Message, want) {
			t.Errorf("requires %s: got %v; want a missing_dependency saying %q", to, ds, want)
		}
	}
}
