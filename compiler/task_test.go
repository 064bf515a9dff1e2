package compiler

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

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

// TestNegationManyUnitsShareAName fails if negation walks the units of a
// name at every cue that negates it: two thousand units sharing the alias
// "zork" and a mebibyte of "no zork, " took seconds. Each distinct name is
// resolved to its units once. No clock is read (a timed assertion flakes on
// a loaded machine): the compile's allocations are compared instead, with
// the task held and the units sharing the name multiplied by ten. Resolving
// each name once makes them grow with the units (the policy judges each
// negated unit: rule 5 is the policy's), about tenfold; walking the units
// at every cue made them grow with units times cues.
func TestNegationManyUnitsShareAName(t *testing.T) {
	task := strings.Repeat("no zork, ", (256<<10)/9)
	allocs := func(units int) float64 {
		dir := t.TempDir()
		testkit.WriteFile(t, filepath.Join(dir, "base", "SKILL.md"), skill("base", "A unit.", "", "# base"))
		cat, err := loader.Load(context.Background(), loader.Options{Roots: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		base := cat.Units[0]
		for i := range units {
			u := *base
			u.Name = fmt.Sprintf("unit%d", i)
			u.Aliases = []string{"zork"}
			cat.Units = append(cat.Units, &u)
		}
		// Through NewCatalog, as the loader builds it: the policy looks
		// every unit it judges up by name.
		cat = ir.NewCatalog(cat.Roots, cat.Units, cat.Diagnostics)
		c, err := New(cat, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		var res *Result
		n := testing.AllocsPerRun(1, func() {
			if res, err = c.Compile(context.Background(), Request{Task: task}); err != nil {
				t.Fatal(err)
			}
		})
		last := fmt.Sprintf("unit%d", units-1)
		if got, _ := reasonOf(res, last); got != ReasonNegated {
			t.Errorf("%s: got reason %q; want %q", last, got, ReasonNegated)
		}
		return n
	}
	few, many := allocs(200), allocs(2000)
	t.Logf("allocations: %.0f for 200 units, %.0f for 2,000", few, many)
	if ratio := many / few; ratio > 20 {
		t.Errorf("allocations: got %.0f for 2,000 units sharing a name and %.0f for 200 (x%.1f); want at most x20", many, few, ratio)
	}
}
