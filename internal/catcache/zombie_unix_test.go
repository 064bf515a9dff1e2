//go:build unix

package catcache

import (
	"os"
	"os/exec"
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
