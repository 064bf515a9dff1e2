//go:build !unix

package main

import "github.com/rogpeppe/go-internal/testscript"

// mkfifoCmd fails: there are no FIFOs to make here, and scripts that use
// it skip themselves with [!unix].
func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("no FIFOs on this system; guard the script with [!unix] skip")
}
