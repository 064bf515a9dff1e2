package catcache

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestBuildLock: one process at a time holds a key's build lock; a lock
// whose process is gone, or that is older than lockAge, is stale and
// taken; ReleaseBuild removes only the lock of the process calling it.
func TestBuildLock(t *testing.T) {
	c := newCache(t)
	key := Key{1}
	if c.Has(key) || c.Building(key) {
		t.Fatal("an empty folder has a cache file or a build")
	}
	l, err := c.LockBuild(key)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Building(key) {
		t.Error("a lock just taken, without its process yet, is not live")
	}
	if _, err := c.LockBuild(key); !errors.Is(err, ErrBuilding) {
		t.Errorf("a second LockBuild: got %v; want ErrBuilding", err)
	}
	if err := l.SetOwner(1 << 30); err != nil {
		t.Fatal(err)
	}
	c.ReleaseBuild(key) // not this process's
	if _, err := os.Lstat(filepath.Join(c.Dir, lockName(key))); err != nil {
		t.Fatalf("ReleaseBuild removed another process's lock: %v", err)
	}
	if runtime.GOOS != "windows" {
		// A process id above any pid_max: the lock is stale.
		if c.Building(key) {
			t.Error("a lock whose process is gone is live")
		}
		if l, err = c.LockBuild(key); err != nil {
			t.Fatalf("a lock whose process is gone was not taken: %v", err)
		}
	} else {
		l.Release()
		if l, err = c.LockBuild(key); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.SetOwner(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if !c.Building(key) {
		t.Error("a lock of a running process is not live")
	}
	c.ReleaseBuild(key)
	if c.Building(key) {
		t.Error("ReleaseBuild left this process's lock")
	}

	// Too old, whatever it holds.
	if _, err := c.LockBuild(key); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-lockAge - time.Minute)
	if err := os.Chtimes(filepath.Join(c.Dir, lockName(key)), old, old); err != nil {
		t.Fatal(err)
	}
	if c.Building(key) {
		t.Error("a lock older than lockAge is live")
	}
	if _, err := c.LockBuild(key); err != nil {
		t.Errorf("a lock older than lockAge was not taken: %v", err)
	}
}

// TestBuildLockOfFinishedProcess: a builder that died holding its lock
// leaves it stale at once.
func TestBuildLockOfFinishedProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process liveness is not checked here")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	c := newCache(t)
	key := Key{2}
	l, err := c.LockBuild(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetOwner(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if c.Building(key) {
		t.Error("the lock of a finished process is live")
	}
}
