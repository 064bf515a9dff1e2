//go:build !unix

package catcache

import (
	"os"

	"github.com/rlmc-dev/rlmc/internal/safefs"
)

// readFlags opens a cache file: the system has no O_NOFOLLOW here, and
// readOwn's Lstat refuses a link.
const readFlags = safefs.ReadOnly

// ownedByMe reports whether the file behind info belongs to the user
// running this process; where the system does not say, the cache folder's
// own permissions must keep others out.
func ownedByMe(os.FileInfo) bool { return true }

// folderWritableByOthers: the mode bits say nothing of who may write a
// folder here (a folder is always 0777), so none is refused for them.
func folderWritableByOthers(os.FileInfo) bool { return false }

// noFollow: the system has no O_NOFOLLOW here; the folder is the user's
// own.
const noFollow = 0

// processAlive cannot tell here: a lock is honoured until it is lockAge
// old.
func processAlive(int) bool { return true }

// processStart cannot tell here.
func processStart(int) string { return "" }

// readOnlyFS cannot tell here: a refused write is said as it comes.
func readOnlyFS(error) bool { return false }

// readOnly leaves f as it is: a read-only file cannot be renamed over
// here, as every cache file is replaced.
func readOnly(*os.File) {}

// capabilities returns "": the system does not say here.
func capabilities() string { return "" }
