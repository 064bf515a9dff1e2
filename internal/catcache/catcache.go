// Package catcache keeps a loaded catalog and its retrieval index on disk,
// so that a process that starts for every prompt (a hook, an editor
// plugin) does not read and parse every skill, nor index them, when
// nothing changed.
//
// It sits between the stages it caches and the compiler: it imports ir,
// loader and retrieval, and compiler.LoadWith calls it in place of
// loader.Load and retrieval.Build. The cache holds both the catalog and
// the index, and compiler.Load is the one place where both are made from
// the same options, so that is where a cached start joins the pipeline;
// below the compiler, no package needs to know a cache exists, and the
// watcher (compiler.Watch), which keeps its catalog in memory, never uses
// one.
//
// What is trusted: the cache folder only when it is a folder of this
// user's, not a link, that no one else may write (else the cache is off,
// see Off); a cache file only when it is a regular file of this user's,
// not a link, that no one else may write, under its cap, and its key
// matches (the cache format, rlmc's build and the running executable's
// path, size and time, the host policy, the roots, exclusions and loader
// limits) and its checksum holds. Inside it, a skill is taken from the cache only when
// discovery finds it at the same place and every file the loader read or
// stat'ed for it has the same mode, size, modification time and inode
// (see loader.Record); discovery itself runs on every start, so a skill
// added, removed or renamed is always seen: it stats every folder (and
// lists again each whose stamp changed) and every SKILL.md. The index is taken whole only when every skill was; else it
// is built again, reusing the analysis of each unchanged unit. Bodies are
// still read and checked against their digest when a compile selects them,
// so an edit that keeps a file's size and time fails closed
// (body_changed). Anything that cannot be read, decoded or written is
// simply not used.
package catcache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rlmc-dev/rlmc/internal/binenc"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/ir"
)

// EnvDir names the environment variable that sets the cache folder.
const EnvDir = "RLMC_CACHE_DIR"

// EnvDebug names the environment variable that, set to anything, makes
// the CLI print on stderr why a cache file was not used or not written.
const EnvDebug = "RLMC_CACHE_DEBUG"

// formatVersion changes with every change of the file layout or of what
// a unit, a bag or an index holds.
const formatVersion = 31

// magic opens every cache file.
var magic = [8]byte{'R', 'L', 'M', 'C', 'C', 'A', 'T', 0}

// Cache is a folder of cache files, one per key. It is safe for
// concurrent use, by goroutines and by processes: a file is written whole
// under a temporary name and renamed into place.
//
// The folder must be this user's, not a symbolic link, and writable by no
// one else: the first operation that finds it otherwise turns the cache
// off (see Off), and says so once to Warn.
type Cache struct {
	// Dir is the folder; it is created (0700) on the first store.
	Dir string
	// Debug, when set, hears one line for every cache file not used or not
	// written, and why. It never hears of a skill.
	Debug io.Writer
	// OnLoad, when set, hears what each Load took from the cache.
	OnLoad func(Stats)
	// OnBuild, when set, is called when a Load turns out to build: it
	// finds no cache file it can use, before it reads and analyses every
	// skill, or the catalog changed since the file was written, before it
	// builds the index again.
	OnBuild func()
	// Reserve, when set, is called with how much memory a Load may
	// allocate without collecting (twice the size of the cache file it
	// decodes: what it allocates is about the file's size, and kept), and
	// the function it returns when that Load ends (gctune.Reserve): with
	// kept true when the Load returns what it decoded, false before it
	// builds an index, whose garbage is collected as a build's.
	Reserve func(bytes uint64) (release func(kept bool))
	// Warn, when set, hears once, from whichever operation finds it, why
	// the folder is refused and the cache off.
	Warn func(*Off)
	// Mapped maps a cache file into memory, read-only, rather than
	// reading it, where the system can: a start then spends no fresh
	// memory on the file (which, on a virtual machine, can cost more
	// than the decoding), and decodes only what it uses. A mapping is
	// never unmapped, so this is for a process that loads once (the
	// CLI), not a host that loads again and again. rlmc replaces a cache
	// file by renaming a new one over it, which leaves a mapping of the
	// old one intact, and writes it read-only, so that its user's tools
	// cannot rewrite it in place; one cut short in place while mapped
	// (root's cp over it) stops the process with SIGBUS, which is why
	// the Claude Code hook, whose exit 2 blocks a prompt, reads its file.
	Mapped bool

	// MakeParents: a missing folder is made with its missing parents (the
	// user cache folder may not exist yet on a new machine); else only
	// the folder itself, in one that exists.
	MakeParents bool

	off atomic.Pointer[Off]
}

// Default returns the cache in RLMC_CACHE_DIR, else in the user's cache
// folder (os.UserCacheDir), under rlmc. When there is none to use, it
// returns why instead: a relative RLMC_CACHE_DIR, or no user cache folder.
// The folder itself is checked when first used.
func Default() (*Cache, *Off) {
	if dir := os.Getenv(EnvDir); dir != "" {
		// A relative folder would be taken from whatever folder rlmc
		// runs in (for a hook, the user's project), as os.UserCacheDir
		// refuses a relative XDG_CACHE_HOME.
		if !filepath.IsAbs(dir) {
			return nil, &Off{Code: OffRelative, Dir: dir}
		}
		return &Cache{Dir: dir}, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return nil, &Off{Code: OffNoFolder, Err: err}
	}
	return &Cache{Dir: filepath.Join(base, "rlmc"), MakeParents: true}, nil
}

func (c *Cache) debugf(format string, args ...any) {
	if c != nil && c.Debug != nil {
		fmt.Fprintf(c.Debug, "rlmc: catalog cache: "+format+"\n", args...)
	}
}

// Stats says what one Load took from the cache.
type Stats struct {
	// Hit: the cache file was read and its key matched.
	Hit bool
	// Units is the number of units loaded; Reused how many came from the
	// cache unread.
	Units, Reused int
	// Roots is the number of roots that exist; Replayed how many were
	// not walked, their discovery taken from the cache (see loader.Scan).
	Roots, Replayed int
	// IndexReused: the index was decoded, not built.
	IndexReused bool
	// Stored: a new cache file was written.
	Stored bool
}

// Load loads the catalog of r (the roots, exclusions and limits
// loader.Resolve decided, as compiler.Load resolves them) and its index,
// taking from the cache whatever has not changed, and stores what it made
// when anything had. policy is the host policy's canonical content, part
// of the key. The catalog and index equal those of loader.LoadResolved
// and retrieval.Build exactly. The error is the loader's; the cache's own
// failures are never errors. When ctx ends while the index is built, the
// index is nil. A nil c loads without a cache.
func (c *Cache) Load(ctx context.Context, r loader.Resolved, policy []byte) (*ir.Catalog, *retrieval.Index, Stats, error) {
	cat, ix, _, st, err := c.load(ctx, r, policy, nil, false)
	return cat, ix, st, err
}

// LoadDerived is Load for a caller that derives a value from the catalog
// (the compiler: its catalog fingerprint): derive, when not nil, is called
// on a catalog that was not taken whole from the cache, and its value is
// stored with it; a start that takes the whole catalog from the cache
// takes the value too, and derives nothing. derive must depend on the
// catalog alone. A value the cache does not have is "" (derive nil, or a
// cache written without one), and the caller derives it.
//
// An index taken from the cache keeps its postings and bigram lists as
// read, each decoded when a compile first asks for it
// (retrieval.DecodeLazy), and so keeps the file's bytes in memory.
func (c *Cache) LoadDerived(ctx context.Context, r loader.Resolved, policy []byte, derive func(*ir.Catalog) string) (*ir.Catalog, *retrieval.Index, string, Stats, error) {
	return c.load(ctx, r, policy, derive, true)
}

// load is Load and LoadDerived: lazy decodes an index taken from the
// cache lazily, else whole.
func (c *Cache) load(ctx context.Context, r loader.Resolved, policy []byte, derive func(*ir.Catalog) string, lazy bool) (*ir.Catalog, *retrieval.Index, string, Stats, error) {
	var st Stats
	if c == nil {
		cat, _, err := loader.LoadResolved(ctx, r)
		if err != nil {
			return nil, nil, "", st, err
		}
		pl := pulse.New(ctx)
		if ix := retrieval.Build(cat, pl); !pl.Now() {
			return cat, ix, "", st, nil
		}
		return cat, nil, "", st, nil
	}
	defer func() {
		c.debugf("hit %v, %d of %d roots replayed, %d of %d units reused, index reused %v, stored %v", st.Hit, st.Replayed, st.Roots, st.Reused, st.Units, st.IndexReused, st.Stored)
		if c.OnLoad != nil {
			c.OnLoad(st)
		}
	}()
	key := c.key(r, policy)
	file := fileName(key)
	prior, release := c.read(file, key)
	defer release(true)
	if prior != nil {
		st.Hit = true
		r.Prior, r.PriorOwned = prior.rec, true
		if lazy {
			prior.decodeAhead()
		}
	} else if c.OnBuild != nil {
		c.OnBuild()
	}
	cat, rec, err := loader.LoadResolved(ctx, r)
	if err != nil {
		return nil, nil, "", st, err
	}
	st.Units, st.Roots, st.Replayed = len(rec.Units), rec.Scanned, rec.Replayed
	for i := range rec.Units {
		if rec.Units[i].Reused {
			st.Reused++
		}
	}
	if prior != nil && sameLoad(prior, rec) {
		ix, err := prior.index(cat, lazy)
		if err == nil {
			st.IndexReused = true
			c.used(file)
			return cat, ix, prior.derived, st, nil
		}
		c.debugf("%s: index not used: %v", c.path(file), err)
	}
	// What follows builds an index, as a start without the cache does:
	// its garbage is collected as a build's, and the pages of the file
	// read so far leave the process's memory (a page the build reads
	// again comes back from the page cache).
	release(false)
	if prior != nil {
		dropPages(prior.mapped)
	}
	if prior != nil && c.OnBuild != nil {
		c.OnBuild()
	}
	var reuse func(*ir.Unit) *retrieval.Bag
	// The file's bags are decoded only when a unit is reused: when every
	// skill changed (a checkout, a pull), reading them all touched the
	// whole mapped file for nothing.
	if prior != nil && slices.ContainsFunc(rec.Units, func(r loader.UnitRecord) bool { return r.Reused }) {
		bags := prior.bagsByOrigin(c)
		from := make(map[*ir.Unit]*retrieval.Bag, len(rec.Units))
		for i := range rec.Units {
			if r := &rec.Units[i]; r.Reused {
				from[r.Unit] = bags[r.Origin]
			}
		}
		reuse = func(u *ir.Unit) *retrieval.Bag { return from[u] }
	}
	// A folder refused (Off), or one that cannot be made, takes no
	// file: the bags, kept only to be written, are not kept, and nothing
	// is encoded.
	werr := c.writable()
	off := werr != nil
	var refused *Off
	if off && !errors.As(werr, &refused) {
		c.debugf("%s: not written: %v", c.path(file), werr)
	}
	pl := pulse.New(ctx)
	var (
		ix   *retrieval.Index
		bags []*retrieval.Bag
	)
	if off {
		ix = retrieval.Build(cat, pl)
	} else {
		ix, bags = retrieval.BuildWith(cat, pl, reuse)
	}
	if pl.Now() {
		return cat, nil, "", st, nil
	}
	derived := ""
	if derive != nil {
		derived = derive(cat)
	}
	// A load whose caller has given up on it (a hook that left it to a
	// builder) does not begin a file it may not live to finish.
	if !off && ctx.Err() == nil {
		st.Stored = c.store(file, key, rec, cat, ix, bags, derived)
	}
	return cat, ix, derived, st, nil
}

// writable says why no cache file can be written in c's folder, nil when
// one can, making the folder when it is missing (what asks is about to
// write).
func (c *Cache) writable() error {
	root, err := c.open(true)
	if err != nil {
		return err
	}
	return root.Close()
}

// testHookStore, when set by a test, is called as a store begins, and
// testHookBags as a load decodes the file's bags.
var testHookStore, testHookBags func()

// Key names one cache file: the key of a load's options and policy.
type Key [32]byte

// KeyOf returns the key of a load of r under policy, as Load computes
// it. A nil c returns the zero key.
func (c *Cache) KeyOf(r loader.Resolved, policy []byte) Key {
	if c == nil {
		return Key{}
	}
	return c.key(r, policy)
}

// Drop removes the cache file of key, so that the next load reads every
// skill again: the compiler calls it when a body no longer matches its
// digest, a change the stamps did not show, which would otherwise be
// loaded from the cache, and fail, at every start. A nil c does nothing.
func (c *Cache) Drop(key Key) {
	if c == nil {
		return
	}
	root, err := c.open(false)
	if err != nil {
		return
	}
	defer root.Close()
	file := fileName(key)
	if err := root.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		c.debugf("%s: not removed: %v", c.path(file), err)
	}
}

// fileName is the name of key's cache file.
func fileName(key [32]byte) string { return hex.EncodeToString(key[:16]) + ".cache" }

// sameLoad reports whether a load that made rec read the same catalog as
// the one that made prior: every unit found in the same order, reused or
// read again as it was (its sum unchanged: a unit the file could not hold
// or trust, or whose files are reached through a link), and discovery
// said the same. The catalog's units are then those the cached index was
// built from, and so is its index.
func sameLoad(prior *cached, rec *loader.Record) bool {
	if len(prior.rec.Units) != len(rec.Units) || !slices.Equal(prior.rec.Diags, rec.Diags) {
		return false
	}
	for i := range rec.Units {
		r := &rec.Units[i]
		if r.Origin != prior.rec.Units[i].Origin {
			return false
		}
		if r.Reused {
			continue
		}
		if r.Unit == nil || unitSum(r.Unit) != prior.sum(i) {
			return false
		}
		if prior.sums != nil && prior.sums[i] != "" && holdsUnit(r) {
			// Not written last time (read within the racy window, say),
			// and it would be now: the file is written again, once, so
			// that the next start reuses it rather than reading it.
			return false
		}
	}
	return true
}

// holdsUnit reports whether a file written from r holds its unit itself
// (see encodeRecord), not only its sum.
func holdsUnit(r *loader.UnitRecord) bool {
	return r.Trusted && r.Unit != nil && encodable(r.Unit.HostFields)
}

// sum returns the sum of the i-th unit of the record (unitSum), or ""
// when it holds none.
func (p *cached) sum(i int) string {
	if p.sums != nil && p.sums[i] != "" {
		return p.sums[i]
	}
	return unitSum(p.rec.Units[i].Unit)
}

// key hashes everything that can change what a load makes, beside the
// files, which the record stamps.
func (c *Cache) key(r loader.Resolved, policy []byte) [32]byte {
	h := sha256.New()
	put := func(s string) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	put("rlmc catalog cache")
	putBuild(put)
	put(string(policy))
	if r.Origin() == loader.FromDefault {
		put("default roots")
	}
	put(r.EnvRoot())
	put(credentials())
	put(strconv.Itoa(len(r.Roots)))
	for _, root := range r.Roots {
		// A relative root is another folder from another working folder
		// (two projects' hooks given --root .agents/skills): keyed as
		// written, each load would find the other's files changed and
		// read every skill again.
		dir, err := filepath.Abs(root.Dir)
		if err != nil {
			dir = root.Dir
		}
		put(dir)
		// And as written: a unit's root is the root as given (every
		// output names it so), and the relative and absolute spellings
		// of one folder sharing a file (a hook's absolute roots, a user
		// trying them by hand) rewrote it at each turn, every unit read
		// again, and the next prompt went without skills.
		put(root.Dir)
	}
	put(strconv.Itoa(len(r.Exclude)))
	for _, x := range r.Exclude {
		put(x)
	}
	l := r.Limits
	put(fmt.Sprintf("%d %d %d %d", l.MaxFileBytes, l.MaxFrontmatterBytes, l.MaxDepth, l.MaxFolders))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// credentials names who the process reads the catalog as: its user, its
// group and its supplementary groups. A stamp says nothing of who may
// read a file, so the same user in fewer groups (sudo -u, sg, a
// container) would otherwise take from the cache skills and folders it
// can no longer read, with none of the errors a load reports. So would
// root with fewer capabilities (a container that drops
// CAP_DAC_OVERRIDE): its effective ones are named too, where the system
// says (capabilities). A test replaces it.
var credentials = func() string {
	groups, _ := os.Getgroups()
	slices.Sort(groups)
	return fmt.Sprint(os.Getuid(), os.Getgid(), groups, capabilities())
}

// putBuild hashes, through put, what identifies the running rlmc: the
// cache format, the Go toolchain and platform, the build info and the
// executable file itself.
func putBuild(put func(string)) {
	put(strconv.Itoa(formatVersion))
	put(runtime.Version())
	put(runtime.GOOS + "/" + runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		put(bi.Main.Path)
		put(bi.Main.Version)
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" || s.Key == "vcs.time" {
				put(s.Key + "=" + s.Value)
			}
		}
	}
	put(executable())
}

// executable identifies the running program file: a rebuilt binary (a
// developer's, whose build info may not change) never trusts the cache of
// the one before it.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown executable"
	}
	info, err := os.Stat(exe)
	if err != nil {
		return exe + " unreadable"
	}
	return fmt.Sprintf("%s %d %d %s", exe, info.Size(), info.ModTime().UnixNano(), loader.FileID(info))
}

// The file: magic, format version (uint32), key (32 bytes), then four
// sections, each a length (uint64) and its bytes: the load's record, the
// units' bags and the index (binenc encodings), and the value the caller
// derived (see LoadDerived); then a CRC-32C (Castagnoli) of everything
// before it.
const headerLen = len(magic) + 4 + 32

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cached is a cache file read and checked, its sections not yet decoded
// but the record.
type cached struct {
	rec *loader.Record
	// sums holds, by unit, the sum of each unit the record holds without
	// its unit (see unitSum); nil when there is none.
	sums            []string
	bags, indexData []byte
	derived         string
	// mapped is the file's mapping, when it is one (readOwn): pages a
	// build that follows the load does not need back (dropPages).
	mapped []byte
	// unbound, when set, delivers the index decoded without its catalog
	// (decodeAhead), once.
	unbound chan unbound
}

type unbound struct {
	u   *retrieval.Unbound
	err error
}

// decodeAhead starts decoding the index without its catalog, on a core
// of its own, while the catalog loads; index, when lazy, binds it to the
// catalog loaded. A result never asked for (the catalog changed) is left
// in the channel's buffer.
func (p *cached) decodeAhead() {
	p.unbound = make(chan unbound, 1)
	go func() {
		r, err := binenc.NewSharedReader(p.indexData)
		if err != nil {
			p.unbound <- unbound{err: err}
			return
		}
		u, err := retrieval.DecodeUnbound(r)
		if err == nil {
			err = r.Done()
		}
		p.unbound <- unbound{u, err}
	}()
}

// read returns the cache in file when its key is key and it checks out,
// else nil, and the function that ends what c.Reserve reserved for
// decoding it.
func (c *Cache) read(file string, key [32]byte) (p *cached, release func(kept bool)) {
	release = func(bool) {}
	p, _ = readChecked(c, file, maxCacheBytes, key, func(data []byte, mapped bool, key [32]byte) (*cached, error) {
		if c.Reserve != nil {
			release = c.Reserve(2 * uint64(len(data)))
		}
		p, err := parse(data, key)
		if p != nil && mapped {
			p.mapped = data
		}
		return p, err
	})
	if p == nil {
		// A file that does not check out leaves every skill to read and
		// analyse: a build's, collected as one, not under the
		// reservation made for decoding it.
		release(false)
		release = func(bool) {}
	}
	return p, release
}

// readChecked reads the file name of c's folder with readOwn, at most
// limit bytes, and decodes it with parse under key. A folder refused, a
// file that is absent, not this user's own, too large or does not check
// out gives ok false, and is said on the debug writer (absence is not).
func readChecked[T any](c *Cache, name string, limit int64, key [32]byte, parse func(data []byte, mapped bool, key [32]byte) (T, error)) (v T, ok bool) {
	root, err := c.open(false)
	if err != nil {
		var off *Off
		if !errors.Is(err, os.ErrNotExist) && !errors.As(err, &off) {
			c.debugf("%s: not read: %v", c.Dir, err)
		}
		return v, false
	}
	defer root.Close()
	data, mapped, err := readOwn(root, name, limit, c.Mapped)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			c.debugf("%s: not read: %v", c.path(name), err)
		}
		return v, false
	}
	got, err := parse(data, mapped, key)
	if err != nil {
		c.debugf("%s: not used: %v", c.path(name), err)
		return v, false
	}
	return got, true
}

// errNotOwn is a cache file that someone other than this user could have
// written.
var errNotOwn = errors.New("not a regular file of this user's, writable by no one else")

// errStale is a cache file of another key or format.
var errStale = errors.New("written for another rlmc, policy or roots")

func parse(data []byte, key [32]byte) (p *cached, err error) {
	if len(data) < headerLen+4 || !bytes.Equal(data[:len(magic)], magic[:]) {
		return nil, binenc.ErrCorrupt
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if binary.LittleEndian.Uint32(data[len(magic):]) != formatVersion || !bytes.Equal(data[len(magic)+4:headerLen], key[:]) {
		return nil, errStale
	}
	// The checksum is taken on another core while the record decodes,
	// and holds before anything decoded is returned. Decoding reads
	// unchecked bytes meanwhile, as a reader of any input does (every
	// read is bounded); what it starts with them, the stats taken ahead,
	// only reads file stamps, and is thrown away with the record.
	summed := make(chan bool, 1)
	go func() { summed <- crc32.Checksum(body, castagnoli) == sum }()
	defer func() {
		if !<-summed {
			p, err = nil, fmt.Errorf("checksum: %w", binenc.ErrCorrupt)
		}
	}()
	rest := body[headerLen:]
	var sections [4][]byte
	for i := range sections {
		if len(rest) < 8 {
			return nil, binenc.ErrCorrupt
		}
		n := binary.LittleEndian.Uint64(rest)
		rest = rest[8:]
		if n > uint64(len(rest)) {
			return nil, binenc.ErrCorrupt
		}
		sections[i], rest = rest[:n], rest[n:]
	}
	if len(rest) != 0 {
		return nil, binenc.ErrCorrupt
	}
	// data is this read's own buffer, never written: decoded strings
	// are slices of it.
	r, err := binenc.NewSharedReader(sections[0])
	if err != nil {
		return nil, err
	}
	rec, sums, err := decodeRecord(r)
	if err == nil {
		err = r.Done()
	}
	if err != nil {
		return nil, err
	}
	return &cached{rec: rec, sums: sums, bags: sections[1], indexData: sections[2], derived: string(sections[3])}, nil
}

// index decodes the cached index against cat, lazily or whole.
func (p *cached) index(cat *ir.Catalog, lazy bool) (*retrieval.Index, error) {
	if lazy && p.unbound != nil {
		got := <-p.unbound
		if got.err != nil {
			return nil, got.err
		}
		return got.u.Bind(cat)
	}
	r, err := binenc.NewSharedReader(p.indexData)
	if err != nil {
		return nil, err
	}
	decode := retrieval.Decode
	if lazy {
		decode = retrieval.DecodeLazy
	}
	ix, err := decode(r, cat)
	if err != nil {
		return nil, err
	}
	return ix, r.Done()
}

// bagsByOrigin decodes the cached bags, by the origin of their unit; none
// when they do not decode.
func (p *cached) bagsByOrigin(c *Cache) map[loader.Origin]*retrieval.Bag {
	if testHookBags != nil {
		testHookBags()
	}
	out := map[loader.Origin]*retrieval.Bag{}
	r, err := binenc.NewSharedReader(p.bags)
	if err != nil {
		c.debugf("bags not used: %v", err)
		return nil
	}
	if n := r.Len(); n != len(p.rec.Units) {
		c.debugf("bags not used: %d bags for %d units", n, len(p.rec.Units))
		return nil
	}
	for i := range p.rec.Units {
		if !r.Bool() {
			continue
		}
		bg, err := retrieval.DecodeBag(r)
		if err != nil {
			c.debugf("bags not used: %v", err)
			return nil
		}
		out[p.rec.Units[i].Origin] = bg
	}
	if err := r.Done(); err != nil {
		c.debugf("bags not used: %v", err)
		return nil
	}
	return out
}

// store writes the cache file for key: the record, each unit's bag (by
// catalog position in bags) and the index. It reports whether it did.
func (c *Cache) store(file string, key [32]byte, rec *loader.Record, cat *ir.Catalog, ix *retrieval.Index, bags []*retrieval.Bag, derived string) bool {
	if testHookStore != nil {
		testHookStore()
	}
	pos := make(map[*ir.Unit]int, len(cat.Units))
	for i, u := range cat.Units {
		pos[u] = i
	}
	// Each section is encoded, written and let go of in turn, and each
	// bag (kept only to be written) as soon as it is encoded, with the
	// checksum taken on the way: every bag and the three encodings at
	// once were the peak of a start that writes the file.
	return c.write(file, -1, maxCacheBytes, func(w io.Writer) error {
		sum := crc32.New(castagnoli)
		out := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<16)
		var head []byte
		head = append(head, magic[:]...)
		head = binary.LittleEndian.AppendUint32(head, formatVersion)
		head = append(head, key[:]...)
		out.Write(head)
		section := func(sw *binenc.Writer) error {
			out.Write(binary.LittleEndian.AppendUint64(nil, uint64(sw.Len())))
			_, err := sw.WriteTo(out)
			return err
		}
		// About 16 distinct strings a unit (its paths, stamps and fields).
		rw := binenc.NewWriterSize(16 * len(rec.Units))
		encodeRecord(rw, rec)
		if err := section(rw); err != nil {
			return err
		}
		bw := binenc.NewWriter()
		bw.Uint(uint64(len(rec.Units)))
		for i := range rec.Units {
			var bg *retrieval.Bag
			if k, ok := pos[rec.Units[i].Unit]; ok && k < len(bags) {
				bg, bags[k] = bags[k], nil
			}
			bw.Bool(bg != nil)
			if bg != nil {
				bg.Encode(bw)
			}
		}
		if err := section(bw); err != nil {
			return err
		}
		iw := binenc.NewWriter()
		ix.Encode(iw)
		if err := section(iw); err != nil {
			return err
		}
		out.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(derived))))
		out.WriteString(derived)
		if err := out.Flush(); err != nil {
			return err
		}
		_, err := w.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
		return err
	})
}

// write writes what emit writes to the file name of c's folder, making
// the folder when it is missing, then prunes the folder. A file over
// limit bytes (one no read would take) is not written: size, when it is
// known beforehand (else -1), is checked first, and what emit writes is
// counted as it goes. It reports whether it wrote.
func (c *Cache) write(name string, size, limit int64, emit func(io.Writer) error) bool {
	return c.writeFile(name, size, limit, emit, true)
}

// writeFile is write, pruning the folder afterwards when thenPrune is set.
func (c *Cache) writeFile(name string, size, limit int64, emit func(io.Writer) error, thenPrune bool) bool {
	root, err := c.open(true)
	if err != nil {
		var off *Off
		if !errors.As(err, &off) {
			c.debugf("%s: not written: %v", c.path(name), err)
		}
		return false
	}
	defer root.Close()
	failed := "" // a cache file's note of a failed write
	if stem, ok := strings.CutSuffix(name, ".cache"); ok {
		failed = stem + failedSuffix
	}
	err = errOverCap
	if size <= limit {
		err = writeAtomic(root, name, func(w io.Writer) error { return emit(&capped{w: w, left: limit}) })
	}
	if err != nil {
		err = c.refusedWrite(err)
		c.debugf("%s: not written: %v", c.path(name), err)
		if failed != "" && c.Off() == nil {
			// Said to the next start (WriteFailed), which, without a
			// file to start from, would leave its load to a builder
			// failing as this write did, prompt after prompt. Best
			// effort: an empty file needs no space.
			_ = root.WriteFile(failed, []byte(firstLine(err.Error())), 0o600)
		}
		return false
	}
	if failed != "" {
		root.Remove(failed)
	}
	if thenPrune {
		prune(root, time.Now(), maxBytes, name)
	}
	return true
}

// failedSuffix ends the name of the note a cache file's failed write
// leaves (write), honoured for failedAge: the space may be freed since,
// and a builder is tried again after it.
const (
	failedSuffix = ".failed"
	failedAge    = 2 * time.Minute
)

// WriteFailed returns why the last write of key's cache file failed (no
// space left, a folder in its place), when that was within the last
// failedAge and none succeeded since; "" otherwise. A process that
// leaves its load to a builder when there is no file (the hook) loads
// by itself instead: the builder would fail again.
func (c *Cache) WriteFailed(key Key) string {
	if c == nil {
		return ""
	}
	root, err := c.open(false)
	if err != nil {
		return ""
	}
	defer root.Close()
	name := fileName(key)[:32] + failedSuffix
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() || info.Size() > 4096 {
		return ""
	}
	// A note dated in the future (a clock set back, a skewed file
	// server) would hold for as long; one older than the cache file
	// was left by a write that failed before another succeeded.
	if age := time.Since(info.ModTime()); age > failedAge || age < -time.Minute {
		return ""
	}
	if file, err := root.Lstat(fileName(key)); err == nil && file.ModTime().After(info.ModTime()) {
		return ""
	}
	data, err := root.ReadFile(name)
	if err != nil {
		return ""
	}
	if why := strings.TrimSpace(string(data)); why != "" {
		return why
	}
	return "the write failed"
}

// firstLine is s up to its first line break, at most 200 bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// capped passes writes on to w until left bytes are used, then fails
// them: a file whose size is not known beforehand stops at the cap.
type capped struct {
	w    io.Writer
	left int64
}

// errOverCap is a cache file larger than any read would take.
var errOverCap = errors.New("over the cap of a cache file's size")

func (c *capped) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, errOverCap
	}
	c.left -= int64(len(p))
	return c.w.Write(p)
}

// Bounds of prune: a cache file not written or used for maxAge (its
// catalog not loaded for that long) and a temporary file not written for
// tmpAge are removed. A writer writes its temporary file without a
// pause, so one unchanged for minutes was left by a process that ended
// as it wrote (a hook at its deadline): tens of MB each at 20,000 skills.
const (
	maxAge = 30 * 24 * time.Hour
	tmpAge = 5 * time.Minute
)

// usedAge is how old a cache file's date may grow while its catalog is
// loaded from it before a load dates it again (used): once a day at most,
// so that a start costs no write, while prune, which goes by the date,
// keeps a catalog loaded every day but unchanged. Without it such a file
// was removed after maxAge, or first past maxBytes, and the next load
// (a hook's prompt) went without skills while it was built again.
const usedAge = 24 * time.Hour

// used dates the cache file name now when its date is older than
// usedAge: its catalog was loaded from it. It never fails the load.
func (c *Cache) used(name string) {
	root, err := c.open(false)
	if err != nil {
		return
	}
	defer root.Close()
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		return
	}
	if now := time.Now(); now.Sub(info.ModTime()) > usedAge {
		if err := root.Chtimes(name, now, now); err != nil {
			c.debugf("%s: not dated: %v", c.path(name), err)
		}
	}
}

// maxBytes bounds the cache files of a folder in all: past it, prune
// removes the files written or used longest ago. A catalog of 20,000 skills
// makes a file of about 75 MB, and every build of rlmc, policy and set of
// roots makes one of its own: a machine that loads many large catalogs
// (a harness, a series of builds) filled 564 MB in days, which maxAge
// alone keeps for a month. The file just written is always kept.
const maxBytes = 1 << 30

// prune removes the cache files and temporary files of the folder root
// that are older than their bound: every root, policy and build makes a
// file of its own, and a folder of generated catalogs or a series of
// builds would otherwise fill the cache folder for ever. Then, while the
// cache files left hold more than limit bytes, it removes those written
// longest ago that do not fit beside the newer ones, never written, the
// file just written (whatever its date). Only names this
// package writes are touched, in root alone, and a link is removed, never
// followed.
func prune(root *os.Root, now time.Time, limit int64, written string) {
	dir, err := root.OpenFile(".", safefs.ReadOnly, 0)
	if err != nil {
		return
	}
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return
	}
	type kept struct {
		name string
		size int64
		at   time.Time
	}
	var files []kept
	for _, e := range entries {
		name := e.Name()
		var age time.Duration
		cache := false
		switch {
		case ourName(name, ".cache"), ourName(name, countsSuffix):
			age, cache = maxAge, true
		case strings.HasPrefix(name, ".tmp-"):
			age = tmpAge
		case ourName(name, lockSuffix):
			age = lockAge
		case ourName(name, failedSuffix):
			age = failedAge
		case ourName(name, sessionSuffix):
			age = sessionAge
		default:
			continue
		}
		// A file dated more than a minute in the future (a clock set
		// back since, a copy that kept its dates) would otherwise never
		// reach its bound.
		info, err := root.Lstat(name)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		switch d := now.Sub(info.ModTime()); {
		case name == written:
			// Counted first, whatever its date says.
			files = append(files, kept{name, info.Size(), now.Add(time.Hour)})
		case d > age || d < -time.Minute:
			root.Remove(name)
		case cache:
			files = append(files, kept{name, info.Size(), info.ModTime()})
		}
	}
	// Newest first, by name among equals, so that the bound keeps the
	// same files whatever order the folder lists them in.
	slices.SortFunc(files, func(a, b kept) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	var total int64
	for _, f := range files {
		if total+f.size > limit && f.name != written {
			root.Remove(f.name)
			continue
		}
		total += f.size
	}
}

// ourName reports whether name is one this package writes with suffix:
// 32 lower-case hexadecimal digits, then the suffix.
func ourName(name, suffix string) bool {
	stem, ok := strings.CutSuffix(name, suffix)
	if !ok || len(stem) != 32 {
		return false
	}
	for _, c := range []byte(stem) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
