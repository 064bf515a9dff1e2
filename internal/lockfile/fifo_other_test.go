//go:build !unix

package lockfile

import "testing"

// fifo skips: this system has no named pipes in the file tree.
func fifo(t *testing.T, file string) {
	t.Helper()
	t.Skip("FIFOs unavailable")
}
