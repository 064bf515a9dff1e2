//go:build unix

package catcache

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
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
// or another's). A zombie (a process that ended and that its parent has
// not reaped: a builder killed under a container's init that reaps no
// orphan) runs no more, though a signal still reaches its id: its lock
// held every prompt's hook to "not ready" until the lock grew stale.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	return processState(pid) != 'Z'
}

// processState returns the state letter of process pid as Linux's
// /proc/PID/stat gives it (R, S, D, Z, ...), or 0 where the system does
// not say.
func processState(pid int) byte {
	if f := procStat(pid); len(f) > 0 && len(f[0]) == 1 {
		return f[0][0]
	}
	return 0
}

// processStart returns when process pid started, as the system counts it
// (Linux's /proc/PID/stat start time, in clock ticks since boot), or ""
// where the system does not say. A process id is used again once its
// process is gone: a builder killed (by the OOM killer, a reboot) leaves a
// lock whose id another process may hold minutes later.
func processStart(pid int) string {
	const startField = 22 - 3 // field 22 counted from the state, field 3
	if f := procStat(pid); len(f) > startField {
		return f[startField]
	}
	return ""
}

// procStat returns the fields of Linux's /proc/PID/stat from the state
// (its third) on, or nil where the system does not say. The command name
// before them, in parentheses, may hold blanks and parentheses: the
// fields start after the last ')'.
func procStat(pid int) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// readOnlyFS reports whether err says the file system is mounted
// read-only.
func readOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }

// readOnly makes the file f read-only for its owner too, best effort.
func readOnly(f *os.File) { _ = f.Chmod(0o400) }

// capabilities returns this process's effective capabilities as Linux's
// /proc/self/status gives them (CapEff, in hex), or "" where the system
// does not say; read once, as they do not change while rlmc runs.
var capabilities = sync.OnceValue(func() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
})
