package rules

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPolicyVocabularyIsGo ties policy.pl's decisions to Go's vocabulary
// both ways, from the policy's own terms (not a written list): every
// reason, rule and clause the policy can emit is a Go constant, and every
// Go constant is emitted by the policy or decided at a named Go site.
func TestPolicyVocabularyIsGo(t *testing.T) {
	reasons, ruleNames, clauses, err := PolicyAtoms()
	if err != nil {
		t.Fatal(err)
	}
	if len(reasons) < 10 || len(ruleNames) < 8 || len(clauses) < 5 {
		t.Fatalf("got %d reasons, %d rules, %d clauses from policy.pl; want the policy's decisions", len(reasons), len(ruleNames), len(clauses))
	}
	for _, r := range reasons {
		if !slices.Contains(Reasons, r) {
			t.Errorf("policy.pl decides reason %q; want a Go ReasonCode for it", r)
		}
	}
	for _, r := range ruleNames {
		if r.Number() == 0 {
			t.Errorf("policy.pl cites rule %q; want a Go RuleName for it", r)
		}
	}
	for _, c := range clauses {
		if !slices.Contains(Clauses, c) {
			t.Errorf("policy.pl names clause %q; want a Go Clause for it", c)
		}
	}
	// select(N, Origin, ...) admits a candidate with its origin as the
	// reason, so the origins are emitted through a variable.
	origins := []ReasonCode{ReasonCode(OriginMandatory), ReasonCode(OriginExplicit), ReasonCode(OriginInvoked), ReasonCode(OriginLexical)}
	for _, code := range Reasons {
		_, goSite := GoReasons[code]
		if !slices.Contains(reasons, code) && !slices.Contains(origins, code) && !goSite {
			t.Errorf("reason %q is produced nowhere: not by policy.pl, not by a Go site in GoReasons", code)
		}
		if goSite && slices.Contains(reasons, code) && code != ReasonBelowThreshold {
			t.Errorf("reason %q is listed as Go's but policy.pl decides it too", code)
		}
	}
	// Rule 1 is Go's; rule 8 orders the candidates and decides none alone.
	for _, r := range RuleNames {
		if r != RuleEvidence && r != RuleOrder && !slices.Contains(ruleNames, r) {
			t.Errorf("rule %q is cited by no decision of policy.pl", r)
		}
	}
	goClauses := []Clause{ClauseBelowCandidateFloor, ClauseOutsideCap}
	for _, c := range Clauses {
		if !slices.Contains(clauses, c) && !slices.Contains(goClauses, c) {
			t.Errorf("clause %q is named by no decision", c)
		}
	}
}

// TestUnknownVocabularyFailsLoad pins that the engine refuses a policy
// that can emit a reason, rule, clause or fact Go does not know, so a new
// atom never reaches the JSON contract as an untyped string.
func TestUnknownVocabularyFailsLoad(t *testing.T) {
	if _, err := New(catalog(nil, nil)); err != nil {
		t.Fatalf("the shipped policy: got %v; want it to load", err)
	}
	tests := []struct{ name, clause string }{
		{"unknown reason", "extra(N, reject(N, too_weak, x))."},
		{"unknown reason with a rule", "extra(N, reject(N, too_weak, because(strength, [])))."},
		{"decision without because", "extra(N, select(N, lexical, 3000))."},
		{"unknown rule", "extra(N, reject(N, below_threshold, because(vibes, [])))."},
		{"unknown clause", "extra(N, reject(N, below_threshold, because(strength, [clause(close_enough)])))."},
		{"unknown fact", "extra(N, reject(N, below_threshold, because(strength, [mood(low)])))."},
		{"fact of the wrong arity", "extra(N, reject(N, covered, because(redundancy, [by(N, x)])))."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewWithPolicy(catalog(nil, nil), policySource+"\n"+tt.clause+"\n"); err == nil {
				t.Errorf("got a loaded engine for %s; want a load error", tt.clause)
			}
		})
	}
}

// TestDecisionsNameTheirRule checks that every rule-10 decision says which
// clause made it, with the facts it compared: the margin rule names the
// runner-up and its score, a secondary selection names the stronger
// candidate kept before it; below_min_confidence names the best, whose
// confidence was too low; intents names the weakest part; rule 9 asks
// about no tie when the best explains more.
func TestDecisionsNameTheirRule(t *testing.T) {
	units := map[string]UnitFacts{"a": ok(100), "b": ok(100), "c": ok(100)}
	e, err := New(catalog(units, nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		cands     []Candidate
		withdrawn int
		breadth   map[string]int
		budget    int
		// conf: the lexical candidates' confidences x 1000; minConf the
		// host's min_confidence x 1000; redundant and more: pairs for
		// redundant/3 and explains_more/3.
		conf      map[string]int
		minConf   int
		redundant map[[2]string]bool
		more      map[[2]string]bool
		// own: the candidates resting on their own trigger words.
		own map[string]bool
		// material: the candidates' evidence from pasted material x 1000.
		material map[string]int
		// apart and ownPart: Request.Apart and Request.OwnPart.
		apart, ownPart map[[2]string]int
		want           string // name:reason:rule/clause{facts}, space-separated
	}{
		{name: "no margin over the runner-up", cands: []Candidate{lex("a", 3880), lex("b", 2200)},
			want: "a:below_threshold:strength/no_margin{s3880 r=b:2200 m181} b:below_threshold:strength/not_best{s2200}"},
		// The margin needed slides from 2x at the support floor to 1.75x
		// at the threshold: 1.82x is no margin at 2.5, a margin at 4.0.
		{name: "a small margin near the threshold", cands: []Candidate{lex("a", 4000), lex("b", 2200)},
			want: "a:lexical:strength/margin{s4000 r=b:2200 m180} b:lexical:strength/secondary{s2200 kept=a:4000}"},
		{name: "the same margin near the floor", cands: []Candidate{lex("a", 2500), lex("b", 1375)},
			want: "a:below_threshold:strength/no_margin{s2500 r=b:1375 m195} b:below_threshold:strength/below_support_floor{s1375}"},
		{name: "margin over the runner-up", cands: []Candidate{lex("a", 3000), lex("b", 1500)},
			want: "a:lexical:strength/margin{s3000 r=b:1500 m190} b:below_threshold:strength/below_support_floor{s1500}"},
		{name: "margin against a withdrawn unit", cands: []Candidate{lex("a", 3000)}, withdrawn: 2000,
			want: "a:below_threshold:strength/no_margin{s3000 r=withdrawn:2000 m190}"},
		{name: "secondary beside a kept unit", cands: []Candidate{lex("a", 9000), lex("b", 2080)},
			want: "a:lexical:strength/above_threshold{s9000} b:lexical:strength/secondary{s2080 kept=a:9000}"},
		{name: "sole unit on two words", cands: []Candidate{lex("a", 3000)}, breadth: map[string]int{"a": 2},
			want: "a:lexical:strength/sole{s3000 r=none}"},
		{name: "sole unit on one word", cands: []Candidate{lex("a", 3000)}, breadth: map[string]int{"a": 1},
			want: "a:below_threshold:strength/one_word{s3000 r=none}"},
		{name: "own words over one incidental word", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			breadth: map[string]int{"a": 2, "b": 1}, own: map[string]bool{"a": true},
			want: "a:lexical:strength/own_words{s3000 r=b:2500 m190} b:lexical:strength/secondary{s2500 kept=a:3000}"},
		{name: "own words against a rival's own words", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			breadth: map[string]int{"a": 2, "b": 1}, own: map[string]bool{"a": true, "b": true},
			want: "a:below_threshold:strength/no_margin{s3000 r=b:2500 m190} b:below_threshold:strength/not_best{s2500}"},
		{name: "own words against a rival on two words", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			breadth: map[string]int{"a": 2, "b": 2}, own: map[string]bool{"a": true},
			want: "a:below_threshold:strength/no_margin{s3000 r=b:2500 m190} b:below_threshold:strength/not_best{s2500}"},
		{name: "own words alone on one word", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			breadth: map[string]int{"a": 1, "b": 1}, own: map[string]bool{"a": true},
			want: "a:below_threshold:strength/no_margin{s3000 r=b:2500 m190} b:below_threshold:strength/not_best{s2500}"},
		{name: "own words against a withdrawn rival", cands: []Candidate{lex("a", 3000)}, withdrawn: 2000,
			breadth: map[string]int{"a": 2}, own: map[string]bool{"a": true},
			want: "a:below_threshold:strength/no_margin{s3000 r=withdrawn:2000 m190}"},
		{name: "pasted material confirms the best", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			material: map[string]int{"a": 1200, "b": 600},
			want:     "a:lexical:strength/confirmed{s3000 r=b:2500 m190} b:lexical:strength/secondary{s2500 kept=a:3000}"},
		{name: "material below the floor confirms nothing", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			material: map[string]int{"a": 999},
			want:     "a:below_threshold:strength/no_margin{s3000 r=b:2500 m190} b:below_threshold:strength/not_best{s2500}"},
		{name: "material a rival shares confirms nothing", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			material: map[string]int{"a": 1200, "b": 601},
			want:     "a:below_threshold:strength/no_margin{s3000 r=b:2500 m190} b:below_threshold:strength/not_best{s2500}"},
		// A rival resting only on the paste is what the paste is about,
		// not what the instruction asks: its material does not outmatch
		// the confirmation (lint output under "fix all of these" points
		// at a React skill as much as at the one fixing lint errors).
		{name: "material a rival only the paste points at confirms", cands: []Candidate{lex("a", 2769), lex("c", 1913), lex("b", 1565)},
			material: map[string]int{"a": 1478, "c": 609, "b": 1565},
			want:     "a:lexical:strength/confirmed{s2769 r=c:1913 m192} c:below_threshold:strength/below_support_floor{s1913} b:below_threshold:strength/below_support_floor{s1565}"},
		// A candidate resting only on what the user pasted is no
		// candidate when the instruction points at another (at least the
		// candidate floor of its own): it neither routes nor stands as
		// the other's runner-up.
		{name: "material alone confirms nothing", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			material: map[string]int{"a": 3000},
			want:     "a:below_threshold:strength/pasted_only{s3000} b:below_threshold:strength/one_word{s2500 r=none}"},
		{name: "pasted only, above the threshold, beside the instruction's", cands: []Candidate{lex("a", 4844), lex("b", 2314)},
			material: map[string]int{"a": 4844, "b": 388}, breadth: map[string]int{"b": 3},
			want: "b:lexical:strength/sole{s2314 r=none} a:below_threshold:strength/pasted_only{s4844}"},
		{name: "pasted only, when the instruction points nowhere", cands: []Candidate{lex("a", 4844), lex("b", 1600)},
			material: map[string]int{"a": 4844, "b": 400},
			want:     "a:lexical:strength/above_threshold{s4844} b:below_threshold:strength/below_support_floor{s1600}"},
		{name: "over budget names what is left", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, budget: 150,
			want: "a:lexical:strength/above_threshold{s9000} b:over_budget:packing{t100/50}"},
		{name: "below min confidence drops every lexical candidate", cands: []Candidate{sel("c"), lex("a", 9000), lex("b", 3000)},
			conf: map[string]int{"a": 400, "b": 900}, minConf: 500,
			want: "c:explicit:packing{t100/10000} a:below_threshold:strength/below_min_confidence{s9000 by=a} b:below_threshold:strength/below_min_confidence{s3000 by=a}"},
		{name: "confident best passes min confidence", cands: []Candidate{lex("a", 9000)},
			conf: map[string]int{"a": 500}, minConf: 500,
			want: "a:lexical:strength/above_threshold{s9000}"},
		{name: "several intents are each kept", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			conf: map[string]int{"a": 800, "b": 700},
			want: "a:lexical:strength/intents{s3000 by=b} b:lexical:strength/secondary{s2500 kept=a:3000}"},
		{name: "a not confident part is no intent", cands: []Candidate{lex("a", 3000), lex("b", 2500)},
			conf: map[string]int{"a": 800, "b": 699},
			want: "a:below_threshold:strength/no_margin{s3000 r=b:2500 m190} b:below_threshold:strength/not_best{s2500}"},
		{name: "a rival the best explains more of is no tie", cands: []Candidate{lex("a", 9000), lex("b", 8000)},
			breadth: map[string]int{"a": 2}, redundant: map[[2]string]bool{{"a", "b"}: true}, more: map[[2]string]bool{{"a", "b"}: true},
			want: "a:lexical:strength/above_threshold{s9000} b:covered:redundancy/redundant{by=a}"},
		{name: "a part of its own in a clause the best answers better", cands: []Candidate{lex("a", 9000), lex("b", 5000)},
			ownPart: map[[2]string]int{{"a", "b"}: 5000}, apart: map[[2]string]int{},
			want: "a:lexical:strength/above_threshold{s9000} b:covered:redundancy/same_clause{by=a}"},
		// no_own_part states the weight of the part of its own when it
		// has one at all: a reason said it was too low for a unit
		// whose own evidence, above the threshold, rested on one pair.
		{name: "no part of its own at all", cands: []Candidate{lex("a", 12000), lex("b", 5000)},
			ownPart: map[[2]string]int{}, apart: map[[2]string]int{},
			want: "a:lexical:strength/above_threshold{s12000} b:below_threshold:strength/no_own_part{s5000 kept=a:12000}"},
		{name: "a part of its own too small", cands: []Candidate{lex("a", 12000), lex("b", 5000)},
			ownPart: map[[2]string]int{{"a", "b"}: 3000}, apart: map[[2]string]int{},
			want: "a:lexical:strength/above_threshold{s12000} b:below_threshold:strength/no_own_part{s5000 kept=a:12000 own=3000}"},
		{name: "a rival explaining as much ties", cands: []Candidate{lex("a", 9000), lex("b", 8000)},
			breadth: map[string]int{"a": 2}, redundant: map[[2]string]bool{{"a", "b"}: true},
			want: "a:ambiguous:ambiguity/ask{by=a} b:ambiguous:ambiguity/ask{by=a}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			budget := tt.budget
			if budget == 0 {
				budget = 10000
			}
			ds, err := e.Decide(context.Background(), &Request{
				Candidates: tt.cands, Budget: budget, Tokens: func(string) int { return 100 },
				Explicit: set(), Mandatory: set(), Denied: set(), Negated: set(),
				Redundant: tt.redundant, SameObject: map[[2]string]bool{}, Breadth: tt.breadth, OwnWords: tt.own,
				Threshold: 4500, TieRatio: 75, SupportFloor: 2000, CandidateFloor: 1500, MarginRatio: 2, ThresholdMargin: 175, MinBreadth: 2, Withdrawn: tt.withdrawn,
				Material: tt.material, MaterialFloor: 1000, Apart: tt.apart, OwnPart: tt.ownPart,
				MinConfidence: tt.minConf, IntentConfidence: 700,
				Confidence: func(n string) (int, bool) {
					c, ok := tt.conf[n]
					return c, ok
				},
				ExplainsMore: func(a, b string) bool { return tt.more[[2]string{a, b}] },
			})
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, d := range ds {
				parts = append(parts, whyOf(d))
			}
			if got := strings.Join(parts, " "); got != tt.want {
				t.Errorf("got %s; want %s", got, tt.want)
			}
		})
	}
}

// whyOf renders a decision's rule and the facts that tell its clauses apart.
func whyOf(d Decision) string {
	f := d.Facts
	s := fmt.Sprintf("%s:%s:%s", d.Name, d.Reason, d.Rule)
	if f.Clause != "" {
		s += "/" + string(f.Clause)
	}
	var facts []string
	if f.Score != 0 {
		facts = append(facts, fmt.Sprintf("s%d", f.Score))
	}
	switch {
	case f.RunnerUp != "":
		facts = append(facts, fmt.Sprintf("r=%s:%d", f.RunnerUp, f.RunnerUpScore))
	case f.RunnerUpWithdrawn:
		facts = append(facts, fmt.Sprintf("r=withdrawn:%d", f.RunnerUpScore))
	case f.NoRunnerUp:
		facts = append(facts, "r=none")
	}
	if f.Margin != 0 {
		facts = append(facts, fmt.Sprintf("m%d", f.Margin))
	}
	if f.Kept != "" {
		facts = append(facts, fmt.Sprintf("kept=%s:%d", f.Kept, f.KeptScore))
	}
	if f.HasOwnPart {
		facts = append(facts, fmt.Sprintf("own=%d", f.OwnPart))
	}
	if f.By != "" {
		facts = append(facts, "by="+f.By)
	}
	if f.Budgeted {
		facts = append(facts, fmt.Sprintf("t%d/%d", f.Tokens, f.BudgetLeft))
	}
	if len(facts) > 0 {
		s += "{" + strings.Join(facts, " ") + "}"
	}
	return s
}

// TestNoThresholdInPolicy: every threshold, floor, ratio and margin the
// policy compares with comes from the parameter table (compiler's
// params.go) as a request fact; a clause writes no number but 0 and 1
// (signs and the empty case), 100 (percent) and origin_rank/2's ranks.
func TestNoThresholdInPolicy(t *testing.T) {
	num := regexp.MustCompile(`(^|[^A-Za-z0-9_])([0-9]+(\.[0-9]+)?)`)
	for i, line := range strings.Split(policySource, "\n") {
		code, _, _ := strings.Cut(line, "%")
		if strings.HasPrefix(code, "origin_rank(") {
			continue
		}
		for _, m := range num.FindAllStringSubmatch(code, -1) {
			switch m[2] {
			case "0", "1", "100":
				continue
			}
			t.Errorf("policy.pl:%d: got the number %s in a clause; want it a parameter (%s)", i+1, m[2], strings.TrimSpace(code))
		}
	}
}
