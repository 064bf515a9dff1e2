package compiler

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// listingCatalog is a generated catalog with two shadowed namesakes and an
// invalid skill beside it.
func listingCatalog(t *testing.T) *Compiler {
	t.Helper()
	dir := t.TempDir()
	roots := testkit.GenerateCatalog(t, filepath.Join(dir, "gen"), 300, 7)
	first, err := loader.Load(context.Background(), loader.Options{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(dir, "extra")
	for _, u := range first.Units[:2] {
		testkit.WriteFile(t, filepath.Join(extra, u.Name, "SKILL.md"), "---\nname: "+u.Name+"\ndescription: a namesake that loses to the first root, about billing audits.\n---\nbody\n")
	}
	testkit.WriteFile(t, filepath.Join(extra, "broken", "SKILL.md"), "---\nname: broken\ndescription: render chart audit\nmetadata:\n  prolog-rlm: '{\"schema\": 1, \"mode\": \"x\"}'\n---\nbody\n")
	c, err := Load(context.Background(), loader.Options{Roots: append(roots, extra)}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func entryKey(rj Rejected) string { return rj.Root + "\x00" + rj.Path }

// TestListing checks what a result lists by default against the same
// compile with AllRejected: the same decisions and prompt; every entry
// listed by default the same, byte for byte, as in the full list; every
// unit a rule decided about listed; of the units left out for too little
// evidence, exactly the NearMisses best listed; and the counts of the
// others in Unlisted.
func TestListing(t *testing.T) {
	c := listingCatalog(t)
	units := c.Catalog().Units
	tests := []struct {
		name string
		req  Request
	}{
		{"bench task", Request{Task: benchTask}},
		{"negation", Request{Task: "kappa lambda sigma report, not " + units[5].Name}},
		{"host input", Request{Task: "invoice ledger payroll", Select: []string{units[3].Name, units[9].Name}, Deny: []string{units[10].Name}}},
		{"budget", Request{Task: "translate and summarize the audio caption", Budget: 50}},
		{"no evidence", Request{Task: "zzz unrelated words only"}},
		{"pasted log", Request{Task: pastedLog()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Compile(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, c, res)
			all := tt.req
			all.AllRejected = true
			full, err := c.Compile(context.Background(), all)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, c, full)
			if len(full.Unlisted) != 0 {
				t.Errorf("got unlisted %v with AllRejected; want none", full.Unlisted)
			}
			if full.Fingerprint != res.Fingerprint || full.Decision != res.Decision || full.Prompt != res.Prompt ||
				!slices.Equal(full.Names(), res.Names()) || !reflect.DeepEqual(full.Selected, res.Selected) {
				t.Errorf("AllRejected changed a decision: got %s %v %s; want %s %v %s", full.Decision, full.Names(), full.Fingerprint, res.Decision, res.Names(), res.Fingerprint)
			}
			if !reflect.DeepEqual(full.RejectedCounts(), res.RejectedCounts()) {
				t.Errorf("got rejected counts %v with AllRejected; want the default's %v", full.RejectedCounts(), res.RejectedCounts())
			}
			listed := map[string]Rejected{}
			for _, rj := range res.Rejected {
				listed[entryKey(rj)] = rj
			}
			counted := map[ReasonCode]int{}
			var near, left []Rejected // standing below_threshold: listed, and left out
			for _, rj := range full.Rejected {
				code := rj.Reasons[0].Code
				got, ok := listed[entryKey(rj)]
				switch {
				case ok && !reflect.DeepEqual(got, rj):
					t.Errorf("%s: got entry %+v by default; want the full list's %+v", rj.Name, got, rj)
				case !ok && !standing(code):
					t.Errorf("%s: got it unlisted; want it listed, rejected as %s by a rule", rj.Name, code)
				case !ok:
					counted[code]++
				}
				// Rule 1 left it out; rule 10's below_threshold is a
				// candidate the policy judged.
				if code == ReasonBelowThreshold && rj.Reasons[0].Rule.Name == rules.RuleEvidence && rj.Score > 0 {
					if ok {
						near = append(near, rj)
					} else {
						left = append(left, rj)
					}
				}
			}
			if !reflect.DeepEqual(counted, res.Unlisted) {
				t.Errorf("got unlisted %v; want the counts of the units left out, %v", res.Unlisted, counted)
			}
			if want := min(NearMisses, len(near)+len(left)); len(near) != want {
				t.Errorf("got %d near misses listed; want %d", len(near), want)
			}
			for _, l := range left {
				for _, n := range near {
					if l.Score > n.Score || l.Score == n.Score && l.Name < n.Name {
						t.Errorf("got %s (score %v) unlisted and %s (score %v) listed; want the best-scoring listed", l.Name, l.Score, n.Name, n.Score)
					}
				}
			}
			for _, n := range near {
				if n.Confidence == nil || len(n.Evidence) == 0 {
					t.Errorf("near miss %s: got confidence %v, %d evidence; want both", n.Name, n.Confidence, len(n.Evidence))
				}
			}
		})
	}
}

// TestWhy checks that Request.Why lists a unit the result would only
// count, with the reason and entry the full list gives it, every unit
// bearing the name (a shadowed namesake too), and changes nothing else.
func TestWhy(t *testing.T) {
	c := listingCatalog(t)
	var shadowed, invalid string
	for _, u := range c.Catalog().Units {
		switch u.Status {
		case ir.StatusShadowed:
			shadowed = u.Name // its namesake in gen/ wins
		case ir.StatusInvalid:
			invalid = u.Name
		}
	}
	tests := []struct {
		name  string
		why   string
		codes []ReasonCode // of the units bearing the name, in catalog order
	}{
		{"no evidence", c.Catalog().Units[40].Name, []ReasonCode{ReasonNoEvidence}},
		{"shadowed namesake", shadowed, []ReasonCode{ReasonNoEvidence, ReasonShadowed}},
		{"invalid", invalid, []ReasonCode{ReasonInvalid}},
		{"no such unit", "not-in-the-catalog", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Task: "zzz unrelated words only"}
			res, err := c.Compile(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rejected) != 0 {
				t.Fatalf("got %d rejected listed by default; want none, the task has no evidence", len(res.Rejected))
			}
			req.Why = []string{tt.why}
			asked, err := c.Compile(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, c, asked)
			var codes []ReasonCode
			for _, rj := range asked.Rejected {
				if rj.Name != tt.why {
					t.Errorf("got %s listed; want only %s", rj.Name, tt.why)
				}
				codes = append(codes, rj.Reasons[0].Code)
			}
			if !slices.Equal(codes, tt.codes) {
				t.Errorf("got %s listed as %v; want %v", tt.why, codes, tt.codes)
			}
			if asked.Fingerprint != res.Fingerprint || asked.Decision != res.Decision {
				t.Errorf("Why changed the decision: got %s %s; want %s %s", asked.Decision, asked.Fingerprint, res.Decision, res.Fingerprint)
			}
		})
	}
}

// TestExplanationCountsUnlisted checks that the explanation's total counts
// the unlisted units and says how many of each reason it does not name.
func TestExplanationCountsUnlisted(t *testing.T) {
	c := listingCatalog(t)
	res, err := c.Compile(context.Background(), Request{Task: "zzz unrelated words only"})
	if err != nil {
		t.Fatal(err)
	}
	explained := explanation(t, res)
	n := len(c.Catalog().Units)
	for _, want := range []string{
		fmt.Sprintf("decision: no_route (0 selected, %d rejected)", n),
		fmt.Sprintf("rejected and not listed: 1 invalid, %d no_evidence, 2 shadowed\n", n-3),
	} {
		if !strings.Contains(explained, want) {
			t.Errorf("got explanation:\n%s\nwant it to hold %q", explained, want)
		}
	}
}

// TestWhyGivesEvidence: a unit asked about that the task's words reach,
// but outside the candidates, is listed with the evidence its score came
// from, in the result and in the explanation. It was listed with a score
// and nothing it came from.
func TestWhyGivesEvidence(t *testing.T) {
	root := t.TempDir()
	// s0 to s13 rank in order; s13 is outside the four candidates and
	// the five near misses.
	for i := range 14 {
		extra := strings.Repeat(" deploy rollout", 14-i) // fewer task words, further down
		testkit.WriteFile(t, filepath.Join(root, fmt.Sprintf("s%d", i), "SKILL.md"),
			fmt.Sprintf("---\nname: s%d\ndescription: Kubernetes%s.\n---\nBody.\n", i, extra))
	}
	c, err := Load(context.Background(), Options{Roots: []string{root}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compile(context.Background(), Request{Task: "kubernetes deploy rollout", Why: []string{"s13"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, rj := range res.Rejected {
		if rj.Name != "s13" {
			continue
		}
		if rj.Reasons[0].Rule.Clause != "outside_cap" {
			t.Fatalf("s13 rejected by %s; this test needs it outside the candidates", rj.Reasons[0].Rule)
		}
		if len(rj.Evidence) == 0 {
			t.Fatalf("got s13 listed with score %.3f and no evidence; want the evidence", rj.Score)
		}
		if e := explanation(t, res); !strings.Contains(e, "rejected s13 (s13/SKILL.md): score") || !strings.HasPrefix(e[strings.Index(e, "rejected s13"):], "rejected s13 (s13/SKILL.md): score") || !strings.Contains(strings.SplitN(e[strings.Index(e, "rejected s13"):], "\nrejected", 2)[0], "\n  evidence: ") {
			t.Fatalf("explanation shows no evidence for s13:\n%s", e)
		}
		return
	}
	t.Fatal("s13 not listed; want it, as asked about")
}

// TestEntrySameHoweverListed: a unit's entry is the same listed by
// default, by Request.Why or by Request.AllRejected. A unit the task
// negates is listed by default, and only Why gave it its evidence.
func TestEntrySameHoweverListed(t *testing.T) {
	root := t.TempDir()
	for name, desc := range map[string]string{
		"fix-flaky-tests": "Fix flaky tests that fail intermittently in CI.",
		"tdd":             "Test driven development: write the failing test first, then the code.",
		"write-tests":     "Write unit tests for Go code. Use when adding tests.",
	} {
		testkit.WriteFile(t, filepath.Join(root, name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\nBody.\n")
	}
	c, err := Load(context.Background(), Options{Roots: []string{root}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	const task = "fix the flaky tests in CI, do not use tdd"
	entry := func(req Request) Rejected {
		t.Helper()
		req.Task = task
		res, err := c.Compile(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, rj := range res.Rejected {
			if rj.Name == "tdd" {
				return rj
			}
		}
		t.Fatalf("tdd not listed for %+v", req)
		return Rejected{}
	}
	byDefault := entry(Request{})
	if byDefault.Score == 0 || len(byDefault.Evidence) == 0 {
		t.Fatalf("got tdd listed with score %.3f and evidence %v; this test needs a score, and wants its evidence", byDefault.Score, byDefault.Evidence)
	}
	for name, req := range map[string]Request{"why": {Why: []string{"tdd"}}, "all rejected": {AllRejected: true}} {
		if got := entry(req); !reflect.DeepEqual(got, byDefault) {
			t.Errorf("%s: got entry %+v; want the default listing's %+v", name, got, byDefault)
		}
	}
}
