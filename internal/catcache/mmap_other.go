//go:build !unix

package catcache

import "os"

// mapFile does not map here: the caller reads the file.
func mapFile(*os.File, int64) ([]byte, bool) { return nil, false }

// dropPages has no mapping to drop here.
func dropPages([]byte) {}
