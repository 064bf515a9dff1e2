//go:build unix

package lockfile

import (
	"syscall"
	"testing"
)

// fifo makes a named pipe at file; opening it for reading blocks until a
// writer comes, which is what the scan must never do.
func fifo(t *testing.T, file string) {
	t.Helper()
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Skipf("FIFOs unavailable: %v", err)
	}
}
