//go:build unix

package catcache

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// dropPages takes the pages of a mapping mapFile made out of the
// process's resident memory: what reads them again gets them back from
// the page cache, as they are in the file. It is never given memory of
// the Go heap, which it would zero.
func dropPages(mapping []byte) {
	if len(mapping) > 0 {
		_ = unix.Madvise(mapping, unix.MADV_DONTNEED)
	}
}
