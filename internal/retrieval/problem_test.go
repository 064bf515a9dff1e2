package retrieval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

// fakeJudge rejects the units in bad with their code and records every
// call's names.
type fakeJudge struct {
	bad   map[string]string
	calls [][]string
	err   error
}

func (j *fakeJudge) Ineligible(_ context.Context, cands []Candidate) ([]Verdict, error) {
	var names []string
	var out []Verdict
	for _, c := range cands {
		names = append(names, c.Name)
		if c.Origin != OriginLexical {
			panic("the judge was shown a host candidate: " + c.Name)
		}
		if code, ok := j.bad[c.Name]; ok {
			out = append(out, Verdict{Name: c.Name, Code: Code(code), Detail: "why"})
		}
	}
	j.calls = append(j.calls, names)
	return out, j.err
}

// chartIndex holds six units that match "build charts of quarterly sales
// figures" alike (so they rank by name), one that matches it weakly, and
// one that does not.
func chartIndex() *Index {
	var units []*ir.Unit
	for _, n := range []string{"alpha", "beta", "delta", "epsilon", "eta", "gamma"} {
		units = append(units, unit(n, "Build charts of quarterly sales figures."))
	}
	units = append(units, unit("weak", "Figures."), unit("other", "Deploy the service."))
	return testIndex(units...)
}

func TestRetrieve(t *testing.T) {
	const task = "build charts of the quarterly sales figures"
	tests := []struct {
		name   string
		task   string
		req    Request
		bad    map[string]string
		calls  string // the names of each call, calls separated by " | "
		cands  string
		reason map[string]string // unit -> code, "judged:" prefix when the judge decided
		wd     string            // withdrawn: who set it, or "" for 0
	}{
		{
			name: "one call about the four best", task: task,
			calls: "alpha beta delta epsilon", cands: "alpha beta delta epsilon",
			reason: map[string]string{"eta": "below_threshold+outranked", "gamma": "below_threshold+outranked", "weak": "below_threshold", "other": "no_evidence"},
		},
		{
			name: "ineligible among the best: the rest walked in order", task: task,
			bad:   map[string]string{"alpha": "explicit_only", "delta": "dependency_rejected"},
			calls: "alpha beta delta epsilon | eta gamma", cands: "beta epsilon eta gamma",
			reason: map[string]string{"alpha": "judged:explicit_only", "delta": "judged:dependency_rejected", "weak": "below_threshold"},
			wd:     "alpha",
		},
		{
			name: "named units judged in the first call, whatever their score", task: "avoid other; " + task,
			req:   Request{Denied: map[string]bool{"weak": true, "gamma": true}},
			bad:   map[string]string{"weak": "denied", "gamma": "denied", "other": "negated"},
			calls: "alpha beta delta epsilon gamma other weak", cands: "alpha beta delta epsilon",
			reason: map[string]string{"weak": "judged:denied", "gamma": "judged:denied", "other": "judged:negated", "eta": "below_threshold+outranked"},
		},
		{
			name: "a named unit reached in a later batch is not asked again", task: task,
			req:   Request{Denied: map[string]bool{"eta": true}},
			bad:   map[string]string{"alpha": "explicit_only", "eta": "denied"},
			calls: "alpha beta delta epsilon eta | gamma", cands: "beta delta epsilon gamma",
			reason: map[string]string{"alpha": "judged:explicit_only", "eta": "judged:denied"},
			wd:     "alpha",
		},
		{
			name: "named only", task: "avoid other",
			bad:   map[string]string{"other": "negated"},
			calls: "other", cands: "",
			reason: map[string]string{"other": "judged:negated", "alpha": "no_evidence"},
		},
		{
			name: "nothing to judge", task: "what is the weather like",
			calls: "", cands: "",
			reason: map[string]string{"alpha": "no_evidence"},
		},
		{
			name: "host candidates first, sorted, never judged", task: task,
			req:   Request{Mandatory: []string{"other"}, Explicit: []string{"gamma", "beta", "other"}, Denied: map[string]bool{"beta": true}},
			calls: "alpha delta epsilon eta", cands: "other beta gamma alpha delta epsilon eta",
			reason: map[string]string{"weak": "below_threshold"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := chartIndex()
			j := &fakeJudge{bad: tt.bad}
			pr, err := ix.Retrieve(context.Background(), ix.Analyze(tt.task, nil), tt.req, j, nil)
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, c := range j.calls {
				calls = append(calls, strings.Join(c, " "))
			}
			if got := strings.Join(calls, " | "); got != tt.calls {
				t.Errorf("calls: got %q; want %q", got, tt.calls)
			}
			var cands []string
			for _, c := range pr.Candidates {
				cands = append(cands, c.Name)
			}
			if got := strings.Join(cands, " "); got != tt.cands {
				t.Errorf("candidates: got %q; want %q", got, tt.cands)
			}
			for name, want := range tt.reason {
				i, _ := ix.catalogPos(name)
				x := pr.Exclusion(i)
				got := string(x.Code)
				if x.Judged {
					got = "judged:" + got
				}
				if x.Outranked {
					got += "+outranked"
				}
				if got != want {
					t.Errorf("%s: got %q; want %q", name, got, want)
				}
			}
			seen := 0
			for i, x := range pr.Exclusions() {
				seen++
				if got := pr.Exclusion(i); got != x || x.Code == "" {
					t.Errorf("unit %d: Exclusions gives %+v, Exclusion %+v; want the same, with a code", i, x, got)
				}
			}
			if want := len(ix.cat.Units) - len(pr.candPos); seen != want {
				t.Errorf("exclusions: got %d; want one per non-candidate, %d", seen, want)
			}
			// Judged, CandidatePositions and the standings rebuild
			// Exclusions, as a caller with a table of the catalog does.
			judged := map[int]Exclusion{}
			for i, x := range pr.Judged() {
				judged[i] = x
			}
			candPositions := pr.CandidatePositions()
			for i, u := range ix.cat.Units {
				if slices.Contains(candPositions, i) {
					continue
				}
				x, ok := judged[i]
				if !ok {
					x = Standing(u, pr.ScoreAt(i))
					if u.Status == ir.StatusOK && x != ScoreStanding(pr.ScoreAt(i)) {
						t.Errorf("unit %d: ScoreStanding differs from its standing %+v", i, x)
					}
				}
				if want := pr.Exclusion(i); x != want {
					t.Errorf("unit %d: Judged and standings give %+v; Exclusion %+v", i, x, want)
				}
			}
			want := 0.0
			if tt.wd != "" {
				want = pr.Score(tt.wd)
			}
			if pr.Withdrawn != want || pr.WithdrawnBy != tt.wd {
				t.Errorf("withdrawn: got %g by %q; want %g by %q", pr.Withdrawn, pr.WithdrawnBy, want, tt.wd)
			}
			for _, c := range pr.Candidates {
				if _, ok := pr.Evidence[c.Name]; !ok && c.Score > 0 {
					t.Errorf("candidate %s: got no evidence; want its evidence", c.Name)
				}
			}
		})
	}
}

// TestRetrieveBatches checks that past the first four, units are judged in
// batches that double from the number still wanted up to ineligibleBatch,
// however many are ineligible, best first.
func TestRetrieveBatches(t *testing.T) {
	var units []*ir.Unit
	bad := map[string]string{}
	for i := range 100 {
		n := fmt.Sprintf("u%03d", i)
		units = append(units, unit(n, "Build charts of quarterly sales figures."))
		if i < 90 {
			bad[n] = "explicit_only"
		}
	}
	ix := testIndex(units...)
	j := &fakeJudge{bad: bad}
	pr, err := ix.Retrieve(context.Background(), ix.Analyze("build charts of the quarterly sales figures", nil), Request{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, c := range j.calls {
		sizes = append(sizes, len(c))
	}
	if want := []int{4, 4, 8, 16, 32, 32}; !slices.Equal(sizes, want) {
		t.Errorf("call sizes: got %v; want %v", sizes, want)
	}
	if got := len(pr.Ineligible); got != 90 {
		t.Errorf("ineligible: got %d; want 90", got)
	}
	for i, jd := range pr.Ineligible {
		if (jd.Evidence != nil) != (i < 4) {
			t.Errorf("ineligible %d (%s): got evidence %v; want it only for the first four", i, jd.Name, jd.Evidence != nil)
		}
	}
	if got := pr.Candidates[0].Name; got != "u090" {
		t.Errorf("best eligible: got %s; want u090", got)
	}
}

func TestRetrieveJudgeError(t *testing.T) {
	ix := chartIndex()
	boom := errors.New("boom")
	_, err := ix.Retrieve(context.Background(), ix.Analyze("build charts", nil), Request{}, &fakeJudge{err: boom}, nil)
	if !errors.Is(err, boom) {
		t.Errorf("got %v; want the judge's error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ix.Retrieve(ctx, ix.Analyze("build charts", nil), Request{}, &fakeJudge{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled", err)
	}
}

func TestOwnPart(t *testing.T) {
	ev := func(field string, terms ...string) Evidence { return Evidence{Field: field, Terms: terms, Weight: 1} }
	kept := []Evidence{ev("description", "deploy"), ev("description", "servic"), {Field: "lead", Terms: []string{"commit"}, Weight: 0.4}}
	tests := []struct {
		name    string
		b       []Evidence
		named   bool     // the task states b's name
		passing []string // the terms an instruction alone says in passing (Query.passingTerms)
		want    bool
		own     float64 // the weight of b's evidence outside kept's
	}{
		{name: "two words of its own", b: []Evidence{ev("description", "deploy"), ev("description", "log"), ev("description", "alert")}, want: true, own: 2},
		{name: "one word of its own", b: []Evidence{ev("description", "deploy"), ev("description", "log")}, want: false, own: 1},
		{name: "two words of its own said as one of its word pairs", b: []Evidence{ev("description", "roll"), ev("bigram", "roll", "back"), ev("description", "back")}, want: false, own: 3},
		{name: "a word pair and a word apart", b: []Evidence{ev("description", "roll"), ev("bigram", "roll", "back"), ev("description", "back"), ev("description", "saga")}, want: true, own: 4},
		{name: "a word of its name", b: []Evidence{ev("name+description", "log")}, want: true, own: 1},
		{name: "a phrase of its own", b: []Evidence{ev("trigger phrase", "rollback", "plan")}, want: true, own: 1},
		{name: "a phrase the kept one covers", b: []Evidence{ev("trigger phrase", "deploy", "servic")}, want: false},
		{name: "no word of its own", b: []Evidence{ev("name", "deploy"), ev("description", "servic")}, want: false},
		{name: "a penalty is no evidence", b: []Evidence{ev("description", "log"), {Field: "object mismatch", Terms: []string{"css", "html"}, Weight: -6}}, want: false, own: 1},
		{name: "its stated name, which the kept one mentions in passing", b: []Evidence{ev("name phrase", "commit"), ev("name+description", "commit")}, named: true, want: true, own: 2},
		{name: "the same words, its name not stated", b: []Evidence{ev("name phrase", "commit"), ev("name+description", "commit")}, want: false},
		{name: "its stated name, which the kept one weighs as much", b: []Evidence{ev("name", "deploy")}, named: true, want: false},
		{name: "its stated name, the kept one's word in another field", b: []Evidence{ev("description", "commit"), ev("description", "commit")}, named: true, want: false},
		// In an instruction alone, a word the kept one mentions in passing
		// (0.4, in its lead) is the other's when it weighs more than three
		// times that; not a word of its name, nor beside pasted material.
		{name: "words the kept one mentions in passing", b: []Evidence{ev("description", "commit"), ev("description+heading", "commit"), ev("description", "log")}, passing: []string{"commit", "log"}, want: true, own: 3},
		{name: "the same beside pasted material", b: []Evidence{ev("description", "commit"), ev("description+heading", "commit"), ev("description", "log")}, want: false, own: 1},
		{name: "the same said in a sentence that states", b: []Evidence{ev("description", "commit"), ev("description+heading", "commit"), ev("description", "log")}, passing: []string{"log"}, want: false, own: 1},
		{name: "a name word mentioned in passing", b: []Evidence{ev("name", "commit"), ev("name+description", "commit")}, passing: []string{"commit"}, want: false},
		{name: "a word the kept one weighs more than a third of", b: []Evidence{ev("description", "commit"), ev("description", "log")}, passing: []string{"commit", "log"}, want: false, own: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			own, got := ownPart(termWeights(kept), termWeights(tt.b), tt.named, set(tt.passing), tt.b, nil, nil)
			if got != tt.want || own != tt.own {
				t.Errorf("got %v, own weight %v; want %v, %v", got, own, tt.want, tt.own)
			}
		})
	}
}
