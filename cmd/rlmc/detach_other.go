//go:build !unix

package main

import "os/exec"

// detach leaves cmd as it is here: its standard streams are already the
// null device.
func detach(*exec.Cmd) {}
