// Package bench measures routing quality: it runs labelled cases through the
// compiler and reports decision accuracy, top-1, recall@k, set precision
// and recall, false-route and false-no-route rates, ambiguity precision and
// latency, overall, per category, per style (when the cases have one) and
// per half of a deterministic split.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/internal/strictjson"
	"github.com/rlmc-dev/rlmc/ir"
)

// Case is one labelled task.
type Case struct {
	ID           string            `json:"id"`
	Task         string            `json:"task"`
	Expected     compiler.Decision `json:"expected"` // route, no_route or ambiguous
	Skills       []string          `json:"skills"`
	Alternatives []string          `json:"alternatives,omitempty"`
	Category     string            `json:"category"`
	// Style is how the task is written (short, paraphrase, long_context,
	// ...), when the cases say: a router can do well on terse commands and
	// badly on pasted logs, which one overall figure hides.
	Style  string   `json:"style,omitempty"`
	Select []string `json:"select,omitempty"`
	Deny   []string `json:"deny,omitempty"`
}

// Half says which half of the split a case falls in: "even" when the FNV-1a
// hash of its id is even. Rules and weights are calibrated on the even half
// only; the odd half shows whether that generalizes.
func (c Case) Half() string {
	h := fnv.New32a()
	h.Write([]byte(c.ID))
	if h.Sum32()%2 == 0 {
		return "even"
	}
	return "odd"
}

// maxCasesBytes bounds a cases file; the largest real gold set is a few MiB.
const maxCasesBytes = 256 << 20

// ReadCases reads either JSONL (one Case per line) or a Skill Router gold
// set ({"cases": [{"id", "category", "prompt", "expected", "skills",
// "alternatives"}]}). The file must be a regular file of at most 256 MiB: a
// FIFO or a device is refused, never waited on or read without end. A JSONL
// case's keys are read as spelt; a key that is none of Case's is left out
// and said once in notes, with the line of its first case.
func ReadCases(file string) (cases []Case, notes []string, err error) {
	data, err := safefs.ReadPath(file, maxCasesBytes)
	if err != nil {
		return nil, nil, err
	}
	// A byte-order mark is no part of the JSON, of the whole file as of
	// its first line.
	data = strictjson.WithoutBOM(data)
	// Text that is not UTF-8 is placed in the whole file, before it is
	// read as a gold set or as lines: a set of several lines failed the
	// set's check and was read as JSONL whose "{" ends too soon.
	if err := strictjson.ValidUTF8(data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, strictjson.Explain(data, err))
	}
	if gold, notes, ok, err := readGoldSet(file, data); ok || err != nil {
		if err != nil {
			return nil, nil, err
		}
		implyExpected(gold)
		return gold, notes, checkCases(file, gold, nil)
	}
	var (
		out   []Case
		lines []int
		said  = map[string]bool{}
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), maxCaseLine)
	line := 1
	for ; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		// Keys are read as spelt, each once: "TASK" is no task, and a
		// case whose "taks" is left out has none (checkCases).
		var c Case
		unknown, err := strictjson.UnmarshalKnown(sc.Bytes(), &c)
		if err != nil {
			if whole := brokenDocument(data, line); whole != nil {
				return nil, nil, fmt.Errorf("%s: %w", file, whole)
			}
			return nil, nil, fmt.Errorf("%s:%d: %w", file, line, strictjson.Explain(sc.Bytes(), err))
		}
		for _, k := range unknown {
			if !said[k] {
				said[k] = true
				notes = append(notes, fmt.Sprintf("%s:%d: key %q is no case field; left out", file, line, k))
			}
		}
		out = append(out, c)
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, fmt.Errorf("%s:%d: the line is longer than %d MiB: one case per line", file, line, maxCaseLine>>20)
		}
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%s: no cases", file)
	}
	implyExpected(out)
	return out, notes, checkCases(file, out, lines)
}

// implyExpected gives each case without an expected decision the one its
// labels imply: route when it names a skill to route to (or selects one),
// no_route when it names none. A helper's first case file left the key
// out of every case, and each was refused as expecting "".
func implyExpected(cases []Case) {
	for i := range cases {
		c := &cases[i]
		if c.Expected != "" {
			continue
		}
		c.Expected = compiler.DecisionNoRoute
		if len(c.Skills)+len(c.Alternatives)+len(c.Select) > 0 {
			c.Expected = compiler.DecisionRoute
		}
	}
}

// maxCaseLine bounds a JSONL case's line: a task at the compile's limit
// of 1 MiB, with the escapes JSON writes it with.
const maxCaseLine = 8 << 20

// goldCase is a case of a Skill Router gold set.
type goldCase struct {
	ID           string            `json:"id"`
	Category     string            `json:"category"`
	Prompt       string            `json:"prompt"`
	Expected     compiler.Decision `json:"expected"`
	Skills       []string          `json:"skills"`
	Alternatives []string          `json:"alternatives"`
	// The set's own notes on a case, which nothing here reads.
	Reason  json.RawMessage `json:"reason"`
	Ordered json.RawMessage `json:"ordered"`
}

// brokenDocument returns why data is not JSON when it reads as one JSON
// document broken below line, the first line of a case that did not
// decode: a gold set written by hand with a trailing comma is no JSONL
// and no gold set, and its first line, "{", said only that the JSON
// ends there. It returns nil for a file of JSONL lines.
func brokenDocument(data []byte, line int) error {
	err := json.Unmarshal(data, new(any))
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	if l, _ := strictjson.Position(data, se.Offset); l <= line {
		return nil
	}
	return strictjson.Explain(data, err)
}

// readGoldSet reads data as a Skill Router gold set when it is one JSON
// object holding "cases" (ok): each case read as JSONL's are, its keys as
// spelt and each once, a key of its own left out and said in notes, a
// value of the wrong kind refused with the case's number. Other keys of
// the set (its schema version, a description) are its own.
func readGoldSet(file string, data []byte) (cases []Case, notes []string, ok bool, err error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, nil, false, nil
	}
	var set struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if _, err := strictjson.UnmarshalKnown(trimmed, &set); err != nil {
		// One JSON object but not a set: a file of one JSONL case,
		// read as such.
		return nil, nil, false, nil
	}
	if set.Cases == nil {
		return nil, nil, false, nil
	}
	if len(set.Cases) == 0 {
		return nil, nil, true, fmt.Errorf("%s: no cases", file)
	}
	said := map[string]bool{}
	for i, raw := range set.Cases {
		var g goldCase
		unknown, err := strictjson.UnmarshalKnown(raw, &g)
		if err != nil {
			return nil, nil, true, fmt.Errorf("%s: case %d: %w", file, i+1, strictjson.Explain(raw, err))
		}
		for _, k := range unknown {
			if !said[k] {
				said[k] = true
				notes = append(notes, fmt.Sprintf("%s: case %d: key %q is no case field; left out", file, i+1, k))
			}
		}
		cases = append(cases, Case{ID: g.ID, Task: g.Prompt, Expected: g.Expected, Skills: g.Skills, Alternatives: g.Alternatives, Category: g.Category})
	}
	return cases, notes, true, nil
}

// checkCases refuses a case without an id or a task, one whose id an
// earlier case has, and one whose expected decision is none of route,
// no_route and ambiguous: each would skew the figures without a word.
// Every such case is said, one line each, in file order: a file with two
// is fixed in one pass.
// lines holds each case's line in file, when it has lines.
func checkCases(file string, cases []Case, lines []int) error {
	seen := map[string]bool{}
	var errs []error
	refuse := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for i, c := range cases {
		at := fmt.Sprintf("%s: case %d", file, i+1)
		if lines != nil {
			at = fmt.Sprintf("%s:%d", file, lines[i])
		}
		switch {
		case c.ID == "":
			refuse("%s: the case has no id", at)
		case seen[c.ID]:
			refuse("%s: id %q is an earlier case's too", at, c.ID)
		case strings.TrimSpace(c.Task) == "":
			refuse("%s: case %q has no task", at, c.ID)
		}
		switch c.Expected {
		case compiler.DecisionRoute, compiler.DecisionNoRoute, compiler.DecisionAmbiguous:
		default:
			refuse("%s: case %q expects %q; want route, no_route or ambiguous", at, c.ID, c.Expected)
		}
		// A name left empty (JSON null reads as "") is no skill: it would
		// count the case wrong as a skill the catalog lacks.
		if slices.Contains(c.Skills, "") || slices.Contains(c.Alternatives, "") || slices.Contains(c.Select, "") {
			refuse("%s: case %q names an empty skill (\"\" or null)", at, c.ID)
		}
		// A gold skill named twice is one the answer can select once:
		// the case could never be exactly right.
		if d := repeatedName(slices.Concat(c.Skills, c.Alternatives)); d != "" {
			refuse("%s: case %q names skill %q twice among its skills and alternatives", at, c.ID, d)
		}
		// A case that contradicts itself can never be right, nor wrong
		// in a way the figures say.
		gold := len(c.Skills) + len(c.Alternatives)
		switch {
		case c.Expected == compiler.DecisionRoute && gold == 0 && len(c.Select) == 0:
			refuse("%s: case %q expects route and names no skill to route to", at, c.ID)
		case c.Expected == compiler.DecisionNoRoute && gold > 0:
			refuse("%s: case %q expects no_route and names skills %s", at, c.ID, strings.Join(slices.Concat(c.Skills, c.Alternatives), ", "))
		case c.Expected == compiler.DecisionNoRoute && len(c.Select) > 0:
			refuse("%s: case %q expects no_route and selects %s, which routes", at, c.ID, strings.Join(c.Select, ", "))
		}
		seen[c.ID] = true
	}
	return errors.Join(errs...)
}

// repeatedName returns the first name names holds twice, or "".
func repeatedName(names []string) string {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}

// LabelProblems returns, one line each, the labels of the cases that no
// answer can match: a skill named as gold, alternative, selection or
// denial that no unit of cat is named (a misspelt label that would count
// every answer as wrong, or deny nothing), and a gold skill or
// alternative that is explicit-user-only, which only a task that opens
// with its /name selects (when commands is true: the host policy lets the
// task select), when neither the case's task does, nor the case selects
// it, nor the host policy makes it mandatory (mandatory: git helpers that
// load only as /name).
func LabelProblems(cases []Case, cat *ir.Catalog, mandatory []string, commands bool) []string {
	var out []string
	for _, c := range cases {
		for _, n := range slices.Concat(c.Skills, c.Alternatives, c.Select) {
			if _, ok := cat.Lookup(n); !ok {
				out = append(out, fmt.Sprintf("case %q names skill %q, which the catalog does not have", c.ID, n))
			}
		}
		invoked, opens := retrieval.Invoked(c.Task)
		for _, n := range slices.Concat(c.Skills, c.Alternatives) {
			if u, ok := cat.Lookup(n); ok && u.Invocation == ir.InvocationExplicitUser && !(commands && opens && invoked.Name() == n) && !slices.Contains(c.Select, n) && !slices.Contains(mandatory, n) {
				how := "only a selection selects it"
				if commands {
					how = fmt.Sprintf("only a task that opens with /%s selects it, or a selection", n)
				}
				out = append(out, fmt.Sprintf("case %q expects skill %q, which is explicit-user-only: %s (the case's select, or the policy's mandatory)", c.ID, n, how))
			}
		}
		// A deny naming no unit denies nothing: most likely a typo for
		// a skill that stays allowed.
		for _, n := range c.Deny {
			if _, ok := cat.Lookup(n); !ok {
				out = append(out, fmt.Sprintf("case %q denies skill %q, which the catalog does not have", c.ID, n))
			}
		}
	}
	return out
}

// Metrics are the figures for one group of cases. Rates are fractions; a
// metric with no case to measure it is nil.
type Metrics struct {
	Cases              int      `json:"cases"`
	DecisionAccuracy   *float64 `json:"decision_accuracy"`
	Top1               *float64 `json:"top1"`
	RecallAt1          *float64 `json:"recall_at_1"`
	RecallAt3          *float64 `json:"recall_at_3"`
	SetPrecision       *float64 `json:"set_precision"`
	SetRecall          *float64 `json:"set_recall"`
	AllGoldSelected    *float64 `json:"all_gold_selected"`
	FalseRouteRate     *float64 `json:"false_route_rate"`
	FalseNoRouteRate   *float64 `json:"false_no_route_rate"`
	AmbiguityPrecision *float64 `json:"ambiguity_precision"`
	// WrongSkillRate is the share of all cases whose prompt holds a unit
	// that is neither expected, an accepted alternative, selected by the
	// case, forced in by the host nor required by one of them: extra,
	// wrong and false routes together. A wrong skill in
	// the planner's context costs more than a missing one, and top-1 does
	// not see a wrong unit routed beside a right one.
	WrongSkillRate *float64 `json:"wrong_skill_rate"`
	// Exact is the share of all cases answered exactly right: the
	// expected decision with the right units and no other (grade right).
	Exact *float64 `json:"exact"`
	// BM25Top1 is top-1 of the baseline: a plain BM25 ranking over name
	// and description that always routes its first result.
	BM25Top1     *float64 `json:"bm25_top1"`
	LatencyP50MS float64  `json:"latency_p50_ms"`
	LatencyP95MS float64  `json:"latency_p95_ms"`
}

// Outcome is one case's result.
type Outcome struct {
	Case     Case              `json:"case"`
	Decision compiler.Decision `json:"decision"`
	Selected []string          `json:"selected"`
	// Ambiguous lists the rivals of an ambiguous decision: the host would
	// ask the user, so they count as nothing selected.
	Ambiguous []string `json:"ambiguous,omitempty"`
	// Forced are the selected units the host put in the prompt whatever
	// the task: the case's select, the policy's mandatory units and what
	// they require (see forced). They are never wrong, and top-1 reads the
	// first selected unit past them that is not also expected.
	Forced []string `json:"forced,omitempty"`
	// RequiredBy maps each unit selected because another selected unit
	// requires it to that unit: a dependency of an acceptable unit is
	// acceptable too (the catalog says it is needed), one of a wrong
	// unit is wrong.
	RequiredBy map[string]string `json:"required_by,omitempty"`
	Ranked     []string          `json:"ranked"`
	Scores     []float64         `json:"scores"`
	Error      string            `json:"error,omitempty"`
	// Grade is the case's one grade (see Grade).
	Grade Grade `json:"grade"`
	// BM25 is the baseline's first result, or "" when no unit shares a
	// word with the task.
	BM25    string  `json:"bm25"`
	Latency float64 `json:"latency_ms"`
}

// Report is the whole benchmark run.
type Report struct {
	Overall    Metrics            `json:"overall"`
	Categories map[string]Metrics `json:"categories"`
	Halves     map[string]Metrics `json:"halves"`
	// Styles groups the cases by their style; absent when no case has one.
	Styles map[string]Metrics `json:"styles,omitempty"`
	// CategoryHalves splits each category by half, keyed "category/half",
	// so a figure calibrated on one half can be checked on the other.
	CategoryHalves map[string]Metrics `json:"category_halves"`
	Outcomes       []Outcome          `json:"outcomes"`
}

// Run compiles every case and measures. A first, untimed pass warms the
// token cache, so latencies are those of a long-running host.
func Run(ctx context.Context, c *compiler.Compiler, cases []Case) (*Report, error) {
	for _, cs := range cases {
		c.Compile(ctx, compiler.Request{Task: cs.Task, Select: cs.Select, Deny: cs.Deny})
	}
	outs := make([]Outcome, 0, len(cases))
	base := newBaseline(c.Catalog())
	for _, cs := range cases {
		start := time.Now()
		res, err := c.Compile(ctx, compiler.Request{Task: cs.Task, Select: cs.Select, Deny: cs.Deny})
		o := Outcome{Case: cs, Latency: float64(time.Since(start).Microseconds()) / 1000, Selected: []string{}}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			o.Error = err.Error()
			o.Decision = compiler.DecisionError
		} else {
			o.Decision = res.Decision
			o.Selected = res.Names()
			o.Ambiguous = res.Ambiguous
			o.RequiredBy = requiredBy(res)
			o.Forced = forced(res, o.RequiredBy)
			// The unit the task invokes ("/deploy ...") is its first pick,
			// though the command's words are evidence for none: recall
			// read its ranking, and a case answered right by name scored
			// no recall.
			for _, s := range res.Selected {
				if len(s.Reasons) > 0 && s.Reasons[0].Code == compiler.ReasonInvoked {
					o.Ranked = append(o.Ranked, s.Name)
					o.Scores = append(o.Scores, s.Score)
				}
			}
			for _, r := range res.Ranking {
				if slices.Contains(o.Ranked, r.Name) {
					continue
				}
				o.Ranked = append(o.Ranked, r.Name)
				o.Scores = append(o.Scores, r.Score)
			}
		}
		o.BM25 = base.first(cs.Task)
		o.Grade = grade(o)
		outs = append(outs, o)
	}
	rep := &Report{Outcomes: outs, Overall: measure(outs)}
	rep.Categories = measureBy(outs, func(c Case) string { return c.Category })
	rep.Halves = measureBy(outs, Case.Half)
	rep.CategoryHalves = measureBy(outs, func(c Case) string { return c.Category + "/" + c.Half() })
	rep.Styles = styles(outs)
	return rep, nil
}

// forced returns the units res selected because the host did: the
// explicit selections, the mandatory units and, transitively, what they
// require (req, from requiredBy), in prompt order. A mandatory unit's
// dependency comes first in the prompt, and was graded a wrong skill.
func forced(res *compiler.Result, req map[string]string) []string {
	host := map[string]bool{}
	for _, u := range res.Selected {
		if len(u.Reasons) > 0 && (u.Reasons[0].Code == compiler.ReasonExplicit || u.Reasons[0].Code == compiler.ReasonMandatory) {
			host[u.Name] = true
		}
	}
	withRequired(host, req)
	var out []string
	for _, u := range res.Selected {
		if host[u.Name] {
			out = append(out, u.Name)
		}
	}
	return out
}

// requiredBy maps each unit res selected as a dependency to the selected
// unit that required it (nil when there is none).
func requiredBy(res *compiler.Result) map[string]string {
	var out map[string]string
	for _, u := range res.Selected {
		if len(u.Reasons) > 0 && u.Reasons[0].Code == compiler.ReasonDependency && u.Reasons[0].Facts != nil && u.Reasons[0].Facts.By != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[u.Name] = u.Reasons[0].Facts.By
		}
	}
	return out
}

// withRequired adds to names, transitively, the units req says one of
// them required.
func withRequired(names map[string]bool, req map[string]string) {
	for changed := true; changed; {
		changed = false
		for n, by := range req {
			if names[by] && !names[n] {
				names[n], changed = true, true
			}
		}
	}
}

// firstChosen returns the first unit o selected that the host did not
// force in, and that no other selected unit required, past what the case
// expects: a mandatory unit or a selection of the case's own comes first
// in the prompt, and so does a dependency before its dependent, and top-1
// read it as the router's first pick.
func firstChosen(o Outcome, acceptable map[string]bool) (string, bool) {
	for _, n := range o.Selected {
		if o.RequiredBy[n] != "" {
			continue // chosen by the unit that requires it
		}
		if acceptable[n] || !slices.Contains(o.Forced, n) {
			return n, true
		}
	}
	return "", false
}

// styles measures the outcomes per style of their case (those without one
// as "unstyled"), or is nil when no case has a style.
func styles(outs []Outcome) map[string]Metrics {
	for _, o := range outs {
		if o.Case.Style != "" {
			return measureBy(outs, func(c Case) string {
				if c.Style == "" {
					return "unstyled"
				}
				return c.Style
			})
		}
	}
	return nil
}

// Grade is one case's verdict on the units it put in the prompt.
type Grade string

const (
	// GradeRight: no_route and nothing selected; or every selected unit
	// acceptable and at least as many as there are expected skills.
	GradeRight Grade = "right"
	// GradeMissed: a route expected, nothing selected (an ambiguous
	// answer selects nothing).
	GradeMissed Grade = "missed"
	// GradePartial: only acceptable units, fewer than the expected skills.
	GradePartial Grade = "partial"
	// GradeExtra: an acceptable unit and at least one that is not.
	GradeExtra Grade = "extra"
	// GradeWrong: units selected, none acceptable.
	GradeWrong Grade = "wrong"
	// GradeFalseRoute: no_route expected, something selected.
	GradeFalseRoute Grade = "false_route"
	// GradeOther: an ambiguous case answered ambiguous, or the compile
	// failed; no verdict on the prompt's units.
	GradeOther Grade = "other"
)

// grade judges the units an outcome put in the prompt: the expected
// skills and their alternatives are right, the units neutral gives are
// neither right nor wrong, and any other is wrong.
func grade(o Outcome) Grade {
	c := o.Case
	if o.Error != "" {
		return GradeOther
	}
	gold, neutral := set(slices.Concat(c.Skills, c.Alternatives)), neutral(o)
	var ok, bad int
	for _, s := range o.Selected {
		switch {
		case gold[s]:
			ok++
		case !neutral[s]:
			bad++
		}
	}
	switch {
	case c.Expected == compiler.DecisionNoRoute && len(o.Selected) > 0 && bad > 0:
		return GradeFalseRoute
	case c.Expected == compiler.DecisionNoRoute:
		return GradeRight
	case ok > 0 && bad > 0:
		return GradeExtra
	case bad > 0:
		return GradeWrong
	case c.Expected != compiler.DecisionRoute:
		return GradeOther
	case ok == 0:
		return GradeMissed
	case ok < len(c.Skills):
		return GradePartial
	}
	return GradeRight
}

// neutral returns the units that are neither right nor wrong in o's
// prompt, unless expected: the case's own selections, the units the host
// forced in, and what any of them or an expected unit requires (the
// catalog says it is needed).
func neutral(o Outcome) map[string]bool {
	c := o.Case
	out := set(slices.Concat(c.Skills, c.Alternatives, c.Select, o.Forced))
	withRequired(out, o.RequiredBy)
	return out
}

// measureBy groups outcomes by a key of their case and measures each group.
func measureBy(outs []Outcome, key func(Case) string) map[string]Metrics {
	groups := map[string][]Outcome{}
	for _, o := range outs {
		k := key(o.Case)
		groups[k] = append(groups[k], o)
	}
	m := make(map[string]Metrics, len(groups))
	for k, v := range groups {
		m[k] = measure(v)
	}
	return m
}

// ratio counts hits over a denominator.
type ratio struct{ hit, n int }

func (r *ratio) add(ok bool) {
	r.n++
	if ok {
		r.hit++
	}
}

func (r ratio) value() *float64 {
	if r.n == 0 {
		return nil
	}
	v := math.Round(float64(r.hit)/float64(r.n)*10000) / 10000
	return &v
}

func measure(outs []Outcome) Metrics {
	var decision, top1, r1, r3, allGold, falseRoute, falseNoRoute, ambPrec, bm25, wrongSkill, exact ratio
	var precSum, recSum float64
	var setN int
	var lat []float64
	for _, o := range outs {
		c := o.Case
		lat = append(lat, o.Latency)
		g := o.Grade
		if g == "" {
			g = grade(o)
		}
		wrongSkill.add(g == GradeExtra || g == GradeWrong || g == GradeFalseRoute)
		exact.add(g == GradeRight)
		decision.add(o.Decision == c.Expected)
		gold := set(c.Skills)
		acceptable := set(append(append([]string{}, c.Skills...), c.Alternatives...))
		if c.Expected == compiler.DecisionRoute {
			first, ok := firstChosen(o, acceptable)
			top1.add(o.Decision == compiler.DecisionRoute && ok && acceptable[first])
			r1.add(anyIn(o.Ranked, 1, acceptable))
			bm25.add(acceptable[o.BM25])
			r3.add(anyIn(o.Ranked, 3, acceptable))
			falseNoRoute.add(o.Decision != compiler.DecisionRoute)
			if len(c.Skills) > 1 {
				tp, judged, free := 0, 0, neutral(o)
				for _, s := range o.Selected {
					switch {
					case gold[s]:
						tp++
						judged++
					case !free[s]:
						judged++
					}
				}
				if judged > 0 {
					precSum += float64(tp) / float64(judged)
				}
				recSum += float64(tp) / float64(len(c.Skills))
				setN++
				allGold.add(tp == len(c.Skills))
			}
		}
		if c.Expected == compiler.DecisionNoRoute {
			falseRoute.add(o.Decision == compiler.DecisionRoute)
		}
		if o.Decision == compiler.DecisionAmbiguous {
			ambPrec.add(c.Expected == compiler.DecisionAmbiguous)
		}
	}
	m := Metrics{
		Cases: len(outs), DecisionAccuracy: decision.value(), Top1: top1.value(),
		RecallAt1: r1.value(), RecallAt3: r3.value(), AllGoldSelected: allGold.value(),
		FalseRouteRate: falseRoute.value(), FalseNoRouteRate: falseNoRoute.value(),
		AmbiguityPrecision: ambPrec.value(), BM25Top1: bm25.value(), WrongSkillRate: wrongSkill.value(), Exact: exact.value(),
	}
	if setN > 0 {
		p, r := math.Round(precSum/float64(setN)*10000)/10000, math.Round(recSum/float64(setN)*10000)/10000
		m.SetPrecision, m.SetRecall = &p, &r
	}
	sort.Float64s(lat)
	m.LatencyP50MS, m.LatencyP95MS = percentile(lat, 0.50), percentile(lat, 0.95)
	return m
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	if i < 0 {
		i = 0
	}
	return sorted[i]
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func anyIn(ranked []string, k int, want map[string]bool) bool {
	for i, n := range ranked {
		if i == k {
			break
		}
		if want[n] {
			return true
		}
	}
	return false
}
