package loader

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rlmc-dev/rlmc/ir"
)

// Record is what one load read, skill by skill: where discovery found each
// skill, every file the loader stat'ed or read for it with that file's
// stamp, and what it made of them. A later load given the Record (as
// Options.Prior) takes a skill's unit from it, without opening its files,
// when discovery finds the skill at the same place and every stamp still
// matches; so a persistent cache (package catcache) need not walk the
// folders a second way. Discovery itself (stat'ing every folder and every
// SKILL.md) always runs: it is what sees a skill added, removed or
// renamed; it takes a folder's listing from the Record, unread, when the
// folder's own stamp is unchanged (see Folders), and a whole root's
// findings when every folder its walk listed is (see Scan).
type Record struct {
	// Units are the skills loaded, in discovery order.
	Units []UnitRecord
	// Order is the catalog's order of Units: the position in Units of the
	// unit at each position of the catalog (ir.CompareUnits). A load whose
	// units come in the same order takes it, checked in one pass, rather
	// than sorting 20,000 units again.
	Order []int32
	// Diags are the diagnostics of discovery and of the host's exclusions:
	// every diagnostic of the catalog that belongs to no unit and is not a
	// shadowing.
	Diags ir.Diagnostics
	// Folders are the listings discovery used whose folder's stamp was
	// trusted when taken (before the listing was read).
	Folders []FolderRecord
	// Scans are the discoveries of the roots, by the roots' positions,
	// each nil unless the root's scan can be replayed (see Scan).
	Scans []*Scan
	// Scanned counts the roots discovery scanned (those that exist);
	// Replayed those whose discovery this load took from its Prior's
	// Scans, unwalked.
	Scanned, Replayed int
	// ahead holds the stats StatAhead started, for the next load.
	ahead atomic.Pointer[prestat]
}

// Scan is what discovery found under one root when its walk depended on
// nothing but the listings it recorded: every folder it walked was listed
// with a trusted stamp (Folders[First:End] of its Record, in walk order),
// it met no symlink it had to resolve, and every SKILL.md it found was a
// regular file. A later discovery of the same root whose folders all keep
// their stamps would walk the same folders in the same order and find
// the same skills with the same diagnostics, so it takes them from here
// and stats each SKILL.md without walking: at 20,000 skills the walk is
// a third of a start from the cache.
type Scan struct {
	Root, RootReal string
	First, End     int
	// Skills are the skill folders found, relative to the root,
	// slash-separated, in discovery order.
	Skills []string
	Diags  ir.Diagnostics
}

// FolderRecord is one folder's listing and the folder's stamp.
type FolderRecord struct {
	Path    string // symlink-resolved
	Stamp   string
	Entries []Entry // sorted by name
}

// Entry is one name of a FolderRecord, an fs.DirEntry without its info.
type Entry struct {
	Base string
	Mode fs.FileMode // type bits only
}

// Name returns the entry's name.
func (e Entry) Name() string { return e.Base }

// IsDir reports whether the entry is a folder.
func (e Entry) IsDir() bool { return e.Mode.IsDir() }

// Type returns the entry's type bits.
func (e Entry) Type() fs.FileMode { return e.Mode }

// Info is not recorded; discovery never asks for it.
func (e Entry) Info() (fs.FileInfo, error) { return nil, errNoInfo }

var errNoInfo = errors.New("loader: a recorded folder entry has no info")

// UnitRecord is one skill of a Record.
type UnitRecord struct {
	Origin Origin
	// Items are the files read or stat'ed for the unit beside SKILL.md
	// (whose stamp is Origin.Stamp), in the order read.
	Items []Item
	// Unit is the unit as loaded. Status is its status before shadowing,
	// which depends on the other units and is decided again at each load.
	Unit   *ir.Unit
	Status ir.Status
	// Diags are the unit's own diagnostics.
	Diags ir.Diagnostics
	// Trusted: every stamp was taken outside the racy window (see
	// racyWindow) and every file could be read, so a later load may reuse
	// the unit when the stamps match. An untrusted unit is always read
	// again.
	Trusted bool
	// Reused: the unit was taken from Options.Prior, not read.
	Reused bool
}

// Origin is where discovery found a skill: everything of it that loading
// the skill depends on beside the files' content.
type Origin struct {
	Root       string
	Precedence int
	RootReal   string
	RelDir     string
	RelReal    string
	DirReal    string
	FileReal   string
	FileLinked bool
	// Stamp is SKILL.md's stamp (see Stamp), as discovery saw it.
	Stamp string
}

// Item is a path the loader read or stat'ed and its stamp when it did.
type Item struct {
	Path  string
	Stamp string
}

// racyWindow: a file modified this recently when it is stamped may be
// modified again within the same clock tick of its file system (a second
// or two on some) keeping its size, time and inode, which its stamp would
// not show. A unit with such a file is not trusted; it is read again at
// the next load, by which time the window has passed. Git's index has the
// same rule ("racy git").
const racyWindow = 2 * time.Second

// StampInfo is a file's stamp: its type and permission bits, size,
// modification time and identity (FileID). The live catalog
// (compiler.Watch) stamps what it watches the same way.
func StampInfo(info os.FileInfo) string {
	var buf [128]byte
	return string(appendStamp(buf[:0], info))
}

// stampIs reports whether info's stamp is stamp, without making it: a
// start from the cache compares the stamps of every folder and SKILL.md
// of a catalog.
func stampIs(info os.FileInfo, stamp string) bool {
	var buf [128]byte
	return string(appendStamp(buf[:0], info)) == stamp
}

// appendStamp appends info's stamp (StampInfo) to b: the mode bits as a
// number, size, modification time, identity and change time.
func appendStamp(b []byte, info os.FileInfo) []byte {
	b = strconv.AppendUint(b, uint64(info.Mode()), 8)
	b = append(b, ' ')
	b = strconv.AppendInt(b, info.Size(), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, info.ModTime().UnixNano(), 10)
	b = append(b, ' ')
	b = appendFileID(b, info)
	b = append(b, ' ')
	return appendChangeTime(b, info)
}

// racy reports whether info was modified within racyWindow of now. A
// file dated in the future (a clock set back, an archive unpacked as its
// maker's clock had it) would stay within it until that date, read again
// at every load: its inode's change time, which every write sets to the
// system's clock, says instead when it last changed, where the system
// says.
func racy(info os.FileInfo, now time.Time) bool {
	when := info.ModTime()
	if when.After(now) {
		if ctime, ok := changeTime(info); ok {
			when = ctime
		}
	}
	return when.After(now.Add(-racyWindow))
}

// Stamp stamps the file or folder at path without opening it: "absent"
// when it does not exist, "error" when it cannot be stat'ed, else its
// stamp; a symlink adds the path it resolves to and that file's stamp, so
// that a link pointed elsewhere changes the stamp. ok is false when the
// stamp cannot be trusted: an error, or a file modified within the racy
// window.
func Stamp(path string) (stamp string, ok bool) {
	now := time.Now()
	info, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return "absent", true
	case err != nil:
		return "error", false
	}
	stamp, ok = StampInfo(info), !racy(info, now)
	if info.Mode()&os.ModeSymlink == 0 {
		return stamp, ok
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return stamp + " -> ?", ok
	}
	target, err := os.Stat(real)
	if err != nil {
		return stamp + " -> " + real + " ?", ok
	}
	return stamp + " -> " + real + " " + StampInfo(target), ok && !racy(target, now)
}

// recorder collects one unit's items while it loads.
type recorder struct {
	items   []Item
	trusted bool
}

// stamp records path's stamp; call it before reading or stat'ing path, so
// that a change in between shows as a stamp that no longer matches.
func (r *recorder) stamp(path string) {
	s, ok := Stamp(path)
	r.items = append(r.items, Item{Path: path, Stamp: s})
	r.trusted = r.trusted && ok
}

// reusable returns prior's unit record when it may stand for f: the same
// origin, trusted, and every item's stamp unchanged. It stats each item;
// it opens nothing.
func reusable(f found, prior map[string]*UnitRecord) (*UnitRecord, bool) {
	p, ok := prior[f.dirReal]
	if !ok || p.Origin != f.origin || !p.Trusted || !f.trusted || p.Unit == nil {
		return nil, false
	}
	for _, it := range p.Items {
		if it.Stamp == "absent" && absentFrom(f, it.Path) {
			continue // still absent: its folder's listing says so
		}
		if !plainPath(f, it.Path) {
			return nil, false
		}
		if s, _ := Stamp(it.Path); s != it.Stamp {
			return nil, false
		}
	}
	return p, true
}

// plainPath reports whether every folder on the way from f's skill
// folder down to path, a file below it, is a folder and no symlink. A
// stamp is taken by path, through any symlink on the way: a folder of the
// skill moved out of its root, a symlink left in its place, keeps its
// files' stamps, while a load reading it again through the root refuses
// it. A unit read through such a symlink is read again at every load. A
// path not below the skill folder has no such folders to check. The
// first folder is looked up in the skill folder's listing, as this
// load's discovery has it; only deeper ones are stat'ed.
func plainPath(f found, path string) bool {
	rel, ok := below(f.dirReal, path)
	if !ok {
		return true
	}
	first, rest, nested := cutSeparator(rel)
	if !nested {
		return true
	}
	if e, listed := f.entry(first); !listed || e.Type()&fs.ModeSymlink != 0 || !e.IsDir() {
		return false
	}
	dir := filepath.Join(f.dirReal, first)
	for {
		first, rest, nested = cutSeparator(rest)
		if !nested {
			return true
		}
		dir = filepath.Join(dir, first)
		info, err := os.Lstat(dir)
		if err != nil || !info.IsDir() {
			return false
		}
	}
}

// cutSeparator cuts p around its first path separator (a byte: never
// part of a longer UTF-8 sequence).
func cutSeparator(p string) (before, after string, found bool) {
	for i := 0; i < len(p); i++ {
		if os.IsPathSeparator(p[i]) {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

// entry looks name up in f's skill folder's listing.
func (f found) entry(name string) (fs.DirEntry, bool) {
	k, listed := slices.BinarySearchFunc(f.entries, name, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
	if !listed {
		return nil, false
	}
	return f.entries[k], true
}

// absentFrom reports whether path, inside f's skill folder, cannot exist
// because the folder's listing, as this load's discovery has it, holds no
// entry for its first component: no stat is needed for a side file
// (agents/openai.yaml, manifest.json) that a skill does not have.
func absentFrom(f found, path string) bool {
	rel, ok := below(f.dirReal, path)
	if !ok || rel == "." {
		return false // not known to be inside: stat it
	}
	first, _, _ := cutSeparator(rel)
	_, listed := f.entry(first)
	return !listed
}

// reuse copies p's unit into u (p.Unit itself: no copy) and returns it
// with its diagnostics, as a fresh load would make them, shadowing undone
// (it is decided again).
func (p *UnitRecord) reuse(u *ir.Unit) (*ir.Unit, ir.Diagnostics) {
	if u != p.Unit {
		*u = *p.Unit
	}
	u.Status, u.ShadowedBy = p.Status, ""
	return u, append(ir.Diagnostics(nil), p.Diags...)
}
