//go:build unix

package compiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// promptly runs f, failing the test instead of hanging when f blocks.
func promptly(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("still blocked after 5s")
		return nil
	}
}

func TestLoadFIFOSideFile(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "tdd", "SKILL.md"), standard["tdd/SKILL.md"])
	if err := syscall.Mkfifo(filepath.Join(dir, "tdd", "manifest.json"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var c *Compiler
	err := promptly(t, func() (err error) {
		c, err = Load(ctx, loader.Options{Roots: []string{dir}}, Policy{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Compile(context.Background(), Request{Task: "test driven development", Why: []string{"tdd"}})
	if err != nil {
		t.Fatal(err)
	}
	if code, selected := reasonOf(r, "tdd"); selected || code != "invalid" {
		t.Errorf("got tdd selected=%v with %q; want it rejected as invalid", selected, code)
	}
}

func TestBodyReplacedByFIFO(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tdd", "SKILL.md")
	testkit.WriteFile(t, file, standard["tdd/SKILL.md"])
	c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	err = promptly(t, func() error {
		_, err := c.Compile(context.Background(), Request{Select: []string{"tdd"}})
		return err
	})
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != ErrBodyChanged {
		t.Errorf("got %v; want body_changed", err)
	}
}
