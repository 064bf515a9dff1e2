//go:build !unix

package safefs

// nonBlock and directory have no equivalent here; the Stat checks before
// and after opening still refuse special files.
const (
	nonBlock  = 0
	directory = 0
)

func isNoReader(error) bool { return false }
