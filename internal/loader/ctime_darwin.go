package loader

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// appendChangeTime is as on Linux (ctime_linux.go); darwin names the
// field Ctimespec.
func appendChangeTime(b []byte, info os.FileInfo) []byte {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return b
	}
	b = strconv.AppendInt(b, st.Ctimespec.Sec, 10)
	b = append(b, '.')
	return strconv.AppendInt(b, st.Ctimespec.Nsec, 10)
}

// changeTime is the time the file's inode last changed (ctime); ok is
// false when the system does not say.
func changeTime(info os.FileInfo) (t time.Time, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec), true
}
