//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// mkfifoCmd is the script command `mkfifo FILE...`: it makes each FILE a
// FIFO, creating its folder, so scripts can check that no command blocks
// on one.
func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mkfifo FILE...")
	}
	for _, a := range args {
		file := ts.MkAbs(a)
		ts.Check(os.MkdirAll(filepath.Dir(file), 0o755))
		ts.Check(syscall.Mkfifo(file, 0o644))
	}
}
