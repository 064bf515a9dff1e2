package compiler_test

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// hostRoot writes one skill, with an agents/ folder, and returns its root.
func hostRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "golden")
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: golden\ndescription: Refresh golden files\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestNilAndZero: a nil *Live, a nil or zero *Compiler and New over no
// catalog answer errors or nothing, never a panic (a deferred Close of the
// Live a failed Watch returned panicked, as did New(nil)).
func TestNilAndZero(t *testing.T) {
	var l *compiler.Live
	if err := l.Close(); err != nil {
		t.Errorf("nil Live Close: got %v; want nil", err)
	}
	l.Reload()
	if l.LastError() != nil || l.Generation() != 0 || l.Watched() != 0 || !l.LoadedAt().IsZero() {
		t.Error("a nil Live reports a state; want none")
	}
	var ce *compiler.Error
	if _, err := l.Compile(context.Background(), compiler.Request{Task: "x"}); !errors.As(err, &ce) || ce.Code != compiler.ErrInvalidRequest {
		t.Errorf("nil Live Compile: got %v; want an invalid_request error", err)
	}
	var zero compiler.Compiler
	if _, err := zero.Compile(context.Background(), compiler.Request{Task: "x"}); !errors.As(err, &ce) || ce.Code != compiler.ErrInvalidRequest {
		t.Errorf("zero Compiler Compile: got %v; want an invalid_request error", err)
	}
	if _, err := compiler.New(nil, compiler.Policy{}); !errors.As(err, &ce) || ce.Code != compiler.ErrInvalidRequest || ce.Stage != compiler.StageLoad {
		t.Errorf("New(nil): got %v; want an invalid_request error of the load stage", err)
	}
	// Every accessor of a nil or zero Compiler answers a zero value,
	// BodyTokens an error: most panicked.
	for _, c := range []*compiler.Compiler{nil, &zero} {
		c.StoreCache()
		if c.Catalog() != nil || c.Diagnostics() != nil || c.CatalogFingerprint() != "" || c.PolicyFingerprint() != "" ||
			c.Reach() != (compiler.Reach{}) || !c.Equivalent(nil) || len(compiler.UnknownNames(c, "deny", []string{"x"})) != 0 {
			t.Errorf("%v: an accessor answered a value; want zero values", c)
		}
		_ = c.Policy()
		_ = c.Summary(nil)
		if _, err := c.BodyTokens(nil); err == nil {
			t.Errorf("%v: BodyTokens gave no error; want one", c)
		}
	}
	if err := compiler.WriteExplanation(io.Discard, nil); err == nil {
		t.Error("WriteExplanation of no result: got no error; want one")
	}
}

// TestGoPolicyValidated: a Policy built in Go is held to the ranges a
// policy file is: Load, Watch and New refuse it. A budget of -5 made
// every compile answer no_route without an error.
func TestGoPolicyValidated(t *testing.T) {
	root := hostRoot(t)
	for _, tc := range []struct {
		name string
		p    compiler.Policy
		key  string
	}{
		{"negative budget", compiler.Policy{Budget: -5}, "budget"},
		{"unknown ambiguity", compiler.Policy{Ambiguity: "bogus"}, "ambiguity"},
		{"confidence not a number", compiler.Policy{MinConfidence: math.NaN()}, "min_confidence"},
		{"priority out of range", compiler.Policy{Priority: map[string]int{"golden": math.MaxInt}}, "priority.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ve *compiler.PolicyValueError
			if _, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, tc.p); !errors.As(err, &ve) || ve.Key != tc.key {
				t.Errorf("Load: got %v; want a PolicyValueError for %s", err, tc.key)
			}
			l, err := compiler.Watch(context.Background(), compiler.Options{Roots: []string{root}}, tc.p, compiler.LiveOptions{})
			if !errors.As(err, &ve) {
				t.Errorf("Watch: got %v; want a PolicyValueError", err)
			}
			l.Close() // nil, and a no-op, when Watch failed
		})
	}
}

// TestOneLimitKeepsTheOthers: Options.Limits with one field set keeps the
// defaults of the others; it left them 0, and the load found no skill
// without an error.
func TestOneLimitKeepsTheOthers(t *testing.T) {
	opts := compiler.Options{Roots: []string{hostRoot(t)}}
	opts.Limits.MaxDepth = 3
	c, err := compiler.Load(context.Background(), opts, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Catalog().Units); n != 1 {
		t.Errorf("got %d units; want 1", n)
	}
}

// TestLargestMaxFoldersWatches: a MaxFolders of math.MaxInt (no bound, to
// a host) watches what the default does; twice it overflowed, and a
// skill's agents/ folder went unwatched.
func TestLargestMaxFoldersWatches(t *testing.T) {
	root := hostRoot(t)
	watched := func(limits loader.Limits) int {
		l, err := compiler.Watch(context.Background(), compiler.Options{Roots: []string{root}, Limits: limits}, compiler.Policy{}, compiler.LiveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Watched()
	}
	largest := loader.DefaultLimits
	largest.MaxFolders = math.MaxInt
	if got, want := watched(largest), watched(loader.DefaultLimits); got != want {
		t.Errorf("got %d paths watched; want %d, as with the default bound", got, want)
	}
}

// TestLoadCanceledIsError: a Load whose context is done answers an
// ErrCanceled *Error that unwraps to the context's error, whether the
// loader or the index build met it (the loader's came back bare).
func TestLoadCanceledIsError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := compiler.Load(ctx, compiler.Options{Roots: []string{hostRoot(t)}}, compiler.Policy{})
	var ce *compiler.Error
	if !errors.As(err, &ce) || ce.Code != compiler.ErrCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want an ErrCanceled *Error unwrapping to context.Canceled", err)
	}
	if got := err.Error(); got[0] == ':' {
		t.Errorf("got %q; want no empty stage before the code", got)
	}
}

// TestCloseFromOnReload: OnReload may close its Live; Close waited for
// the goroutine running the callback, itself, and never returned.
func TestCloseFromOnReload(t *testing.T) {
	var l *compiler.Live
	ready, done := make(chan struct{}), make(chan error, 1)
	l, err := compiler.Watch(context.Background(), compiler.Options{Roots: []string{hostRoot(t)}}, compiler.Policy{},
		compiler.LiveOptions{OnReload: func(compiler.Reload) { <-ready; done <- l.Close() }})
	if err != nil {
		t.Fatal(err)
	}
	close(ready)
	l.Reload()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close from OnReload: got %v; want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close called from OnReload did not return")
	}
	if err := l.Close(); err != nil { // once more, after: a no-op
		t.Errorf("a second Close: got %v; want nil", err)
	}
}
