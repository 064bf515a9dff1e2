package compiler

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestCountsOnlyWhatPolicyPacks checks that a compile counts a body's
// tokens (and so loads the tokenizer's vocabulary) only when the policy
// asks, in packing: a compile whose candidates are all rejected before
// packing counts nothing, and a selection counts what it selects.
func TestCountsOnlyWhatPolicyPacks(t *testing.T) {
	roots := testkit.GenerateCatalog(t, t.TempDir(), 100, 1)
	var counted []string
	testHookCount = func(name string) { counted = append(counted, name) }
	t.Cleanup(func() { testHookCount = nil })
	tests := []struct {
		name     string
		req      Request
		decision Decision
		counts   int // -1: one per selected unit (the unit and its closure)
	}{
		{"ambiguous", Request{Task: "please audit the billing schema"}, DecisionAmbiguous, 0},
		{"weak candidates", Request{Task: "render the chart"}, DecisionNoRoute, 0},
		{"selected", Request{Task: "render the chart", Select: []string{"SELECT"}}, DecisionRoute, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A fresh compiler: its token cache is empty.
			c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.req.Select) > 0 {
				tt.req.Select = []string{c.Catalog().Units[0].Name}
			}
			counted = nil
			res, err := c.Compile(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			candidates := 0
			for _, e := range res.Events {
				if e.Kind == EventCandidate {
					candidates++
				}
			}
			if candidates == 0 {
				t.Fatal("no candidate reached measure; the case tests nothing")
			}
			if tt.counts < 0 {
				tt.counts = len(res.Selected)
			}
			if res.Decision != tt.decision || len(counted) != tt.counts {
				t.Errorf("got %s with %d bodies counted %v; want %s with %d", res.Decision, len(counted), counted, tt.decision, tt.counts)
			}
		})
	}
}

// TestConcurrentFirstCounts checks that compiles that all count for the
// first time at once, on a fresh catalog and with both tokenizers, agree
// with one compile alone: the vocabularies and the token cache are filled
// lazily and safely (run it with -race).
func TestConcurrentFirstCounts(t *testing.T) {
	c := build(t, standard, Policy{})
	fresh := func() *Compiler {
		again, err := Load(context.Background(), loader.Options{Roots: []string{c.Catalog().Roots[0].Dir}}, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		return again
	}
	task := "review my code changes with tdd"
	want := map[string]string{}
	for _, tok := range Tokenizers {
		res, err := fresh().Compile(context.Background(), Request{Task: task, Tokenizer: tok})
		if err != nil || len(res.Selected) == 0 {
			t.Fatalf("got %v, %v; want a selection", res, err)
		}
		js, _ := json.Marshal(res)
		want[tok] = string(js)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := Tokenizers[i%len(Tokenizers)]
			got, err := c.Compile(context.Background(), Request{Task: task, Tokenizer: tok})
			if err != nil {
				t.Error(err)
				return
			}
			if js, _ := json.Marshal(got); string(js) != want[tok] {
				t.Errorf("a concurrent first compile with %s differs from one alone", tok)
			}
		}()
	}
	wg.Wait()
}
