package compiler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"

	"github.com/rlmc-dev/rlmc/ir"
)

func TestPolicyUnknownKeys(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantLine int
		wantKey  string
		wantSugg string
	}{
		{name: "typo at the top", yaml: "budget: 100\ndenny: [x]\n", wantLine: 2, wantKey: "denny", wantSugg: "deny"},
		{name: "typo in limits", yaml: "limits:\n  max_dept: 3\n", wantLine: 2, wantKey: "max_dept", wantSugg: "max_depth"},
		{name: "nothing close", yaml: "colour: blue\n", wantLine: 1, wantKey: "colour"},
		{name: "case only", yaml: "Deny: [x]\n", wantLine: 1, wantKey: "Deny", wantSugg: "deny"},
		{name: "a plural", yaml: "priorities: {a: 1}\n", wantLine: 1, wantKey: "priorities", wantSugg: "priority"},
		{name: "cut short", yaml: "limit: {max_depth: 2}\n", wantLine: 1, wantKey: "limit", wantSugg: "limits"},
		{name: "first in document order", yaml: "mandatry: [a]\nprority: {a: 1}\n", wantLine: 1, wantKey: "mandatry", wantSugg: "mandatory"},
		{name: "unit names are keys of priority", yaml: "priority:\n  denny: 3\n"},
		{name: "unit names are keys of requires", yaml: "requires:\n  whatever: [x]\n"},
		{name: "every known key", yaml: "roots: [r]\nexclude: [e]\nbudget: 1\ntokenizer: o200k_base\nmandatory: [m]\ndeny: [d]\nambiguity: ask\nmin_confidence: 0.5\nlimits: {max_file_bytes: 1, max_frontmatter_bytes: 1, max_depth: 1, max_folders: 1}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := loadPolicyText(t, tt.yaml)
			if tt.wantKey == "" {
				if err != nil {
					t.Fatalf("got %v; want no error", err)
				}
				return
			}
			var ke *PolicyKeyError
			if !errors.As(err, &ke) {
				t.Fatalf("got %v; want a *PolicyKeyError", err)
			}
			got := PolicyKeyError{File: ke.File, Line: ke.Line, Key: ke.Key, Suggestion: ke.Suggestion}
			want := PolicyKeyError{File: file, Line: tt.wantLine, Key: tt.wantKey, Suggestion: tt.wantSugg}
			if got != want {
				t.Errorf("got %+v; want %+v", got, want)
			}
		})
	}
}

func TestPolicyKeyErrorText(t *testing.T) {
	e := &PolicyKeyError{File: "p.yaml", Line: 3, Key: "denny", Suggestion: "deny"}
	if got, want := e.Error(), `p.yaml:3: unknown key "denny" (did you mean "deny"?)`; got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

func TestPolicyValueShapes(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want PolicyValueError // File left out; zero for a policy that loads
	}{
		{name: "a name for a list", yaml: "deny: commit-message\n", want: PolicyValueError{Line: 1, Key: "deny", Want: "a list", Got: "a string"}},
		{name: "a word for the budget", yaml: "budget: lots\n", want: PolicyValueError{Line: 1, Key: "budget", Want: "a whole number", Got: "a string"}},
		{name: "a fraction for the budget", yaml: "budget: 1.5\n", want: PolicyValueError{Line: 1, Key: "budget", Want: "a whole number", Got: "1.5"}},
		{name: "a word in limits", yaml: "limits:\n  max_depth: deep\n", want: PolicyValueError{Line: 2, Key: "limits.max_depth", Want: "a whole number", Got: "a string"}},
		{name: "a word for a priority", yaml: "priority: {tdd: high}\n", want: PolicyValueError{Line: 1, Key: "priority.tdd", Want: "a whole number", Got: "a string"}},
		{name: "a name for requires' list", yaml: "requires:\n  a: b\n", want: PolicyValueError{Line: 2, Key: "requires.a", Want: "a list", Got: "a string"}},
		{name: "a list in a list of names", yaml: "deny: [a, [b]]\n", want: PolicyValueError{Line: 1, Key: "each entry of deny", Want: "a string", Got: "a list"}},
		{name: "a list for the whole policy", yaml: "- deny\n", want: PolicyValueError{Line: 1, Key: "the policy", Want: "a mapping of keys", Got: "a list"}},
		{name: "a whole number for a fraction", yaml: "min_confidence: 1\n"},
		{name: "empty lists and mappings", yaml: "deny:\nrequires:\n  a:\nlimits:\n"},
		// Read as the default without a word, as 0 would be.
		{name: "an empty budget", yaml: "deny:\nbudget:\n", want: PolicyValueError{Line: 2, Key: "budget", Want: "a whole number", Got: "null"}},
		{name: "a null limit", yaml: "limits: {max_depth: ~}\n", want: PolicyValueError{Line: 1, Key: "limits.max_depth", Want: "a whole number", Got: "null"}},
		{name: "a null priority", yaml: "priority:\n  tdd: ~\n", want: PolicyValueError{Line: 2, Key: "priority.tdd", Want: "a whole number", Got: "null"}},
		{name: "a null tokenizer", yaml: "tokenizer: null\n", want: PolicyValueError{Line: 1, Key: "tokenizer", Want: "a string", Got: "null"}},
		{name: "an empty deny name", yaml: "deny: [a, \"\"]\n", want: PolicyValueError{Line: 1, Key: "deny", Want: "unit names", Got: `""`}},
		{name: "an empty mandatory name", yaml: "mandatory: [\"\"]\n", want: PolicyValueError{Line: 1, Key: "mandatory", Want: "unit names", Got: `""`}},
		// A dependency on "" passed, and crashed the compile that
		// selected its dependent.
		{name: "an empty required name", yaml: "requires:\n  a: [\"\"]\n", want: PolicyValueError{Line: 2, Key: "requires", Want: "unit names", Got: `""`}},
		{name: "an empty requiring name", yaml: "requires:\n  \"\": [a]\n", want: PolicyValueError{Line: 2, Key: "requires", Want: "unit names", Got: `""`}},
		{name: "an empty priority name", yaml: "priority:\n  \"\": 5\n", want: PolicyValueError{Line: 2, Key: "priority", Want: "unit names", Got: `""`}},
		{name: "a null document is an empty policy", yaml: "~\n"},
		{name: "a list for a unit name", yaml: "priority:\n  [a]: 5\n", want: PolicyValueError{Line: 2, Key: "each key of priority", Want: "a unit name", Got: "a list"}},
		{name: "a null in a list of names", yaml: "deny: [a, null]\n", want: PolicyValueError{Line: 1, Key: "each entry of deny", Want: "a string", Got: "null"}},
		{name: "NaN confidence", yaml: "budget: 10\nmin_confidence: .nan\n", want: PolicyValueError{Line: 2, Key: "min_confidence", Want: "between 0 and 1", Got: "NaN"}},
		{name: "a negative budget", yaml: "deny: [a]\nbudget: -5\n", want: PolicyValueError{Line: 2, Key: "budget", Want: "positive", Got: "-5"}},
		{name: "a budget of 0 is no default", yaml: "budget: 0\n", want: PolicyValueError{Line: 1, Key: "budget", Want: "positive", Got: "0"}},
		{name: "a limit of 0 is no default", yaml: "limits:\n  max_depth: 0\n", want: PolicyValueError{Line: 2, Key: "limits.max_depth", Want: "positive", Got: "0"}},
		{name: "an empty root", yaml: "roots: [skills, \"\"]\n", want: PolicyValueError{Line: 1, Key: "roots", Want: "folder paths", Got: `""`}},
		{name: "an empty exclude", yaml: "exclude: [old, \"\"]\n", want: PolicyValueError{Line: 1, Key: "exclude", Want: "skill folder paths", Got: `""`}},
		{name: "a priority out of range", yaml: "priority:\n  tdd: 200000\n", want: PolicyValueError{Line: 2, Key: "priority.tdd", Want: "0..100000", Got: "200000"}},
		{name: "an unknown ambiguity", yaml: "ambiguity: sometimes\n", want: PolicyValueError{Line: 1, Key: "ambiguity", Want: "ask, top or all", Got: `"sometimes"`}},
		// yaml.v3 reads these as 8, 16 and 1000.
		{name: "a leading zero", yaml: "budget: 010\n", want: PolicyValueError{Line: 1, Key: "budget", Want: "a whole number written in decimal", Got: "010"}},
		{name: "hexadecimal", yaml: "limits:\n  max_depth: 0x10\n", want: PolicyValueError{Line: 2, Key: "limits.max_depth", Want: "a whole number written in decimal", Got: "0x10"}},
		{name: "an underscore", yaml: "priority:\n  tdd: 1_000\n", want: PolicyValueError{Line: 2, Key: "priority.tdd", Want: "a whole number written in decimal", Got: "1_000"}},
		{name: "a sign", yaml: "budget: +100\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := loadPolicyText(t, tt.yaml)
			var ve *PolicyValueError
			switch {
			case tt.want == PolicyValueError{} && errors.As(err, &ve):
				t.Fatalf("got %v; want no shape error", err)
			case tt.want == PolicyValueError{}:
			case !errors.As(err, &ve):
				t.Fatalf("got %v; want a *PolicyValueError", err)
			default:
				got := *ve
				got.File = ""
				if got != tt.want {
					t.Errorf("got %+v; want %+v", got, tt.want)
				}
				if ve.File != file {
					t.Errorf("file: got %q; want %q", ve.File, file)
				}
			}
		})
	}
}

// loadPolicyText writes text as a policy file and loads it, returning the
// file's path and LoadPolicy's error.
func loadPolicyText(t *testing.T, text string) (string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadPolicy(file)
	return file, err
}

// TestDecodePolicyMaps: the mappings keyed by unit name, decoded entry by
// entry (yaml.v3's own decoding of a mapping is quadratic in its length),
// read as yaml.v3 reads them, and the document is left as it was.
func TestDecodePolicyMaps(t *testing.T) {
	text := "budget: 900\npriority:\n  a: 5\n  b: 0\nrequires:\n  a: [b, c]\n  d: []\n  e:\nlimits: {max_depth: 3}\n"
	got, err := ParsePolicy([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var want Policy
	if err := yaml.Unmarshal([]byte(text), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Policy{})); diff != "" {
		t.Errorf("ParsePolicy differs from yaml.v3 (-want +got):\n%s", diff)
	}
}

// TestPolicyStructureErrorsPlaced: a key given twice, an anchor, a second
// document and a YAML syntax error are placed at path:line, as key and
// value errors are (they read "path: invalid policy: line 2: ...").
func TestPolicyStructureErrorsPlaced(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
	}{
		{name: "a key given twice", yaml: "deny: [a]\ndeny: [b]\n", line: 2},
		{name: "an anchor", yaml: "budget: 5\na: &x b\n", line: 2},
		{name: "a second document", yaml: "budget: 5\n---\nbudget: 6\n", line: 2},
		// The line of the context yaml.v3 was reading, the list opened
		// on line 2 (its parser counts lines from 0: it said 1).
		{name: "a syntax error", yaml: "budget: 5\ndeny: [a\n  b: :\n", line: 2},
		{name: "a scanner's syntax error", yaml: "budget: 5\ndeny: [a]\n\tb: 1\n", line: 3},
		// yaml.v3 places a problem on the first line at no line.
		{name: "on the first line", yaml: "@budget: 100\n", line: 1},
		// And one found at the end past the last line.
		{name: "a quote left open", yaml: "ambiguity: \"top\nbudget: 100\n", line: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := loadPolicyText(t, tt.yaml)
			want := fmt.Sprintf("%s:%d: ", file, tt.line)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got %v; want an error starting %q", err, want)
			}
		})
	}
}

// TestDenySpelledOtherwise: a deny that spells a unit's name with other
// case or separators, or names its folder, denies that unit all the same
// (a deny list is a safety control: "--deny Deploy" loaded deploy with a
// warning), in a request and in the host policy; one naming nothing near
// denies nothing.
func TestDenySpelledOtherwise(t *testing.T) {
	files := map[string]string{
		"deploy/SKILL.md":      skill("deploy", "Deploy the service to production.", "", "kubectl apply."),
		"code-review/SKILL.md": skill("code-review", "Review a diff for bugs.", "", "Read the diff."),
		"ops/SKILL.md":         skill("rollback", "Roll back a bad release.", "", "Revert."),
	}
	tests := []struct {
		name, deny, task, unit string
		denied                 bool
	}{
		{name: "other case", deny: "Deploy", task: "deploy the service to production", unit: "deploy", denied: true},
		{name: "underscore", deny: "code_review", task: "review the diff for bugs", unit: "code-review", denied: true},
		{name: "blank and capitals", deny: "Code Review", task: "review the diff for bugs", unit: "code-review", denied: true},
		{name: "its folder", deny: "ops", task: "roll back the bad release", unit: "rollback", denied: true},
		{name: "its folder with a slash", deny: "ops/", task: "roll back the bad release", unit: "rollback", denied: true},
		{name: "its folder in capitals", deny: "Ops", task: "roll back the bad release", unit: "rollback", denied: true},
		{name: "a slash after its name", deny: "deploy/", task: "deploy the service to production", unit: "deploy", denied: true},
		{name: "blanks around its name", deny: " deploy ", task: "deploy the service to production", unit: "deploy", denied: true},
		{name: "a typo is only warned about", deny: "deplyo", task: "deploy the service to production", unit: "deploy", denied: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, via := range []string{"request", "policy"} {
				var (
					c   *Compiler
					req = Request{Task: tt.task}
				)
				if via == "policy" {
					c = build(t, files, Policy{Deny: []string{tt.deny}})
				} else {
					c = build(t, files, Policy{})
					req.Deny = []string{tt.deny}
				}
				res, err := c.Compile(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				code, selected := reasonOf(res, tt.unit)
				if got := code == ReasonDenied; got != tt.denied || selected == tt.denied {
					t.Errorf("%s: got %s %s (selected %v); want denied %v", via, tt.unit, code, selected, tt.denied)
				}
			}
			ds := UnknownDenies(build(t, files, Policy{}), "deny", []string{tt.deny})
			if len(ds) != 1 {
				t.Fatalf("got %d warnings %v; want one", len(ds), ds)
			}
			if says := strings.Contains(ds[0].Message, "it denies "+ir.Quote(tt.unit)); says != tt.denied {
				t.Errorf("got %q; want it to say it denies %s: %v", ds[0].Message, tt.unit, tt.denied)
			}
			if n := strings.Count(ds[0].Message, ir.Quote(tt.unit)); tt.denied && n != 1 {
				t.Errorf("got %q; want %s named once", ds[0].Message, tt.unit)
			}
		})
	}
}

// TestMandatoryDeniedSpelledOtherwise: a mandatory unit the policy's deny
// names otherwise ("Deploy") is unusable, as every compile fails on it.
func TestMandatoryDeniedSpelledOtherwise(t *testing.T) {
	files := map[string]string{"deploy/SKILL.md": skill("deploy", "Deploy the service to production.", "", "kubectl apply.")}
	c := build(t, files, Policy{})
	ds := GraphProblems(c.Catalog(), Policy{Mandatory: []string{"deploy"}, Deny: []string{"Deploy"}})
	if len(ds) != 1 || ds[0].Code != ir.CodeUnusableMandatory {
		t.Errorf("got %v; want one unusable_mandatory", ds)
	}
}
