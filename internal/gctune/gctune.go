// Package gctune keeps the garbage collector's heap target at least a
// fixed headroom above the live heap, for processes whose live heap is
// small beside what they allocate.
//
// Go's default (GOGC=100) collects whenever the heap has doubled since the
// last collection. rlmc's live heap is mostly its catalog, a few MB for a
// skill folder of tens of skills or a server's 1,000, while a compile
// allocates about 2 MB that is garbage once answered: by default a server
// collects every few compiles, and each collection's assists land on the
// requests in flight; a per-prompt hook that lives 40 ms spends several of
// them on a collection of a heap of 4 MB. With a headroom the heap target
// is the live heap plus the headroom, but at least twice the live heap
// (Go's default, so a large catalog is collected as usual) and at most five
// times it.
package gctune

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Headrooms rlmc's commands use.
const (
	// Serve is for `rlmc serve`, which allocates for as long as it runs.
	Serve = 64 << 20
	// Command is for a process that compiles once and exits: a hook's
	// whole run over a small catalog fits in it.
	Command = 16 << 20
	// Build is for a process that reads and analyses every skill
	// (StartBuild, Building). At 5,000 realistic skills its live heap is
	// about 40 MB, so the headroom, not buildPercent, sets the target:
	// 16 MiB peaked at 84 MiB of RSS, 12 at 79, 8 at 74 for 12% more
	// time, 6 at 71 for 20% (9 interleaved runs each). From about 7,000
	// skills on, buildPercent of the live heap is the larger.
	Build = 8 << 20
)

// initialHeap is the heap target Go starts with at GOGC=100.
const initialHeap = 4 << 20

// liveHeap names the runtime metric of the heap the last collection found
// reachable.
const liveHeap = "/gc/heap/live:bytes"

// maxPercent bounds the GOGC Percent gives, so the target is at most five
// times the live heap. The tuner hears of a collection only when its
// cleanup runs, which can be several collections late on one busy core:
// meanwhile the GOGC set for a small live heap applies to whatever the
// heap has grown to, and without a bound that target could be many times
// a large live heap (a test program reached 1 GB over 63 MB live).
const maxPercent = 400

// Percent returns the GOGC that lets a live heap of live bytes grow by
// headroom bytes before the next collection, never less than Go's default
// of 100 and never more than maxPercent. A zero live heap (no collection
// yet) is taken as Go's initial heap of 4 MiB.
func Percent(live, headroom uint64) int { return percent(live, headroom, 100) }

// shortPercent is the least GOGC StartShort sets.
const shortPercent = 50

func percent(live, headroom uint64, least int) int {
	if live == 0 {
		live = initialHeap
	}
	return int(min(max(headroom*100/live, uint64(least)), maxPercent))
}

// Start keeps the heap target headroom bytes above the live heap, retuned
// after every collection, until the returned function is called, which
// restores the GOGC in effect before. It does nothing when the GOGC
// environment variable is set (whoever set it has chosen) or headroom is
// zero.
func Start(headroom uint64) (stop func()) { return start(headroom, 100) }

// StartShort is Start for a process that compiles once and exits (a
// command, a hook): past the headroom, the heap target is the live heap
// and half of it, not twice it. Such a process lives a fraction of a
// second, and the memory its heap first touches is most of what it pays
// for a large catalog (on a virtual machine, about 3 ms a MB), so a
// collection more is cheaper than the memory it saves.
func StartShort(headroom uint64) (stop func()) { return start(headroom, shortPercent) }

// buildPercent is the least GOGC StartBuild sets.
const buildPercent = 15

// StartBuild is StartShort for a process that reads and analyses every
// skill of the catalog (the hook's cache builder, `rlmc compile
// --no-cache`): past the headroom, the heap target is the live heap and
// 15% of it. Most of what such a process allocates is the analysis's
// garbage, and the heap it keeps grows with the catalog: at 20,000
// realistic skills this lowers the peak RSS by about a fifth against half
// of it (a quarter: a seventh), for about 10% more time. A start from the
// cache keeps StartShort, whose hook answers within a deadline.
func StartBuild(headroom uint64) (stop func()) { return start(headroom, buildPercent) }

func start(headroom uint64, least int) (stop func()) {
	if headroom == 0 || os.Getenv("GOGC") != "" {
		return func() {}
	}
	t := &tuner{headroom: headroom, least: least}
	t.prev = debug.SetGCPercent(percent(0, headroom, least))
	t.arm()
	running.Store(t)
	return func() {
		running.CompareAndSwap(t, nil)
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.stopped {
			t.stopped = true
			t.endEasing()
			debug.SetGCPercent(t.prev)
		}
	}
}

// gcCycles names the runtime metric of the collections completed.
const gcCycles = "/gc/cycles/total:gc-cycles"

// totalMemory names the runtime metric of all the memory the Go runtime
// has mapped and not released, what a memory limit bounds.
const totalMemory = "/memory/classes/total:bytes"

// Reserve lets a process that compiles once and exits (StartShort,
// StartBuild) allocate n more bytes before its next collection, until
// the returned function is called: the collector is off, under a
// memory limit of what the process holds now plus n (never above a limit
// already set, GOMEMLIMIT's). Released with kept true (the process keeps
// most of what it allocated meanwhile), it stays off until the process
// has allocated its headroom more (see ease); with kept false, the
// target is retuned at once. A start from the catalog cache allocates
// about as much as the cache file holds, nearly all of it kept until
// the process exits: a collection during it finds little garbage and
// takes a core the start needs (at 5,000 realistic skills a seventh of
// its time). It does nothing for a server (Start) or without a tuner.
func Reserve(n uint64) (release func(kept bool)) {
	none := func(bool) {}
	t := running.Load()
	if t == nil {
		return none
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || t.reserved || t.least >= 100 {
		return none
	}
	total, ok := metric(totalMemory)
	if !ok {
		return none
	}
	prevLimit := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(prevLimit, int64(min(total+n, math.MaxInt64/2))))
	debug.SetGCPercent(-1)
	t.reserved, t.prevLimit = true, prevLimit
	t.reservedAt, _ = metric(gcCycles)
	return func(kept bool) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.reserved {
			return
		}
		t.reserved = false
		switch {
		case t.stopped:
			debug.SetMemoryLimit(t.prevLimit)
		case kept:
			t.ease()
		default:
			debug.SetMemoryLimit(t.prevLimit)
			t.retune()
		}
	}
}

// ease ends a reservation: the collector stays off until the process
// has allocated its headroom more (16 MiB for a command), and the
// collection that limit forces retunes as usual. Retuned at once, from
// the live heap found before the reservation (a fraction of what the
// process now holds), a command that compiles once from the cache was
// collected as the compile began, its assists landing on the compile (at
// 5,000 realistic skills, 3 to 6 ms of 55). The load's garbage is left
// in place meanwhile; what would otherwise allocate much on top of it, a
// tokenizer's vocabulary, collects before it loads (compiler's
// codecFor). The caller holds t.mu.
func (t *tuner) ease() {
	total, ok := metric(totalMemory)
	if !ok {
		debug.SetMemoryLimit(t.prevLimit)
		t.retune()
		return
	}
	debug.SetMemoryLimit(min(t.prevLimit, int64(min(total+t.headroom, math.MaxInt64/2))))
	t.easing = true
}

// endEasing restores the memory limit ease lowered, if it did. The caller
// holds t.mu.
func (t *tuner) endEasing() {
	if t.easing {
		t.easing = false
		debug.SetMemoryLimit(t.prevLimit)
	}
}

// metric reads the runtime metric name, a count of bytes.
func metric(name string) (uint64, bool) {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return s[0].Value.Uint64(), true
}

// running is the tuner started last and not stopped, if any.
var running atomic.Pointer[tuner]

// Building tells the tuner at work, if any, that the process has turned
// out to read and analyse every skill (a command whose catalog cache was
// cold): from the next collection on, the heap target is the live heap
// and buildPercent of it, or the Build headroom past it when more, as
// StartBuild(Build) sets. A command cannot know this
// when it starts, and a first start over 20,000 skills kept at half of
// its live heap reached 529 MB of RSS where StartBuild's target kept 249.
func Building() {
	t := running.Load()
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped && t.least > buildPercent {
		t.least, t.headroom = buildPercent, min(t.headroom, Build)
	}
}

type tuner struct {
	headroom uint64
	least    int // the least GOGC set
	prev     int
	// reserved: Reserve has turned the collector off under a memory
	// limit; a collection the limit forces ends the reservation.
	reserved bool
	// easing: a reservation has ended, and until the next collection
	// the collector is off under the memory limit ease set.
	easing bool
	// prevLimit is the limit to restore when a reservation or an easing
	// ends; reservedAt counts the collections done when the reservation
	// began.
	prevLimit  int64
	reservedAt uint64
	// mu orders a retune after a collection with stop, so nothing
	// retunes once stop has restored the old GOGC.
	mu      sync.Mutex
	stopped bool
}

// sentinel is an object nothing references, so the collection after it
// is allocated finds it unreachable and runs its cleanup. It holds a
// pointer so that the allocator never batches it with other small
// objects, which would delay that.
type sentinel struct {
	_ *byte
	_ [8]byte
}

// arm asks to hear of the next collection.
func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), (*tuner).collected, t)
}

// collected runs after a collection: it sets the target from the live
// heap that collection found and asks to hear of the next one.
func (t *tuner) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	if t.reserved {
		if n, ok := metric(gcCycles); !ok || n <= t.reservedAt {
			// A collection from before the reservation, heard late.
			t.arm()
			return
		}
		// The collector is off while reserved: this collection is the
		// limit's, so the process allocated more than it reserved (tiny
		// skills decode to many more bytes than their cache file holds),
		// and would collect at the limit again and again. It goes back
		// to the target.
		t.reserved, t.easing = false, true
	}
	t.retune()
	t.endEasing()
	t.arm()
}

// retune sets the heap target from the live heap the last collection
// found. The caller holds t.mu.
func (t *tuner) retune() {
	if live, ok := metric(liveHeap); ok {
		debug.SetGCPercent(percent(live, t.headroom, t.least))
	}
}
