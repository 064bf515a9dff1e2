//go:build unix

package compiler

import (
	"fmt"
	"os"
	"syscall"
)

// liveFileID identifies the file behind info beyond its name, size and time: a
// file replaced by another (a rename over it, as editors save) has a new
// inode even when it is written within the same clock tick as the old one.
func liveFileID(info os.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}
