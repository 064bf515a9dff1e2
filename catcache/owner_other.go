//go:build !unix

package catcache

import "os"

// ownedByMe reports whether the file behind info belongs to the user
// running this process; where the system does not say, the cache folder's
// own permissions must keep others out.
func ownedByMe(os.FileInfo) bool { return true }
