package compiler

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestNilContext: a nil context is the host's mistake, said as an
// invalid_request error with the stage it reached, never a panic (Load's
// met it in a worker goroutine, which took the whole process down).
func TestNilContext(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\ndescription: Write a Dockerfile.\n---\nBody.\n")
	c, err := Load(context.Background(), Options{Roots: []string{root}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Watch(context.Background(), Options{Roots: []string{root}}, Policy{}, LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var nilCtx context.Context
	defer func() {
		// Closed, it watches nothing, and says so (it said the paths it
		// had watched).
		if err := l.Close(); err != nil || l.Watched() != 0 {
			t.Errorf("after Close: got %v and %d paths watched; want nil and 0", err, l.Watched())
		}
	}()
	tests := []struct {
		name  string
		call  func() error
		stage Stage
	}{
		{"Load", func() error { _, err := Load(nilCtx, Options{Roots: []string{root}}, Policy{}); return err }, StageLoad},
		{"Watch", func() error {
			_, err := Watch(nilCtx, Options{Roots: []string{root}}, Policy{}, LiveOptions{})
			return err
		}, StageLoad},
		{"Compile", func() error { _, err := c.Compile(nilCtx, Request{Task: "dockerfile"}); return err }, StageAnalyze},
		{"Live.Compile", func() error { _, err := l.Compile(nilCtx, Request{Task: "dockerfile"}); return err }, StageAnalyze},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ce *Error
			if err := tt.call(); !errors.As(err, &ce) || ce.Code != ErrInvalidRequest || ce.Stage != tt.stage {
				t.Errorf("got %v; want an %s error at stage %s", err, ErrInvalidRequest, tt.stage)
			}
		})
	}
	// A load canceled names its stage, which the error schema lists.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ce *Error
	if _, err := Load(ctx, Options{Roots: []string{root}}, Policy{}); !errors.As(err, &ce) || ce.Code != ErrCanceled || ce.Stage != StageLoad {
		t.Errorf("got %v; want %s at stage %s", err, ErrCanceled, StageLoad)
	}
}
