package loader

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// appendChangeTime appends the time the file's inode last changed (ctime),
// seconds.nanoseconds: every write and rename sets it, and no user call
// can set it back, so a file edited and then dated back with its old
// modification time still stamps anew.
func appendChangeTime(b []byte, info os.FileInfo) []byte {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return b
	}
	b = strconv.AppendInt(b, st.Ctim.Sec, 10)
	b = append(b, '.')
	return strconv.AppendInt(b, st.Ctim.Nsec, 10)
}

// changeTime is the time the file's inode last changed (ctime); ok is
// false when the system does not say.
func changeTime(info os.FileInfo) (t time.Time, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec), true
}
