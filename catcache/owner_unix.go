//go:build unix

package catcache

import (
	"os"
	"syscall"
)

// ownedByMe reports whether the file behind info belongs to the user
// running this process.
func ownedByMe(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
