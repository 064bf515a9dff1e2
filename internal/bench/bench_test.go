package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// floor is a regression floor: the figure once reached, which CI keeps.
type floor struct {
	name string
	got  func(*Report) *float64
	min  float64 // for rates where lower is better, the maximum
	max  bool
}

func run(t *testing.T, catalog, cases string) *Report { return runWith(t, catalog, cases, "") }

// runWith is run with the host policy in the benchmarks' file policy ("":
// none); the catalog must load without errors (a scan limit would measure
// part of it).
func runWith(t *testing.T, catalog, cases, policy string) *Report {
	t.Helper()
	benchmarks := testkit.Shared(t, "benchmarks")
	var p compiler.Policy
	if policy != "" {
		var err error
		if p, err = compiler.LoadPolicy(benchmarks + "/" + policy); err != nil {
			t.Fatal(err)
		}
	}
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{benchmarks + "/" + catalog}}, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Diagnostics().Count(ir.SeverityError); n > 0 {
		t.Fatalf("%s: got %d catalog errors; want none", catalog, n)
	}
	cs, _, err := ReadCases(benchmarks + "/" + cases)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), c, cs)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func check(t *testing.T, rep *Report, floors []floor) {
	t.Helper()
	for _, f := range floors {
		v := f.got(rep)
		if v == nil {
			t.Errorf("%s: not measured", f.name)
			continue
		}
		if (!f.max && *v < f.min) || (f.max && *v > f.min) {
			t.Errorf("%s: got %.3f; want %s %.3f", f.name, *v, map[bool]string{false: ">=", true: "<="}[f.max], f.min)
		}
	}
}

// TestSkillRouterFloors keeps routing quality on the Skill Router gold set
// from regressing below what it reached.
func TestSkillRouterFloors(t *testing.T) {
	rep := run(t, "skill-router/corpus/skills", "skill-router/gold-set.json")
	check(t, rep, []floor{
		{name: "decision accuracy", got: func(r *Report) *float64 { return r.Overall.DecisionAccuracy }, min: 0.94},
		{name: "top-1", got: func(r *Report) *float64 { return r.Overall.Top1 }, min: 0.95},
		{name: "false-route rate", got: func(r *Report) *float64 { return r.Overall.FalseRouteRate }, min: 0.05, max: true},
	})
}

// TestMetaToolFloors keeps routing quality on MetaTool from regressing.
func TestMetaToolFloors(t *testing.T) {
	rep := run(t, "metatool/catalog", "metatool/cases.jsonl")
	cat := func(name string, pick func(Metrics) *float64) func(*Report) *float64 {
		return func(r *Report) *float64 { return pick(r.Categories[name]) }
	}
	check(t, rep, []floor{
		{name: "single_tool top-1", got: cat("single_tool", func(m Metrics) *float64 { return m.Top1 }), min: 0.36},
		{name: "single_tool recall@1", got: cat("single_tool", func(m Metrics) *float64 { return m.RecallAt1 }), min: 0.54},
		{name: "single_tool recall@3", got: cat("single_tool", func(m Metrics) *float64 { return m.RecallAt3 }), min: 0.66},
		// 0.89 and 0.10 (0.904 and 0.086 before) since the margin a best
		// candidate needs slides from 2x at the support floor to 1.75x at
		// the threshold: six general questions more route, eight tools
		// more are found first (single_tool top-1 0.377 to 0.390); 0.890
		// and 0.100 since a label after the request ("Facts: ...") is
		// what the user brings: "Given the facts, compose them into a
		// story" then routes a story tool.
		{name: "no_tool_needed answered no_route", got: cat("no_tool_needed", func(m Metrics) *float64 { return m.DecisionAccuracy }), min: 0.888},
		{name: "no_tool_needed false-route rate", got: cat("no_tool_needed", func(m Metrics) *float64 { return m.FalseRouteRate }), min: 0.102, max: true},
	})
}

// category picks a metric of one category.
func category(name string, pick func(Metrics) *float64) func(*Report) *float64 {
	return func(r *Report) *float64 { return pick(r.Categories[name]) }
}

func style(name string, pick func(Metrics) *float64) func(*Report) *float64 {
	return func(r *Report) *float64 { return pick(r.Styles[name]) }
}

// TestSealToolsFloors keeps routing quality on Seal-Tools (4,076 tools,
// loaded whole with its policy's limits) from regressing.
func TestSealToolsFloors(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 4,076 skills")
	}
	rep := runWith(t, "seal-tools/catalog", "seal-tools/cases.jsonl", "seal-tools/policy.yaml")
	check(t, rep, []floor{
		{name: "single_tool top-1", got: category("single_tool", func(m Metrics) *float64 { return m.Top1 }), min: 0.86},
		{name: "single_tool recall@1", got: category("single_tool", func(m Metrics) *float64 { return m.RecallAt1 }), min: 0.875},
		// 0.649 before a candidate beside a kept one had to stand out of
		// the task's crowd (rule 10, in_crowd): three tasks lost a tool
		// among near-duplicates; exact answers went from 0.459 to 0.500.
		{name: "multi_tool all gold selected", got: category("multi_tool", func(m Metrics) *float64 { return m.AllGoldSelected }), min: 0.62},
		{name: "decision accuracy", got: func(r *Report) *float64 { return r.Overall.DecisionAccuracy }, min: 0.965},
	})
}

// TestRealSkillsFloors keeps routing on realskills (195 real skills, 165
// developer tasks labelled before any run, long pasted contexts among
// them) from regressing: exactly right 96/165 since rule 10 asks a
// second skill for a part of the task of its own (67 before), with a
// wrong skill in the prompt in 0.261 of the tasks (0.485 before), pasted
// material weighing less; 99/165 since a pasted document is material too
// (wrong skill 0.236, false routes on none 0.108), at the cost of top-1
// (0.766 before, 0.750: a few right skills rested on the document's words);
// 100/165 since adverbs of degree, frequency and time are stop words;
// 101/165 since a pasted phrase or word pair weighs as its words; 102
// since one word that is the whole task is kept (whole_task), top-1 back
// at 0.766; 113/165 since a skill beside a kept one must stand out of the
// task's crowd (in_crowd), wrong skill 0.224 to 0.139; 114/165 since a
// line mostly not words is material (none routed 0.108 to 0.081); 115/165
// since the words of a phrase a "Use when" clause quotes are no triggers
// apart (wrong skill 0.127 to 0.115, none routed 0.081 to 0.054), at the
// cost of one first pick (top-1 0.766 to 0.758: "outbound", a word of a
// quoted "outbound email", now weighs as a description word); 116/165
// and 24 of the 35 long pasted contexts (23 before) since pasted material
// confirms the best candidate it points at (rule 10's confirmed); 117/165
// since a skill the task names in a clause of its own keeps its name's
// words beside a kept one that mentions them in passing; 120/165, 27 of
// the 35 long pasted contexts and a wrong skill in 0.109 since a pasted
// file of a known kind (a Dockerfile) stands for the words users call it;
// 121/165, 28 of 35 and 0.103 since a pasted document's words are no part
// of a second skill's own; 120/165 and 0.109 since a word the kept skill
// mentions in passing is a second skill's own in a typed request
// (passingShare), which the fresh catalogs gained five tasks by, with no
// wrong skill more, and this set lost one to an extra; 119/165 and 0.115
// since the nouns of verbs in -ize and -ate stem as the verbs, which the
// fresh catalogs gained four tasks by, and this set lost one to an extra;
// 121/165 and 0.097 since a colon announcing notes and the source of a
// conversion ask for no skill of their own; one no-skill task more routed
// ("run the tests" on a testing-named skill) and one right more since the
// margin a best candidate needs slides down to 1.75x at the threshold,
// which four fresh catalogs gained four tasks by; 123/165, a wrong skill
// in 0.091 and 29 of 35 long contexts since a constraint clause ("Keep
// the markdown formatting") under pasted material weighs as a document;
// 122/165 and 28 of 35 since the verb "go" ("First go over this change")
// is no evidence for a Go skill, one an accepted alternative rode in on;
// 123/165, 29 of 35 and a wrong skill in 0.085 since a relative clause
// describing a text to write ("a reply that ... keeps the door open")
// constrains it; 124/165 and 0.079 since two words said as one of a
// skill's word pairs are one part of the task ("it rolls back on its
// own"), not two.
func TestRealSkillsFloors(t *testing.T) {
	rep := run(t, "realskills/catalog", "realskills/cases.jsonl")
	check(t, rep, []floor{
		{name: "exactly right", got: func(r *Report) *float64 { return r.Overall.Exact }, min: 0.75},
		{name: "long_context: exactly right", got: style("long_context", func(m Metrics) *float64 { return m.Exact }), min: 0.8},
		{name: "wrong skill in the prompt", got: func(r *Report) *float64 { return r.Overall.WrongSkillRate }, min: 0.08, max: true},
		{name: "top-1", got: func(r *Report) *float64 { return r.Overall.Top1 }, min: 0.78},
		{name: "none: false-route rate", got: category("none", func(m Metrics) *float64 { return m.FalseRouteRate }), min: 0.085, max: true},
		{name: "none: answered no_route", got: category("none", func(m Metrics) *float64 { return m.DecisionAccuracy }), min: 0.94},
	})
}

// TestToolAlpacaFloors keeps routing quality on ToolAlpaca (1,426 APIs
// with one-line descriptions) from regressing.
func TestToolAlpacaFloors(t *testing.T) {
	rep := run(t, "toolalpaca/catalog", "toolalpaca/cases.jsonl")
	check(t, rep, []floor{
		{name: "top-1", got: func(r *Report) *float64 { return r.Overall.Top1 }, min: 0.20},
		{name: "recall@1", got: func(r *Report) *float64 { return r.Overall.RecallAt1 }, min: 0.21},
		// Every case routes, so decision accuracy counts a wrong unit
		// routed as right: lowered from 0.76 when a one-word name in
		// passing stopped earning the whole name bonus (wrong routes 63
		// -> 54, abstains 24 -> 32, top-1 0.147 -> 0.157), and to 0.64
		// when a name word the other fields never use stopped weighing
		// as a name (top-1 0.157 -> 0.167, recall@1 -> 0.196); 0.68
		// since two task words the catalog writes as one are that word.
		{name: "decision accuracy", got: func(r *Report) *float64 { return r.Overall.DecisionAccuracy }, min: 0.68},
	})
}

func TestReadCasesFormats(t *testing.T) {
	dir := t.TempDir()
	gold := dir + "/gold.json"
	os.WriteFile(gold, []byte(`{"schema_version": 1, "cases": [{"id": "a", "category": "positive", "prompt": "x", "expected": "route", "skills": ["s"], "alternatives": ["t"]}]}`), 0o644)
	jsonl := dir + "/cases.jsonl"
	os.WriteFile(jsonl, []byte("{\"id\": \"b\", \"task\": \"y\", \"expected\": \"no_route\", \"skills\": [], \"category\": \"none\"}\n\n"), 0o644)
	g, _, err := ReadCases(gold)
	if err != nil || len(g) != 1 || g[0].Task != "x" || g[0].Alternatives[0] != "t" {
		t.Errorf("gold set: got %+v, %v", g, err)
	}
	j, _, err := ReadCases(jsonl)
	if err != nil || len(j) != 1 || j[0].Expected != "no_route" {
		t.Errorf("jsonl: got %+v, %v", j, err)
	}
}

// TestReadCasesRefuses: a case that would skew the figures without a word
// is refused with its line (a red team's cases: a misspelt task ran as an
// empty one and was graded right); a key of its own is left out and said.
// A gold set's cases are refused with their number.
func TestReadCasesRefuses(t *testing.T) {
	tests := []struct {
		name, jsonl string
		wantErr     string // a part of the error; "" for none
		wantNotes   int
	}{
		{name: "misspelt task", jsonl: `{"id": "a", "taks": "deploy it", "expected": "no_route"}`, wantErr: ":1: case \"a\" has no task", wantNotes: 1},
		{name: "task in capitals", jsonl: `{"id": "a", "TASK": "deploy it", "expected": "no_route"}`, wantErr: "has no task"},
		{name: "unknown decision", jsonl: `{"id": "b", "task": "x", "expected": "rout"}`, wantErr: `expects "rout"`},
		{name: "no id", jsonl: `{"task": "x", "expected": "route"}`, wantErr: "no id"},
		// A case may leave out its decision when its labels imply it.
		{name: "route implied", jsonl: `{"id": "a", "task": "x", "skills": ["tdd"]}`},
		{name: "no_route implied", jsonl: `{"id": "a", "task": "x", "skills": []}`},
		{name: "repeated id", jsonl: "{\"id\": \"a\", \"task\": \"x\", \"expected\": \"no_route\"}\n{\"id\": \"a\", \"task\": \"y\", \"expected\": \"no_route\"}", wantErr: ":2: id \"a\""},
		{name: "repeated key", jsonl: `{"id": "a", "task": "x", "task": "y", "expected": "no_route"}`, wantErr: "more than once"},
		{name: "route to nothing", jsonl: `{"id": "a", "task": "x", "expected": "route", "skills": []}`, wantErr: `expects route and names no skill`},
		{name: "no_route with a skill", jsonl: `{"id": "a", "task": "x", "expected": "no_route", "skills": ["tdd"]}`, wantErr: `expects no_route and names skills tdd`},
		{name: "route to a selection", jsonl: `{"id": "a", "task": "x", "expected": "route", "select": ["tdd"]}`},
		// JSON null reads as the name "": counted as a skill the catalog
		// lacks, the case was wrong whatever the answer.
		{name: "a null skill", jsonl: `{"id": "a", "task": "x", "expected": "route", "skills": [null]}`, wantErr: `names an empty skill`},
		{name: "a gold skill twice", jsonl: `{"id": "a", "task": "x", "skills": ["deploy", "deploy"]}`, wantErr: `names skill "deploy" twice`},
		{name: "a gold skill as its own alternative", jsonl: `{"id": "a", "task": "x", "skills": ["deploy"], "alternatives": ["deploy"]}`, wantErr: `names skill "deploy" twice`},
		{name: "an empty alternative", jsonl: `{"id": "a", "task": "x", "expected": "route", "skills": ["tdd"], "alternatives": [""]}`, wantErr: `names an empty skill`},
		{name: "no_route with a selection", jsonl: `{"id": "a", "task": "x", "expected": "no_route", "select": ["tdd"]}`, wantErr: `expects no_route and selects tdd`},
		{name: "a key of its own", jsonl: "{\"id\": \"a\", \"task\": \"x\", \"expected\": \"no_route\", \"source\": \"z\"}\n{\"id\": \"b\", \"task\": \"y\", \"expected\": \"no_route\", \"source\": \"z\"}", wantNotes: 1},
		// A Skill Router gold set is read as strictly: a value of the
		// wrong kind or a repeated key is refused with the case's number
		// (it fell through to the JSONL reader as "FILE:1: EOF", or the
		// last "prompt" won), a key of its own is said; and a task line
		// longer than the old 1 MiB bound is read.
		{name: "wrong kind", jsonl: `{"cases": [{"id": "a", "category": "c", "prompt": "x", "expected": "route", "skills": "s"}]}`, wantErr: "case 1: skills: a string where an array goes"},
		{name: "repeated key", jsonl: `{"cases": [{"id": "a", "category": "c", "prompt": "x", "prompt": "y", "expected": "route", "skills": ["s"]}]}`, wantErr: `case 1: key "prompt" is given more than once`},
		{name: "misspelt key", jsonl: `{"cases": [{"id": "a", "category": "c", "prompt": "x", "expected": "route", "skills": ["s"], "alternativs": ["t"]}]}`, wantNotes: 1},
		{name: "the set's own keys", jsonl: `{"schema_version": 1, "note": "n", "cases": [{"id": "a", "category": "c", "prompt": "x", "expected": "route", "skills": ["s"], "reason": "r", "ordered": true}]}`},
		{name: "no cases", jsonl: `{"cases": []}`, wantErr: "no cases"},
		// A gold set of many lines broken below its first is placed in
		// the whole text, not read as JSONL whose first line, "{", ends
		// too soon.
		{name: "a gold set with a trailing comma", jsonl: "{\n  \"cases\": [\n    {\"id\": \"a\", \"category\": \"c\", \"prompt\": \"x\", \"expected\": \"route\", \"skills\": [\"s\"]},\n  ]\n}", wantErr: ": not JSON at line 4, column 3: invalid character ']'"},
		{name: "a gold set cut short", jsonl: "{\n  \"cases\": [\n", wantErr: ": the JSON ends before its value does"},
		{name: "a broken JSONL line after good ones", jsonl: "{\"id\": \"a\", \"task\": \"x\", \"expected\": \"no_route\"}\n{\"id\": \"b\", \"task\": x}", wantErr: ":2: not JSON at column 21"},
		// A byte-order mark, which editors on Windows write, is no
		// part of the JSON.
		{name: "a gold set after a byte-order mark", jsonl: "\ufeff{\"cases\": [{\"id\": \"a\", \"category\": \"c\", \"prompt\": \"x\", \"expected\": \"route\", \"skills\": \"s\"}]}", wantErr: "case 1: skills: a string where an array goes"},
		{name: "JSONL after a byte-order mark", jsonl: "\ufeff{\"id\": \"a\", \"taks\": \"x\", \"expected\": \"no_route\"}", wantErr: ":1: case \"a\" has no task", wantNotes: 1},
		{name: "a long JSONL line", jsonl: `{"id": "a", "task": "` + strings.Repeat("x ", 600_000) + `", "expected": "no_route", "category": "c"}`},
		{name: "JSONL cut short", jsonl: `{"id": "a", "task": "x", "expected"`, wantErr: ":1: the JSON ends before its value does"},
		// A file saved in Latin-1 is refused where its first such byte
		// is: read as U+FFFD, its accents were replaced without a word.
		{name: "JSONL not UTF-8", jsonl: "{\"id\": \"a\", \"task\": \"x\", \"expected\": \"no_route\"}\n{\"id\": \"b\", \"task\": \"r\xe9sum\xe9\", \"expected\": \"no_route\"}", wantErr: "cases.jsonl: not UTF-8 at line 2, column 23"},
		{name: "a gold set of several lines not UTF-8", jsonl: "{\n  \"cases\": [\n    {\"id\": \"a\", \"category\": \"c\", \"prompt\": \"caf\xe9\", \"expected\": \"route\", \"skills\": [\"s\"]}\n  ]\n}", wantErr: "cases.jsonl: not UTF-8 at line 3, column 48"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := t.TempDir() + "/cases.jsonl"
			if err := os.WriteFile(file, []byte(tt.jsonl+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, notes, err := ReadCases(file)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("got %v; want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("got error %v; want one holding %q", err, tt.wantErr)
			case tt.wantErr == "" && len(notes) != tt.wantNotes:
				t.Errorf("got notes %q; want %d", notes, tt.wantNotes)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	outs := []Outcome{
		{Case: Case{ID: "1", Expected: "route", Skills: []string{"a"}}, Decision: "route", Selected: []string{"a"}, Ranked: []string{"a", "b"}},
		{Case: Case{ID: "2", Expected: "route", Skills: []string{"a"}}, Decision: "route", Selected: []string{"b"}, Ranked: []string{"b", "c", "a"}},
		{Case: Case{ID: "3", Expected: "no_route"}, Decision: "route", Selected: []string{"b"}},
		{Case: Case{ID: "4", Expected: "ambiguous", Skills: []string{"a", "b"}}, Decision: "ambiguous", Selected: []string{}, Ambiguous: []string{"a", "b"}},
		{Case: Case{ID: "5", Expected: "route", Skills: []string{"a", "b"}}, Decision: "route", Selected: []string{"a", "c"}, Ranked: []string{"a", "c", "b"}},
		{Case: Case{ID: "6", Expected: "route", Skills: []string{"a", "b"}}, Decision: "ambiguous", Selected: []string{}, Ambiguous: []string{"a", "b"}, Ranked: []string{"a", "b"}},
	}
	m := measure(outs)
	tests := []struct {
		name string
		got  *float64
		want float64
	}{
		{"decision", m.DecisionAccuracy, 0.6667},
		{"top1", m.Top1, 0.5},
		{"recall@1", m.RecallAt1, 0.75},
		{"recall@3", m.RecallAt3, 1},
		{"set precision", m.SetPrecision, 0.25},
		{"set recall", m.SetRecall, 0.25},
		{"all gold", m.AllGoldSelected, 0},
		{"false route", m.FalseRouteRate, 1},
		{"false no-route", m.FalseNoRouteRate, 0.25},
		{"ambiguity precision", m.AmbiguityPrecision, 0.5},
		// 2 wrong, 3 false route, 5 extra: 3 of 6.
		{"wrong skill", m.WrongSkillRate, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got == nil || *tt.got != tt.want {
				t.Errorf("got %v; want %v", tt.got, tt.want)
			}
		})
	}
}

func TestMeasureByPartitions(t *testing.T) {
	var outs []Outcome
	for i, cat := range []string{"a", "a", "b", "b", "b"} {
		outs = append(outs, Outcome{Case: Case{ID: fmt.Sprint(i), Category: cat, Expected: "no_route"}, Decision: "no_route"})
	}
	byCatHalf := measureBy(outs, func(c Case) string { return c.Category + "/" + c.Half() })
	total := 0
	for k, m := range byCatHalf {
		if !strings.HasSuffix(k, "/even") && !strings.HasSuffix(k, "/odd") {
			t.Errorf("key %q: want category/even or category/odd", k)
		}
		total += m.Cases
	}
	if total != len(outs) {
		t.Errorf("got %d cases over the groups; want %d", total, len(outs))
	}
}

// TestForcedUnits: a unit the host forced into the prompt (the case's own
// selection, a mandatory unit, what either requires) is never a wrong
// skill, and top-1 reads the first unit past it; mandatory units made
// every case extra, a mandatory unit's dependency too, and a case's own
// selection made its top-1 wrong.
func TestForcedUnits(t *testing.T) {
	root := t.TempDir()
	for _, s := range [][2]string{{"deploy", "Deploy the service to production."}, {"house-style", "The house style for every text."},
		{"glossary", "The glossary of the house terms."}, {"lint", "Lint the code."}} {
		testkit.WriteFile(t, filepath.Join(root, s[0], "SKILL.md"), "---\nname: "+s[0]+"\ndescription: "+s[1]+"\n---\n# "+s[0]+"\n")
	}
	p, err := compiler.ParsePolicy([]byte("mandatory: [house-style]\nrequires: {house-style: [glossary]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{root}}, p)
	if err != nil {
		t.Fatal(err)
	}
	cases := []Case{
		{ID: "1", Task: "deploy the service to production", Expected: "route", Skills: []string{"deploy"}},
		{ID: "2", Task: "deploy the service to production", Expected: "route", Skills: []string{"deploy"}, Select: []string{"lint"}},
		{ID: "3", Task: "what is the weather in paris", Expected: "no_route"},
	}
	rep, err := Run(context.Background(), c, cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		if o.Grade != GradeRight {
			t.Errorf("case %s: got grade %s (selected %q, forced %q); want right", o.Case.ID, o.Grade, o.Selected, o.Forced)
		}
	}
	if m := rep.Overall; m.Top1 == nil || *m.Top1 != 1 || m.WrongSkillRate == nil || *m.WrongSkillRate != 0 {
		t.Errorf("got top1 %v, wrong skill %v; want 1 and 0", m.Top1, m.WrongSkillRate)
	}
}

func TestGrade(t *testing.T) {
	tests := []struct {
		name string
		o    Outcome
		want Grade
	}{
		{name: "no route, nothing", o: Outcome{Case: Case{Expected: "no_route"}, Decision: "no_route"}, want: GradeRight},
		{name: "no route, something", o: Outcome{Case: Case{Expected: "no_route"}, Decision: "route", Selected: []string{"a"}}, want: GradeFalseRoute},
		{name: "no route, the case's own selection", o: Outcome{Case: Case{Expected: "no_route", Select: []string{"a"}}, Decision: "route", Selected: []string{"a"}}, want: GradeRight},
		{name: "route, gold", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a"}}, Decision: "route", Selected: []string{"a"}}, want: GradeRight},
		{name: "route, alternative", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a"}, Alternatives: []string{"b"}}, Decision: "route", Selected: []string{"b"}}, want: GradeRight},
		{name: "route, nothing", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a"}}, Decision: "no_route"}, want: GradeMissed},
		{name: "route, ambiguous", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a"}}, Decision: "ambiguous", Ambiguous: []string{"a", "b"}}, want: GradeMissed},
		{name: "multi, one of two", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a", "b"}}, Decision: "route", Selected: []string{"a"}}, want: GradePartial},
		{name: "gold and another", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a"}}, Decision: "route", Selected: []string{"a", "c"}}, want: GradeExtra},
		{name: "another only", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a"}}, Decision: "route", Selected: []string{"c"}}, want: GradeWrong},
		{name: "ambiguous answered ambiguous", o: Outcome{Case: Case{Expected: "ambiguous", Skills: []string{"a", "b"}}, Decision: "ambiguous"}, want: GradeOther},
		{name: "compile error", o: Outcome{Case: Case{Expected: "route", Skills: []string{"a"}}, Decision: "error", Error: "x"}, want: GradeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := grade(tt.o); got != tt.want {
				t.Errorf("got %s; want %s", got, tt.want)
			}
		})
	}
}

// TestStyles: cases with a style are measured per style too, and a run
// whose cases have none reports no styles.
func TestStyles(t *testing.T) {
	outs := []Outcome{
		{Case: Case{ID: "1", Expected: "no_route", Style: "short"}, Decision: "no_route"},
		{Case: Case{ID: "2", Expected: "no_route", Style: "short"}, Decision: "route", Selected: []string{"a"}},
		{Case: Case{ID: "3", Expected: "no_route", Style: "long_context"}, Decision: "no_route"},
		{Case: Case{ID: "4", Expected: "no_route"}, Decision: "no_route"},
	}
	got := styles(outs)
	for _, tt := range []struct {
		style string
		cases int
		wrong float64
	}{{"short", 2, 0.5}, {"long_context", 1, 0}, {"unstyled", 1, 0}} {
		t.Run(tt.style, func(t *testing.T) {
			m, ok := got[tt.style]
			if !ok || m.Cases != tt.cases || m.WrongSkillRate == nil || *m.WrongSkillRate != tt.wrong {
				t.Errorf("got %+v; want %d cases, wrong skill rate %v", m, tt.cases, tt.wrong)
			}
		})
	}
	if got := styles(outs[3:]); got != nil {
		t.Errorf("no style: got %v; want nil", got)
	}
}

// TestReadCasesImpliesExpected: a case without "expected" expects route
// when it names a skill or selects one, no_route when it names none.
func TestReadCasesImpliesExpected(t *testing.T) {
	file := t.TempDir() + "/cases.jsonl"
	jsonl := `{"id": "a", "task": "x", "skills": ["tdd"]}
{"id": "b", "task": "x"}
{"id": "c", "task": "x", "select": ["tdd"]}
{"id": "d", "task": "x", "expected": "ambiguous", "skills": ["tdd", "deploy"]}
`
	if err := os.WriteFile(file, []byte(jsonl), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, _, err := ReadCases(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []compiler.Decision{compiler.DecisionRoute, compiler.DecisionNoRoute, compiler.DecisionRoute, compiler.DecisionAmbiguous}
	for i, c := range cases {
		if c.Expected != want[i] {
			t.Errorf("case %s: got %q; want %q", c.ID, c.Expected, want[i])
		}
	}
}

// TestRequiredUnits: a unit selected because an expected one requires it
// is neither a wrong skill nor top-1's pick, nor does it stand for another
// expected skill; one a wrong unit requires is wrong. Catalogs with
// dependencies graded every such case extra.
func TestRequiredUnits(t *testing.T) {
	root := t.TempDir()
	write := func(name, desc, extra string) {
		testkit.WriteFile(t, filepath.Join(root, name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n"+extra+"---\n# "+name+"\n")
	}
	write("changelog", "Keep the changelog file.", "")
	write("release-notes", "Write release notes for a version.", "metadata:\n  prolog-rlm: '{\"schema\": 1, \"requires\": [{\"kind\": \"skill\", \"name\": \"changelog\"}]}'\n")
	write("customer-email", "Email customers about a change.", "")
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []Case{
		{ID: "dependency", Task: "write the release notes for version 3.2", Expected: "route", Skills: []string{"release-notes"}},
		{ID: "not_the_other", Task: "write the release notes for version 3.2", Expected: "route", Skills: []string{"release-notes", "customer-email"}},
		{ID: "wrong", Task: "write the release notes for version 3.2", Expected: "route", Skills: []string{"customer-email"}},
		// A case's own selection and what it requires stand for no
		// expected skill either (a reviewer's case graded right).
		{ID: "selected", Task: "write the release notes for version 3.2", Expected: "route", Skills: []string{"release-notes", "customer-email"}, Select: []string{"release-notes"}},
		// The dependency of a wrong unit is not top-1's pick, expected
		// or not.
		{ID: "dependency_expected", Task: "write the release notes for version 3.2", Expected: "route", Skills: []string{"changelog"}},
	}
	rep, err := Run(context.Background(), c, cases)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Grade{"dependency": GradeRight, "not_the_other": GradePartial, "wrong": GradeWrong, "selected": GradePartial, "dependency_expected": GradeExtra}
	for _, o := range rep.Outcomes {
		if !slices.Equal(o.Selected, []string{"changelog", "release-notes"}) {
			t.Fatalf("case %s: got %q selected; want changelog and release-notes", o.Case.ID, o.Selected)
		}
		if o.Grade != want[o.Case.ID] {
			t.Errorf("case %s: got grade %s; want %s", o.Case.ID, o.Grade, want[o.Case.ID])
		}
	}
	m := rep.Overall
	if m.Top1 == nil || math.Abs(*m.Top1-3.0/5) > 0.001 {
		t.Fatalf("got top1 %v; want 3/5 (release-notes first, not changelog)", m.Top1)
	}
	// Two-skill cases: release-notes right of one judged unit each.
	if m.SetPrecision == nil || *m.SetPrecision != 1 {
		t.Errorf("got set precision %v; want 1 (changelog is neither right nor wrong)", m.SetPrecision)
	}
}
