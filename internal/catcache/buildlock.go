package catcache

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// A process that cannot wait for a catalog to be loaded (a hook, which
// must answer within its deadline) leaves the load to a builder process
// that writes the cache file for the next start. A build lock, one file
// per key in the cache folder made with O_EXCL, keeps two such processes
// from building the same catalog at once: whoever makes it builds, or
// starts the process that does, and the builder removes it when done.
//
// The file holds the process id of whoever took it as it is made, then
// the builder's once it is started, each with when that process started
// where the system says (processStart). A lock whose process is gone (a
// builder killed, or a hook killed before it started one) or is another
// that has its id since, older than lockAge whatever it holds, without an
// id for longer than emptyLockAge (made by a process killed before it
// wrote one, or written by something else) or dated in the future is
// stale: the next LockBuild removes it and takes the lock.

// lockSuffix ends the name of a build lock.
const lockSuffix = ".lock"

// lockAge bounds how long a build lock is honoured: far longer than a
// build of the largest catalog a cache file holds takes.
const lockAge = 10 * time.Minute

// emptyLockAge bounds how long a lock that holds no process id is
// honoured: its maker writes one as soon as it has made it.
const emptyLockAge = 10 * time.Second

// ErrBuilding is LockBuild's answer when another process holds the lock.
var ErrBuilding = errors.New("the catalog cache is being built by another process")

// lockName is the name of key's build lock.
func lockName(key Key) string { return fileName(key)[:32] + lockSuffix }

// BuildLock is a build lock taken by this process.
type BuildLock struct {
	c    *Cache
	name string
}

// Has reports whether the cache file of key is there (a regular file):
// a start over it will take from the cache whatever has not changed. It
// neither reads nor checks the file. A nil c has none.
func (c *Cache) Has(key Key) bool {
	if c == nil {
		return false
	}
	root, err := c.open(false)
	if err != nil {
		return false
	}
	defer root.Close()
	info, err := root.Lstat(fileName(key))
	return err == nil && info.Mode().IsRegular()
}

// Building reports whether a process holds the build lock of key, and
// the lock is not stale.
func (c *Cache) Building(key Key) bool {
	if c == nil {
		return false
	}
	root, err := c.open(false)
	if err != nil {
		return false
	}
	defer root.Close()
	return live(root, lockName(key), time.Now())
}

// live reports whether the lock file name in root is held: a regular file
// younger than lockAge whose process, when it names one, still runs.
func live(root *os.Root, name string, now time.Time) bool {
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	if age := now.Sub(info.ModTime()); age > lockAge || age < -time.Minute {
		return false
	}
	o, err := lockOwner(root, name)
	if err != nil || o.pid <= 0 {
		// Not written yet, or not by rlmc.
		return now.Sub(info.ModTime()) <= emptyLockAge
	}
	if !processAlive(o.pid) {
		return false
	}
	start := processStart(o.pid)
	return o.start == "" || start == "" || start == o.start
}

// owner is what a lock file holds: a process id, and when that process
// started ("" where the system does not say).
type owner struct {
	pid   int
	start string
}

// ownerText is the content of a lock held by process pid.
func ownerText(pid int) string {
	if start := processStart(pid); start != "" {
		return strconv.Itoa(pid) + " " + start + "\n"
	}
	return strconv.Itoa(pid) + "\n"
}

// lockOwner reads the owner a lock file holds, a zero one when it holds
// none yet; opened as a cache file is, never through a link or waiting on
// a FIFO.
func lockOwner(root *os.Root, name string) (owner, error) {
	f, err := root.OpenFile(name, readFlags, 0)
	if err != nil {
		return owner{}, err
	}
	defer f.Close()
	var buf [64]byte
	n, _ := f.Read(buf[:])
	fields := strings.Fields(string(buf[:n]))
	if len(fields) == 0 {
		return owner{}, nil
	}
	if len(fields) > 2 {
		return owner{}, errors.New("not a build lock")
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		return owner{}, err
	}
	o := owner{pid: pid}
	if len(fields) == 2 {
		o.start = fields[1]
	}
	return o, nil
}

// LockBuild takes the build lock of key, making the cache folder when it
// is missing: ErrBuilding when another process holds it. A stale lock is
// removed and taken.
func (c *Cache) LockBuild(key Key) (*BuildLock, error) {
	if c == nil {
		return nil, errors.New("no cache")
	}
	root, err := c.open(true)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	name := lockName(key)
	for try := 0; ; try++ {
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if err == nil {
			// This process's id at once: a hook killed before it starts
			// its builder leaves a lock that is stale as soon as it is
			// gone, not one that holds nothing for lockAge.
			_, err = f.WriteString(ownerText(os.Getpid()))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				root.Remove(name)
				return nil, err
			}
			return &BuildLock{c: c, name: name}, nil
		}
		if !errors.Is(err, fs.ErrExist) || try > 0 {
			return nil, c.refusedWrite(err)
		}
		if live(root, name, time.Now()) {
			return nil, ErrBuilding
		}
		// Stale: removed, and made again above (where another process
		// doing the same at this moment may win).
		if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
}

// SetOwner records the process that builds under the lock (this one, or
// a child it started), so the lock turns stale as soon as that process is
// gone.
func (l *BuildLock) SetOwner(pid int) error {
	root, err := l.c.open(false)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.OpenFile(l.name, os.O_WRONLY|os.O_TRUNC|noFollow, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(ownerText(pid))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Release removes the lock.
func (l *BuildLock) Release() {
	if root, err := l.c.open(false); err == nil {
		root.Remove(l.name)
		root.Close()
	}
}

// ReleaseBuild removes key's build lock when it names this process, or
// startedBy (when not 0): a builder started by the process that took the
// lock ends its build so. The starter names the builder in the lock once
// it has started it; a builder that is done before then finds the
// starter's id there, and left the lock behind, named for a builder that
// had exited by the time it was named.
func (c *Cache) ReleaseBuild(key Key, startedBy int) {
	if c == nil {
		return
	}
	root, err := c.open(false)
	if err != nil {
		return
	}
	defer root.Close()
	name := lockName(key)
	for wait := time.Millisecond; ; wait *= 2 {
		info, err := root.Lstat(name)
		if err != nil || !info.Mode().IsRegular() {
			return
		}
		o, err := lockOwner(root, name)
		if err != nil {
			return
		}
		if o.pid > 0 {
			if o.pid == os.Getpid() || o.pid == startedBy {
				root.Remove(name)
			}
			return
		}
		// Empty: read between the starter's truncating the file and its
		// writing this process's id (SetOwner), which comes at once.
		// Left so, the lock would name a builder that has exited.
		if wait > releaseWait {
			return
		}
		time.Sleep(wait)
	}
}

// releaseWait bounds how long ReleaseBuild waits for an empty lock to
// name its builder, about twice over: a starter descheduled between its
// two system calls on a loaded machine.
const releaseWait = time.Second
