package catcache

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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
	c.ReleaseBuild(key, 0) // not this process's
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
	c.ReleaseBuild(key, 0)
	if c.Building(key) {
		t.Error("ReleaseBuild left this process's lock")
	}
	// A builder done before its starter named it in the lock finds the
	// starter's id there, and removes the lock all the same.
	if l, err = c.LockBuild(key); err != nil {
		t.Fatal(err)
	}
	if err := l.SetOwner(1<<30 - 1); err != nil {
		t.Fatal(err)
	}
	c.ReleaseBuild(key, 1<<30-1)
	if _, err := os.Lstat(filepath.Join(c.Dir, lockName(key))); err == nil {
		t.Error("ReleaseBuild left the lock its starter took")
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
// TestReleaseBuildWhileNamed: a builder done while its starter names it
// in the lock (the file truncated, the id not yet written) waits for the
// id and removes the lock, rather than leaving one that names a builder
// gone (CI once waited three minutes on such a lock).
func TestReleaseBuildWhileNamed(t *testing.T) {
	c := newCache(t)
	key := Key{3}
	if _, err := c.LockBuild(key); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(c.Dir, lockName(key))
	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
	named := make(chan error, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		named <- os.WriteFile(file, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	}()
	c.ReleaseBuild(key, 1<<30-1)
	if err := <-named; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(file); err == nil {
		t.Error("ReleaseBuild left the lock its starter was naming it in")
	}
}

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

// TestBuildLockStaleWithoutOwner: a lock names the process that took it
// from the start; one that holds no process id (its maker killed before it
// wrote one, or something else wrote it) is live for emptyLockAge only,
// one dated in the future is stale, and so is one naming a running
// process that started at another time than the lock says (a process id
// used again: PID 1 held a builder's lock for ten minutes).
func TestBuildLockStaleWithoutOwner(t *testing.T) {
	c := newCache(t)
	key := Key{3}
	if _, err := c.LockBuild(key); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(c.Dir, lockName(key))
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if want := ownerText(os.Getpid()); string(data) != want || !strings.HasPrefix(want, strconv.Itoa(os.Getpid())) {
		t.Errorf("a lock just taken holds %q; want %q, its maker's id", data, want)
	}
	me := strconv.Itoa(os.Getpid())
	tests := []struct {
		name, content string
		age           time.Duration
		live          bool
	}{
		{"empty, just made", "", 0, true},
		{"empty, made long ago", "", emptyLockAge + time.Second, false},
		{"empty, dated in the future", "", -time.Hour, false},
		{"not a process id, just made", "not-a-pid\n", 0, true},
		{"not a process id, made long ago", "not-a-pid\n", emptyLockAge + time.Second, false},
		{"this process, no start", me + "\n", time.Minute, true},
		{"this process, its start", ownerText(os.Getpid()), time.Minute, true},
	}
	if processStart(os.Getpid()) != "" {
		tests = append(tests, struct {
			name, content string
			age           time.Duration
			live          bool
		}{"this process's id, another start", me + " 1\n", time.Minute, false})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(name, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			when := time.Now().Add(-tt.age)
			if err := os.Chtimes(name, when, when); err != nil {
				t.Fatal(err)
			}
			if got := c.Building(key); got != tt.live {
				t.Errorf("Building: got %v; want %v", got, tt.live)
			}
		})
	}
}
