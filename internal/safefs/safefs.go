// Package safefs reads files from folders an attacker may control. Every
// read refuses anything but a regular file, and never blocks on opening:
// a FIFO, a socket or a device put where a file is expected (or swapped in
// after a check) is an error, not a hang. Reads through an *os.Root are
// confined to it at open time, so a folder swapped for a symlink to the
// outside between a check and the read cannot be followed out.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// ErrNotRegular reports a path that names something other than a regular
// file (a FIFO, socket, device or folder).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge reports a file larger than the limit given to a read; the
// error a read returns is a *TooLargeError, which says the limit.
var ErrTooLarge = errors.New("file too large")

// TooLargeError is a file over Limit bytes, the limit given to a read. It
// is ErrTooLarge (errors.Is).
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%v: over %d bytes", ErrTooLarge, e.Limit)
}

// Is reports whether target is ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ReadOnly is the flag set for opening, read-only, a file that may turn out
// to be a FIFO: the open returns at once instead of waiting for a writer.
// Callers that stream a file rather than read it whole (a digest of a large
// file) open with it and then check the open file is regular.
const ReadOnly = os.O_RDONLY | nonBlock

// ReadFile reads name inside root, at most limit bytes (no bound when limit
// is negative). A larger file is ErrTooLarge; anything but a regular file is
// ErrNotRegular, and is refused before it is opened when possible, so that
// opening a device can have no side effect.
func ReadFile(root *os.Root, name string, limit int64) ([]byte, error) {
	info, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	// O_NONBLOCK: the file may have been replaced by a FIFO since the
	// Stat above, and opening a FIFO for reading blocks until a writer
	// comes, possibly forever.
	f, err := root.OpenFile(name, ReadOnly, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, name, limit)
}

// ReadPath is ReadFile for a path that is not confined to a root: a file
// the user named, or one found by a walk that checks confinement itself.
func ReadPath(name string, limit int64) ([]byte, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	f, err := os.OpenFile(name, ReadOnly, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, name, limit)
}

// ReadDir lists the folder name inside root, sorted by name. The folder is
// opened with O_DIRECTORY and O_NONBLOCK, so a FIFO swapped in for it is
// refused instead of blocking.
func ReadDir(root *os.Root, name string) ([]fs.DirEntry, error) {
	f, err := root.OpenFile(name, ReadOnly|directory, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a folder")}
	}
	entries, err := f.ReadDir(-1)
	sortEntries(entries)
	return entries, err
}

// readRegular checks, on the open file itself, that it is regular, then
// reads it up to limit bytes.
func readRegular(f *os.File, name string, limit int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	// The buffer is sized from the open file, one byte over so that the
	// read that meets the end fits in it; a file that grew since is still
	// read to its end (or to the limit) by append's growth.
	size := info.Size()
	if limit >= 0 && size > limit {
		size = limit
	}
	data := make([]byte, 0, size+1)
	for {
		if limit >= 0 && int64(len(data)) > limit {
			return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Limit: limit}}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		// One byte over the limit is enough to tell a file too large;
		// compared as limit < want-1, since limit+1 overflows at
		// math.MaxInt64 (a policy may say so for "no bound").
		want := cap(data)
		if limit >= 0 && limit < int64(want)-1 {
			want = int(limit + 1)
		}
		n, err := f.Read(data[len(data):want])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if limit >= 0 && int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Limit: limit}}
	}
	return data, nil
}

func sortEntries(entries []fs.DirEntry) {
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// OpenAppend opens name for appending, creating it (0644) when absent,
// without blocking: a FIFO that no process reads is an error at once
// (ENXIO) rather than a hang before anything else starts; one that has a
// reader, a device such as /dev/stderr, or a regular file is opened.
func OpenAppend(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY|nonBlock, 0o644)
	if err != nil && isNoReader(err) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("a FIFO that no process is reading")}
	}
	return f, err
}
