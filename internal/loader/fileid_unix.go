//go:build unix

package loader

import (
	"os"
	"strconv"
	"syscall"
)

// FileID identifies the file behind info beyond its name, size and time
// (device and inode): a file replaced by another (a rename over it, as
// editors save) has a new inode even when it is written within the same
// clock tick as the old one. It is "" where the system does not say.
func FileID(info os.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
}

// appendFileID appends FileID(info) to b.
func appendFileID(b []byte, info os.FileInfo) []byte {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return b
	}
	b = strconv.AppendUint(b, uint64(st.Dev), 10)
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(st.Ino), 10)
}
