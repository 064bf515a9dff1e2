//go:build !unix

package main

import "github.com/rogpeppe/go-internal/testscript"

// mkfifoCmd skips the script: there are no FIFOs to make here.
func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("no FIFOs on this system")
}
