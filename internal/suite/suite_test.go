package suite

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// adversarialDir holds the project's hostile inputs, one case per file.
const adversarialDir = "../../testdata/adversarial"

// TestAdversarial runs every case of the corpus through the same runner
// that `rlmc test` uses.
func TestAdversarial(t *testing.T) {
	cases, err := Load(adversarialDir)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{TempDir: func() (string, error) { return os.MkdirTemp(t.TempDir(), "case") }}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Note == "" {
				t.Error("case has no note saying what it attacks")
			}
			out := r.Run(context.Background(), c)
			for _, f := range out.Failures {
				t.Error(f)
			}
		})
	}
}

func TestSubset(t *testing.T) {
	tests := []struct {
		name      string
		want, got any
		ok        bool
	}{
		{"equal scalar", 1.0, 1.0, true},
		{"different scalar", 1.0, 2.0, false},
		{"object subset", map[string]any{"a": 1.0}, map[string]any{"a": 1.0, "b": 2.0}, true},
		{"object missing key", map[string]any{"c": 1.0}, map[string]any{"a": 1.0}, false},
		{"array subsequence", []any{"a", "c"}, []any{"a", "b", "c"}, true},
		{"array out of order", []any{"c", "a"}, []any{"a", "b", "c"}, false},
		{"array of objects", []any{map[string]any{"name": "x"}}, []any{map[string]any{"name": "y"}, map[string]any{"name": "x", "n": 1.0}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := subset("", tt.want, tt.got) == ""; got != tt.ok {
				t.Errorf("subset = %v; want %v", got, tt.ok)
			}
		})
	}
}

// TestCaseKeysExact: a case's request and want keys are spelt exactly and
// given once; "Deny" or a second "deny" must not pass for the deny the
// case meant to pin.
func TestCaseKeysExact(t *testing.T) {
	for _, tc := range []struct{ name, request, want string }{
		{"request key in capitals", `{"task": "x", "Deny": ["a"]}`, `{"decision": "route"}`},
		{"request key repeated", `{"task": "x", "deny": ["a"], "deny": []}`, `{"decision": "route"}`},
		{"want key in capitals", `{"task": "x"}`, `{"Decision": "route"}`},
		{"list entry key repeated", `[{"task": "x"}, {"task": "y", "task": "z"}]`, `{"decision": "route"}`},
		// Not a key, but as exact: a null name would be read as "".
		{"null in select", `{"task": "x", "select": [null]}`, `{"decision": "route"}`},
		{"null in deny", `{"task": "x", "deny": ["a", null]}`, `{"decision": "route"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "case.txtar")
			data := "A case.\n-- request.json --\n" + tc.request + "\n-- want.json --\n" + tc.want + "\n"
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(file); err == nil {
				t.Fatal("got no error; want the key refused")
			}
		})
	}
}

// TestBudgetWrittenAsFloat: a budget of 100.0 or 1e2, what a client that
// keeps every number as a float writes, is the budget 100.
func TestBudgetWrittenAsFloat(t *testing.T) {
	for _, budget := range []string{"100", "100.0", "1e2"} {
		t.Run(budget, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "case.txtar")
			data := "A case.\n-- request.json --\n{\"task\": \"x\", \"budget\": " + budget + "}\n-- want.json --\n{}\n"
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Parse(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Requests[0].BudgetTokens(); got != 100 {
				t.Errorf("got budget %d; want 100", got)
			}
		})
	}
}

// runCodeReviewCase runs a case of one task and one expectation over a
// catalog of one skill, code-review.
func runCodeReviewCase(t *testing.T, task, want string) Outcome {
	t.Helper()
	return runCaseText(t, "A case.\n-- request.json --\n{\"task\": \""+task+"\"}\n-- want.json --\n"+want+"\n"+
		"-- skills/code-review/SKILL.md --\n---\nname: code-review\ndescription: Review a pull request.\n---\n# cr\n")
}

// runCaseText runs the case file data.
func runCaseText(t *testing.T, data string) Outcome {
	t.Helper()
	r := &Runner{TempDir: func() (string, error) { return os.MkdirTemp(t.TempDir(), "case") }}
	return r.Run(context.Background(), parseCase(t, data))
}

// TestCasePolicyRootsFromTheCase: a case's policy.yaml names its roots
// relative to itself, as a policy file does; they were read from the
// folder rlmc test ran in.
func TestCasePolicyRootsFromTheCase(t *testing.T) {
	t.Chdir(t.TempDir()) // no mycat here
	out := runCaseText(t, "A case.\n-- request.json --\n{\"task\": \"deploy the service to production\"}\n-- want.json --\n{\"selected\": [\"deploy\"]}\n"+
		"-- policy.yaml --\nroots: [mycat]\n-- mycat/deploy/SKILL.md --\n---\nname: deploy\ndescription: Deploy the service to production.\n---\n# d\n")
	if !out.Passed() {
		t.Errorf("got failures %q; want the case's own mycat read", out.Failures)
	}
}

// TestWantedUnknown: a case that wants a unit no skill of the catalog
// bears says so, with the name it most likely means, not only that
// nothing was selected (a documented example copied into a catalog
// without its skills read "includes tdd: got []; want it selected").
func TestWantedUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, want, says string
	}{
		{"includes, a typo", `{"includes": ["code-reveiw"]}`, "code-reveiw: no unit is named so in the catalog (did you mean code-review?)"},
		{"selected, absent", `{"selected": ["tdd"]}`, "tdd: no unit is named so in the catalog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runCodeReviewCase(t, "review my pull request", tc.want)
			if !slices.ContainsFunc(out.Failures, func(f string) bool { return strings.HasSuffix(f, tc.says) }) {
				t.Errorf("got failures %q; want one saying %q", out.Failures, tc.says)
			}
		})
	}
}

// TestExcludesTypo: excluding a name one edit from a unit's fails the
// case, which would otherwise check nothing and pass for ever; a name
// near none is a unit meant to be absent, and passes.
func TestExcludesTypo(t *testing.T) {
	for _, tc := range []struct {
		name, excluded string
		fails          bool
	}{
		{"a typo of a unit's name", "code-reveiw", true},
		{"a unit meant to be absent", "evil", false},
		{"the unit itself, not selected", "code-review", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := runCodeReviewCase(t, "write a poem", `{"excludes": ["`+tc.excluded+`"]}`); (len(out.Failures) > 0) != tc.fails {
				t.Errorf("got failures %q; want failing %v", out.Failures, tc.fails)
			}
		})
	}
}
