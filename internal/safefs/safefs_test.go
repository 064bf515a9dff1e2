//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, dir string) // makes dir/f
		want error                          // nil, or a sentinel errors.Is must find
		bad  bool                           // any error will do
	}{
		{"regular file", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "f"), "hello") }, nil, false},
		{"too large", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "f"), "hello, world") }, ErrTooLarge, false},
		{"FIFO", func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, "f")) }, ErrNotRegular, false},
		{"symlink to a FIFO", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "pipe"))
			symlink(t, "pipe", filepath.Join(dir, "f"))
		}, ErrNotRegular, false},
		{"socket", func(t *testing.T, dir string) {
			l, err := net.Listen("unix", filepath.Join(dir, "f"))
			if err != nil {
				t.Skipf("cannot make a socket here: %v", err)
			}
			t.Cleanup(func() { l.Close() })
		}, ErrNotRegular, false},
		{"device", func(t *testing.T, dir string) {
			if err := syscall.Mknod(filepath.Join(dir, "f"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
				t.Skipf("cannot make a device node here: %v", err)
			}
		}, ErrNotRegular, false},
		{"folder", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "f")) }, ErrNotRegular, false},
		{"symlink out of the root", func(t *testing.T, dir string) {
			outside := t.TempDir()
			write(t, filepath.Join(outside, "secret"), "hi")
			symlink(t, filepath.Join(outside, "secret"), filepath.Join(dir, "f"))
		}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.make(t, dir)
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			check := func(what string, err error) {
				t.Helper()
				switch {
				case tt.bad && err == nil:
					t.Errorf("%s: got no error; want one", what)
				case !tt.bad && tt.want == nil && err != nil:
					t.Errorf("%s: got %v; want no error", what, err)
				case !tt.bad && tt.want != nil && !errors.Is(err, tt.want):
					t.Errorf("%s: got %v; want %v", what, err, tt.want)
				}
			}
			check("ReadFile", promptly(t, func() error { _, err := ReadFile(root, "f", 5); return err }))
			if !tt.bad {
				check("ReadPath", promptly(t, func() error { _, err := ReadPath(filepath.Join(dir, "f"), 5); return err }))
			}
		})
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "sub", "b"), "")
	write(t, filepath.Join(dir, "sub", "a"), "")
	mkfifo(t, filepath.Join(dir, "pipe"))
	outside := t.TempDir()
	symlink(t, outside, filepath.Join(dir, "out"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	entries, err := ReadDir(root, "sub")
	if err != nil || len(entries) != 2 || entries[0].Name() != "a" || entries[1].Name() != "b" {
		t.Errorf("got %v, %v; want [a b]", entries, err)
	}
	if err := promptly(t, func() error { _, err := ReadDir(root, "pipe"); return err }); err == nil {
		t.Error("got a FIFO listed as a folder; want an error")
	}
	if _, err := ReadDir(root, "out"); err == nil {
		t.Error("got a folder outside the root listed; want an error")
	}
	if _, err := ReadDir(root, "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v; want ErrNotExist", err)
	}
}

func write(t *testing.T, file, data string) {
	t.Helper()
	mkdir(t, filepath.Dir(file))
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, file string) {
	t.Helper()
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
}

// TestOpenedFIFO covers a FIFO swapped in between the Stat and the open:
// the non-blocking open returns at once and the check on the open file
// refuses it.
func TestOpenedFIFO(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pipe")
	mkfifo(t, file)
	err := promptly(t, func() error {
		f, err := os.OpenFile(file, os.O_RDONLY|nonBlock, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = readRegular(f, "pipe", 5)
		return err
	})
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("got %v; want ErrNotRegular", err)
	}
}

// TestReadFileSizes checks reads on either side of the limit, and without
// one, return the whole file or ErrTooLarge, as io.ReadAll over a reader
// limited to one byte past the limit did.
func TestReadFileSizes(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tt := range []struct {
		name  string
		size  int
		limit int64
		large bool
	}{
		{"empty", 0, 10, false},
		{"under", 9, 10, false},
		{"at", 10, 10, false},
		{"one over", 11, 10, true},
		{"far over", 100 << 10, 10, true},
		{"no limit", 100 << 10, -1, false},
		{"zero limit", 1, 0, true},
		{"zero limit empty", 0, 0, false},
		{"largest limit", 100 << 10, math.MaxInt64, false},
		{"largest limit, empty", 0, math.MaxInt64, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.Repeat("x", tt.size)
			write(t, filepath.Join(dir, "f"), want)
			got, err := ReadFile(root, "f", tt.limit)
			if tt.large {
				var tl *TooLargeError
				if !errors.Is(err, ErrTooLarge) || !errors.As(err, &tl) || tl.Limit != tt.limit {
					t.Fatalf("got %v; want ErrTooLarge saying the limit %d", err, tt.limit)
				}
				return
			}
			if err != nil || string(got) != want {
				t.Fatalf("got %d bytes, %v; want %d bytes", len(got), err, tt.size)
			}
		})
	}
}
