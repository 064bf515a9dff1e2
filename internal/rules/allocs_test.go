package rules

import (
	"context"
	"testing"
)

// TestPolicyAllocations pins what one policy run allocates over
// BenchmarkDecide's and BenchmarkIneligible's requests. The interpreter
// allocates for every variable a clause head binds (its bindings are a
// persistent tree), so a policy clause that binds more than it needs shows
// here before it shows in the warm compile's latency. The bounds sit a
// little above the figures measured when policy.pl learned to test before
// it builds (issue 12's rule-naming decisions had cost a fifth more).
func TestPolicyAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	decide, ineligible := benchRequests(t)
	for _, tc := range []struct {
		name string
		run  func() error
		max  float64
	}{
		{"decide", decide, 55000}, // 53,190 before packing asked left/6 what the budget leaves (a call a step, for the room a host unit's reference needs); 53,500 was the bound; 52,296 before rule 7 asked whether a superseder stands beside what it supersedes (x(Req, Ok), one binding a clause); 52,500 was the bound; 51,768 before rule 10 asked whether a candidate rests only on what was pasted (pasted/1, one call without a paste); 52,000 was the bound; 50,350 before rule 10 asked whether an explicit-user-only unit drew the task's words (available/5, one clause a candidate); 50,500 was the bound; 48,500 before a candidate beside a kept one had to stand out of the crowd; 42,000 before rule 10 asked every candidate beside a kept one for a part of its own; 44,000 before rule 11's coverage moved from Go into policy.pl
		{"ineligible", ineligible, 6300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			got := testing.AllocsPerRun(20, func() {
				if e := tc.run(); e != nil {
					err = e
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if got > tc.max {
				t.Errorf("got %.0f allocations per run; want at most %.0f", got, tc.max)
			}
		})
	}
}

// benchRequests returns one Decide and one Ineligible call over the
// requests of BenchmarkDecide and BenchmarkIneligible.
func benchRequests(t *testing.T) (decide, ineligible func() error) {
	t.Helper()
	units := map[string]UnitFacts{}
	for _, n := range []string{"u0", "u1", "u2", "u3", "u4", "u5"} {
		units[n] = ok(100)
	}
	cands := []Candidate{sel("u0"), lex("u1", 8000), lex("u2", 7000), lex("u3", 6000), lex("u4", 5000)}
	e, err := New(catalog(units, map[string][]string{"u1": {"u5"}}))
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{
		Candidates: cands, Budget: 10000, Tokens: func(string) int { return 100 },
		Explicit: set("u0"), Mandatory: set(), Denied: set(), Negated: set("u9"),
		Redundant: map[[2]string]bool{{"u1", "u4"}: true}, SameObject: map[[2]string]bool{},
		Breadth: map[string]int{}, Threshold: 4500, TieRatio: 75, SupportFloor: 2000, CandidateFloor: 1500, MarginRatio: 2, ThresholdMargin: 175, MinBreadth: 2,
	}
	lexReq := &Request{Explicit: set(), Mandatory: set(), Denied: set(), Negated: set("u9")}
	ctx := context.Background()
	decide = func() error { _, err := e.Decide(ctx, req); return err }
	ineligible = func() error { _, err := e.Ineligible(ctx, lexReq, cands[1:]); return err }
	return decide, ineligible
}
