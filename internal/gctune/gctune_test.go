package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name           string
		live, headroom uint64
		want           int
	}{
		{"no collection yet: from Go's initial 4 MiB", 0, 16 * mib, 400},
		{"small live heap: live + headroom", 32 * mib, 64 * mib, 200},
		{"tiny live heap: at most five times it", 1 * mib, 16 * mib, 400},
		{"large live heap: Go's default", 512 * mib, 64 * mib, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percent(tt.live, tt.headroom); got != tt.want {
				t.Errorf("got %d; want %d", got, tt.want)
			}
		})
	}
	// A short process's large live heap grows by half of itself.
	if got := percent(512*mib, 16*mib, shortPercent); got != shortPercent {
		t.Errorf("short, large live heap: got %d; want %d", got, shortPercent)
	}
	// A build's large live heap grows by a quarter of itself.
	if got := percent(512*mib, 16*mib, buildPercent); got != buildPercent {
		t.Errorf("build, large live heap: got %d; want %d", got, buildPercent)
	}
	if got := percent(4*mib, 16*mib, shortPercent); got != 400 {
		t.Errorf("short, small live heap: got %d; want 400", got)
	}
}

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

var keep [][]byte

// TestStartRetunes checks that after a collection the target follows the
// live heap that collection found, and that stop restores the old GOGC.
func TestStartRetunes(t *testing.T) {
	t.Setenv("GOGC", "")
	debug.SetGCPercent(123)
	t.Cleanup(func() { debug.SetGCPercent(100) })
	stop := Start(64 << 20)
	if got := gcPercent(); got != maxPercent {
		t.Fatalf("got GOGC %d before any collection; want %d", got, maxPercent)
	}
	// A live heap of about 32 MiB, so the tuned GOGC is near 200.
	for range 32 {
		keep = append(keep, make([]byte, 1<<20))
	}
	defer func() { keep = nil }()
	want := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		s := []metrics.Sample{{Name: liveHeap}}
		metrics.Read(s)
		want = Percent(s[0].Value.Uint64(), 64<<20)
		if gcPercent() == want {
			break
		}
		time.Sleep(10 * time.Millisecond) // the cleanup runs on its own goroutine
	}
	if got := gcPercent(); got != want || got > 300 {
		t.Errorf("got GOGC %d after a collection of a 32 MiB live heap; want %d, about 200", got, want)
	}
	stop()
	runtime.GC()
	if got := gcPercent(); got != 123 {
		t.Errorf("got GOGC %d after stop; want 123 restored", got)
	}
}

// TestBuilding: Building lowers the least GOGC and the headroom of the
// tuner at work to a build's, and does nothing once it is stopped or with none at work.
func TestBuilding(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Cleanup(func() { debug.SetGCPercent(100) })
	Building() // none at work
	stop := StartShort(Command)
	tn := running.Load()
	Building()
	if tn.least != buildPercent || tn.headroom != Build {
		t.Errorf("got least %d, headroom %d after Building; want %d, %d", tn.least, tn.headroom, buildPercent, Build)
	}
	stop()
	if running.Load() != nil {
		t.Error("a stopped tuner is still at work")
	}
}

// TestStartLeavesChosenGOGC checks that a GOGC the environment sets wins.
func TestStartLeavesChosenGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	debug.SetGCPercent(123)
	t.Cleanup(func() { debug.SetGCPercent(100) })
	stop := Start(64 << 20)
	defer stop()
	if got := gcPercent(); got != 123 {
		t.Errorf("got GOGC %d; want 123 untouched", got)
	}
}

// TestReserve: a command's tuner turns the collector off under a memory
// limit until released, then retunes; a server's does nothing, and
// neither does a process without a tuner.
func TestReserve(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Cleanup(func() { debug.SetGCPercent(100); debug.SetMemoryLimit(math.MaxInt64) })
	Reserve(1 << 20)(true) // none at work

	stop := StartShort(Command)
	before := debug.SetMemoryLimit(-1)
	release := Reserve(64 << 20)
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("reserved: got GOGC %d; want off (-1)", got)
	}
	if got := debug.SetMemoryLimit(-1); got >= before || got < 64<<20 {
		t.Errorf("reserved: got memory limit %d; want at least 64 MiB and below %d", got, before)
	}
	if again := Reserve(1 << 20); again == nil {
		t.Fatal("got a nil release")
	}
	release(true)
	// Released, the collector stays off until the process has allocated
	// its headroom more than it holds.
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("released: got GOGC %d; want off (-1) until the next collection", got)
	}
	total, _ := metric(totalMemory)
	if got := debug.SetMemoryLimit(-1); got < int64(total) || got > int64(total)+2*Command || got >= before {
		t.Errorf("released: got memory limit %d; want about %d, what the process holds and its headroom", got, total+Command)
	}
	release(true) // twice: nothing
	// The next collection retunes and restores the limit.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		if debug.SetMemoryLimit(-1) == before && gcPercent() != -1 {
			break
		}
		time.Sleep(10 * time.Millisecond) // the cleanup runs on its own goroutine
	}
	if got := debug.SetGCPercent(-1); got < shortPercent {
		t.Errorf("collected: got GOGC %d; want at least %d", got, shortPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("collected: got memory limit %d; want %d back", got, before)
	}
	stop()

	// Stopped before a collection ends the easing too.
	stop = StartShort(Command)
	Reserve(64 << 20)(true)
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("stopped: got memory limit %d; want %d back", got, before)
	}

	// Released with nothing kept, it retunes at once.
	stop = StartShort(Command)
	Reserve(64 << 20)(false)
	if got := debug.SetGCPercent(-1); got < shortPercent {
		t.Errorf("released, not kept: got GOGC %d; want at least %d", got, shortPercent)
	}
	debug.SetGCPercent(percent(0, Command, shortPercent))
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("stopped: got memory limit %d; want %d back", got, before)
	}

	stop = Start(Serve)
	Reserve(64 << 20)(true)
	if got := debug.SetGCPercent(-1); got == -1 {
		t.Error("a server's tuner turned the collector off")
	}
	stop()
}

// TestReserveOutgrown: a process that allocates past its reservation is
// collected at the limit once, and then goes back to its target rather
// than collecting at the limit again and again.
func TestReserveOutgrown(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Cleanup(func() { debug.SetGCPercent(100); debug.SetMemoryLimit(math.MaxInt64) })
	before := debug.SetMemoryLimit(-1)
	stop := StartShort(Command)
	defer stop()
	release := Reserve(1 << 20)
	defer release(true)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		keep = append(keep, make([]byte, 1<<20)) // past the reservation: the limit collects
		if debug.SetMemoryLimit(-1) == before && gcPercent() != -1 {
			break
		}
		time.Sleep(time.Millisecond) // the cleanup runs on its own goroutine
	}
	defer func() { keep = nil }()
	if got := gcPercent(); got == -1 {
		t.Errorf("outgrown: got GOGC off; want a target again")
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("outgrown: got memory limit %d; want %d back", got, before)
	}
}
