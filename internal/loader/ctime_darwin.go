package loader

import (
	"os"
	"strconv"
	"syscall"
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
