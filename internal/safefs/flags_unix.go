//go:build unix

package safefs

import (
	"errors"
	"syscall"
)

// nonBlock makes opening a FIFO return at once instead of waiting for a
// writer; it has no effect on reading a regular file.
const nonBlock = syscall.O_NONBLOCK

// directory makes opening anything but a folder fail.
const directory = syscall.O_DIRECTORY

// isNoReader reports the error of opening, non-blocking and for writing, a
// FIFO that no process has open for reading.
func isNoReader(err error) bool { return errors.Is(err, syscall.ENXIO) }
