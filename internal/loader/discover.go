package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/ir"
)

// SkillFile is the name that marks a folder as a skill.
const SkillFile = "SKILL.md"

// found is a skill folder located by discovery, not yet parsed.
type found struct {
	root       string   // root as given
	fsRoot     *os.Root // the root, opened once; every read of the skill goes through it
	precedence int
	rootReal   string // symlink-resolved root
	relDir     string // skill folder relative to the root, slash-separated ("." for the root itself)
	relReal    string // the folder's symlink-resolved path relative to the root, slash-separated
	dirReal    string // symlink-resolved skill folder
	fileReal   string // symlink-resolved SKILL.md
	fileLinked bool   // SKILL.md is a symlink (resolving inside the root)
	// origin is all of the above a load depends on, with SKILL.md's stamp
	// (see Record); trusted is false when that stamp is racy.
	origin  Origin
	trusted bool
	// entries is the skill folder's listing as discovery read it (or
	// took it, unchanged, from a Record), sorted by name.
	entries []fs.DirEntry
}

// scanner walks one root with the bounds in Limits. It never follows a
// symlink out of the root and never visits a folder twice. Symlinks are
// resolved to classify them for diagnostics, but every folder is listed
// through fsRoot, which refuses at open time a path that leaves the root:
// a folder swapped for a symlink after it was checked cannot lead out.
type scanner struct {
	limits     Limits
	root       string
	fsRoot     *os.Root
	precedence int
	rootReal   string
	visited    map[string]bool
	folders    int
	depthHit   bool
	countHit   bool
	found      []found
	diags      ir.Diagnostics
	// earlier is what an earlier load recorded (nil: nothing); listed
	// records every listing this scan used (see Record.Folders), unless
	// visit is set: Walk records nothing.
	earlier *earlier
	listed  []FolderRecord
	// visit, when set, hears of every folder the walk lists (Walk).
	visit func(Folder)
	// opaque: the walk depended on something its listings do not record
	// (see Scan), so it cannot be replayed.
	opaque bool
	// replayed: the scan was taken from an earlier load's (replay).
	replayed bool
	// links are the symlinked folders met, walked once every real
	// folder has been (walkAll).
	links []link
	// escapes holds, by its path below the root, each symlinked folder
	// that resolves outside the root, with where it resolves to: one
	// that leads into another root of the load is that root's skill
	// (intoOtherRoots).
	escapes map[string]string
}

// link is a symlinked folder the walk enters after the real ones.
type link struct {
	dirReal, rel string
	depth        int
}

// walkAll walks the root, then the symlinked folders met on the way: a
// folder reached both by its own path and through a link ("alias" ->
// "target" beside it) is read from its own path, and the link is the one
// said to lead where the walk has been.
func (s *scanner) walkAll() {
	s.walk(s.rootReal, ".", 0)
	for len(s.links) > 0 {
		l := s.links[0]
		s.links = s.links[1:]
		s.walk(l.dirReal, l.rel, l.depth)
	}
}

func (s *scanner) diag(rel string, code ir.Code, sev ir.Severity, format string, args ...any) {
	s.diags.Add(ir.Diagnostic{Root: s.root, Path: rel, Code: code, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// discover scans root. A root that does not exist or is not a folder is an
// error; whether that is worth reporting is the caller's decision (a
// missing default root is not). The returned *os.Root stays
// open for reading the skills found; the caller closes it.
// The earlier load's scan of the root, when it can be replayed and
// every folder it walked keeps its stamp, stands for the walk.
func discover(root string, precedence int, limits Limits, ea *earlier) (*os.Root, *scanner, error) {
	s, err := newScanner(root, precedence, limits, ea, nil)
	if err != nil {
		return nil, nil, err
	}
	if s.replayed = s.replay(); !s.replayed {
		s.walkAll()
	}
	return s.fsRoot, s, nil
}

// newScanner opens root for a scanner; the caller walks it (or replays
// it) and closes s.fsRoot.
func newScanner(root string, precedence int, limits Limits, ea *earlier, visit func(Folder)) (*scanner, error) {
	fsRoot, real, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	return &scanner{limits: limits, root: root, fsRoot: fsRoot, precedence: precedence, rootReal: real, visited: map[string]bool{}, earlier: ea, visit: visit}, nil
}

// earlier is what a load takes from an earlier load's Record: its
// listings by folder, the stats taken ahead, its scans, and its units by
// skill folder (which one load reaches once; reusable compares the whole
// origin).
type earlier struct {
	rec      *Record
	listings map[string]*FolderRecord
	units    map[string]*UnitRecord
	pre      *prestat
}

// newEarlier returns what a load takes from rec; nil for none.
func newEarlier(rec *Record) *earlier {
	if rec == nil {
		return nil
	}
	ea := &earlier{rec: rec, listings: make(map[string]*FolderRecord, len(rec.Folders)), units: make(map[string]*UnitRecord, len(rec.Units))}
	for i := range rec.Folders {
		ea.listings[rec.Folders[i].Path] = &rec.Folders[i]
	}
	for i := range rec.Units {
		ea.units[rec.Units[i].Origin.DirReal] = &rec.Units[i]
	}
	ea.pre = newPrestat(rec) // while the stats StatAhead started finish, the lookups above were built
	return ea
}

// listing returns the earlier listing of the folder dirReal, if any.
func (ea *earlier) listing(dirReal string) (*FolderRecord, bool) {
	if ea == nil {
		return nil, false
	}
	p, ok := ea.listings[dirReal]
	return p, ok
}

// stampOf is the stamp of the SKILL.md of the skill folder dirReal, info:
// the earlier load's string when it is the same stamp (a start from the
// cache stamps 20,000 of them), else a new one.
func (ea *earlier) stampOf(dirReal string, info os.FileInfo) string {
	if ea != nil {
		if p, ok := ea.units[dirReal]; ok && stampIs(info, p.Origin.Stamp) {
			return p.Origin.Stamp
		}
	}
	return StampInfo(info)
}

// stats returns the stats taken ahead; nil for none.
func (ea *earlier) stats() *prestat {
	if ea == nil {
		return nil
	}
	return ea.pre
}

// scan returns the earlier scan of the root at precedence, if any.
func (ea *earlier) scan(precedence int) *Scan {
	if ea == nil || precedence >= len(ea.rec.Scans) {
		return nil
	}
	return ea.rec.Scans[precedence]
}

// replay takes the scan of the root from earlier, when the walk would
// find the same: the same root, and every folder earlier walked keeps
// its trusted stamp, so has the listing recorded for it. Each SKILL.md
// is stat'ed as the walk would, and must still be a regular file. It
// reports whether it did; when not, the scanner is as it was.
func (s *scanner) replay() bool {
	sc := s.earlier.scan(s.precedence)
	if sc == nil || sc.Root != s.root || sc.RootReal != s.rootReal ||
		sc.First < 0 || sc.First > sc.End || sc.End > len(s.earlier.rec.Folders) {
		return false
	}
	walked := s.earlier.rec.Folders[sc.First:sc.End]
	now := time.Now()
	for i := range walked {
		if !s.folderKeeps(walked[i].Path, walked[i].Stamp, now) {
			return false
		}
	}
	founds := make([]found, 0, len(sc.Skills))
	for _, rel := range sc.Skills {
		dirReal, file, ok := skillPaths(s.rootReal, rel)
		if !ok {
			return false
		}
		listing, ok := s.earlier.listing(dirReal)
		if !ok {
			return false
		}
		info, err := s.earlier.stats().statFile(file)
		if err != nil || !info.Mode().IsRegular() {
			return false
		}
		founds = append(founds, s.newFound(dirReal, rel, file, false, info, listing.dirEntries()))
	}
	s.found, s.diags = founds, slices.Clone(sc.Diags)
	s.listed = append(s.listed, walked...)
	s.folders = len(walked)
	return true
}

// joinRel is filepath.Join(root, rel) for the slash-separated rel the
// walk recorded (join's, "." for the root itself), without cleaning it
// again: a replay joins 20,000 of them. A rel that is not clean (a cache
// written by something else) is refused.
func joinRel(root, rel string) (string, bool) {
	if rel == "." {
		return root, true
	}
	rel = filepath.FromSlash(rel)
	if !cleanElems(rel) {
		return "", false
	}
	if root != "" && os.IsPathSeparator(root[len(root)-1]) {
		return root + rel, true
	}
	return root + string(filepath.Separator) + rel, true
}

// skillPaths returns the skill folder a scan recorded as rel below root,
// and its SKILL.md, as the walk names them (see joinRel).
func skillPaths(root, rel string) (dir, file string, ok bool) {
	if dir, ok = joinRel(root, rel); !ok {
		return "", "", false
	}
	return dir, dir + string(filepath.Separator) + SkillFile, true
}

// record returns the scan's record, nil when it cannot be replayed.
// first and end place its listings in the load's Record.Folders.
func (s *scanner) record(first, end int) *Scan {
	if s.opaque || s.visit != nil || end-first != s.folders {
		return nil
	}
	sc := &Scan{Root: s.root, RootReal: s.rootReal, First: first, End: end, Skills: make([]string, len(s.found)), Diags: slices.Clone(s.diags)}
	for i := range s.found {
		sc.Skills[i] = s.found[i].relDir
	}
	return sc
}

// Folder is one folder discovery visits, as Walk reports it.
type Folder struct {
	Root    string        // the root walked, symlinks resolved
	Dir     string        // the folder, symlinks resolved
	Depth   int           // levels below the root
	Skill   bool          // it holds SKILL.md: discovery walks none of its subfolders
	Entries []fs.DirEntry // its listing, sorted by name; nil when Err is set
	Err     error         // why it could not be listed
}

// Walk calls visit on every folder discovery visits under root, in the
// order it visits them (the root, then depth first by name, the folders
// reached through a symlink after the others), by its rules:
// the subfolders it enters are those Subfolders gives, each folder is
// visited once, none deeper than limits.MaxDepth below the root nor more
// than limits.MaxFolders of them. A root that is not a folder is the
// error Load meets. Package compiler's live catalog watches what it
// visits, so the two never disagree on what a load reads.
func Walk(root string, limits Limits, visit func(Folder)) error {
	s, err := newScanner(root, 0, limits, nil, visit)
	if err != nil {
		return err
	}
	s.walkAll()
	return s.fsRoot.Close()
}

// skip says why discovery does not enter an entry of a folder.
type skip uint8

const (
	enter      skip = iota
	skipName        // .git, node_modules or another hidden folder
	skipFile        // no folder, nor a symlink to one
	skipLoop        // a symlink that does not resolve (a loop, or dangling)
	skipEscape      // a symlink resolving outside the root
)

// passedOver reports whether discovery never enters a folder so named:
// .git, node_modules or another hidden folder.
func passedOver(name string) bool {
	return name == ".git" || name == "node_modules" || strings.HasPrefix(name, ".")
}

// subfolder says where the entry e of the folder dirReal, under the root
// rootReal, leads discovery: the folder to enter (a symlink resolved), or
// why it enters none (with, for skipEscape, the symlink's target).
func subfolder(rootReal, dirReal string, e fs.DirEntry) (string, skip) {
	name := e.Name()
	if passedOver(name) {
		return "", skipName
	}
	child := filepath.Join(dirReal, name)
	if e.Type()&fs.ModeSymlink == 0 {
		if !e.IsDir() {
			return "", skipFile
		}
		return child, enter
	}
	target, err := filepath.EvalSymlinks(child)
	if err != nil {
		return "", skipLoop
	}
	if info, err := os.Stat(target); err != nil || !info.IsDir() {
		return "", skipFile
	}
	if !Within(rootReal, target) {
		return target, skipEscape
	}
	return target, enter
}

// Subfolders returns the folders discovery enters from the folder dirReal
// under the root rootReal, given its listing, in its order, symlinks
// resolved: no .git, node_modules or other hidden folder, and a
// symlinked folder only when it resolves inside the root. Package
// compiler's live catalog walks a skill's resource folders with it.
func Subfolders(rootReal, dirReal string, entries []fs.DirEntry) []string {
	var out []string
	for _, e := range entries {
		if child, why := subfolder(rootReal, dirReal, e); why == enter {
			out = append(out, child)
		}
	}
	return out
}

// list returns the entries of the folder dirReal, sorted by name: from
// the earlier load's record when the folder's stamp is unchanged, else
// read through the root. A folder's modification time moves with every
// entry created, removed or renamed in it, and its inode changes when it
// is replaced, so an unchanged stamp is an unchanged listing; the racy
// window (see Record) guards a change within the same clock tick.
func (s *scanner) list(dirReal string) ([]fs.DirEntry, error) {
	if s.visit != nil {
		return safefs.ReadDir(s.fsRoot, relTo(s.rootReal, dirReal)) // sorted by name
	}
	stamp, trusted := s.folderStamp(dirReal, time.Now())
	if p, ok := s.earlier.listing(dirReal); ok && trusted && p.Stamp == stamp {
		s.listed = append(s.listed, *p)
		return p.dirEntries(), nil
	}
	if testHookList != nil {
		testHookList(dirReal)
	}
	entries, err := safefs.ReadDir(s.fsRoot, relTo(s.rootReal, dirReal)) // sorted by name
	if err == nil && trusted {
		rec := FolderRecord{Path: dirReal, Stamp: stamp, Entries: make([]Entry, len(entries))}
		for i, e := range entries {
			rec.Entries[i] = Entry{Base: e.Name(), Mode: e.Type()}
		}
		s.listed = append(s.listed, rec)
	}
	return entries, err
}

// folderKeeps reports whether the folder dirReal still has stamp, and
// the stamp can be trusted (see folderStamp).
func (s *scanner) folderKeeps(dirReal, stamp string, now time.Time) bool {
	info, err := s.earlier.stats().lstatFolder(dirReal)
	return err == nil && info.IsDir() && !racy(info, now) && stampIs(info, stamp)
}

// folderStamp stamps the folder dirReal (its stat taken ahead when it
// was); trusted is false when it is racy at now, or no folder.
func (s *scanner) folderStamp(dirReal string, now time.Time) (stamp string, trusted bool) {
	info, err := s.earlier.stats().lstatFolder(dirReal)
	if err != nil || !info.IsDir() {
		return "", false
	}
	return StampInfo(info), !racy(info, now)
}

// dirEntries returns the recorded listing as discovery lists a folder.
func (p *FolderRecord) dirEntries() []fs.DirEntry {
	out := make([]fs.DirEntry, len(p.Entries))
	for i := range p.Entries {
		out[i] = &p.Entries[i] // a pointer: no copy of the entry on the heap
	}
	return out
}

// openRoot resolves root and opens it: it must be a folder.
func openRoot(root string) (*os.Root, string, error) {
	if root == "" {
		// An unset variable in a script ("--root $DIR"): the working
		// folder it would stand for is no root anyone named.
		return nil, "", ErrEmptyRoot
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, "", err
	}
	// Absolute, so that a body read later (ReadBody) finds the root
	// whatever folder the process is in by then.
	if real, err = filepath.Abs(real); err != nil {
		return nil, "", err
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, "", err
	}
	if !info.IsDir() {
		return nil, "", ErrNotFolder
	}
	fsRoot, err := os.OpenRoot(real)
	if err != nil {
		return nil, "", err
	}
	return fsRoot, real, nil
}

// relTo returns path relative to base, slash-separated; path must be within
// base.
func relTo(base, path string) string {
	rel, ok := below(base, path)
	if !ok {
		var err error
		if rel, err = filepath.Rel(base, path); err != nil {
			return "."
		}
	}
	return filepath.ToSlash(rel)
}

// Within reports whether path is base or below it, by their text (both
// clean, and absolute or relative alike).
func Within(base, path string) bool {
	if _, ok := below(base, path); ok {
		return true
	}
	rel, err := filepath.Rel(base, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// below returns path relative to base when path is base (".") or below
// it by its text alone, every element after base neither empty nor "."
// nor ".."; ok false says nothing, and the caller asks filepath.Rel.
// Discovery and a start from the cache relate every folder and file of a
// catalog to its root or its skill folder, and filepath.Rel cleans both
// paths every time.
func below(base, path string) (rel string, ok bool) {
	if path == base {
		return ".", true
	}
	rest, ok := strings.CutPrefix(path, base)
	if !ok || base == "" || rest == "" {
		return "", false
	}
	if !os.IsPathSeparator(base[len(base)-1]) {
		if !os.IsPathSeparator(rest[0]) {
			return "", false
		}
		rest = rest[1:]
	}
	if !cleanElems(rest) {
		return "", false
	}
	return rest, true
}

// cleanElems reports whether the relative path p has elements, none of
// them empty, "." or "..".
func cleanElems(p string) bool {
	for start, i := 0, 0; i <= len(p); i++ {
		if i < len(p) && !os.IsPathSeparator(p[i]) {
			continue
		}
		if e := p[start:i]; e == "" || e == "." || e == ".." {
			return false
		}
		start = i + 1
	}
	return true
}

func join(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

func (s *scanner) walk(dirReal, rel string, depth int) {
	if s.visited[dirReal] {
		s.opaque = true
		s.diag(rel, ir.CodeSymlinkLoop, ir.SeverityWarning, "folder already scanned through another path; not scanned again")
		return
	}
	s.visited[dirReal] = true
	s.folders++
	if testHookWalk != nil {
		testHookWalk(dirReal)
	}
	entries, err := s.list(dirReal)
	skill := slices.IndexFunc(entries, func(e fs.DirEntry) bool { return e.Name() == SkillFile && !e.IsDir() })
	if s.visit != nil {
		f := Folder{Root: s.rootReal, Dir: dirReal, Depth: depth, Skill: skill >= 0, Entries: entries, Err: err}
		if err != nil {
			f.Entries = nil
		}
		s.visit(f)
	}
	if err != nil {
		s.diag(rel, ir.CodeReadError, ir.SeverityError, "cannot read folder: %v", errors.Unwrap(err))
		return
	}
	if skill >= 0 {
		for _, e := range entries {
			// A skill.md beside SKILL.md (the one an editor opened, on
			// a file system that tells them apart) is never read.
			if !e.IsDir() && e.Name() != SkillFile && strings.EqualFold(e.Name(), SkillFile) {
				s.diag(join(rel, e.Name()), ir.CodeMisnamedSkillFile, ir.SeverityWarning, "%s is not read: SKILL.md beside it is the skill's file", ir.Printable(e.Name()))
			}
		}
		s.addSkill(dirReal, rel, entries[skill], entries)
		s.nested(dirReal, rel, entries)
		return // a skill folder's subfolders are its resources, not more skills
	}
	for _, e := range entries {
		// Clients look for SKILL.md exactly; a skill.md would be read on
		// one file system and not on another, so it is never read, but
		// never passed over in silence either.
		if !e.IsDir() && strings.EqualFold(e.Name(), SkillFile) {
			s.diag(join(rel, e.Name()), ir.CodeMisnamedSkillFile, ir.SeverityWarning, "%s is not read: a skill's file must be named SKILL.md, in capitals", ir.Printable(e.Name()))
		}
		// A folder named SKILL.md is a skill that cannot be read, as a
		// FIFO in its place is, not a folder to pass over in silence.
		if e.IsDir() && e.Name() == SkillFile {
			s.diag(join(rel, e.Name()), ir.CodeReadError, ir.SeverityError, "SKILL.md is a folder, not a regular file")
		}
	}
	for _, e := range entries {
		child, why := subfolder(s.rootReal, dirReal, e)
		if why != skipName && e.Type()&fs.ModeSymlink != 0 {
			s.opaque = true // resolved now; its listing does not say where to
		}
		childRel := join(rel, e.Name())
		switch why {
		case skipName, skipFile:
			continue
		case skipLoop:
			s.diag(childRel, ir.CodeSymlinkLoop, ir.SeverityWarning, "symlink cannot be resolved (loop or dangling); skipped")
			continue
		case skipEscape:
			sev := ir.SeverityWarning
			if _, err := os.Stat(filepath.Join(child, SkillFile)); err == nil {
				sev = ir.SeverityError
			}
			s.diag(childRel, ir.CodePathEscape, sev, "symlinked folder resolves outside its root; rejected")
			if s.escapes == nil {
				s.escapes = map[string]string{}
			}
			s.escapes[childRel] = child
			continue
		}
		if depth+1 > s.limits.MaxDepth {
			if !s.depthHit {
				s.depthHit = true
				s.diag(childRel, ir.CodeScanLimit, ir.SeverityError, "folder deeper than %d levels below the root not scanned (and any others as deep); the host policy's limits.max_depth raises the bound", s.limits.MaxDepth)
			}
			continue
		}
		if s.folders >= s.limits.MaxFolders {
			if !s.countHit {
				s.countHit = true
				s.diag(childRel, ir.CodeScanLimit, ir.SeverityError, "root has more than %d folders; scan stopped here; the host policy's limits.max_folders raises the bound", s.limits.MaxFolders)
			}
			return
		}
		if e.Type()&fs.ModeSymlink != 0 {
			s.links = append(s.links, link{child, childRel, depth + 1})
			continue
		}
		s.walk(child, childRel, depth+1)
	}
}

// nested reports each SKILL.md one level down in the skill folder dirReal
// (rel below the root), given its listing: a skill's subfolders are its
// resources, so such a skill is never read, and a SKILL.md put at the top
// of a catalog would hide every skill under it without a word. Only the
// subfolders themselves are looked into, one stat each.
func (s *scanner) nested(dirReal, rel string, entries []fs.DirEntry) {
	if rel == "." {
		s.nestedUnderRoot(dirReal, entries)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || passedOver(name) {
			continue
		}
		if _, err := s.fsRoot.Lstat(join(relTo(s.rootReal, dirReal), name) + "/" + SkillFile); err != nil {
			continue
		}
		where := "the skill folder " + ir.Printable(rel) + ", whose subfolders are its resources"
		if rel == "." {
			where = "a root that is itself a skill (it holds SKILL.md), whose subfolders are that skill's resources"
		}
		s.diag(join(join(rel, name), SkillFile), ir.CodeNestedSkill, ir.SeverityWarning, "not read: it is inside %s; move it out to make it a skill", where)
	}
}

// nestedUnderRoot reports every SKILL.md at any depth below a root that
// is itself a skill (it holds SKILL.md), the highest of each branch: a
// catalog grouped by category ("skills/devops/deploy/SKILL.md") under an
// index SKILL.md put at its top loses every skill without a word, which
// one level down does not see. It lists the folders as discovery does
// (so a cached start notices a skill added below), within the scan's
// depth and folder bounds, not following links.
func (s *scanner) nestedUnderRoot(rootDir string, entries []fs.DirEntry) {
	where := "a root that is itself a skill (it holds SKILL.md), whose subfolders are that skill's resources"
	var look func(dirReal, rel string, entries []fs.DirEntry, depth int)
	look = func(dirReal, rel string, entries []fs.DirEntry, depth int) {
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || passedOver(name) || depth+1 > s.limits.MaxDepth || s.folders >= s.limits.MaxFolders {
				continue
			}
			child, childRel := filepath.Join(dirReal, name), join(rel, name)
			s.folders++
			sub, err := s.list(child)
			if err != nil {
				continue
			}
			if slices.ContainsFunc(sub, func(e fs.DirEntry) bool { return e.Name() == SkillFile && !e.IsDir() }) {
				s.diag(join(childRel, SkillFile), ir.CodeNestedSkill, ir.SeverityWarning, "not read: it is inside %s; move it out to make it a skill", where)
				continue
			}
			look(child, childRel, sub, depth+1)
		}
	}
	look(rootDir, ".", entries, 0)
}

func (s *scanner) addSkill(dirReal, rel string, e fs.DirEntry, entries []fs.DirEntry) {
	file := filepath.Join(dirReal, SkillFile)
	fileRel := join(rel, SkillFile)
	linked := e.Type()&fs.ModeSymlink != 0
	if linked {
		s.opaque = true
		target, err := filepath.EvalSymlinks(file)
		if err != nil {
			s.diag(fileRel, ir.CodeSymlinkLoop, ir.SeverityError, "SKILL.md symlink cannot be resolved (loop or dangling)")
			return
		}
		if !Within(s.rootReal, target) {
			s.diag(fileRel, ir.CodePathEscape, ir.SeverityError, "SKILL.md is a symlink resolving outside its root; rejected")
			return
		}
		file = target
	}
	info, err := s.earlier.stats().statFile(file)
	if err != nil || !info.Mode().IsRegular() {
		s.opaque = true
		s.diag(fileRel, ir.CodeReadError, ir.SeverityError, "SKILL.md is not a regular file")
		return
	}
	s.found = append(s.found, s.newFound(dirReal, rel, file, linked, info, entries))
}

// newFound is the skill found in the folder dirReal (rel below the root)
// whose SKILL.md, file, was stat'ed as info.
func (s *scanner) newFound(dirReal, rel, file string, linked bool, info fs.FileInfo, entries []fs.DirEntry) found {
	f := found{
		root: s.root, fsRoot: s.fsRoot, precedence: s.precedence, rootReal: s.rootReal,
		relDir: rel, relReal: relTo(s.rootReal, dirReal), dirReal: dirReal, fileReal: file,
		fileLinked: linked, trusted: !racy(info, time.Now()), entries: entries,
	}
	f.origin = Origin{
		Root: f.root, Precedence: f.precedence, RootReal: f.rootReal, RelDir: f.relDir, RelReal: f.relReal,
		DirReal: f.dirReal, FileReal: f.fileReal, FileLinked: f.fileLinked, Stamp: s.earlier.stampOf(dirReal, info),
	}
	return f
}

// hiddenSkills looks, in a root where discovery found no skill, for the
// project skill folders of the clients (ProjectRootDirs: ".agents/skills",
// ".claude/skills", ...) that hold skill folders: discovery enters no
// hidden folder, so a package that ships its skills under .agents/skills,
// named as a root, loaded nothing and said nothing. Each such folder is a
// warning naming it, unless it is a root of this load already (roots
// holds their real paths). Only those folders are read, each listed once
// with one stat a subfolder, so a root whose hidden folders are caches of
// thousands of files costs nothing more.
func hiddenSkills(fsRoot *os.Root, root, rootReal string, roots map[string]bool) []ir.Diagnostic {
	var out []ir.Diagnostic
	report := func(dir, where, why string) {
		if roots[filepath.Join(rootReal, filepath.FromSlash(dir))] {
			return
		}
		n := skillFolders(fsRoot, dir)
		if n == 0 {
			return
		}
		folders := "skill folders"
		if n == 1 {
			folders = "skill folder"
		}
		out = append(out, ir.Diagnostic{Root: root, Path: dir, Code: ir.CodeHiddenSkills, Severity: ir.SeverityWarning,
			Message: fmt.Sprintf("%d %s %s and none elsewhere under the root: discovery does not enter %s; name %s as a root to load them",
				n, folders, where, why, filepath.Join(root, filepath.FromSlash(dir)))})
	}
	for _, dir := range ProjectRootDirs {
		report(dir, "here", "hidden folders")
	}
	for _, dir := range packageSkillDirs(fsRoot) {
		report(dir, "in this npm package", "node_modules")
	}
	return out
}

// packageSkills are the folders, under an npm package, where packages
// that ship skills keep them.
var packageSkills = []string{"skills", "dist/skills", "agent-skills", "dist/agent-skills", ".agents/skills", ".claude/skills"}

// maxPackages bounds the packages of node_modules packageSkillDirs looks
// into: a project's few thousand, not a monorepo's every dependency.
const maxPackages = 4096

// packageSkillDirs returns, sorted, the folders of packageSkills that
// exist in the packages of the root's node_modules (a scope's packages
// too: "@acme/skills"), where a project that installed skills from npm
// has them: discovery enters no node_modules, so a root named for such a
// project loaded nothing and said nothing. A package installed as a link
// (pnpm's) is looked into where it leads, inside the root.
func packageSkillDirs(fsRoot *os.Root) []string {
	const modules = "node_modules"
	entries, err := safefs.ReadDir(fsRoot, modules)
	if err != nil {
		return nil
	}
	var pkgs []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case strings.HasPrefix(name, "@"):
			scoped, err := safefs.ReadDir(fsRoot, modules+"/"+name)
			if err != nil {
				continue
			}
			for _, p := range scoped {
				pkgs = append(pkgs, modules+"/"+name+"/"+p.Name())
			}
		default:
			pkgs = append(pkgs, modules+"/"+name)
		}
	}
	var out []string
	for _, pkg := range pkgs[:min(len(pkgs), maxPackages)] {
		for _, sub := range packageSkills {
			if info, err := fsRoot.Stat(pkg + "/" + sub); err == nil && info.IsDir() {
				out = append(out, pkg+"/"+sub)
			}
		}
	}
	return out
}

// skillFolders counts the subfolders of dir (slash-separated, under
// fsRoot) that hold a SKILL.md.
func skillFolders(fsRoot *os.Root, dir string) int {
	entries, err := safefs.ReadDir(fsRoot, dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || passedOver(e.Name()) {
			continue
		}
		if info, err := fsRoot.Lstat(dir + "/" + e.Name() + "/" + SkillFile); err == nil && info.Mode().IsRegular() {
			n++
		}
	}
	return n
}
