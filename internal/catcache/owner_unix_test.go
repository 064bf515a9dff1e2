//go:build unix

package catcache

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestZombieRunsNoMore: a builder that ended and that no one reaped (a
// zombie, under a container's init that reaps no orphan) holds no lock;
// a signal still reached its id, and every prompt's hook said "not ready"
// until its lock grew stale.
func TestZombieRunsNoMore(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here to tell a zombie")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for processState(pid) != 'Z' {
		if time.Now().After(deadline) {
			t.Fatalf("process %d never became a zombie (state %q)", pid, processState(pid))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if processAlive(pid) {
		t.Errorf("got a zombie alive; want it gone")
	}
	if !processAlive(os.Getpid()) {
		t.Errorf("got this process gone; want it alive")
	}
}

// TestNoFolderMadeInAnothersHome: a missing user cache folder is not made
// in another user's folder (root under sudo, which kept the user's HOME):
// it made a root-owned ~/.cache there, and the user's own programs, rlmc's
// cache too, could no longer write in it.
func TestNoFolderMadeInAnothersHome(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root gives a folder to another user")
	}
	home := t.TempDir()
	if err := os.Chown(home, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	c := &Cache{Dir: filepath.Join(home, ".cache", "rlmc"), MakeParents: true}
	_, err := c.open(true)
	var off *Off
	if !errors.As(err, &off) || off.Code != OffNotOwn {
		t.Errorf("got %v; want the cache off, %s", err, OffNotOwn)
	}
	if _, err := os.Stat(filepath.Join(home, ".cache")); err == nil {
		t.Errorf("a .cache was made in another user's home")
	}
}

// TestWriteAtomicReadOnly: a cache file is written read-only, so that a
// tool rewriting files in place (cp over it, rsync --inplace) cannot cut
// it short under a process that maps it, which stopped that process with
// SIGBUS (a hook's exit 2 blocks the user's prompt).
func TestWriteAtomicReadOnly(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for range 2 { // written, then replaced
		if err := writeAtomic(root, "f.cache", writeBytes([]byte("data"))); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(dir, "f.cache"))
		must(t, err)
		if perm := info.Mode().Perm(); perm != 0o400 {
			t.Errorf("got mode %04o; want 0400", perm)
		}
	}
}

// TestCapabilitiesInTheKey: root with fewer capabilities reads the
// catalog as another reader does, and keys its own cache file; it took
// root's, whose skills it could no longer read (body_changed).
func TestCapabilitiesInTheKey(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here to tell capabilities")
	}
	if capabilities() == "" {
		t.Fatal("got no effective capabilities from /proc/self/status")
	}
	if !strings.Contains(credentials(), capabilities()) {
		t.Errorf("got credentials %q; want them to name the capabilities %s", credentials(), capabilities())
	}
}
