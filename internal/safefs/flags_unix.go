//go:build unix

package safefs

import "syscall"

// nonBlock makes opening a FIFO return at once instead of waiting for a
// writer; it has no effect on reading a regular file.
const nonBlock = syscall.O_NONBLOCK

// directory makes opening anything but a folder fail.
const directory = syscall.O_DIRECTORY
