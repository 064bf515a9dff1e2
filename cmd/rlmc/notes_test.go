package main

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestCompileNotes pins which rejections compile's text mode reports on
// stderr, keyed on reason codes: one line each, and none when all is well.
func TestCompileNotes(t *testing.T) {
	rejected := func(name string, code compiler.ReasonCode, score float64) compiler.Rejected {
		return compiler.Rejected{Name: name, Score: score, Reasons: []compiler.Reason{{Code: code, Detail: "detail"}}}
	}
	tests := []struct {
		name    string
		res     compiler.Result
		invalid []string // the catalog's invalid units
		want    []string // substrings, one per line, in order
	}{
		{name: "all is well", res: compiler.Result{Rejected: []compiler.Rejected{
			rejected("a", compiler.ReasonNoEvidence, 0), rejected("b", compiler.ReasonBelowThreshold, 2),
			rejected("c", compiler.ReasonDenied, 9), rejected("d", compiler.ReasonShadowed, 0),
		}}},
		{name: "weak explicit-only match", res: compiler.Result{Rejected: []compiler.Rejected{rejected("implement", compiler.ReasonExplicitOnly, 1.5)}}},
		{name: "strong explicit-only match", res: compiler.Result{Rejected: []compiler.Rejected{rejected("implement", compiler.ReasonExplicitOnly, 9.21)}},
			want: []string{"--select implement"}},
		{name: "over budget", res: compiler.Result{Rejected: []compiler.Rejected{rejected("big", compiler.ReasonOverBudget, 9)}},
			want: []string{"big not loaded: over budget"}},
		{name: "rendered as reference", res: compiler.Result{Selected: []compiler.Selected{{Name: "small", Rendering: compiler.RenderingInline}, {Name: "big", Rendering: compiler.RenderingReference}}},
			want: []string{"big rendered as reference: its body does not fit the budget; raise --budget"}},
		{name: "failed dependencies", res: compiler.Result{Rejected: []compiler.Rejected{
			rejected("a", compiler.ReasonMissingDependency, 9), rejected("b", compiler.ReasonDependencyCycle, 9), rejected("c", compiler.ReasonDependencyRejected, 9),
		}}, want: []string{"a not loaded: missing_dependency", "b not loaded: dependency_cycle", "c not loaded: dependency_rejected"}},
		{name: "negated", res: compiler.Result{Rejected: []compiler.Rejected{rejected("tdd", compiler.ReasonNegated, 3)}},
			want: []string{"tdd not loaded: the task asks not to use it"}},
		{name: "ambiguous", res: compiler.Result{Ambiguous: []string{"a", "b"}}, want: []string{"ambiguous: a, b; choose with --select NAME"}},
		// An empty prompt says nothing: the note says nothing was
		// selected, and names the unit that came closest.
		{name: "no route", res: compiler.Result{Decision: compiler.DecisionNoRoute, Rejected: []compiler.Rejected{
			rejected("a", compiler.ReasonBelowThreshold, 2), rejected("b", compiler.ReasonBelowThreshold, 3.5), rejected("c", compiler.ReasonNoEvidence, 0),
		}}, want: []string{"no skill selected: the closest, b (score 3.50)"}},
		{name: "no route, no evidence", res: compiler.Result{Decision: compiler.DecisionNoRoute, Rejected: []compiler.Rejected{rejected("c", compiler.ReasonNoEvidence, 0)}},
			want: []string{"no skill selected: the task's words are in no skill of the catalog"}},
		{name: "no route, only a refusal", res: compiler.Result{Decision: compiler.DecisionNoRoute, Rejected: []compiler.Rejected{rejected("deploy", compiler.ReasonNoEvidence, 0)},
			Events: []compiler.Event{{Kind: compiler.EventRefusal, Detail: "don't deploy to production"}}},
			want: []string{`no skill selected: the task says what not to do ("don't deploy to production"), whose words count for no skill, and its other words are in none`}},
		{name: "no route, no skill at all", res: compiler.Result{Decision: compiler.DecisionNoRoute},
			want: []string{"no skill selected: no skill found under the roots"}},
		{name: "no route said by another note", res: compiler.Result{Decision: compiler.DecisionNoRoute, Rejected: []compiler.Rejected{rejected("tdd", compiler.ReasonNegated, 3)}},
			want: []string{"tdd not loaded: the task asks not to use it"}},
		// A result counts invalid units without naming them: the names
		// come from the catalog.
		{name: "invalid units", res: compiler.Result{Unlisted: map[compiler.ReasonCode]int{compiler.ReasonInvalid: 4}},
			invalid: []string{"a", "b", "c", "d"},
			want:    []string{"4 invalid skills in the catalog: a, b, c and 1 more; run rlmc validate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var units []*ir.Unit
			for _, n := range tt.invalid {
				units = append(units, &ir.Unit{Name: n, Status: ir.StatusInvalid})
			}
			for _, rj := range tt.res.Rejected {
				units = append(units, &ir.Unit{Name: rj.Name, Status: ir.StatusOK})
			}
			got := compileNotes(&tt.res, ir.NewCatalog(nil, units, nil), compiler.InvocationTask)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines %q; want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("line %d: got %q; want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestNoteName checks that a name a note prints cannot stretch the note or
// pass for more of it: an invalid name is quoted and cut.
func TestNoteName(t *testing.T) {
	long := strings.Repeat("\u202e", 1000)
	tests := []struct {
		name, in, want string
	}{
		{"valid name as is", "code-review", "code-review"},
		{"list separators quoted", "a, b and 2 more; `rlmc validate` says why", "\"a, b and 2 more; `rlmc validate` says why\""},
		{"control characters escaped", "evil\n\x1b[31m", `"evil\n\x1b[31m"`},
		{"long name cut", long, strconv.Quote(strings.Repeat("\u202e", maxNameRunes) + "…")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteName(tt.in); got != tt.want {
				t.Errorf("got %s; want %s", got, tt.want)
			}
		})
	}
}

// TestUnloaded: an error no unit's folder holds is a skill the loader could
// not load at all, which a note names; errors of units, catalog-wide
// warnings and warnings are not.
func TestUnloaded(t *testing.T) {
	units := []*ir.Unit{{Name: "a", Root: "/r", Path: "a/SKILL.md", Status: ir.StatusInvalid}, {Name: "n", Root: "/r", Path: "group/n/SKILL.md"}}
	diags := ir.Diagnostics{
		{Root: "/r", Path: "a/SKILL.md", Code: ir.CodeInvalidName, Severity: ir.SeverityError},
		{Root: "/r", Path: "group/n/agents/openai.yaml", Code: ir.CodeReadError, Severity: ir.SeverityError},
		{Root: "/r", Path: "linked", Code: ir.CodePathEscape, Severity: ir.SeverityError},
		{Root: "/r", Path: "fifo/SKILL.md", Code: ir.CodeReadError, Severity: ir.SeverityError},
		{Root: "/r", Path: "loose", Code: ir.CodePathEscape, Severity: ir.SeverityWarning},
		{Root: "/r", Path: "deep", Code: ir.CodeScanLimit, Severity: ir.SeverityError},
	}
	got := unloaded(ir.NewCatalog(nil, units, diags))
	want := []string{"fifo/SKILL.md (read_error)", "linked (path_escape)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q; want %q", got, want)
	}
}

// TestLockName: verify names a lock's checkout by what the lock holds,
// never with an empty name or commit.
func TestLockName(t *testing.T) {
	tests := []struct{ name, commit, want string }{
		{"demo", "abc123", "demo at abc123"},
		{"demo", "", "demo"},
		{"", "abc123", "the checkout at abc123"},
		{"", "", "the checkout"},
	}
	for _, tt := range tests {
		if got := lockName(tt.name, tt.commit); got != tt.want {
			t.Errorf("lockName(%q, %q): got %q; want %q", tt.name, tt.commit, got, tt.want)
		}
	}
}

// TestCatalogWarningsBounded: past maxCatalogWarnings of a code one line
// counts the rest: a policy naming thousands of units a catalog lacks
// made every command print a line for each.
func TestCatalogWarningsBounded(t *testing.T) {
	var ds ir.Diagnostics
	for i := range maxCatalogWarnings + 30 {
		ds = append(ds, ir.Diagnostic{Path: "p.yaml", Line: i + 1, Code: ir.CodeUnknownPolicyUnit, Severity: ir.SeverityWarning, Message: "host policy names unit"})
	}
	ds = append(ds, ir.Diagnostic{Path: "x", Code: ir.CodeScanLimit, Severity: ir.SeverityError, Message: "stopped"})
	var b bytes.Buffer
	writeCatalogWarnings(&b, ds)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if got, want := len(lines), maxCatalogWarnings+2; got != want {
		t.Fatalf("got %d lines; want %d:\n%s", got, want, b.String())
	}
	if last := lines[len(lines)-1]; last != "rlmc: 30 more unknown_policy_unit warnings; rlmc validate lists them all" {
		t.Errorf("got last line %q; want the count of the rest", last)
	}
}

// TestNoSkill: a catalog of no unit says why: no skill under the roots,
// or an exclude of the host policy that leaves out every one found.
func TestNoSkill(t *testing.T) {
	excluded := ir.Diagnostics{{Path: "only/SKILL.md", Code: ir.CodeExcluded, Severity: ir.SeverityInfo}}
	for _, tt := range []struct {
		name  string
		diags ir.Diagnostics
		want  string
	}{
		{name: "nothing found", want: "no skill found under the roots"},
		{name: "all excluded", diags: excluded, want: "the host policy's exclude leaves out every skill found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := noSkill(ir.NewCatalog(nil, nil, tt.diags)); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestEvidenceNoteSource: a --why note says which evidence came from the
// material rather than the instruction, as the JSON's source does.
func TestEvidenceNoteSource(t *testing.T) {
	got := evidenceNote([]compiler.Evidence{
		{Field: "description", Terms: []string{"schema"}, Weight: 2},
		{Field: "lead", Terms: []string{"webhook"}, Weight: 0.5, Source: "material"},
		{Field: "heading", Terms: []string{"docker"}, Weight: 1, Source: "pasted_kind", Kind: "Dockerfile"},
	})
	want := `; evidence: description "schema" +2.000, lead "webhook" +0.500 (material), heading "docker" +1.000 (pasted Dockerfile)`
	if got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}
