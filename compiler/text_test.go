package compiler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
	"github.com/rlmc-dev/rlmc/loader"
)

func TestWordsApostrophes(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{name: "ascii", text: "don't", want: "dont"},
		{name: "right quote", text: "don\u2019t", want: "dont"},
		{name: "left quote", text: "don\u2018t", want: "dont"},
		{name: "modifier letter", text: "don\u02bct", want: "dont"},
		{name: "acute accent", text: "don\u00b4t", want: "dont"},
		{name: "backtick", text: "don`t", want: "dont"},
		{name: "fullwidth", text: "don\uff07t", want: "dont"},
		{name: "quoting a name", text: "`tdd` and \u2018tdd\u2019", want: "tdd and tdd"},
		{name: "trailing", text: "tests\u02bc x", want: "tests x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Words(tt.text), " "); got != tt.want {
				t.Errorf("Words(%q): got %q; want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestSeqMatcher compares the one-pass matcher with trying every pattern
// at every position, on random texts over a small vocabulary so that
// patterns overlap and nest.
func TestSeqMatcher(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"a", "b", "c"}
	randSeq := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = vocab[rng.IntN(len(vocab))]
		}
		return s
	}
	for round := range 200 {
		m := newSeqMatcher()
		var pats [][]string
		for i := range 1 + rng.IntN(8) {
			p := randSeq(1 + rng.IntN(4))
			pats = append(pats, p)
			m.add(p, int32(i))
		}
		m.build(nil)
		text := randSeq(rng.IntN(30))
		var got, want []string
		m.scan(text, nil, func(end int, state int32) bool {
			for _, id := range m.ends[state] {
				got = append(got, fmt.Sprint(end, ":", id))
			}
			return true
		})
		for end := range text {
			for id, p := range pats {
				if start := end + 1 - len(p); start >= 0 && slices.Equal(text[start:end+1], p) {
					want = append(want, fmt.Sprint(end, ":", id))
				}
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: patterns %v in %v: got %v; want %v", round, pats, text, got, want)
		}
		rev := newSeqMatcher()
		for id, p := range pats {
			r := slices.Clone(p)
			slices.Reverse(r)
			rev.add(r, int32(id))
		}
		rev.build(nil)
		at := rev.longestFrom(text, nil)
		for i := range text {
			n := 0
			if at[i] >= 0 {
				n = int(rev.depth[at[i]])
			}
			wantN := 0
			for _, p := range pats {
				if len(p) > wantN && len(p) <= len(text)-i && slices.Equal(text[i:i+len(p)], p) {
					wantN = len(p)
				}
			}
			if n != wantN {
				t.Fatalf("round %d: longest of %v at %d in %v: got %d words; want %d", round, pats, i, text, n, wantN)
			}
		}
	}
}

// longTaskCompiler is a small catalog whose phrases start with words a
// long task repeats: trying every phrase at every word, reading the rest of
// the task each time, made such a task take minutes.
func longTaskCompiler(t testing.TB) *Compiler {
	return build(t, map[string]string{
		"skills/code-review/SKILL.md": skill("code-review", "Review code changes for bugs.", `{"schema": 1, "aliases": ["code review bot"], "triggers": [{"kind": "object", "value": "code smell"}]}`, "# code-review"),
		"skills/tdd/SKILL.md":         skill("tdd", "Test-driven development with a red-green-refactor loop.", "", "# tdd"),
		"skills/deploy/SKILL.md":      skill("deploy", "Deploy the service to production.", "", "# deploy"),
	}, Policy{})
}

// longTask repeats words that start phrases, names and cues, and never
// completes one, up to n bytes.
func longTask(n int) string {
	const unit = "code no code red do not use code avoid the "
	return strings.Repeat(unit, n/len(unit))
}

// TestLongTaskCompiles fails if a pass over the task is quadratic: the
// half-mebibyte task took minutes when every word position searched the
// rest of the task. The deadline is loose; the compile takes milliseconds.
func TestLongTaskCompiles(t *testing.T) {
	c := longTaskCompiler(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Compile(ctx, Request{Task: longTask(512 << 10)}); err != nil {
		t.Fatalf("got %v; want a result within the deadline", err)
	}
}

// TestManyPhrasesSharingAFirstWord fails if matching tries every phrase at
// every word: one unit with thousands of two-word triggers that share a
// first word made a short task take seconds.
func TestManyPhrasesSharingAFirstWord(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "many", "SKILL.md"), skill("many", "A unit with many triggers.", "", "# many"))
	cat, err := loader.Load(context.Background(), loader.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	u := cat.Units[0]
	for i := range 5000 {
		u.Triggers = append(u.Triggers, ir.Trigger{Kind: ir.TriggerKeyword, Value: fmt.Sprintf("alpha w%d", i), Weight: ir.DefaultTriggerWeight})
	}
	c, err := New(cat, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	task := strings.Repeat("alpha ", 3000) + "alpha w4999"
	res, err := c.Compile(ctx, Request{Task: task})
	if err != nil {
		t.Fatalf("got %v; want a result within the deadline", err)
	}
	if len(res.Selected) != 1 {
		t.Errorf("got %d selected; want the unit whose trigger the task ends with", len(res.Selected))
	}
}

// TestLongNameNegation fails if negation walks the names from each cue: a
// name of thousands of words that a task almost spells after every cue
// would be read again from each of them.
func TestLongNameNegation(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "long", "SKILL.md"), skill("long", "A unit with a long alias.", "", "# long"))
	cat, err := loader.Load(context.Background(), loader.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	cat.Units[0].Aliases = []string{strings.Repeat("x no ", 20000) + "y"}
	c, err := New(cat, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.Compile(ctx, Request{Task: strings.Repeat("no x ", 50000) + "no " + strings.Repeat("x no ", 20000) + "y"})
	if err != nil {
		t.Fatalf("got %v; want a result within the deadline", err)
	}
	if code, _ := reasonOf(res, "long"); code != ReasonNegated {
		t.Errorf("got reason %q; want %q: the task ends by negating the alias", code, ReasonNegated)
	}
}

func TestTaskTooLong(t *testing.T) {
	c := longTaskCompiler(t)
	_, err := c.Compile(context.Background(), Request{Task: strings.Repeat("x", MaxTaskBytes+1)})
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != ErrInvalidRequest {
		t.Fatalf("got %v; want an *Error with code %s", err, ErrInvalidRequest)
	}
	if _, err := c.Compile(context.Background(), Request{Task: longTask(MaxTaskBytes)}); err != nil {
		t.Errorf("a task of MaxTaskBytes: got %v; want a result", err)
	}
}

// countdown is a context that is done from its after-th look on: it tells
// whether a stage looks at the context while it runs, not only between
// stages.
type countdown struct {
	context.Context
	after, looks int
}

func (c *countdown) Err() error {
	if c.looks++; c.looks >= c.after {
		return context.DeadlineExceeded
	}
	return nil
}

func TestCompileCanceled(t *testing.T) {
	c := longTaskCompiler(t)
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	canceledCtx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	tests := []struct {
		name  string
		ctx   context.Context
		want  error
		stage Stage
	}{
		{name: "deadline passed", ctx: expired, want: context.DeadlineExceeded, stage: StageAnalyze},
		{name: "canceled", ctx: canceledCtx, want: context.Canceled, stage: StageAnalyze},
		// The first look is before the analyze stage; the second, inside it.
		{name: "deadline during analysis", ctx: &countdown{Context: context.Background(), after: 2}, want: context.DeadlineExceeded, stage: StageAnalyze},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var err error
			go func() {
				defer close(done)
				_, err = c.Compile(tt.ctx, Request{Task: longTask(256 << 10)})
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the compile did not return")
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Code != ErrCanceled || ce.Stage != tt.stage {
				t.Fatalf("got %v; want an *Error with code %s in stage %s", err, ErrCanceled, tt.stage)
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("errors.Is(%v, %v): got false; want true", err, tt.want)
			}
		})
	}
}

func TestNegated(t *testing.T) {
	c := build(t, map[string]string{
		"skills/deploy/SKILL.md":          skill("deploy", "Deploy the service.", "", "# deploy"),
		"skills/code-review/SKILL.md":     skill("code-review", "Review code changes.", "", "# code-review"),
		"skills/code-review-bot/SKILL.md": skill("code-review-bot", "Run the review bot.", "", "# code-review-bot"),
		"skills/tdd/SKILL.md":             skill("tdd", "Test-driven development.", `{"schema": 1, "aliases": ["red green"]}`, "# tdd"),
	}, Policy{})
	tests := []struct {
		name, task, want string
	}{
		{name: "one name", task: "do not use tdd", want: "tdd"},
		{name: "or", task: "fix the login bug. Don't use deploy or code-review.", want: "code-review deploy"},
		{name: "comma and", task: "avoid deploy, tdd and code-review", want: "code-review deploy tdd"},
		{name: "comma or", task: "avoid deploy, code-review, or tdd today", want: "code-review deploy tdd"},
		{name: "and/or", task: "don't use deploy and/or tdd", want: "deploy tdd"},
		{name: "nor", task: "never use deploy nor code-review", want: "code-review deploy"},
		{name: "neither nor", task: "use neither deploy nor the tdd skill", want: "deploy tdd"},
		{name: "articles in the list", task: "don't use the deploy or the tdd", want: "deploy tdd"},
		{name: "quoted names", task: "don't use `deploy` or \u201ctdd\u201d", want: "deploy tdd"},
		{name: "alias in a list", task: "without deploy or red green", want: "deploy tdd"},
		{name: "longest name", task: "do not use code-review-bot", want: "code-review-bot"},
		{name: "longest name in a list", task: "no deploy or code-review-bot", want: "code-review-bot deploy"},
		{name: "full stop ends the list", task: "Don't use deploy. Code-review the change", want: "deploy"},
		{name: "semicolon ends the list", task: "do not use tdd; deploy it", want: "tdd"},
		{name: "bracket ends the list", task: "avoid deploy (or tdd)", want: "deploy"},
		{name: "no connector, no list", task: "avoid deploy tdd style", want: "deploy"},
		{name: "a word that is no name ends the list", task: "no deploy or even tdd", want: "deploy"},
		{name: "cue in another clause", task: "Is it done? No. tdd is what I want", want: ""},
		{name: "cue then nothing", task: "do not use", want: ""},
		{name: "modifier apostrophe", task: "don\u02bct use tdd", want: "tdd"},
		{name: "backtick apostrophe", task: "don`t use tdd", want: "tdd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(c.index.negated(c.index.analyze(tt.task, nil))))
			if strings.Join(got, " ") != tt.want {
				t.Errorf("negated(%q): got %q; want %q", tt.task, strings.Join(got, " "), tt.want)
			}
		})
	}
}

// TestAnalyzeInPieces checks that splitting a long task in pieces, to look
// at the deadline between them, finds the same words as one scan, and that
// every word's span holds it.
func TestAnalyzeInPieces(t *testing.T) {
	ix := longTaskCompiler(t).index
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("aZé\u0301ß'\u2019`\u02bc \t\n.,-K\u212a9")
	var b strings.Builder
	for b.Len() < 5*scanPiece {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	task := b.String()
	q := ix.analyze(task, nil)
	if want := Words(task); !slices.Equal(q.words, want) {
		t.Fatalf("got %d words; want %d, as Words finds them", len(q.words), len(want))
	}
	for i, sp := range q.spans {
		if got := Words(task[sp.start:sp.end]); len(got) != 1 || got[0] != q.words[i] {
			t.Fatalf("word %d: span %v holds %q; want %q", i, sp, got, q.words[i])
		}
	}
}

// FuzzAnalyze reads arbitrary tasks: analysis, negation and scoring must
// not panic, and every word's span must hold the word.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"don't use deploy or code-review.", "avoid tdd, deploy and/or code review bot", "no. tdd", "neither `tdd` nor \u201cdeploy\u201d", "don\u02bct use code-review-bot;"} {
		f.Add(s)
	}
	ix := longTaskCompiler(f).index
	f.Fuzz(func(t *testing.T, task string) {
		q := ix.analyze(task, nil)
		for i, sp := range q.spans {
			if got := Words(task[sp.start:sp.end]); len(got) != 1 || got[0] != q.words[i] {
				t.Fatalf("word %d: span %v holds %q; want %q", i, sp, got, q.words[i])
			}
		}
		ix.negated(q)
		ix.score(q)
	})
}

// TestNegationManyUnitsShareAName fails if negation walks the units of a
// name at every cue that negates it: two thousand units sharing the alias
// "zork" and a mebibyte of "no zork, " took seconds. Each distinct name is
// resolved to its units once. The deadline is loose; the compile takes
// a small fraction of it.
func TestNegationManyUnitsShareAName(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "base", "SKILL.md"), skill("base", "A unit.", "", "# base"))
	cat, err := loader.Load(context.Background(), loader.Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	base := cat.Units[0]
	for i := range 2000 {
		u := *base
		u.Name = fmt.Sprintf("unit%d", i)
		u.Aliases = []string{"zork"}
		cat.Units = append(cat.Units, &u)
	}
	c, err := New(cat, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := c.Compile(ctx, Request{Task: strings.Repeat("no zork, ", (1<<20)/9)})
	if err != nil {
		t.Fatalf("got %v; want a result within the deadline", err)
	}
	if got, _ := reasonOf(res, "unit1999"); got != ReasonNegated {
		t.Errorf("unit1999: got reason %q; want %q", got, ReasonNegated)
	}
}
