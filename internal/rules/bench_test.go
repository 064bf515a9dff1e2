package rules

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkDecide measures one policy run over a typical request: four
// lexical candidates and one host selection, one of them with a dependency.
func BenchmarkDecide(b *testing.B) {
	units := map[string]UnitFacts{}
	var cands []Candidate
	for i := 0; i < 6; i++ {
		units[fmt.Sprintf("u%d", i)] = ok(100)
	}
	cands = append(cands, sel("u0"))
	for i := 1; i <= 4; i++ {
		cands = append(cands, lex(fmt.Sprintf("u%d", i), 9000-1000*i))
	}
	e, err := New(catalog(units, map[string][]string{"u1": {"u5"}}))
	if err != nil {
		b.Fatal(err)
	}
	req := &Request{
		Candidates: cands, Budget: 10000, Tokens: func(string) int { return 100 },
		Explicit: set("u0"), Mandatory: set(), Denied: set(), Negated: set("u9"),
		Redundant: map[[2]string]bool{{"u1", "u4"}: true}, SameObject: map[[2]string]bool{},
		Breadth: map[string]int{}, Threshold: 4500, TieRatio: 75, SupportFloor: 2000, CandidateFloor: 1500, MarginRatio: 2, ThresholdMargin: 175, MinBreadth: 2,
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := e.Decide(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIneligible measures eligible/3 over the same four lexical
// candidates: what retrieve asks before capping them.
func BenchmarkIneligible(b *testing.B) {
	units := map[string]UnitFacts{}
	var cands []Candidate
	for i := 0; i < 6; i++ {
		units[fmt.Sprintf("u%d", i)] = ok(100)
	}
	for i := 1; i <= 4; i++ {
		cands = append(cands, lex(fmt.Sprintf("u%d", i), 9000-1000*i))
	}
	e, err := New(catalog(units, map[string][]string{"u1": {"u5"}}))
	if err != nil {
		b.Fatal(err)
	}
	req := &Request{Explicit: set(), Mandatory: set(), Denied: set(), Negated: set("u9")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := e.Ineligible(context.Background(), req, cands); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew measures loading the policy into a fresh sandboxed
// interpreter: what each catalog pays once.
func BenchmarkNew(b *testing.B) {
	f := catalog(map[string]UnitFacts{"u0": ok(100)}, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := New(f); err != nil {
			b.Fatal(err)
		}
	}
}
