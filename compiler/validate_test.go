package compiler

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestValidate: every policy or request under which a unit, or every
// compile, can never work is an error of Validate, whose Load succeeds.
func TestValidate(t *testing.T) {
	conflicts := `{"schema": 1, "conflicts": [{"kind": "skill", "name": "spaces"}]}`
	files := map[string]string{
		"tdd/SKILL.md":     skill("tdd", "Test-driven development.", "", "Body."),
		"testing/SKILL.md": skill("testing", "Go testing.", "", "Body."),
		"tabs/SKILL.md":    skill("tabs", "Indent with tabs.", conflicts, "Body."),
		"spaces/SKILL.md":  skill("spaces", "Indent with spaces.", "", "Body."),
	}
	type diag struct {
		path string
		code ir.Code
	}
	tests := []struct {
		name   string
		policy Policy
		opts   ValidateOptions
		want   []diag // the errors and warnings beyond the clean catalog's
	}{
		{name: "clean"},
		{name: "policy requires a typo", policy: Policy{Requires: map[string][]string{"tdd": {"testin"}}},
			want: []diag{{"policy", ir.CodeMissingDependency}, {"policy", ir.CodeUnknownPolicyUnit}}},
		{name: "policy requires a cycle", policy: Policy{Requires: map[string][]string{"tdd": {"tdd"}}},
			want: []diag{{"policy", ir.CodeDependencyCycle}}},
		{name: "mandatory and denied", policy: Policy{Mandatory: []string{"tdd"}, Deny: []string{"tdd"}},
			want: []diag{{"policy", ir.CodeUnusableMandatory}}},
		// No single check sees it: the compile of no task does.
		{name: "mandatory units that conflict", policy: Policy{Mandatory: []string{"tabs", "spaces"}},
			want: []diag{{"policy", ir.CodeUnusableMandatory}}},
		{name: "a selection that conflicts with a mandatory unit", policy: Policy{Mandatory: []string{"tabs"}},
			opts: ValidateOptions{Select: []string{"spaces"}}, want: []diag{{"select", ir.CodeSelectionDenied}}},
		{name: "selects a denied unit", policy: Policy{Deny: []string{"tdd"}},
			opts: ValidateOptions{Select: []string{"tdd"}}, want: []diag{{"select", ir.CodeSelectionDenied}}},
		{name: "denies a mandatory unit", policy: Policy{Mandatory: []string{"tdd"}},
			opts: ValidateOptions{Deny: []string{"tdd"}}, want: []diag{{"deny", ir.CodeUnusableMandatory}}},
		{name: "names nothing, under the paths given",
			opts: ValidateOptions{Select: []string{"td"}, Deny: []string{"tab"}, SelectPath: "--select", DenyPath: "--deny"},
			want: []diag{{"--deny", ir.CodeUnknownPolicyUnit}, {"--select", ir.CodeUnknownPolicyUnit}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := build(t, files, tt.policy)
			var got []diag
			ds, err := c.Validate(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				got = append(got, diag{d.Path, d.Code})
			}
			slices.SortFunc(got, func(a, b diag) int {
				return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.code, b.code))
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
	if got, err := (*Compiler)(nil).Validate(context.Background(), ValidateOptions{}); got != nil || err != nil {
		t.Errorf("nil Compiler: got %v, %v; want nil", got, err)
	}
	// A context done before the last check says so: two mandatory units
	// in conflict looked clean.
	c := build(t, files, Policy{Mandatory: []string{"tabs", "spaces"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Validate(ctx, ValidateOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled context: got %v; want context.Canceled", err)
	}
}

// TestResultNamesUnknownRequestUnits: a request's deny or why naming no
// unit is a warning of the result, for every host (the CLI, rlmc serve, a
// Go host alike); a name the catalog has is not.
func TestResultNamesUnknownRequestUnits(t *testing.T) {
	c := build(t, map[string]string{
		"spaces/SKILL.md": skill("spaces", "Indent with spaces.", "", "Body."),
		"tabs/SKILL.md":   skill("tabs", "Indent with tabs.", "", "Body."),
	}, Policy{})
	res, err := c.Compile(context.Background(), Request{Task: "indent with spaces", Deny: []string{"space", "tabs"}, Why: []string{"tab"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diagnostics {
		if d.Code == ir.CodeUnknownPolicyUnit {
			got = append(got, d.Path)
		}
	}
	if want := []string{"deny", "why"}; !slices.Equal(got, want) {
		t.Errorf("unknown_policy_unit warnings at %v; want %v", got, want)
	}
	sorted := slices.Clone(res.Diagnostics)
	sorted.Sort()
	if !slices.Equal(sorted, res.Diagnostics) {
		t.Errorf("diagnostics not sorted: %v", res.Diagnostics)
	}
}

// TestWatchRefusesAmbiguousOptions: a Policy beside a PolicyFile (one of
// them would be dropped, its deny list with it) and negative durations
// are refused, not taken for something else.
func TestWatchRefusesAmbiguousOptions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		p    Policy
		lo   LiveOptions
	}{
		{"policy and policy file", Policy{Deny: []string{"tdd"}}, LiveOptions{PolicyFile: "policy.yaml"}},
		{"negative debounce", Policy{}, LiveOptions{Debounce: -1}},
		{"negative max stale", Policy{}, LiveOptions{MaxStale: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Watch(context.Background(), loader.Options{Roots: []string{dir}}, tt.p, tt.lo)
			if err == nil {
				l.Close()
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Code != ErrInvalidRequest {
				t.Errorf("got %v; want an invalid_request *Error", err)
			}
		})
	}
}
