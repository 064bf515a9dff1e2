package rules

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

// catalog builds fake facts from a compact description.
func catalog(units map[string]UnitFacts, requires map[string][]string) *fakeFacts {
	if requires == nil {
		requires = map[string][]string{}
	}
	return &fakeFacts{units: units, requires: requires}
}

func explicitOnly(prio int) UnitFacts {
	return UnitFacts{Status: ir.StatusOK, Invocation: ir.InvocationExplicitUser, Priority: prio}
}

func invalid() UnitFacts {
	return UnitFacts{Status: ir.StatusInvalid, Invocation: ir.InvocationAutomatic, Priority: 100}
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func lex(name string, score int) Candidate {
	return Candidate{Name: name, Origin: OriginLexical, Score: score}
}
func sel(name string) Candidate  { return Candidate{Name: name, Origin: OriginExplicit} }
func must(name string) Candidate { return Candidate{Name: name, Origin: OriginMandatory} }

// render writes decisions as "+name:reason" and "-name:reason(detail)".
func render(ds []Decision) string {
	var parts []string
	for _, d := range ds {
		if d.Selected && d.Facts.Reference {
			parts = append(parts, "+"+d.Name+":"+string(d.Reason)+fmt.Sprintf("[ref %d]", d.Facts.InlineTokens))
		} else if d.Selected {
			parts = append(parts, "+"+d.Name+":"+string(d.Reason))
		} else {
			parts = append(parts, "-"+d.Name+":"+string(d.Reason)+"("+object(d)+")")
		}
	}
	return strings.Join(parts, " ")
}

// object renders the fact a rejection turns on, for the table rows.
func object(d Decision) string {
	f := d.Facts
	switch d.Reason {
	case ReasonDenied:
		return "host"
	case ReasonInvalid:
		return "status"
	case ReasonExplicitOnly, ReasonNegated:
		return "task_text"
	case ReasonMissingDependency:
		return f.Missing
	case ReasonDependencyCycle:
		return strings.Join(f.Path, " -> ")
	case ReasonDependencyRejected:
		return f.Dependency + " (" + string(f.DependencyReason) + ")"
	case ReasonOverBudget:
		return fmt.Sprint(f.Tokens)
	case ReasonBelowThreshold:
		return fmt.Sprint(f.Score)
	}
	return f.By
}

func TestDecide(t *testing.T) {
	base := map[string]UnitFacts{"a": ok(100), "b": ok(100), "c": ok(100), "x": explicitOnly(100), "bad": invalid(), "hi": ok(500)}
	tests := []struct {
		name       string
		facts      *fakeFacts
		cands      []Candidate
		budget     int
		explicit   []string
		mandatory  []string
		denied     []string
		negated    []string
		tokens     map[string]int
		refs       map[string]int // reference tokens; nil: no reference fits
		redundant  [][2]string
		sameObject [][2]string
		apart      [][2]string
		ownPart    [][2]string // nil: every pair has a part of its own
		breadth    map[string]int
		wholeTask  []string
		explained  map[string]int // explained/3 per name; nil: not computed
		threshold  int
		withdrawn  int
		judged     bool
		ambiguity  string
		want       string
	}{
		{name: "lexical by score", cands: []Candidate{lex("a", 1000), lex("b", 2000)}, want: "+b:lexical +a:lexical"},
		{name: "explicit only from task text", cands: []Candidate{lex("x", 9000)}, want: "-x:explicit_only(task_text)"},
		{name: "explicit only by host", cands: []Candidate{sel("x")}, explicit: []string{"x"}, want: "+x:explicit"},
		{name: "negation suppresses lexical", cands: []Candidate{lex("a", 9000)}, negated: []string{"a"}, want: "-a:negated(task_text)"},
		{name: "explicit beats negation", cands: []Candidate{sel("a")}, explicit: []string{"a"}, negated: []string{"a"}, want: "+a:explicit"},
		{name: "deny beats explicit", cands: []Candidate{sel("a")}, explicit: []string{"a"}, denied: []string{"a"}, want: "-a:denied(host)"},
		{name: "invalid never activates", cands: []Candidate{sel("bad")}, explicit: []string{"bad"}, want: "-bad:invalid(status)"},
		{name: "dependency first", facts: catalog(base, map[string][]string{"a": {"b"}}), cands: []Candidate{lex("a", 1000)}, want: "+b:dependency +a:lexical"},
		{name: "transitive closure in order", facts: catalog(base, map[string][]string{"a": {"b"}, "b": {"c"}}), cands: []Candidate{lex("a", 1000)}, want: "+c:dependency +b:dependency +a:lexical"},
		{name: "missing dependency", facts: catalog(base, map[string][]string{"a": {"ghost"}}), cands: []Candidate{lex("a", 1000)}, want: "-a:missing_dependency(ghost)"},
		{name: "self cycle", facts: catalog(base, map[string][]string{"a": {"a"}}), cands: []Candidate{lex("a", 1000)}, want: "-a:dependency_cycle(a -> a)"},
		{name: "two cycle", facts: catalog(base, map[string][]string{"a": {"b"}, "b": {"a"}}), cands: []Candidate{lex("a", 1000)}, want: "-a:dependency_cycle(a -> b -> a)"},
		{name: "dependency explicit only", facts: catalog(base, map[string][]string{"a": {"x"}}), cands: []Candidate{lex("a", 1000)}, want: "-a:dependency_rejected(x (explicit_only))"},
		{name: "dependency explicit only but selected", facts: catalog(base, map[string][]string{"a": {"x"}}), cands: []Candidate{sel("x"), lex("a", 1000)}, explicit: []string{"x"}, want: "+x:explicit +a:lexical"},
		{name: "dependency negated", facts: catalog(base, map[string][]string{"a": {"b"}}), cands: []Candidate{lex("a", 1000)}, negated: []string{"b"}, want: "-a:dependency_rejected(b (negated))"},
		{name: "dependency denied", facts: catalog(base, map[string][]string{"a": {"b"}}), cands: []Candidate{sel("a")}, explicit: []string{"a"}, denied: []string{"b"}, want: "-a:dependency_rejected(b (denied))"},
		{name: "dependency invalid", facts: catalog(base, map[string][]string{"a": {"bad"}}), cands: []Candidate{lex("a", 1000)}, want: "-a:dependency_rejected(bad (invalid))"},
		{name: "diamond counted once", facts: catalog(base, map[string][]string{"a": {"b", "c"}, "b": {"c"}}), cands: []Candidate{lex("a", 1000)}, budget: 300, want: "+c:dependency +b:dependency +a:lexical"},
		{name: "conflict keeps higher priority", facts: &fakeFacts{units: base, requires: map[string][]string{}, conflicts: [][2]string{{"a", "hi"}}}, cands: []Candidate{lex("a", 9000), lex("hi", 1000)}, want: "+hi:lexical -a:conflict(hi)"},
		{name: "conflict keeps higher score", facts: &fakeFacts{units: base, requires: map[string][]string{}, conflicts: [][2]string{{"a", "b"}}}, cands: []Candidate{lex("a", 1000), lex("b", 2000)}, want: "+b:lexical -a:conflict(b)"},
		{name: "conflict tie by name", facts: &fakeFacts{units: base, requires: map[string][]string{}, conflicts: [][2]string{{"b", "a"}}}, cands: []Candidate{lex("b", 1000), lex("a", 1000)}, want: "+a:lexical -b:conflict(a)"},
		{name: "explicit wins conflict", facts: &fakeFacts{units: base, requires: map[string][]string{}, conflicts: [][2]string{{"a", "hi"}}}, cands: []Candidate{sel("a"), lex("hi", 9000)}, explicit: []string{"a"}, want: "+a:explicit -hi:conflict(a)"},
		{name: "superseded", facts: &fakeFacts{units: base, requires: map[string][]string{}, supersedes: [][2]string{{"b", "a"}}}, cands: []Candidate{lex("a", 9000), lex("b", 5000)}, want: "+b:lexical -a:superseded(b)"},
		// A superseder scoring less than the candidate over the margin
		// ratio does not stand beside it: a skill that declares it
		// supersedes deploy, and draws a fraction of deploy's words,
		// took "use the deploy skill" alone. Here b is judged as any
		// other candidate (the fake facts give it a part of its own).
		{name: "weak superseder supersedes nothing", facts: &fakeFacts{units: base, requires: map[string][]string{}, supersedes: [][2]string{{"b", "a"}}}, cands: []Candidate{lex("a", 9000), lex("b", 3000)}, threshold: 4500, want: "+a:lexical +b:lexical"},
		{name: "superseder losing a conflict supersedes nothing", facts: &fakeFacts{units: base, requires: map[string][]string{}, supersedes: [][2]string{{"b", "a"}}, conflicts: [][2]string{{"b", "c"}}}, cands: []Candidate{sel("c"), lex("a", 9000), lex("b", 1000)}, explicit: []string{"c"}, want: "+c:explicit +a:lexical -b:conflict(c)"},
		{name: "superseder over budget supersedes nothing", facts: &fakeFacts{units: base, requires: map[string][]string{}, supersedes: [][2]string{{"b", "a"}}}, cands: []Candidate{lex("a", 1000), lex("b", 9000)}, tokens: map[string]int{"b": 500}, budget: 150, want: "+a:lexical -b:over_budget(500)"},
		{name: "coverer over budget covers nothing", cands: []Candidate{lex("a", 9000), lex("b", 3000)}, redundant: [][2]string{{"a", "b"}}, tokens: map[string]int{"a": 500}, budget: 150, want: "+b:lexical -a:over_budget(500)"},
		{name: "superseder that lost its power keeps its rejection", facts: &fakeFacts{units: base, requires: map[string][]string{}, supersedes: [][2]string{{"b", "a"}}}, cands: []Candidate{lex("a", 5000), lex("b", 3000)}, threshold: 4500, want: "+a:lexical -b:below_threshold(3000)"},
		{name: "over budget", cands: []Candidate{lex("a", 2000), lex("b", 1000)}, budget: 150, want: "+a:lexical -b:over_budget(100)"},
		{name: "closure admitted whole or not at all", facts: catalog(base, map[string][]string{"a": {"b"}}), cands: []Candidate{lex("a", 2000), lex("c", 1000)}, budget: 150, want: "+c:lexical -a:over_budget(200)"},
		{name: "mandatory first", cands: []Candidate{lex("a", 9000), must("b")}, mandatory: []string{"b"}, budget: 100, want: "+b:mandatory -a:over_budget(100)"},
		{name: "over budget rendered as reference", cands: []Candidate{lex("a", 2000), lex("b", 1000)}, refs: map[string]int{}, budget: 150, want: "+a:lexical +b:lexical[ref 100]"},
		{name: "best too big kept as reference, not swapped", cands: []Candidate{lex("a", 9000), lex("b", 3000)}, threshold: 4500, tokens: map[string]int{"a": 500}, refs: map[string]int{}, budget: 150, want: "+a:lexical[ref 500] +b:lexical"},
		// The tokens named are the least the unit would add, here as a
		// reference: what --budget would have to leave for it.
		{name: "reference too big is over budget", cands: []Candidate{lex("a", 9000)}, tokens: map[string]int{"a": 500}, refs: map[string]int{"a": 200}, budget: 150, want: "-a:over_budget(200)"},
		{name: "closure rendered as references together", facts: catalog(base, map[string][]string{"a": {"b"}}), cands: []Candidate{lex("a", 2000)}, refs: map[string]int{}, budget: 150, want: "+b:dependency[ref 200] +a:lexical[ref 200]"},
		{name: "secondary leaves with its kept over budget", cands: []Candidate{lex("a", 9000), lex("b", 3000)}, threshold: 4500, tokens: map[string]int{"a": 500}, budget: 150, want: "-a:over_budget(500) -b:below_threshold(3000)"},
		{name: "secondary leaves with its kept in conflict", facts: &fakeFacts{units: base, requires: map[string][]string{}, conflicts: [][2]string{{"a", "c"}}}, cands: []Candidate{sel("c"), lex("a", 9000), lex("b", 3000)}, explicit: []string{"c"}, threshold: 4500, want: "+c:explicit -a:conflict(c) -b:below_threshold(3000)"},
		{name: "above threshold stays without the best", cands: []Candidate{lex("a", 9000), lex("b", 5000)}, threshold: 4500, tokens: map[string]int{"a": 500}, budget: 150, want: "+b:lexical -a:over_budget(500)"},
		{name: "secondary with a part of its own in a clause of its own", cands: []Candidate{lex("a", 5000), lex("b", 3000)}, threshold: 4500, ownPart: [][2]string{{"a", "b"}}, apart: [][2]string{{"a", "b"}}, want: "+a:lexical +b:lexical"},
		{name: "secondary with a part of its own but no clause", cands: []Candidate{lex("a", 5000), lex("b", 3000)}, threshold: 4500, ownPart: [][2]string{{"a", "b"}}, apart: [][2]string{}, want: "+a:lexical -b:below_threshold(3000)"},
		{name: "secondary without a part of its own", cands: []Candidate{lex("a", 9000), lex("b", 3000)}, threshold: 4500, ownPart: [][2]string{{"b", "a"}}, want: "+a:lexical -b:below_threshold(3000)"},
		{name: "above threshold beside the best needs a part of its own", cands: []Candidate{lex("a", 9000), lex("b", 5000)}, threshold: 4500, ownPart: [][2]string{}, want: "+a:lexical -b:below_threshold(5000)"},
		{name: "above threshold with a part of its own", cands: []Candidate{lex("a", 9000), lex("b", 5000)}, threshold: 4500, ownPart: [][2]string{{"a", "b"}}, want: "+a:lexical +b:lexical"},
		{name: "shared dependency paid once", facts: catalog(base, map[string][]string{"a": {"c"}, "b": {"c"}}), cands: []Candidate{lex("a", 2000), lex("b", 1000)}, budget: 300, want: "+c:dependency +a:lexical +b:lexical"},
		{name: "empty", want: ""},
		{name: "tie asks", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, want: "-a:ambiguous(a) -b:ambiguous(a)"},
		{name: "tie by same object", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, sameObject: [][2]string{{"a", "b"}}, want: "-a:ambiguous(a) -b:ambiguous(a)"},
		{name: "same object in a clause of its own is no tie", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, sameObject: [][2]string{{"a", "b"}}, apart: [][2]string{{"a", "b"}}, want: "+a:lexical +b:lexical"},
		{name: "tie top", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, redundant: [][2]string{{"a", "b"}}, ambiguity: "top", breadth: map[string]int{"a": 2}, want: "+a:lexical -b:ambiguous(a)"},
		{name: "tie all", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, redundant: [][2]string{{"a", "b"}}, ambiguity: "all", breadth: map[string]int{"a": 2}, want: "+a:lexical +b:lexical"},
		{name: "weak one-word tie is no tie", cands: []Candidate{lex("a", 3000), lex("b", 2500)}, threshold: 4500, redundant: [][2]string{{"a", "b"}}, ownPart: [][2]string{}, breadth: map[string]int{"a": 1}, want: "-a:below_threshold(3000) -b:below_threshold(2500)"},
		{name: "a best that outweighs a runner-up resting on its words", cands: []Candidate{lex("a", 3000), lex("b", 2000)}, threshold: 4500, redundant: [][2]string{{"a", "b"}}, ownPart: [][2]string{{"b", "a"}}, breadth: map[string]int{"a": 3}, want: "+a:lexical -b:below_threshold(2000)"},
		{name: "a runner-up with words of its own is no outweighed one", cands: []Candidate{lex("a", 3000), lex("b", 2000)}, threshold: 4500, ownPart: [][2]string{{"b", "a"}, {"a", "b"}}, breadth: map[string]int{"a": 3}, want: "-a:below_threshold(3000) -b:below_threshold(2000)"},
		{name: "strong one-word tie asks", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, threshold: 4500, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 1}, want: "-a:ambiguous(a) -b:ambiguous(a)"},
		{name: "tie under support floor is no question", cands: []Candidate{lex("a", 1900), lex("b", 1800)}, threshold: 4500, sameObject: [][2]string{{"a", "b"}}, want: "-a:below_threshold(1900) -b:below_threshold(1800)"},
		{name: "not close is covered", cands: []Candidate{lex("a", 9000), lex("b", 3000)}, redundant: [][2]string{{"a", "b"}}, want: "+a:lexical -b:covered(a)"},
		{name: "distinct evidence is kept", cands: []Candidate{lex("a", 9000), lex("b", 3000)}, want: "+a:lexical +b:lexical"},
		{name: "host selection never ties", cands: []Candidate{sel("b"), lex("a", 9000)}, explicit: []string{"b"}, redundant: [][2]string{{"b", "a"}}, want: "+b:explicit -a:covered(b)"},
		{name: "below threshold", cands: []Candidate{lex("a", 3000)}, threshold: 4500, want: "-a:below_threshold(3000)"},
		{name: "one word that is the whole task", cands: []Candidate{lex("a", 3000)}, threshold: 4500, breadth: map[string]int{"a": 1}, wholeTask: []string{"a"}, want: "+a:lexical"},
		{name: "one word of a task that says more", cands: []Candidate{lex("a", 3000)}, threshold: 4500, breadth: map[string]int{"a": 1}, want: "-a:below_threshold(3000)"},
		{name: "dominant below threshold", cands: []Candidate{lex("a", 3000), lex("b", 1500)}, threshold: 4500, want: "+a:lexical -b:below_threshold(1500)"},
		{name: "not dominant under floor", cands: []Candidate{lex("a", 1900), lex("b", 900)}, threshold: 4500, want: "-a:below_threshold(1900) -b:below_threshold(900)"},
		{name: "weak tie still asks", cands: []Candidate{lex("a", 3000), lex("b", 2500)}, threshold: 4500, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, want: "-a:ambiguous(a) -b:ambiguous(a)"},
		{name: "weak tie that explains the task asks", cands: []Candidate{lex("a", 3000), lex("b", 2500)}, threshold: 4500, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, explained: map[string]int{"a": 300, "b": 450}, want: "-a:ambiguous(a) -b:ambiguous(a)"},
		{name: "weak tie on a task about something else is no question", cands: []Candidate{lex("a", 3000), lex("b", 2500)}, threshold: 4500, redundant: [][2]string{{"a", "b"}}, ownPart: [][2]string{}, breadth: map[string]int{"a": 2}, explained: map[string]int{"a": 300, "b": 200}, want: "-a:below_threshold(3000) -b:below_threshold(2500)"},
		{name: "strong tie asks however little it explains", cands: []Candidate{lex("a", 9000), lex("b", 8000)}, threshold: 4500, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, explained: map[string]int{"a": 100, "b": 100}, want: "-a:ambiguous(a) -b:ambiguous(a)"},
		{name: "withdrawn winner leaves no margin", cands: []Candidate{lex("a", 3000)}, threshold: 4500, withdrawn: 9000, breadth: map[string]int{"a": 2}, want: "-a:below_threshold(3000)"},
		{name: "withdrawn runner-up counts", cands: []Candidate{lex("a", 3000), lex("b", 1000)}, threshold: 4500, withdrawn: 1600, want: "-a:below_threshold(3000) -b:below_threshold(1000)"},
		{name: "margin over a weaker withdrawn unit", cands: []Candidate{lex("a", 3000)}, threshold: 4500, withdrawn: 1500, want: "+a:lexical"},
		{name: "ask holds other lexical candidates back", cands: []Candidate{lex("a", 9000), lex("b", 8000), lex("c", 6000)}, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, threshold: 4500, want: "-a:ambiguous(a) -b:ambiguous(a) -c:held_back(a)"},
		{name: "ask keeps host selections", cands: []Candidate{sel("x"), lex("a", 9000), lex("b", 8000), lex("c", 6000)}, explicit: []string{"x"}, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, threshold: 4500, want: "+x:explicit -a:ambiguous(a) -b:ambiguous(a) -c:held_back(a)"},
		{name: "ask keeps a weak candidate's own reason", cands: []Candidate{lex("a", 9000), lex("b", 8000), lex("c", 1000)}, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, threshold: 4500, want: "-a:ambiguous(a) -b:ambiguous(a) -c:below_threshold(1000)"},
		{name: "top holds nothing back", cands: []Candidate{lex("a", 9000), lex("b", 8000), lex("c", 6000)}, redundant: [][2]string{{"a", "b"}}, breadth: map[string]int{"a": 2}, threshold: 4500, ambiguity: "top", want: "+a:lexical +c:lexical -b:ambiguous(a)"},
		{name: "judged lexical candidates are not judged again", cands: []Candidate{lex("x", 9000)}, judged: true, want: "+x:lexical"},
		{name: "judged request still judges host candidates", cands: []Candidate{sel("a"), lex("b", 9000)}, explicit: []string{"a"}, denied: []string{"a"}, judged: true, want: "+b:lexical -a:denied(host)"},
		{name: "negated dependency of a selection is trusted", facts: catalog(base, map[string][]string{"a": {"b"}}), cands: []Candidate{sel("a")}, explicit: []string{"a"}, negated: []string{"b"}, want: "+b:dependency +a:explicit"},
		{name: "negated dependency of a mandatory unit is trusted", facts: catalog(base, map[string][]string{"a": {"b"}}), cands: []Candidate{must("a")}, mandatory: []string{"a"}, negated: []string{"b"}, want: "+b:dependency +a:mandatory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.facts
			if f == nil {
				f = catalog(base, nil)
			}
			e, err := New(f)
			if err != nil {
				t.Fatal(err)
			}
			budget := tt.budget
			if budget == 0 {
				budget = 10000
			}
			tokens := func(n string) int {
				if v, ok := tt.tokens[n]; ok {
					return v
				}
				return 100
			}
			pairs := func(ps [][2]string) map[[2]string]bool {
				m := map[[2]string]bool{}
				for _, p := range ps {
					m[p] = true
				}
				return m
			}
			// A pair's weight, for apart/4 and own_part/4, is b's score:
			// all of b's evidence on its own part.
			weights := func(ps [][2]string) map[[2]string]int {
				m := map[[2]string]int{}
				for _, p := range ps {
					for _, c := range tt.cands {
						if c.Name == p[1] {
							m[p] = c.Score
						}
					}
				}
				return m
			}
			var apart map[[2]string]int // nil: every pair apart for rule 11
			if tt.apart != nil {
				apart = weights(tt.apart)
			}
			var ownPart map[[2]string]int
			if tt.ownPart != nil {
				ownPart = weights(tt.ownPart)
			}
			var refs func(string) int
			if tt.refs != nil {
				refs = func(n string) int {
					if v, ok := tt.refs[n]; ok {
						return v
					}
					return 20
				}
			}
			var explained func(string) (int, bool)
			if tt.explained != nil {
				explained = func(n string) (int, bool) { v, ok := tt.explained[n]; return v, ok }
			}
			ds, err := e.Decide(context.Background(), &Request{
				Explained: explained, TieTaskShare: 400,
				Candidates: tt.cands, Budget: budget, Tokens: tokens, ReferenceTokens: refs,
				Explicit: set(tt.explicit...), Mandatory: set(tt.mandatory...), Denied: set(tt.denied...), Negated: set(tt.negated...),
				Redundant: pairs(tt.redundant), SameObject: pairs(tt.sameObject), Apart: apart, OwnPart: ownPart, Breadth: tt.breadth, WholeTask: set(tt.wholeTask...), Ambiguity: tt.ambiguity,
				Threshold: tt.threshold, TieRatio: 75, SupportFloor: 2000, CandidateFloor: 1500, MarginRatio: 2, ThresholdMargin: 175, MinBreadth: 2, Withdrawn: tt.withdrawn, Judged: tt.judged,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := render(ds); got != tt.want {
				t.Errorf("got %s; want %s", got, tt.want)
			}
		})
	}
}

// TestIneligible checks eligible/3: rules 2-6 alone, for any candidates.
func TestIneligible(t *testing.T) {
	units := map[string]UnitFacts{"a": ok(100), "b": ok(100), "c": ok(100), "d": ok(100), "x": explicitOnly(100), "hi": ok(500)}
	e, err := New(catalog(units, map[string][]string{"c": {"ghost"}, "d": {"b"}}))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cands   []Candidate
		negated []string
		denied  []string
		want    string
	}{
		{name: "none", want: ""},
		{name: "eligible", cands: []Candidate{lex("a", 9000), lex("b", 100)}, want: ""},
		{name: "each reason", cands: []Candidate{lex("a", 9000), lex("b", 8000), lex("x", 7000), lex("c", 6000), lex("d", 5000), lex("hi", 4000)}, negated: []string{"a"}, denied: []string{"hi"},
			want: "-a:negated(task_text) -x:explicit_only(task_text) -c:missing_dependency(ghost) -hi:denied(host)"},
		{name: "negated dependency", cands: []Candidate{lex("d", 5000)}, negated: []string{"b"}, want: "-d:dependency_rejected(b (negated))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &Request{Explicit: set(), Mandatory: set(), Denied: set(tt.denied...), Negated: set(tt.negated...)}
			ds, err := e.Ineligible(context.Background(), req, tt.cands)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(ds); got != tt.want {
				t.Errorf("got %s; want %s", got, tt.want)
			}
		})
	}
}

func TestBrokenPolicyIsAHardError(t *testing.T) {
	f := catalog(map[string]UnitFacts{}, nil)
	for name, src := range map[string]string{
		"syntax error":   "decide(R, C, B, D) :- ",
		"no entry point": "helper(x).",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewWithPolicy(f, src); err == nil {
				t.Error("got nil; want an error")
			}
		})
	}
}

func TestHostileNamesStayData(t *testing.T) {
	names := []string{"foo'), halt, ('", ":- halt.", "x). halt. unit(y", "decide(_,_,_,_)", "'", "[]"}
	units := map[string]UnitFacts{}
	var cands []Candidate
	for i, n := range names {
		units[n] = ok(100)
		cands = append(cands, lex(n, 1000*(i+1)))
	}
	e, err := New(catalog(units, map[string][]string{names[0]: {names[1]}}))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := e.Decide(context.Background(), &Request{Candidates: cands, Budget: 100000, Tokens: func(string) int { return 1 }})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range ds {
		if !d.Selected {
			t.Errorf("%q rejected: %s", d.Name, d.Reason)
		}
		got[d.Name] = true
	}
	for _, n := range names {
		if !got[n] {
			t.Errorf("name %q did not come back verbatim; got %v", n, got)
		}
	}
}

// TestDecideConcurrently checks that goroutines sharing one engine agree,
// from its very first call: a fresh engine is released to eight goroutines
// at once, many times over, so a lazy write inside the interpreter on first
// use is a race the detector sees (run it with -race).
func TestDecideConcurrently(t *testing.T) {
	f := catalog(map[string]UnitFacts{"a": ok(100), "b": ok(200), "c": ok(100)}, map[string][]string{"a": {"c"}})
	for round := 0; round < 20; round++ {
		e, err := New(f)
		if err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for j := 0; j < 3; j++ {
					ds, err := e.Decide(context.Background(), &Request{Candidates: []Candidate{lex("a", 1), lex("b", 2)}, Budget: 1000, Tokens: func(string) int { return 1 }})
					if err != nil || render(ds) != "+b:lexical +c:dependency +a:lexical" {
						t.Errorf("got %s, %v; want +b:lexical +c:dependency +a:lexical", render(ds), err)
						return
					}
				}
			}()
		}
		close(start)
		wg.Wait()
	}
}

func TestDecideHonorsCancellation(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{"a": ok(1)}, nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Decide(ctx, &Request{Candidates: []Candidate{lex("a", 1)}, Budget: 10, Tokens: func(string) int { return 1 }}); err == nil {
		t.Error("got nil; want an error from a cancelled context")
	}
}

// TestPendingYieldsOneEngine checks that a policy loaded in the background
// decides as one loaded at once, and that it binds one catalog's facts
// only: a second engine from it would answer from the first one's facts.
func TestPendingYieldsOneEngine(t *testing.T) {
	f := catalog(map[string]UnitFacts{"a": ok(100), "b": ok(200)}, nil)
	pd := Prepare()
	e, err := pd.Engine(f)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := e.Decide(context.Background(), &Request{Candidates: []Candidate{lex("a", 1), lex("b", 2)}, Budget: 1000, Tokens: func(string) int { return 1 }})
	if got, want := render(ds), "+b:lexical +a:lexical"; err != nil || got != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	if _, err := pd.Engine(f); err == nil {
		t.Error("got a second engine from one pending policy; want an error")
	}
	pd.Wait()
}

// TestDirectiveBeforeFactsIsNoCrash checks that a policy text whose
// directive asks a catalog question while it loads, before any catalog is
// bound, gets "no such unit" rather than crashing the load.
func TestDirectiveBeforeFactsIsNoCrash(t *testing.T) {
	f := catalog(map[string]UnitFacts{"a": ok(100)}, nil)
	for _, directive := range []string{
		":- unit(a, _, _, _).\n",
		":- \\+ unit(a, _, _, _).\n",
		":- closure(a, _).\n",
	} {
		_, err := NewWithPolicy(f, policySource+directive)
		if err != nil && strings.Contains(err.Error(), "panic") {
			t.Errorf("%q: got %v; want no crash", directive, err)
		}
	}
}
