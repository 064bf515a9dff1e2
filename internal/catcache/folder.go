package catcache

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// OffCode names, stably, why a cache is off; tests and tools match it, not
// the message.
type OffCode string

const (
	// OffRelative: RLMC_CACHE_DIR is a relative path, which would name a
	// folder in whatever folder rlmc runs in (for a hook, the user's
	// project).
	OffRelative OffCode = "cache_dir_relative"
	// OffNoFolder: no RLMC_CACHE_DIR and no user cache folder (no $HOME,
	// or a relative $XDG_CACHE_HOME).
	OffNoFolder OffCode = "cache_dir_unknown"
	// OffNotFolder: the cache folder's path names something else.
	OffNotFolder OffCode = "cache_dir_not_folder"
	// OffSymlink: the cache folder is a symbolic link, which whoever
	// made it can point anywhere: rlmc would write and prune there.
	OffSymlink OffCode = "cache_dir_symlink"
	// OffNotOwn: the cache folder is another user's, who could plant
	// files in it (a key is anyone's to compute) or replace it.
	OffNotOwn OffCode = "cache_dir_not_own"
	// OffWritable: others may write in the cache folder, which lets them
	// plant files, or remove the user's, as OffNotOwn does.
	OffWritable OffCode = "cache_dir_writable"
	// OffNoParent: the folder RLMC_CACHE_DIR names is missing and so is
	// the folder it would be made in: a mistyped path, of which rlmc makes
	// no tree (it makes the user cache folder's parents, not these).
	OffNoParent OffCode = "cache_dir_no_parent"
	// OffReadOnly: the cache folder is the user's, but no file can be
	// made in it (its mode leaves the owner no write, or the system
	// refuses a write: a read-only file system). A cache never written
	// is never read, and the hook, whose first prompt leaves the load to
	// a builder that writes one, would answer no prompt at all.
	OffReadOnly OffCode = "cache_dir_read_only"
)

// Off is why a cache is off: neither read, written nor pruned, for the
// rest of the process. It is a warning for the user, not an error: a
// command runs the same without a cache, only slower.
type Off struct {
	Code OffCode
	// Dir is the folder refused, or RLMC_CACHE_DIR's value.
	Dir string
	// Err is what the system said, for OffNoFolder and OffReadOnly.
	Err error
}

func (o *Off) Error() string {
	var why string
	switch o.Code {
	case OffRelative:
		why = fmt.Sprintf("$%s is a relative path (%q)", EnvDir, o.Dir)
	case OffNoFolder:
		why = fmt.Sprintf("no cache folder: %v", o.Err)
	case OffNotFolder:
		why = fmt.Sprintf("cache folder %s is not a folder", o.Dir)
	case OffSymlink:
		why = fmt.Sprintf("cache folder %s is a symbolic link", o.Dir)
	case OffNotOwn:
		why = fmt.Sprintf("cache folder %s belongs to another user", o.Dir)
		if errors.Is(o.Err, errParentNotOwn) {
			why = fmt.Sprintf("cache folder %s is missing, and would be made in another user's folder", o.Dir)
		}
	case OffWritable:
		why = fmt.Sprintf("cache folder %s is writable by its group or others", o.Dir)
	case OffNoParent:
		why = fmt.Sprintf("cache folder %s is missing, and so is the folder it would be made in", o.Dir)
	case OffReadOnly:
		why = fmt.Sprintf("no file can be written in cache folder %s", o.Dir)
		if o.Err != nil {
			why += fmt.Sprintf(" (%v)", o.Err)
		}
	default:
		why = fmt.Sprintf("cache folder %s is refused", o.Dir)
	}
	return string(o.Code) + ": " + why + "; the catalog cache is off"
}

// Caps on what a cache file read may take; a file larger is not read (it
// is replaced by the next store), and a store that would write one larger
// does not. A catalog's file takes about 4 KiB a skill of 3-4 KB (see
// BenchmarkLoad and internal/bench/startup), so maxCacheBytes holds some
// 60,000 such skills, three times the largest catalogs measured (a larger
// one runs as without a cache, only slower); a token count takes under 100 bytes, so maxCountsBytes holds
// maxCounts three times over.
const (
	maxCacheBytes  = 256 << 20
	maxCountsBytes = 32 << 20
)

// errTooLarge is a cache file over its cap.
var errTooLarge = errors.New("larger than the cap")

// errLink is a cache file that is a symbolic link: only this user can
// write the folder, but a link would be followed wherever it points.
var errLink = errors.New("a symbolic link")

// open opens c's folder for one operation, after checking it is a folder
// of this user's that no one else may write (see checkFolder). When create
// is set, a missing folder is made, 0700, in a folder that exists, or with
// its parents when c.MakeParents is set. A folder refused turns the cache
// off for good, and says so once to c.Warn; the *Off is returned as the
// error. Every file operation then goes through the root, so that a
// folder swapped for a link after the check is not followed.
func (c *Cache) open(create bool) (*os.Root, error) {
	if off := c.off.Load(); off != nil {
		return nil, off
	}
	// Cleaned first: "link/" or "link/." would have Lstat follow the
	// link, and the check pass on its target.
	dir := filepath.Clean(c.Dir)
	info, err := os.Lstat(dir)
	var code OffCode
	if create && errors.Is(err, fs.ErrNotExist) {
		// Making it leaves an existing folder's mode as it is: the Lstat
		// after it checks whatever is there now, made by this process or
		// by another at the same moment.
		if c.MakeParents {
			if parent := existingParent(dir); parent != nil && os.Geteuid() == 0 && !ownedByMe(parent) {
				// Root in another user's folder (a HOME that sudo kept,
				// without its .cache): a folder made there would be
				// root's, in theirs, and their own programs, rlmc's
				// cache too, could no longer write in it. Another user
				// makes folders only where it was let write (/tmp).
				return nil, c.turnOff(&Off{Code: OffNotOwn, Dir: c.Dir, Err: errParentNotOwn})
			}
			err = os.MkdirAll(dir, 0o700)
		} else if err = os.Mkdir(dir, 0o700); errors.Is(err, fs.ErrExist) {
			err = nil
		}
		switch {
		case err == nil:
			info, err = os.Lstat(dir)
		case errors.Is(err, fs.ErrNotExist):
			code, err = OffNoParent, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if code == "" {
		code = checkFolder(info)
	}
	if code != "" {
		return nil, c.turnOff(&Off{Code: code, Dir: c.Dir})
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	// The folder opened must be the one checked, not one swapped in
	// since.
	if opened, err := root.Stat("."); err != nil || !os.SameFile(info, opened) {
		root.Close()
		return nil, fmt.Errorf("%s: changed while opened", c.Dir)
	}
	return root, nil
}

// errParentNotOwn is an Off's cause when the missing cache folder would
// be made in another user's folder.
var errParentNotOwn = errors.New("the folder it would be made in is another user's")

// existingParent returns the Stat of the nearest folder above dir that
// exists (where a link there leads: where the folders are made), or nil.
func existingParent(dir string) os.FileInfo {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if info, err := os.Stat(p); err == nil {
			return info
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// turnOff turns c off for good with off, unless it is off already, and
// says so once to c.Warn; it returns why c is off.
func (c *Cache) turnOff(off *Off) *Off {
	if c.off.CompareAndSwap(nil, off) {
		if c.Warn != nil {
			c.Warn(off)
		}
		return off
	}
	return c.off.Load()
}

// refusedWrite returns err, or, when err says the system refuses to write
// in c's folder at all (no permission, a read-only file system), the
// *Off that c is now off with: every later write would fail the same way.
func (c *Cache) refusedWrite(err error) error {
	if errors.Is(err, fs.ErrPermission) || readOnlyFS(err) {
		return c.turnOff(&Off{Code: OffReadOnly, Dir: c.Dir, Err: err})
	}
	return err
}

// checkFolder returns why the folder info describes (from Lstat) is not
// one to keep a cache in, or "": it must be a folder, not a link to one,
// of this user's, that no one else may write and its owner may, as ssh
// and gpg require of theirs.
func checkFolder(info os.FileInfo) OffCode {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return OffSymlink
	case !info.IsDir():
		return OffNotFolder
	case !ownedByMe(info):
		return OffNotOwn
	case folderWritableByOthers(info):
		return OffWritable
	case info.Mode().Perm()&0o200 == 0:
		return OffReadOnly
	}
	return ""
}

// Off returns why c is off, or nil while it is not.
func (c *Cache) Off() *Off {
	if c == nil {
		return nil
	}
	return c.off.Load()
}

// path names name in c's folder, for messages.
func (c *Cache) path(name string) string { return filepath.Join(c.Dir, name) }

// readOwn reads name in root when it is a regular file, not a link, that
// only this user could have written, of at most limit bytes: its key can
// be computed by anyone, so a folder shared with others must not let them
// plant a catalog, and a huge file must not cost a start its time and
// memory. The checks are made on the open file, so a swap after them is no
// help, and it is opened non-blocking, so a FIFO put in its place is
// refused, not waited on. When mapped is set and the system can, it maps
// the file read-only into memory rather than reading it: the bytes are the
// page cache's own, with no copy and no fresh memory for them. The mapping
// is never unmapped (whatever was decoded from it may point into it), so
// it is for a process that reads a cache file once; isMapped says whether
// data is such a mapping.
func readOwn(root *os.Root, name string, limit int64, mapped bool) (data []byte, isMapped bool, err error) {
	// The root follows a link inside the folder (never out of it), and
	// O_NOFOLLOW does not change that: the Lstat refuses a link, and the
	// SameFile below a file swapped for one after it.
	link, err := root.Lstat(name)
	if err != nil {
		return nil, false, err
	}
	if link.Mode()&fs.ModeSymlink != 0 {
		return nil, false, errLink
	}
	f, err := root.OpenFile(name, readFlags, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !os.SameFile(link, info) {
		return nil, false, errLink
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o022 != 0 || !ownedByMe(info) {
		return nil, false, errNotOwn
	}
	if info.Size() > limit {
		return nil, false, fmt.Errorf("%w: %d bytes, over %d", errTooLarge, info.Size(), limit)
	}
	if mapped {
		if data, ok := mapFile(f, info.Size()); ok {
			return data, true, nil
		}
	}
	// Sized from the open file and read through a LimitReader: a file
	// that grows meanwhile is read no further than the cap (and then
	// fails its checksum).
	data = make([]byte, info.Size())
	if _, err := io.ReadFull(io.LimitReader(f, limit), data); err != nil {
		return nil, false, err
	}
	return data, false, nil
}

// writeBytes is an emit for writeAtomic that writes data.
func writeBytes(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// writeAtomic writes what emit writes to a temporary file in root and
// renames it over name, so that a reader sees the old file or the new
// one, whole: a failed emit leaves no file. The temporary file is made
// new (O_EXCL), so a link planted under its name is not followed, and the
// rename replaces a link planted under name, not its target.
func writeAtomic(root *os.Root, name string, emit func(io.Writer) error) error {
	var tmp string
	var f *os.File
	for range 10 {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return err
		}
		tmp = ".tmp-" + hex.EncodeToString(r[:])
		var err error
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	if f == nil {
		return errors.New("no free temporary name")
	}
	err := emit(f)
	if err == nil {
		// Read-only: a cache file is only ever replaced by a rename,
		// and a tool that rewrites a file in place (cp over it, rsync
		// --inplace, a restore) cannot open this one: cut short under
		// a process that maps it, it stopped that process (SIGBUS).
		// Best effort: a file system that keeps no modes (vfat, some
		// FUSE) refuses it, and the file serves as it is.
		readOnly(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}
