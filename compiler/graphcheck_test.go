package compiler

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
	"github.com/rlmc-dev/rlmc/loader"
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
				case ir.CodeMissingDependency, ir.CodeDependencyCycle, ir.CodeUnusableDependency:
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
