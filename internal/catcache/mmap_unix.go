//go:build unix

package catcache

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only and shared with the page cache;
// ok is false when it cannot (the caller reads the file instead).
func mapFile(f *os.File, size int64) ([]byte, bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	return data, true
}
