package compiler

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/rules"
)

// ruleCatalog: sales-charts wins a charts task; figure-digest draws one of
// its words; release-notes and changelog answer a second request.
var ruleCatalog = map[string]string{
	"sales-charts/SKILL.md":   skill("sales-charts", "Build charts of quarterly sales figures.", "", "# sales-charts"),
	"figure-digest/SKILL.md":  skill("figure-digest", "Summarize quarterly figures.", "", "# figure-digest"),
	"css-tips/SKILL.md":       skill("css-tips", "Tips for css layout.", "", "# css-tips"),
	"git-bisect/SKILL.md":     skill("git-bisect", "Find the commit that broke a test with git bisect.", "", "# git-bisect"),
	"server-actions/SKILL.md": skill("server-actions", "Next.js server actions that perform mutations from client components, such as saving a form.", "", "# server-actions"),
	"zod-validation/SKILL.md": skill("zod-validation", "Validate input with zod schemas.", "", "# zod-validation"),
}

// TestReasonsNameTheirRule checks that a compile's decisions name the rule
// and clause that made them, with the facts the rule compared, in the
// result and in the explanation: the margin rule names the runner-up (here
// a unit the task negated, withdrawn from the candidates) and its score.
func TestReasonsNameTheirRule(t *testing.T) {
	c := build(t, ruleCatalog, Policy{})
	tests := []struct {
		name    string
		task    string
		unit    string
		code    ReasonCode
		rule    int
		clause  rules.Clause
		check   func(*Facts) string
		explain string // a fragment of the unit's explanation line
	}{
		{name: "margin rule against a withdrawn runner-up", task: "build charts of the quarterly sales figures, but avoid sales-charts",
			unit: "figure-digest", code: ReasonBelowThreshold, rule: 10, clause: rules.ClauseNoMargin,
			check: func(f *Facts) string {
				if f == nil || f.RunnerUp != "sales-charts" || f.RunnerUpScore == nil || *f.RunnerUpScore <= f.Score || f.Margin < ThresholdMargin || f.Margin > MarginRatio || f.Threshold != Threshold {
					return "want runner-up sales-charts scoring more, a margin between 1.75 and 2, threshold 4.5"
				}
				return ""
			},
			explain: "below_threshold [rule 10 strength: no_margin] (score "},
		{name: "negation names its rule", task: "build charts of the quarterly sales figures, but avoid sales-charts",
			unit: "sales-charts", code: ReasonNegated, rule: 5},
		{name: "selected above the threshold", task: "build charts of the quarterly sales figures",
			unit: "sales-charts", code: ReasonLexical, rule: 10, clause: rules.ClauseAboveThreshold,
			explain: "because lexical [rule 10 strength: above_threshold]"},
		// Rule 11 says which of its clauses covered the unit: here not its
		// evidence, which the other's does not cover, but the one clause
		// of the task, which the other answers better.
		{name: "covered in a clause the other answers better", task: "Write a server action for the settings form that checks the input with a zod schema before saving.",
			unit: "zod-validation", code: ReasonCovered, rule: 11, clause: rules.ClauseSameClause,
			explain: "(server-actions answers better every clause of the task this one has evidence in"},
		{name: "no evidence is rule 1", task: "build charts of the quarterly sales figures",
			unit: "css-tips", code: ReasonNoEvidence, rule: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A unit without evidence is only counted unless asked about.
			res, err := c.Compile(context.Background(), Request{Task: tt.task, Why: []string{tt.unit}})
			if err != nil {
				t.Fatal(err)
			}
			var got *Reason
			for _, s := range res.Selected {
				if s.Name == tt.unit {
					got = &s.Reasons[0]
				}
			}
			for _, r := range res.Rejected {
				if r.Name == tt.unit {
					got = &r.Reasons[0]
				}
			}
			if got == nil {
				t.Fatalf("%s is neither selected nor rejected", tt.unit)
			}
			if got.Code != tt.code || got.Rule.Number != tt.rule || got.Rule.Clause != tt.clause {
				t.Errorf("got %s [%s]; want %s [rule %d: %s]", got.Code, got.Rule, tt.code, tt.rule, tt.clause)
			}
			if tt.check != nil {
				if msg := tt.check(got.Facts); msg != "" {
					t.Errorf("got facts %+v; %s", got.Facts, msg)
				}
			}
			explained := explanation(t, res)
			if tt.explain != "" && !strings.Contains(explained, tt.explain) {
				t.Errorf("got explanation:\n%s\nwant it to hold %q", explained, tt.explain)
			}
		})
	}
}

// TestWeakUnitsShowEvidence checks that a unit with some evidence that Go
// kept from the policy still shows what the task said for it.
func TestWeakUnitsShowEvidence(t *testing.T) {
	c := build(t, ruleCatalog, Policy{})
	res, err := c.Compile(context.Background(), Request{Task: "summarize the test"})
	if err != nil {
		t.Fatal(err)
	}
	explained := explanation(t, res)
	want := "below_threshold [rule 1 evidence: below_candidate_floor] (score is below the candidate floor 1.5)\n  evidence: description \"summarize\""
	if !strings.Contains(explained, want) {
		t.Errorf("got explanation:\n%s\nwant it to hold %q", explained, want)
	}
}

// TestRetrievalCodes ties retrieval's own codes to the contract's: each
// maps, in retrievalReasons, to the reason code spelled the same and known
// to rules, under rule 1 (evidence) or rule 3 (standing), and every code
// rules lists as decided in Go is one retrieval gives.
func TestRetrievalCodes(t *testing.T) {
	mapped := map[ReasonCode]bool{}
	for _, c := range retrieval.Codes {
		m, ok := retrievalReasons[c]
		if !ok {
			t.Errorf("retrieval code %q: got no mapping; want one in retrievalReasons", c)
			continue
		}
		if string(m.code) != string(c) || !slices.Contains(rules.Reasons, m.code) {
			t.Errorf("retrieval code %q: got reason %q; want the reason code spelled the same, known to rules", c, m.code)
		}
		if m.rule != rules.RuleEvidence && m.rule != rules.RuleStanding {
			t.Errorf("retrieval code %q: got rule %q; want evidence or standing", c, m.rule)
		}
		mapped[m.code] = true
	}
	if len(retrievalReasons) != len(retrieval.Codes) {
		t.Errorf("retrievalReasons: got %d entries; want one per retrieval code, %d", len(retrievalReasons), len(retrieval.Codes))
	}
	for code := range rules.GoReasons {
		if !mapped[code] {
			t.Errorf("Go reason %q: got no retrieval code for it; want retrieval to give it", code)
		}
	}
}

// TestJSONEvidence checks that the JSON contract carries evidence as a
// structured list (field, terms, weight) on a selected unit and on a weak
// unit that never became a candidate, and none on a unit without evidence.
func TestJSONEvidence(t *testing.T) {
	c := build(t, ruleCatalog, Policy{})
	tests := []struct {
		name, task, unit string
		want             bool
	}{
		{name: "selected", task: "build charts of the quarterly sales figures", unit: "sales-charts", want: true},
		{name: "below the candidate floor", task: "summarize the test", unit: "figure-digest", want: true},
		{name: "no evidence", task: "summarize the test", unit: "css-tips"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Compile(context.Background(), Request{Task: tt.task, Why: []string{tt.unit}})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Selected, Rejected []struct {
					Name     string
					Evidence []map[string]any `json:"evidence"`
				}
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			var ev []map[string]any
			found := false
			for _, u := range append(doc.Selected, doc.Rejected...) {
				if u.Name == tt.unit {
					ev, found = u.Evidence, true
				}
			}
			if !found {
				t.Fatalf("%s is neither selected nor rejected", tt.unit)
			}
			if got := len(ev) > 0; got != tt.want {
				t.Fatalf("got evidence %v; want some: %v", ev, tt.want)
			}
			for _, e := range ev {
				field, _ := e["field"].(string)
				terms, _ := e["terms"].([]any)
				_, weighed := e["weight"].(float64)
				words, said := e["words"].([]any)
				if said && len(words) != len(terms) {
					t.Errorf("got evidence item %v; want a word for each term", e)
				}
				if n := 3 + b2i(said); field == "" || len(terms) == 0 || !weighed || len(e) != n {
					t.Errorf("got evidence item %v; want field, terms, weight and, where a word differs from its term, words only", e)
				}
			}
		})
	}
}

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
