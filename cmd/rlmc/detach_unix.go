//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach makes cmd a session leader of its own, so that it is in no
// process group of its parent's: a client that ends the hook's group ends
// nothing it started.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
