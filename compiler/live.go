package compiler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/rlmc-dev/rlmc/internal/loader"
)

// Source is what compiles a request: a *Compiler, over the one catalog it
// was built on, or a *Live, which compiles against the latest catalog of
// the folders it watches. rlm.WithSkills and Audit accept either.
type Source interface {
	// Current returns the compiler in effect now; nil means none.
	Current() *Compiler
	// Compile compiles req against one catalog, never a mix of two.
	Compile(ctx context.Context, req Request) (*Result, error)
}

// Current returns c: a compiler is its own, fixed, catalog. It is nil for a
// nil *Compiler, so a Source holding one reads as "no compiler".
func (c *Compiler) Current() *Compiler { return c }

// Defaults of LiveOptions.
const (
	// DefaultDebounce is how long the folders must stay quiet after a
	// change before the catalog is loaded again: an editor's save or a
	// git checkout is a burst of events, and one reload should follow it.
	DefaultDebounce = 50 * time.Millisecond
	// DefaultMaxStale is how long the watched folders may keep changing
	// during loads before the reload is reported as failed (see
	// LiveOptions.MaxStale).
	DefaultMaxStale = 10 * time.Second
	// maxDebounceWait bounds one debounce: a burst longer than this is
	// loaded without waiting for its end (the load is then likely
	// discarded as changed-while-loading, and loaded again once quiet).
	maxDebounceWait = time.Second
	// resourceDepth bounds how deep below a skill folder its resource
	// folders (agents/, references/, ...) are watched.
	resourceDepth = 4
)

// LiveOptions configure Watch. The zero value is usable.
type LiveOptions struct {
	// PolicyFile, when set, is the host policy: it is read (LoadPolicy)
	// at every load and watched like the roots. The Policy given to Watch
	// must then be the zero Policy: Watch refuses both, since one of them
	// would be dropped (a deny list with it). A policy that does not parse
	// fails that load.
	PolicyFile string
	// Debounce is the quiet time after the last change before a reload;
	// zero means DefaultDebounce, and Watch refuses a negative one.
	Debounce time.Duration
	// MaxStale: a load during which the watched files changed is
	// discarded and loaded again once they are quiet, so that no catalog
	// mixes two states of the folders; when they have kept changing for
	// MaxStale, the attempt fails with ErrUnsettled (the last catalog
	// keeps serving) and loading goes on after the next quiet moment.
	// Zero means DefaultMaxStale, and Watch refuses a negative one.
	MaxStale time.Duration
	// OnReload, when set, is called after every load attempt, from the
	// watching goroutine (not for the first load: Watch returns its
	// error). It must return quickly: no reload runs until it does. It
	// may call Close, Compile and CompileIn; while it runs, a compile that
	// meets a body changed on disk returns ErrBodyChanged at once instead
	// of waiting for the reload that goroutine would run.
	OnReload func(Reload)
	// Memo, when positive, is how many results each catalog keeps to
	// answer the same request again without compiling (the ones used
	// last); a catalog swapped out takes its results with it. The answer
	// is the one a compile would give: its inline bodies are read and
	// checked against their digests again. A request with Carried set is
	// always compiled, and so is one whose result would hold more than
	// 64 KiB, its request's text counted: a catalog keeps at most Memo x
	// 64 KiB. Results are then shared between the requests they answer: a
	// host reads them and never changes them.
	Memo int
}

// ServeMemo is the LiveOptions.Memo of `rlmc serve`: its catalog keeps at
// most 16 MiB of results (memoCost counts them high; a short task's over
// 1,000 realistic skills holds 20 to 45 KB).
const ServeMemo = 256

// Reload reports one load attempt of a Live catalog.
type Reload struct {
	// Trigger is what started it: "start", "change" or "forced".
	Trigger string
	// Compiler is the catalog swapped in; nil when Err is set.
	Compiler *Compiler
	// Err is why the load failed; the previous catalog keeps serving.
	Err error
	// At is when the catalog was swapped in (or the load failed), and
	// Duration how long the load took, retries after a change during it
	// included.
	At       time.Time
	Duration time.Duration
	// Watched is the number of folders and files watched after the load;
	// WatchErr is the first failure to add a watch (for example the
	// system's inotify limit): changes there go unnoticed until the next
	// reload, which SIGHUP (rlmc serve) or (*Live).Reload forces.
	Watched  int
	WatchErr error
}

// ErrClosed is what (*Live).Compile's body_changed error wraps when it
// would wait for a reload of a Live catalog that is closed
// (errors.Is(err, ErrClosed)), and a Reload's error when the catalog
// closed before a load could settle.
var ErrClosed = errors.New("live catalog is closed")

// ErrUnsettled is a reload's error (Reload.Err, LastError) when the
// watched folders kept changing under every load for MaxStale: no load
// read them as they were at one moment, so none was swapped in.
var ErrUnsettled = errors.New("the skill folders kept changing during every load")

// Live is a catalog that reloads itself: it watches every root, every
// folder below them that discovery visits (skill folders and their
// resource folders included), each root's parent (so a root that is
// created, removed or replaced is seen) and the policy file, and after
// each burst of changes builds a new *Compiler in the background and swaps
// it in atomically. Compiles in flight finish on the catalog they started
// with. It is safe for concurrent use; Close releases every watch and
// goroutine.
type Live struct {
	opts   loader.Options
	policy Policy
	lo     LiveOptions
	// scanPolicy is the policy last read, whose roots and limits the
	// next scan follows; only the loading goroutine uses it.
	scanPolicy Policy

	state atomic.Pointer[liveState]

	mu       sync.Mutex
	lastErr  error
	bcast    chan struct{} // closed and replaced after every load attempt
	failures uint64

	w       *fsnotify.Watcher
	watchMu sync.Mutex
	tree    map[string]bool            // folders whose every event counts
	named   map[string]map[string]bool // folder -> the names in it whose events count
	files   map[string]string          // every path added to w -> the identity of the folder watched there

	memoHits atomic.Uint64 // compiles its catalogs answered from memory (LiveOptions.Memo)
	events   atomic.Uint64 // relevant events seen
	begun    atomic.Uint64 // load attempts begun (each pass of load's loop)
	wake     chan struct{}
	force    chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	// inReload is set while OnReload runs on the watching goroutine:
	// Close then does not wait for that goroutine, and a compile that
	// meets a changed body does not wait for a reload it would run, which
	// a call made from the callback would wait for forever.
	inReload atomic.Bool
	ctx      context.Context // canceled by Close: stops a load in progress
	cancel   context.CancelFunc
	stopCtx  func() bool
	wg       sync.WaitGroup
}

type liveState struct {
	c        *Compiler
	loadedAt time.Time
	gen      uint64
	begun    uint64 // the load attempt that built c (see Live.begun)
}

// Watch loads the catalog as Load does, then keeps it current: see Live.
// It returns the first load's error, with nothing left running. When ctx
// ends, the Live catalog closes itself (Current keeps returning the last
// catalog).
//
// A load that fails (a policy that does not parse, a root that vanished)
// keeps the last good catalog serving: LastError returns the failure and
// LiveOptions.OnReload hears of it. A load is swapped in only when the
// folders held still enough around it that it reads them as they were at
// one moment (see load), so no catalog mixes two states of the folders.
func Watch(ctx context.Context, opts Options, p Policy, lo LiveOptions) (*Live, error) {
	if ctx == nil {
		return nil, errNilContext(StageLoad)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if lo.PolicyFile != "" && !reflect.ValueOf(p).IsZero() {
		return nil, &Error{Stage: StageLoad, Code: ErrInvalidRequest,
			Message: "both a Policy and LiveOptions.PolicyFile: give the policy one way (LoadPolicy reads a file into a Policy)"}
	}
	if lo.Debounce < 0 {
		return nil, &Error{Stage: StageLoad, Code: ErrInvalidRequest, Message: fmt.Sprintf("negative LiveOptions.Debounce %v", lo.Debounce)}
	}
	if lo.MaxStale < 0 {
		return nil, &Error{Stage: StageLoad, Code: ErrInvalidRequest, Message: fmt.Sprintf("negative LiveOptions.MaxStale %v", lo.MaxStale)}
	}
	if lo.Debounce == 0 {
		lo.Debounce = DefaultDebounce
	}
	if lo.MaxStale == 0 {
		lo.MaxStale = DefaultMaxStale
	}
	// A live catalog outlives the folder the process is in: relative
	// roots and a relative policy file are taken from where it was then,
	// on every reload, not from wherever the process has moved to.
	opts.Roots = absPaths(opts.Roots)
	if lo.PolicyFile != "" {
		if abs, err := filepath.Abs(lo.PolicyFile); err == nil {
			lo.PolicyFile = abs
		}
	}
	w, err := fsnotify.NewBufferedWatcher(256)
	if err != nil {
		return nil, fmt.Errorf("watching the catalog: %w", err)
	}
	l := &Live{
		opts: opts, policy: p, lo: lo, w: w,
		bcast: make(chan struct{}),
		tree:  map[string]bool{}, named: map[string]map[string]bool{}, files: map[string]string{},
		wake: make(chan struct{}, 1), force: make(chan struct{}, 1), stop: make(chan struct{}),
	}
	l.ctx, l.cancel = context.WithCancel(context.WithoutCancel(ctx))
	l.scanPolicy = p
	if lo.PolicyFile != "" {
		l.scanPolicy, _ = LoadPolicy(lo.PolicyFile) // its error is the first load's
	}
	l.wg.Add(1)
	go l.consume()
	// The first load runs here, with events already counted, so that a
	// change during it is noticed like any other; ctx ending stops it.
	stopFirst := context.AfterFunc(ctx, l.cancel)
	r := l.load("start")
	stopFirst()
	if r.Err != nil {
		l.Close()
		if err := ctx.Err(); err != nil {
			// The load was stopped through the Live's own context: the
			// error is ctx's, as Load's is (a deadline reads as one).
			return nil, canceled(StageLoad, err)
		}
		return nil, r.Err
	}
	l.wg.Add(1)
	go l.run()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	l.mu.Lock()
	l.stopCtx = stop
	l.mu.Unlock()
	return l, nil
}

// absPaths returns paths made absolute (one that cannot be is kept as
// given, "" included, for the load to refuse as it does).
func absPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			out[i] = abs
		}
	}
	return out
}

// Current returns the latest catalog's compiler; it is never nil for a
// catalog Watch returned, and nil for a nil *Live.
func (l *Live) Current() *Compiler {
	// A host's "var live *Live" left unset when skills are off: as a nil
	// *Compiler, no compiler.
	if st := l.loaded(); st != nil {
		return st.c
	}
	return nil
}

// LoadedAt returns when the current catalog was swapped in; the zero time
// for a nil *Live.
func (l *Live) LoadedAt() time.Time {
	st := l.loaded()
	if st == nil {
		return time.Time{}
	}
	return st.loadedAt
}

// loaded returns the state of the catalog last swapped in: nil for a nil
// *Live, and for a Live that Watch did not make (a zero &Live{}), which
// then answers as a nil one does rather than panic.
func (l *Live) loaded() *liveState {
	if l == nil {
		return nil
	}
	return l.state.Load()
}

// Snapshot returns the current catalog's compiler, when it was swapped in
// and its generation, all three of the same catalog.
func (l *Live) Snapshot() (*Compiler, time.Time, uint64) {
	st := l.loaded()
	if st == nil {
		return nil, time.Time{}, 0
	}
	return st.c, st.loadedAt, st.gen
}

// MemoHits returns how many compiles l's catalogs answered from memory
// (LiveOptions.Memo) since Watch, across reloads; 0 for a nil Live.
func (l *Live) MemoHits() uint64 {
	if l == nil {
		return 0
	}
	return l.memoHits.Load()
}

// Generation counts the catalogs swapped in, the first one included; 0
// for a nil *Live.
func (l *Live) Generation() uint64 {
	st := l.loaded()
	if st == nil {
		return 0
	}
	return st.gen
}

// LastError returns the error of the latest load attempt, or nil when it
// succeeded.
func (l *Live) LastError() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastErr
}

// Reload asks for a load now, without waiting for a change (rlmc serve
// does on SIGHUP). It returns at once; the load runs in the background.
func (l *Live) Reload() {
	if l == nil {
		return
	}
	select {
	case l.force <- struct{}{}:
	default:
	}
}

// Watched returns the number of paths watched now.
func (l *Live) Watched() int {
	if l == nil {
		return 0
	}
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	return len(l.files)
}

// Close stops watching and waits for the watching goroutines to end, or,
// while OnReload runs, for nothing more (it may be called from OnReload,
// whose goroutine ends once the callback returns). A load in progress is
// abandoned. Current keeps returning the last catalog.
// A nil *Live's Close does nothing, so that "l, err := Watch(...); defer
// l.Close()" holds whether or not Watch failed.
func (l *Live) Close() error {
	if l == nil || l.stop == nil { // nil, or never started by Watch
		return nil
	}
	var err error
	l.stopOnce.Do(func() {
		l.mu.Lock()
		stopCtx := l.stopCtx
		l.mu.Unlock()
		if stopCtx != nil {
			stopCtx()
		}
		close(l.stop)
		l.cancel()
		err = l.w.Close()
		// The watcher holds no path now: Watched says so.
		l.watchMu.Lock()
		clear(l.files)
		l.watchMu.Unlock()
		if l.inReload.Load() {
			// Called from OnReload (or beside it): the watching
			// goroutine ends once the callback returns.
			return
		}
		l.wg.Wait()
	})
	return err
}

// Compile compiles req against the current catalog. A compile that meets
// a body changed on disk since the catalog was loaded (ErrBodyChanged)
// waits for the reload that the change calls for (it asks for one at
// once) and tries again on the new catalog, up to 8 compiles
// in all while the files keep changing (a body edited again while the
// reload ran failed a request of a server under edits); when a reload
// fails, ctx ends first or l is closed, it returns the body_changed
// error, wrapping why no newer catalog came (the reload's error, ctx's,
// or ErrClosed). While OnReload runs it returns that error at once: the
// reload runs on OnReload's goroutine.
func (l *Live) Compile(ctx context.Context, req Request) (*Result, error) {
	res, _, err := l.CompileIn(ctx, req)
	return res, err
}

// CompileIn is Compile that also returns the compiler whose catalog the
// result comes from, for what a front-end says beside the result (a
// denied name that catalog lacks): Current may have moved on already.
func (l *Live) CompileIn(ctx context.Context, req Request) (*Result, *Compiler, error) {
	st := l.loaded()
	if st == nil {
		res, err := (*Compiler)(nil).Compile(ctx, req)
		return res, nil, err
	}
	c := st.c
	res, err := c.Compile(ctx, req)
	for try := 1; ; try++ {
		var ce *Error
		if err == nil || !errors.As(err, &ce) || ce.Code != ErrBodyChanged || try == bodyChangedTries {
			return res, c, err
		}
		if l.inReload.Load() {
			// The reload it would wait for runs on the goroutine that
			// runs OnReload, which may be this compile's caller: waiting
			// there never ends.
			return nil, c, err
		}
		if werr := l.waitNewer(ctx); werr != nil {
			// The body_changed error stands; a host can tell a closed
			// catalog or its own deadline from it (errors.Is).
			return nil, c, ce.withCause(werr)
		}
		c = l.Current()
		res, err = c.Compile(ctx, req)
	}
}

// bodyChangedTries bounds the compiles a Live compile makes while the
// bodies it meets keep changing: a file rewritten without pause would
// keep a caller without a deadline waiting for ever.
const bodyChangedTries = 8

// waitNewer waits until a catalog is in whose load began after the call,
// after asking for one: a load already running may have read the changed
// file before it changed. It fails when a load fails after the call, when
// ctx ends, or when l closes.
func (l *Live) waitNewer(ctx context.Context) error {
	l.mu.Lock()
	ch, failures := l.bcast, l.failures
	l.mu.Unlock()
	since := l.begun.Load()
	l.Reload()
	for {
		if l.state.Load().begun > since {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.stop:
			return ErrClosed
		case <-ch:
		}
		l.mu.Lock()
		ch = l.bcast
		failed := l.failures != failures
		err := l.lastErr
		l.mu.Unlock()
		if l.state.Load().begun > since {
			return nil
		}
		if failed && err != nil {
			return err
		}
	}
}

// consume counts the relevant file events and wakes the reloader; it never
// blocks on a load, so the kernel's event queue keeps draining.
func (l *Live) consume() {
	defer l.wg.Done()
	for {
		select {
		case <-l.stop:
			return
		case ev, ok := <-l.w.Events:
			if !ok {
				return
			}
			if l.relevant(ev) {
				l.changed()
			}
		case _, ok := <-l.w.Errors:
			if !ok {
				return
			}
			// An overflowed queue lost events: only a reload is safe.
			l.changed()
		}
	}
}

func (l *Live) changed() {
	l.events.Add(1)
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// relevant reports whether ev can change the catalog. A change of
// permissions alone cannot (and a read sets off none).
func (l *Live) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	dir, name := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	return l.tree[dir] || l.tree[ev.Name] || l.named[dir][name]
}

// run reloads after each quiet burst of changes, and at once when asked.
func (l *Live) run() {
	defer l.wg.Done()
	for {
		select {
		case <-l.stop:
			return
		case <-l.force:
			l.load("forced")
		case <-l.wake:
			if !l.quiet() {
				return
			}
			l.load("change")
		}
	}
}

// quiet waits until no relevant event has arrived for the debounce time
// (at most maxDebounceWait in all), or a reload is forced. It returns
// false when l closes.
func (l *Live) quiet() bool {
	start := time.Now()
	t := time.NewTimer(l.lo.Debounce)
	defer t.Stop()
	for {
		n := l.events.Load()
		t.Reset(l.lo.Debounce)
		select {
		case <-l.stop:
			return false
		case <-l.force:
			return true
		case <-t.C:
		}
		if l.events.Load() == n || time.Since(start) >= maxDebounceWait {
			// Drain a wake-up the burst left, which this load covers.
			select {
			case <-l.wake:
			default:
			}
			return true
		}
	}
}

// load builds a catalog and swaps it in, or records why it could not.
//
// The watched folders are scanned before and after the load (updating
// the watches, and stamping every item the load may read: each folder,
// each file's size, time and identity, the policy file). A load is
// swapped in only when the two scans show it read the folders as they
// were at one moment (see settled); otherwise it is done again once they
// are quiet, for at most MaxStale, so that no catalog mixes two states of
// the folders.
func (l *Live) load(trigger string) Reload {
	start := time.Now()
	for {
		if l.ctx.Err() != nil {
			return Reload{Trigger: trigger, Err: l.ctx.Err()}
		}
		begun := l.begun.Add(1)
		// The policy is read after the first scan, so that a change to
		// it from then on shows in the second; the first scan follows
		// the roots of the policy read last time.
		before := l.scan(l.opts, l.scanPolicy)
		p, err := l.policy, error(nil)
		if l.lo.PolicyFile != "" {
			p, err = LoadPolicy(l.lo.PolicyFile)
		}
		var c *Compiler
		if err == nil {
			l.scanPolicy = p
			c, err = Load(l.ctx, l.opts, p)
		}
		if err == nil {
			c.memo = newMemo(l.lo.Memo, &l.memoHits)
		}
		after := l.scan(l.opts, l.scanPolicy)
		if l.ctx.Err() != nil {
			return Reload{Trigger: trigger, Err: l.ctx.Err()}
		}
		if !settled(before.items, after.items) {
			// A load that may mix two states of the folders is never
			// swapped in. Past MaxStale of changes the failure is
			// reported, the last catalog keeps serving, and the load is
			// tried again after the next quiet moment; the first load,
			// with nothing to keep serving, just tries again.
			if trigger == "start" || time.Since(start) < l.lo.MaxStale {
				if !l.quiet() {
					return Reload{Trigger: trigger, Err: ErrClosed}
				}
				continue
			}
			c, err = nil, fmt.Errorf("%w for %v; the previous catalog keeps serving", ErrUnsettled, l.lo.MaxStale.Round(time.Second))
			l.changed()
		}
		r := Reload{Trigger: trigger, Compiler: c, Err: err, At: time.Now(), Duration: time.Since(start), Watched: after.watched, WatchErr: after.err}
		l.mu.Lock()
		l.lastErr = err
		if err != nil {
			l.failures++
		} else {
			gen := uint64(1)
			if old := l.state.Load(); old != nil {
				gen = old.gen + 1
			}
			l.state.Store(&liveState{c: c, loadedAt: r.At, gen: gen, begun: begun})
		}
		close(l.bcast)
		l.bcast = make(chan struct{})
		l.mu.Unlock()
		if l.lo.OnReload != nil && trigger != "start" {
			l.inReload.Store(true)
			l.lo.OnReload(r)
			l.inReload.Store(false)
		}
		return r
	}
}

// settled reports whether a load that ran between two scans read the
// folders as they were at one moment. It did when nothing vanished and at
// most one thing changed: a file replaced (the load opened either the old
// file or the new one), or a file or folder that appeared, with all it
// holds (counted at the top-most path the first scan lacks: the load
// either listed its parent before it came, and read none of it, or after,
// and read it whole). A file or folder that vanished is not settled: the
// load may have listed it, then found it gone when it came to read it,
// which no moment on disk looked like.
func settled(before, after map[string]string) bool {
	changed := map[string]bool{}
	for path, b := range before {
		a, ok := after[path]
		if !ok {
			return false
		}
		if a != b {
			changed[path] = true
		}
	}
	for path := range after {
		if _, ok := before[path]; ok {
			continue
		}
		for {
			parent := parentKey(path)
			if _, ok := before[parent]; ok || parent == "" {
				break
			}
			path = parent
		}
		changed[path] = true
	}
	return len(changed) <= 1
}

// parentKey returns the key of the folder holding the item at key (a
// folder's key ends in a separator), or "" at the top.
func parentKey(key string) string {
	sep := string(filepath.Separator)
	trimmed := strings.TrimSuffix(key, sep)
	parent := filepath.Dir(trimmed)
	if parent == trimmed || parent == "." || parent == "" {
		return ""
	}
	return strings.TrimSuffix(parent, sep) + sep
}

// scanned is what one scan of the watched folders found.
type scanned struct {
	items   map[string]string // path -> stamp of every listing and file seen
	watched int
	err     error // the first watch that could not be added
}

// scan walks what the catalog is read from, by the loader's own walk
// (loader.Walk: hidden folders, .git and node_modules skipped; symlinks
// followed only inside their root; the depth and folder bounds) and, below
// each skill folder, its resource folders (loader.Subfolders), makes the
// watches match it (dropping those of folders gone, adding those of
// folders new) and stamps every item: a folder by being there, a file by
// its size, modification time and identity.
func (l *Live) scan(opts loader.Options, p Policy) scanned {
	items, tree, named := l.collect(opts, p)
	return scanned{items: items}.with(l.rewatch(tree, named))
}

// collect is scan without the watches: the stamps, the folders whose
// every event counts, and the folders where only some names count.
func (l *Live) collect(opts loader.Options, p Policy) (items map[string]string, tree map[string]bool, named map[string]map[string]bool) {
	r := Resolve(opts, p, Env{})
	roots, limits := r.Dirs(), r.Limits

	items, tree, named = map[string]string{}, map[string]bool{}, map[string]map[string]bool{}
	// watchName makes events on the entry at path count: its folder is
	// watched at its real place (a watch through a link stays on the
	// folder the link named when it was added), for that name only.
	watchName := func(path string) {
		dir := filepath.Dir(path)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if named[dir] == nil {
			named[dir] = map[string]bool{}
		}
		named[dir][filepath.Base(path)] = true
	}
	// follow watches and stamps path and every link met on the way to
	// what it names (a link among its folders, such as a release's
	// "current", or the path itself), so that a link flipped to another
	// target, or the target edited where it lies, starts a reload.
	follow := func(path string, whole bool) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return
		}
		for _, link := range linksOn(abs) {
			watchName(link)
			target, _ := os.Readlink(link)
			items[link] = "link " + target
		}
		// Every folder on the way is watched for the next name, so a
		// folder above it renamed or swapped (a blue/green release
		// moved into place) starts a reload too.
		for p := abs; ; {
			parent := filepath.Dir(p)
			if parent == p {
				break
			}
			watchName(p)
			p = parent
		}
		items[abs] = stampPath(abs, whole)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			watchName(real)
			items[real] = stampPath(real, whole)
		}
	}
	for _, r := range roots {
		// A root is stamped by what it is, not by its listing, which
		// the walk stamps: an entry added to it is one change, not two.
		follow(r, false)
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		w := &treeWalk{items: items, tree: tree, budget: 2 * min(limits.MaxFolders, math.MaxInt/2), follow: follow}
		_ = loader.Walk(abs, limits, w.visit) // a root that is no folder is watched from its parent
	}
	if l.lo.PolicyFile != "" {
		follow(l.lo.PolicyFile, true)
	}
	return items, tree, named
}

// maxLinks bounds the links followed resolving one path, as the kernel
// does (ELOOP past 40).
const maxLinks = 40

// linksOn returns every symbolic link met resolving the absolute path
// abs, in the order met: links among its folders and at its end, and in
// the targets they lead to. It stops where a component does not exist.
func linksOn(abs string) []string {
	var links []string
	vol := filepath.VolumeName(abs)
	resolved := vol + string(filepath.Separator)
	rest := splitPath(abs[len(vol):])
	for len(rest) > 0 && len(links) < maxLinks {
		next := filepath.Join(resolved, rest[0])
		rest = rest[1:]
		info, err := os.Lstat(next)
		if err != nil {
			break
		}
		if info.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links = append(links, next)
		target, err := os.Readlink(next)
		if err != nil {
			break
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			resolved, target = v+string(filepath.Separator), target[len(v):]
		}
		rest = append(splitPath(target), rest...)
	}
	return links
}

// splitPath returns the names of path, without empty ones.
func splitPath(path string) []string {
	return strings.FieldsFunc(path, func(r rune) bool { return os.IsPathSeparator(uint8(r)) })
}

func (s scanned) with(n int, err error) scanned {
	s.watched, s.err = n, err
	return s
}

// rewatch makes the watches match tree (every event counts) and named
// (only events on the given names count): watches of folders no longer
// wanted go first, so that a folder renamed within a root (the same
// inode under a new name) is watched again under its new name.
func (l *Live) rewatch(tree map[string]bool, named map[string]map[string]bool) (int, error) {
	want := map[string]bool{}
	for d := range tree {
		want[d] = true
	}
	for d := range named {
		want[d] = true
	}
	// The watcher is never called under watchMu: fsnotify holds its own
	// lock while it hands an event to consume, which takes watchMu to
	// judge it. Only the loading goroutine calls rewatch, so l.files
	// changes nowhere else meanwhile.
	// A watch follows a folder, not its path: a path whose folder was
	// replaced (a parent swapped by renames, a folder removed and made
	// again) is watched again, or the new folder's events would go unseen.
	ids := make(map[string]string, len(want))
	for d := range want {
		ids[d] = folderID(d)
	}
	l.watchMu.Lock()
	l.tree, l.named = tree, named
	var drop, add []string
	for _, d := range slices.Sorted(maps.Keys(l.files)) {
		if !want[d] || l.files[d] != ids[d] {
			drop = append(drop, d)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(want)) {
		if id, ok := l.files[d]; !ok || id != ids[d] {
			add = append(add, d)
		}
	}
	l.watchMu.Unlock()
	for _, d := range drop {
		_ = l.w.Remove(d) // gone already when the folder was removed
	}
	var first error
	added := add[:0]
	for _, d := range add {
		if err := l.w.Add(d); err != nil {
			// A parent that does not exist (a default root's, say) is
			// not worth reporting; any other failure is.
			if first == nil && !errors.Is(err, os.ErrNotExist) {
				first = fmt.Errorf("watching %s: %w", d, err)
			}
			continue
		}
		added = append(added, d)
	}
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	for _, d := range drop {
		delete(l.files, d)
	}
	for _, d := range added {
		l.files[d] = ids[d]
	}
	return len(l.files), first
}

// folderID returns the identity of the folder at path, "" when there is
// none.
func folderID(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return loader.FileID(info)
}

// treeWalk stamps and records the folders of one root for scan: those
// discovery visits (loader.Walk calls visit) and, below each skill
// folder, its resource folders.
type treeWalk struct {
	items  map[string]string
	tree   map[string]bool
	budget int // resource folders left to watch under this root, less the folders discovery visits
	// follow watches and stamps a file reached through a link (see
	// collect), whose target may lie in a folder the walk skips.
	follow func(path string, whole bool)
}

// visit records a folder discovery visits and, when it is a skill
// folder, walks its resource folders (agents/, references/, ...), which
// the loader reads but discovery does not enter, by discovery's rules.
func (w *treeWalk) visit(f loader.Folder) {
	if w.tree[f.Dir] {
		return
	}
	w.budget--
	w.stamp(f.Root, f.Dir, f.Entries, f.Err)
	if f.Skill {
		for _, sub := range loader.Subfolders(f.Root, f.Dir, f.Entries) {
			w.resources(f.Root, sub, 1)
		}
	}
}

// resources records the resource folder dir, depth levels below its
// skill folder, and those below it, down to resourceDepth.
func (w *treeWalk) resources(rootReal, dir string, depth int) {
	if depth > resourceDepth || w.tree[dir] || w.budget <= 0 {
		return
	}
	w.budget--
	entries, err := os.ReadDir(dir) // sorted by name
	w.stamp(rootReal, dir, entries, err)
	if err != nil {
		return
	}
	for _, sub := range loader.Subfolders(rootReal, dir, entries) {
		w.resources(rootReal, sub, depth+1)
	}
}

// stamp records the folder dir, listed as entries (or not, err), under
// the root rootReal.
func (w *treeWalk) stamp(rootReal, dir string, entries []os.DirEntry, err error) {
	w.tree[dir] = true
	if err != nil {
		w.items[dir+string(filepath.Separator)] = "unreadable"
		return
	}
	// A folder is stamped by being there (its key ends in a separator),
	// each file in it by its size, time and identity: the folder's own
	// time moves with every file renamed into it, which is no change of
	// what the load reads. A file added or removed is an item gained or
	// lost.
	w.items[dir+string(filepath.Separator)] = "folder"
	for _, e := range entries {
		if !e.IsDir() {
			path := filepath.Join(dir, e.Name())
			if info, err := e.Info(); err == nil {
				w.items[path] = loader.StampInfo(info)
			}
			// A side file may be a link into a hidden folder of the
			// skill, which the walk does not enter: its target is
			// watched and stamped where it lies (the loader reads only
			// targets inside the root).
			if e.Type()&os.ModeSymlink != 0 {
				if target, err := filepath.EvalSymlinks(path); err == nil && loader.Within(rootReal, target) {
					w.follow(path, true)
				}
			}
		}
	}
}

// stampPath stamps the file or folder at path: what it is and, when whole,
// its size and time too.
func stampPath(path string, whole bool) string {
	info, err := os.Stat(path)
	if err != nil {
		return "absent"
	}
	if !whole {
		return info.Mode().Type().String() + " " + loader.FileID(info)
	}
	return loader.StampInfo(info)
}
