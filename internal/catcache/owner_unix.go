//go:build unix

package catcache

import (
	"os"
	"syscall"

	"github.com/rlmc-dev/rlmc/internal/safefs"
)

// readFlags opens a cache file: read-only, not waiting on a FIFO, and not
// through a link.
const readFlags = safefs.ReadOnly | syscall.O_NOFOLLOW

// ownedByMe reports whether the file behind info belongs to the user
// running this process.
func ownedByMe(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// folderWritableByOthers reports whether users other than the owner may
// create, remove or rename entries in the folder behind info. The sticky
// bit is no help: it keeps others from removing this user's files, not
// from planting their own.
func folderWritableByOthers(info os.FileInfo) bool { return info.Mode().Perm()&0o022 != 0 }

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// processAlive reports whether a process with id pid runs (as this user's
// or another's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
