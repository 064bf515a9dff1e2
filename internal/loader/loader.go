package loader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/ir"
)

// Limits bound what the loader reads. In Options, a field that is not
// positive keeps its DefaultLimits value.
type Limits struct {
	MaxFileBytes        int64 // per SKILL.md
	MaxFrontmatterBytes int
	MaxDepth            int // folders below a root
	MaxFolders          int // per root
}

// DefaultLimits are the documented bounds.
var DefaultLimits = Limits{
	MaxFileBytes:        100 << 10,
	MaxFrontmatterBytes: 64 << 10,
	MaxDepth:            6,
	MaxFolders:          50000,
}

// Options configure Load.
type Options struct {
	// Roots in precedence order, first wins. Every root named here must be
	// a folder: Load returns a *RootError for one that is missing or is
	// not. Empty means the built-in roots (see Resolve), where only the
	// project and user roots may be absent; a root named by
	// RLMC_SKILLS_ROOT must exist too.
	Roots []string
	// Exclude lists skill folders, relative to their root and slash-separated,
	// to leave out together with everything below them. An entry that
	// leaves out no skill folder under any root is an unmatched_exclude
	// warning: a mistyped entry must not pass for a working one.
	Exclude []string
	Limits  Limits
	// Prior, when set, is the Record of an earlier load: a skill found at
	// the same place with every stamp unchanged is taken from it unread
	// (see Record). The caller must make sure Prior was loaded with the
	// same limits and by the same rlmc; package catcache keys it so.
	Prior *Record
	// PriorOwned lets the load take Prior's units themselves, not copies
	// of them: Prior was made for this load alone (decoded from a cache
	// file) and is not used after it.
	PriorOwned bool
}

// RootError is a root the caller named (in Options.Roots, or through
// RLMC_SKILLS_ROOT) that does not exist, is not a folder or cannot be
// opened. Load returns it rather than an empty catalog, so that a mistyped
// root can never pass for a root without skills.
type RootError struct {
	Root string // the root as given
	Env  string // the environment variable that named it, if any
	Err  error  // fs.ErrNotExist, ErrNotFolder or the cause
}

// ErrNotFolder is the cause of a RootError for a root that is a file.
var ErrNotFolder = errors.New("not a folder")

// ErrEmptyRoot is the cause of a RootError for a root given as "".
var ErrEmptyRoot = errors.New("an empty path")

// Error renders one line naming the root.
func (e *RootError) Error() string {
	name := e.Root
	if e.Env != "" {
		name += " (from $" + e.Env + ")"
	}
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		return fmt.Sprintf("skill root %s does not exist", name)
	case errors.Is(e.Err, ErrNotFolder) && filepath.Base(e.Root) == SkillFile:
		return fmt.Sprintf("skill root %s is not a folder (name the skill's folder, %s, as a root)", name, filepath.Dir(e.Root))
	case errors.Is(e.Err, ErrNotFolder):
		return fmt.Sprintf("skill root %s is not a folder", name)
	case errors.Is(e.Err, ErrEmptyRoot):
		return fmt.Sprintf("skill root %q is an empty path (an unset variable?)", name)
	}
	return fmt.Sprintf("skill root %s cannot be read: %v", name, e.Err)
}

// Unwrap returns the cause, so errors.Is(err, fs.ErrNotExist) holds for a
// missing root.
func (e *RootError) Unwrap() error { return e.Err }

// Absent reports whether err, from opening a root, says the root is not
// there: it does not exist, or a folder on its path is a file (a file
// named .cursor leaves no .cursor/skills to read).
func Absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// CheckRoot returns a *RootError when root does not exist, is not a
// folder or cannot be opened, as Load does for a root it is named.
func CheckRoot(root string) error {
	r, _, err := openRoot(root)
	if err != nil {
		return &RootError{Root: root, Err: rootErr(err)}
	}
	return r.Close()
}

// Load discovers, parses and normalizes every skill under the roots. Problems
// with individual skills become diagnostics and never stop the others; the
// error result is reserved for a root the caller named that cannot be
// scanned (a *RootError) and a cancelled context.
func Load(ctx context.Context, opts Options) (*ir.Catalog, error) {
	cat, _, err := LoadRecorded(ctx, opts)
	return cat, err
}

// LoadRecorded is Load that also returns the Record of what it read.
func LoadRecorded(ctx context.Context, opts Options) (*ir.Catalog, *Record, error) {
	return LoadResolved(ctx, Resolve(opts, Policy{}, Env{}))
}

// LoadResolved is LoadRecorded of what Resolve decided: package compiler
// resolves the host policy's roots, exclusions and limits with the
// caller's options, and package catcache keys its files by the result.
func LoadResolved(ctx context.Context, res Resolved) (*ir.Catalog, *Record, error) {
	opts := Options{Exclude: res.Exclude, Limits: res.Limits, Prior: res.Prior, PriorOwned: res.PriorOwned}
	roots := res.Roots
	var (
		all     []found
		diags   ir.Diagnostics
		irRoots []ir.Root
		reached = map[string]bool{} // skill folders an earlier root found
		// scan diagnostics an earlier root gave (firstReport)
		reported = map[string]bool{}
		matched  = make([]bool, len(opts.Exclude))
	)
	var (
		listed   []FolderRecord
		scans    = make([]*Scan, len(roots))
		existing int // roots that exist
		replayed int
	)
	ea := newEarlier(opts.Prior)
	if opts.Prior != nil {
		all = make([]found, 0, len(opts.Prior.Units)) // as many as last time, most likely
	}
	// The roots are scanned on every core, each on its own; what they
	// found is taken in precedence order below.
	scanned := make([]scannedRoot, len(roots))
	err := parallel(ctx, len(roots), func(i int) {
		d := &scanned[i]
		d.fsRoot, d.sc, d.err = discover(roots[i].Dir, i, opts.Limits, ea)
	})
	for _, d := range scanned {
		if d.fsRoot != nil {
			defer d.fsRoot.Close()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	// Every skill folder a root's walk found, sorted, taken before the
	// roots' finds are kept once each (firstReach): a link into another
	// root is that root's only where it found a skill (intoOtherRoots).
	var foundDirs []string
	for _, d := range scanned {
		if d.sc != nil && len(d.sc.escapes) > 0 {
			foundDirs = allFound(scanned)
			break
		}
	}
	diags = append(diags, res.Refused...)
	hidden := map[string]bool{} // roots looked into for hidden skills (hiddenSkills)
	for i, root := range roots {
		irRoots = append(irRoots, ir.Root{Dir: root.Dir, Precedence: i})
		fsRoot, sc, err := scanned[i].fsRoot, scanned[i].sc, scanned[i].err
		if err != nil {
			// The built-in roots are places skills may be, so a missing
			// one is no mistake; a root the user named, even in the
			// environment, is.
			if root.Required() {
				re := &RootError{Root: root.Dir, Err: rootErr(err)}
				if root.Origin == FromEnv {
					re.Env = EnvSkillsRoot
				}
				return nil, nil, re
			}
			// A built-in root that is there but cannot be scanned (a
			// folder without read permission, a file) holds skills
			// the user meant to load: said, never passed over.
			if !Absent(err) {
				diags.Add(ir.Diagnostic{Root: root.Dir, Path: ".", Code: ir.CodeRootUnreadable, Severity: ir.SeverityWarning,
					Message: (&RootError{Root: root.Dir, Err: rootErr(err)}).Error() + "; its skills are not loaded"})
			}
			continue
		}
		founds, ds := sc.found, intoOtherRoots(sc, sc.diags, scanned, foundDirs)
		if len(founds) == 0 && root.Required() && !hidden[sc.rootReal] {
			// Read at every load, not recorded with the scan: what the
			// hidden folders hold is no part of the root's listing. A
			// default root is a place skills may be, and says nothing;
			// a root named twice says it once.
			hidden[sc.rootReal] = true
			ds = append(slices.Clone(ds), hiddenSkills(fsRoot, root.Dir, sc.rootReal, rootsReal(scanned))...)
		}
		existing++
		if sc.replayed {
			replayed++
		}
		scans[i] = sc.record(len(listed), len(listed)+len(sc.listed))
		listed = append(listed, sc.listed...)
		diags = append(diags, firstReport(reported, sc.rootReal, ds)...)
		exclude := resolveExcludes(fsRoot, opts.Exclude)
		reach := firstReach(reached, founds)
		all = slices.Grow(all, len(reach))
		for _, f := range reach {
			// Both the path the folder was found at and the folder it
			// resolves to are checked, so a symlink cannot bring an
			// excluded folder back under another name.
			if k := excludedBy(f, exclude); k >= 0 {
				matched[k] = true
				diags.Add(ir.Diagnostic{Root: f.root, Path: join(f.relDir, SkillFile), Code: ir.CodeExcluded, Severity: ir.SeverityInfo, Message: "skill folder excluded by host policy"})
				continue
			}
			all = append(all, f)
		}
	}
	for k, ok := range matched {
		if !ok {
			diags.Add(ir.Diagnostic{Path: "policy", Code: ir.CodeUnmatchedExclude, Severity: ir.SeverityWarning,
				Message: fmt.Sprintf("exclude entry %q leaves out no skill folder under any root; it is relative to each root", opts.Exclude[k])})
		}
	}
	if testHookAfterDiscover != nil {
		testHookAfterDiscover()
	}
	rec := &Record{Units: make([]UnitRecord, len(all)), Diags: slices.Clone(diags), Folders: listed, Scans: scans, Scanned: existing, Replayed: replayed}
	var prior map[string]*UnitRecord // see earlier.units
	if ea != nil {
		prior = ea.units
	}
	// Reused units are taken as they are from a prior owned by this load,
	// else copied into one allocation.
	var slab []ir.Unit
	if prior != nil && !opts.PriorOwned {
		slab = make([]ir.Unit, len(all))
	}
	if err := parallel(ctx, len(all), func(i int) {
		r := &rec.Units[i]
		r.Origin = all[i].origin
		if p, ok := reusable(all[i], prior); ok {
			r.Items, r.Trusted, r.Reused = p.Items, true, true
			u := p.Unit
			if slab != nil {
				u = &slab[i]
			}
			r.Unit, r.Diags = p.reuse(u)
		} else {
			rc := &recorder{trusted: all[i].trusted}
			r.Unit, r.Diags = loadOne(all[i], opts.Limits, rc)
			r.Items, r.Trusted = rc.items, rc.trusted && !hasCode(r.Diags, ir.CodeReadError)
		}
		r.Status = r.Unit.Status
	}); err != nil {
		return nil, nil, err
	}
	kept := make([]*ir.Unit, 0, len(all))
	for i := range rec.Units {
		diags = append(diags, rec.Units[i].Diags...)
		kept = append(kept, rec.Units[i].Unit)
	}
	diags = append(diags, shadow(kept)...)
	var priorOrder []int32
	if opts.Prior != nil {
		priorOrder = opts.Prior.Order
	}
	rec.Order = catalogOrder(kept, priorOrder)
	sorted := make([]*ir.Unit, len(kept))
	for j, i := range rec.Order {
		sorted[j] = kept[i]
	}
	return ir.NewCatalog(irRoots, sorted, diags), rec, nil
}

// scannedRoot is a root as discovery left it: open, scanned, or why not.
type scannedRoot struct {
	fsRoot *os.Root
	sc     *scanner
	err    error
}

// rootsReal returns the real paths of the roots scanned.
// intoOtherRoots returns ds with each path_escape of a symlinked folder that
// leads to skills another root of the load found told as what it is:
// that root's folder, loaded from there, an info. The skills CLIs link
// each skill of one client's folder into another's (.claude/skills/x ->
// ../../.agents/skills/x), and validate failed on every skill so linked,
// and compile said "not loaded" of a skill it had just loaded. A link
// into a part of the other root its walk passes over (a hidden folder,
// past its depth) loads nothing there, and stays an escape.
func intoOtherRoots(sc *scanner, ds ir.Diagnostics, scanned []scannedRoot, foundDirs []string) ir.Diagnostics {
	if len(sc.escapes) == 0 {
		return ds
	}
	var out ir.Diagnostics
	for _, d := range ds {
		if target, ok := sc.escapes[d.Path]; ok && d.Code == ir.CodePathEscape {
			for _, o := range scanned {
				if o.sc != nil && o.sc != sc && Within(o.sc.rootReal, target) && holdsFound(foundDirs, target) {
					d.Severity = ir.SeverityInfo
					d.Message = fmt.Sprintf("symlinked folder leads into the root %s, which loads what it holds; not loaded twice", ir.Printable(o.sc.root))
					break
				}
			}
		}
		out = append(out, d)
	}
	return out
}

// allFound returns the skill folders every root's walk found, sorted.
func allFound(scanned []scannedRoot) []string {
	var out []string
	for _, d := range scanned {
		if d.sc != nil {
			for _, f := range d.sc.found {
				out = append(out, f.dirReal)
			}
		}
	}
	slices.Sort(out)
	return out
}

// holdsFound reports whether dir, or a folder below it, is one of
// foundDirs (sorted).
func holdsFound(foundDirs []string, dir string) bool {
	i, ok := slices.BinarySearch(foundDirs, dir)
	if ok {
		return true
	}
	// The folders below dir sort among those that start with it.
	for ; i < len(foundDirs) && strings.HasPrefix(foundDirs[i], dir); i++ {
		if Within(dir, foundDirs[i]) {
			return true
		}
	}
	return false
}

func rootsReal(scanned []scannedRoot) map[string]bool {
	out := make(map[string]bool, len(scanned))
	for _, d := range scanned {
		if d.sc != nil {
			out[d.sc.rootReal] = true
		}
	}
	return out
}

// catalogOrder returns the catalog's order of units (see Record.Order):
// prior, the order of the load before, when it puts these units in that
// order (each once, strictly ascending), else the order they sort in.
func catalogOrder(units []*ir.Unit, prior []int32) []int32 {
	if len(prior) == len(units) && ordered(units, prior) {
		return prior
	}
	order := make([]int32, len(units))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return ir.CompareUnits(units[a], units[b]) })
	return order
}

// ordered reports whether order names each of units once and puts them in
// strictly ascending order.
func ordered(units []*ir.Unit, order []int32) bool {
	seen := make([]bool, len(units))
	for j, i := range order {
		if i < 0 || int(i) >= len(units) || seen[i] {
			return false
		}
		seen[i] = true
		if j > 0 && ir.CompareUnits(units[order[j-1]], units[i]) >= 0 {
			return false
		}
	}
	return true
}

// hasCode reports whether ds holds a diagnostic with code.
func hasCode(ds ir.Diagnostics, code ir.Code) bool {
	return slices.ContainsFunc(ds, func(d ir.Diagnostic) bool { return d.Code == code })
}

// testHookAfterDiscover, when set by a test, runs between discovery and
// reading, where a hostile disk would swap a folder.
var testHookAfterDiscover func()

// testHookList and testHookRead, when set by a test, hear of every folder
// listed and every SKILL.md read from disk (not taken from a Record).
// testHookWalk hears of every folder a scan walks (not replayed).
var (
	testHookList func(dirReal string)
	testHookRead func(fileReal string)
	testHookWalk func(dirReal string)
)

func rootErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// resolveExcludes returns, for each exclusion pattern, the folder it names
// and, when that folder exists through symlinks, the folder it resolves to
// inside the root, so that excluding a symlink excludes its target under
// every name.
func resolveExcludes(root *os.Root, patterns []string) [][]string {
	out := make([][]string, len(patterns))
	base := root.Name()
	for i, p := range patterns {
		p = strings.Trim(path.Clean(p), "/")
		out[i] = []string{p}
		real, err := filepath.EvalSymlinks(filepath.Join(base, filepath.FromSlash(p)))
		if err != nil || !Within(base, real) {
			continue
		}
		if rel := relTo(base, real); rel != p {
			out[i] = append(out[i], rel)
		}
	}
	return out
}

// excludedBy returns the index of the first pattern that leaves f out, by
// the path it was found at or the folder it resolves to, or -1.
func excludedBy(f found, patterns [][]string) int {
	for i, ps := range patterns {
		for _, p := range ps {
			if under(f.relDir, p) || under(f.relReal, p) {
				return i
			}
		}
	}
	return -1
}

// under reports whether the slash-separated relDir is p or below it.
func under(relDir, p string) bool {
	return relDir == p || strings.HasPrefix(relDir, p+"/")
}

// parallel runs f for 0..n-1 on all cores. Results are written by index, so
// the outcome never depends on scheduling. The workers take the next index
// from a counter: a unit taken from the cache is a few microseconds of
// work, about what handing it over a channel would cost. A panic in f is
// returned as an error (the first one, after every other index ran): f
// reads files a stranger wrote, and a panic on a worker goroutine would
// end the process past any recover of the caller's (a hook must exit 0,
// a server keep its last catalog).
func parallel(ctx context.Context, n int, f func(int)) error {
	var (
		wg       sync.WaitGroup
		next     atomic.Int64
		cut      atomic.Value // the context's error, when it left an index undone
		panicked atomic.Pointer[error]
	)
	run := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				err := fmt.Errorf("internal error while loading (a bug in rlmc): %v", r)
				panicked.CompareAndSwap(nil, &err)
			}
		}()
		f(i)
	}
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					cut.Store(err)
					return
				}
				run(i)
			}
		})
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		return *p
	}
	err, _ := cut.Load().(error)
	return err
}

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidName reports whether name follows the Agent Skills naming rule.
func ValidName(name string) bool {
	return len(name) >= 1 && len(name) <= 64 && nameRE.MatchString(name)
}

// loadOne reads, parses and normalizes one skill, stamping in rc every
// file it reads or stats beside SKILL.md. It never returns a nil unit.
func loadOne(f found, limits Limits, rc *recorder) (*ir.Unit, ir.Diagnostics) {
	relFile := join(f.relDir, SkillFile)
	folder := path.Base(f.relDir)
	if f.relDir == "." {
		folder = filepath.Base(f.rootReal)
	}
	u := &ir.Unit{
		Name: folder, Root: f.root, Precedence: f.precedence, Path: relFile,
		Variant: ir.VariantAgentSkills, Invocation: ir.InvocationAutomatic, Status: ir.StatusOK,
		Priority: ir.DefaultPriority, File: f.fileReal, RootDir: f.rootReal,
	}
	s := &diagSink{path: relFile}
	// The folder is opened as its own root so that its files are confined
	// to it at open time; failing to open it means the files that could
	// restrict the unit cannot be read, so the unit is invalid.
	dir, err := f.fsRoot.OpenRoot(f.relReal)
	if err != nil {
		s.add(0, ir.CodeReadError, ir.SeverityError, "cannot open the skill folder: %v", rootErr(err))
		u.Status = ir.StatusInvalid
		return u, withRoot(s.diags, f.root)
	}
	defer dir.Close()
	// A SKILL.md symlinked elsewhere in the root is read through the root;
	// any other through its folder, which is cheaper.
	from, name := dir, SkillFile
	if f.fileLinked {
		from, name = f.fsRoot, join(f.relReal, SkillFile)
	}
	if testHookRead != nil {
		testHookRead(f.fileReal)
	}
	content, err := safefs.ReadFile(from, name, limits.MaxFileBytes)
	if err != nil {
		if errors.Is(err, safefs.ErrTooLarge) {
			s.add(0, ir.CodeFileTooLarge, ir.SeverityError, "SKILL.md is larger than the limit of %d bytes", limits.MaxFileBytes)
		} else {
			s.add(0, ir.CodeReadError, ir.SeverityError, "cannot read SKILL.md: %v", rootErr(err))
		}
		u.Status = ir.StatusInvalid
		return u, withRoot(s.diags, f.root)
	}
	sum := sha256.Sum256(content)
	u.SHA256, u.Size = hex.EncodeToString(sum[:]), int64(len(content))
	p, ds := ParseSkill(relFile, content, limits)
	s.diags = append(s.diags, ds...)
	if p == nil || p.Refused {
		if p != nil {
			nameUnit(u, p.Frontmatter, s)
		}
		u.Status = ir.StatusInvalid
		return u, withRoot(s.diags, f.root)
	}
	normalize(u, p, f, dir, s, rc)
	if s.diags.HasErrors() {
		u.Status = ir.StatusInvalid
	}
	return u, withRoot(s.diags, f.root)
}

func withRoot(ds ir.Diagnostics, root string) ir.Diagnostics {
	for i := range ds {
		ds[i].Root = root
	}
	return ds
}

// normalize folds the frontmatter and the variant files beside SKILL.md into
// the unit, reporting every problem to s.
func normalize(u *ir.Unit, p *Parsed, f found, dir *os.Root, s *diagSink, rc *recorder) {
	fm := p.Frontmatter
	u.BodyOffset, u.Headings, u.Lead = p.BodyOffset, p.Headings, p.Lead
	nameUnit(u, fm, s)
	switch n := len([]rune(fm.Description)); {
	case strings.TrimSpace(ir.StripIgnorable(fm.Description)) == "":
		// Invisible characters alone (a zero-width space) say nothing,
		// as blanks do.
		s.add(max(fm.DescriptionLine, 1), ir.CodeMissingDescription, ir.SeverityError, "description is required")
	case n > 1024:
		s.add(fm.DescriptionLine, ir.CodeDescriptionTooLong, ir.SeverityError, "description is %d characters; the limit is 1024", n)
	}
	if n := len([]rune(fm.Compatibility)); n > 500 {
		s.add(fm.CompatibilityLine, ir.CodeCompatibilityTooLong, ir.SeverityError, "compatibility is %d characters; the limit is 500", n)
	}
	u.Description, u.WhenToUse = fm.Description, fm.WhenToUse
	u.License, u.Compatibility = fm.License, fm.Compatibility
	u.Metadata, u.AllowedTools, u.HostFields = fm.Metadata, fm.AllowedTools, fm.HostFields

	explicitOnly := fm.DisableModelInvocation
	claude := fm.DisableModelInvocation || fm.WhenToUse != "" || len(fm.HostFields) > 0
	switch {
	case claude || strings.Contains(filepath.ToSlash(f.root), ".claude"):
		u.Variant = ir.VariantClaudeCode
	case strings.Contains(filepath.ToSlash(f.root), "opencode"):
		u.Variant = ir.VariantOpenCode
	}

	if data, ok := readBeside(f, dir, CodexPolicyFile, s, rc); ok {
		u.Variant = ir.VariantCodex
		pol, miss, err := ParseCodexPolicy(data)
		for _, m := range miss {
			s.diags.Add(ir.Diagnostic{Path: path.Join(path.Dir(s.path), CodexPolicyFile), Line: m.Line, Code: ir.CodeMisspelledField, Severity: ir.SeverityWarning,
				Message: fmt.Sprintf("key %q is read as %q: spell it so", m.Key, m.Want)})
		}
		if err != nil {
			s.addBeside(CodexPolicyFile, ir.CodeInvalidCodexPolicy, err)
		} else if !pol.AllowImplicit {
			explicitOnly = true
		}
	} else {
		misnamedCodexPolicy(f, dir, s, rc)
	}
	if data, ok := readBeside(f, dir, ManifestFile, s, rc); ok {
		u.Variant = ir.VariantSkillRouter
		m, err := ParseManifest(data)
		if err != nil {
			s.addBeside(ManifestFile, ir.CodeInvalidManifest, err)
		} else {
			applyManifest(u, m)
		}
	}
	if text, ok := fm.Metadata[PrologRLMKey]; ok {
		u.Variant = ir.VariantPrologRLM
		m, err := ParsePrologRLM(text)
		switch {
		case errors.Is(err, ErrUnsupportedSchema):
			s.add(fm.MetadataLines[PrologRLMKey], ir.CodeUnsupportedPrologRLM, ir.SeverityError, "metadata.prolog-rlm: %v", err)
		case err != nil:
			s.add(fm.MetadataLines[PrologRLMKey], ir.CodeInvalidPrologRLM, ir.SeverityError, "metadata.prolog-rlm: %v", err)
		default:
			applyPrologRLM(u, m)
			u.RequiresLine = fm.MetadataLines[PrologRLMKey]
			if m.Activation != nil && !*m.Activation.Automatic {
				explicitOnly = true // restrictive wins over disable-model-invocation: false
			}
		}
	}
	if explicitOnly {
		u.Invocation = ir.InvocationExplicitUser
	} else if deprecated.MatchString(fm.Description) {
		s.add(fm.DescriptionLine, ir.CodeDeprecatedSkill, ir.SeverityWarning, "the description says the skill is deprecated, yet a task's words can still select it: set disable-model-invocation: true (it then loads only when asked for by name), or remove it")
	}
	u.Resources = resources(f, p.Links, s, rc)
}

// deprecated matches a description that opens by marking its skill
// deprecated, as collections mark a skill they keep for old commands
// ("[DEPRECATED] Write failing tests ...", "Deprecated: use x instead"):
// a mark, not a description that starts with the word ("Deprecated API
// finder").
var deprecated = regexp.MustCompile(`^\s*(?:[\[(](?i:deprecated)[\])]|(?i:deprecated)\s*[:\x{2014}\x{2013}]|DEPRECATED\b)`)

// nameUnit names u, so far named after its folder, by the frontmatter's
// name, reporting a missing, invalid or mismatched one to s.
func nameUnit(u *ir.Unit, fm Frontmatter, s *diagSink) {
	folder := u.Name
	switch {
	case !fm.HasName || fm.Name == "":
		// A missing name takes the folder name, as Claude Code does. A folder
		// name can hold anything but "/" and NUL, so it must pass the same
		// rule as a written name before it can name a block.
		if !ValidName(folder) {
			s.add(0, ir.CodeInvalidName, ir.SeverityError, "folder name %s, taken as the name, must be 1-64 characters of a-z, 0-9 and single hyphens, not starting or ending with a hyphen", ir.Printable(clip(folder)))
		}
	case !ValidName(fm.Name) && ValidName(folder):
		// A display name ("Flutter BLoC State Management"), as skills
		// written for Claude Code often have and it lists: the skill is
		// kept, named after its folder, which names it in a block, a
		// selection or a denial.
		s.add(fm.NameLine, ir.CodeInvalidName, ir.SeverityWarning, "name %q is not a skill name (1-64 characters of a-z, 0-9 and single hyphens, not starting or ending with a hyphen): the skill is named after its folder, %s", clip(fm.Name), folder)
	case !ValidName(fm.Name):
		u.Name = fm.Name
		s.add(fm.NameLine, ir.CodeInvalidName, ir.SeverityError, "name %q must be 1-64 characters of a-z, 0-9 and single hyphens, not starting or ending with a hyphen", clip(fm.Name))
	default:
		u.Name = fm.Name
		if fm.Name != folder {
			s.add(fm.NameLine, ir.CodeNameMismatch, ir.SeverityWarning, "name %q does not match its folder %q", fm.Name, folder)
		}
	}
}

// clip cuts a value a message quotes to 80 bytes.
func clip(s string) string { return ir.Clip(s, 80) }

// readBeside reads a variant file in the skill folder, through dir (the
// folder opened as a root), refusing one that is a symlink out of the
// folder or not a regular file. Only a file that does not exist is absent:
// any other failure is an error, because a variant file can make the unit
// more restrictive, and one that cannot be read must never leave it more
// permissive.
func readBeside(f found, dir *os.Root, rel string, s *diagSink, rc *recorder) ([]byte, bool) {
	path := filepath.Join(f.dirReal, filepath.FromSlash(rel))
	if absentFrom(f, path) {
		// The folder's listing, read (or found unchanged) by this load's
		// discovery, has no such entry: absent, without a stat. An entry
		// made since changes the folder's stamp, so the next load lists
		// it again and sees it.
		rc.items = append(rc.items, Item{Path: path, Stamp: "absent"})
		return nil, false
	}
	rc.stamp(path)
	if _, err := dir.Lstat(rel); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.addAt(rel, ir.CodeReadError, ir.SeverityError, "cannot be read: %v", rootErr(err))
		}
		return nil, false
	}
	// Resolving the path only classifies an escape for the diagnostic;
	// the read below is confined by dir whatever happens in between.
	real, err := filepath.EvalSymlinks(filepath.Join(f.dirReal, filepath.FromSlash(rel)))
	if err != nil {
		// As for a SKILL.md link: the file is there, and cannot be
		// read, so the unit is no more permissive than it says.
		s.addAt(rel, ir.CodeSymlinkLoop, ir.SeverityError, "symlink cannot be resolved (loop or dangling); rejected")
		return nil, false
	}
	if !Within(f.dirReal, real) {
		s.addAt(rel, ir.CodePathEscape, ir.SeverityError, "resolves outside the skill folder; rejected")
		return nil, false
	}
	data, err := safefs.ReadFile(dir, rel, 64<<10)
	if err != nil {
		s.addAt(rel, ir.CodeReadError, ir.SeverityError, "cannot be read: %v", rootErr(err))
		return nil, false
	}
	return data, true
}

// misnamedCodexPolicy reports a Codex settings file named otherwise than
// agents/openai.yaml ("agents/OpenAI.yaml", "agents/openai.yml"), which
// Codex does not read either: its "allow_implicit_invocation: false"
// would leave the skill automatic without a word.
func misnamedCodexPolicy(f found, dir *os.Root, s *diagSink, rc *recorder) {
	agents := path.Dir(CodexPolicyFile)
	full := filepath.Join(f.dirReal, agents)
	if absentFrom(f, full) {
		return
	}
	rc.stamp(full) // a file renamed in it changes its stamp
	entries, err := fs.ReadDir(dir.FS(), agents)
	if err != nil {
		return
	}
	want := path.Base(CodexPolicyFile)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == want {
			continue
		}
		if strings.EqualFold(name, want) || strings.EqualFold(name, strings.TrimSuffix(want, ".yaml")+".yml") {
			s.diags.Add(ir.Diagnostic{Path: path.Join(path.Dir(s.path), agents, name), Code: ir.CodeMisnamedSkillFile, Severity: ir.SeverityWarning,
				Message: fmt.Sprintf("%s is not read: Codex's settings file must be named %s", ir.Printable(path.Join(agents, name)), CodexPolicyFile)})
		}
	}
}

func applyManifest(u *ir.Unit, m *Manifest) {
	add := func(kind ir.TriggerKind, values []string) {
		for _, v := range values {
			if v = strings.TrimSpace(v); v != "" {
				u.Triggers = append(u.Triggers, ir.Trigger{Kind: kind, Value: v, Weight: ir.DefaultTriggerWeight})
			}
		}
	}
	u.Aliases = append(u.Aliases, m.Aliases...)
	add(ir.TriggerKeyword, m.Keywords)
	add(ir.TriggerPhrase, m.UseWhen)
	intents := make([]string, 0, len(m.Intents))
	for k := range m.Intents {
		intents = append(intents, k)
	}
	sort.Strings(intents)
	for _, k := range intents {
		add(ir.TriggerPhrase, m.Intents[k])
	}
	add(ir.TriggerNeed, m.Capabilities)
	add(ir.TriggerObject, m.Objects)
	add(ir.TriggerVerb, m.Actions)
	for _, c := range m.Commands {
		add(ir.TriggerKeyword, c.Keywords)
	}
	u.NegativeTriggers = append(u.NegativeTriggers, m.NotWhen...)
	for _, c := range m.ConflictsWith {
		u.Conflicts = append(u.Conflicts, ir.Ref{Kind: ir.RefSkill, Name: c})
	}
}

func applyPrologRLM(u *ir.Unit, m *PrologRLM) {
	u.Category = m.Category
	u.Aliases = append(u.Aliases, m.Aliases...)
	for _, t := range m.Triggers {
		w := ir.DefaultTriggerWeight
		if t.Weight != nil {
			w = *t.Weight
		}
		u.Triggers = append(u.Triggers, ir.Trigger{Kind: t.Kind, Value: t.Value, Weight: w})
	}
	refs := func(in []PrologRef) []ir.Ref {
		out := make([]ir.Ref, 0, len(in))
		for _, r := range in {
			out = append(out, ir.Ref{Kind: r.Kind, Name: r.Name})
		}
		return out
	}
	u.Requires, u.Suggests = refs(m.Requires), refs(m.Suggests)
	u.Conflicts = append(u.Conflicts, refs(m.Conflicts)...)
	u.Supersedes = refs(m.Supersedes)
	if m.Priority != nil {
		u.Priority = *m.Priority
	}
}

// shadow marks every unit that loses its name to a higher-precedence unit,
// within one root to the unit whose folder bears the name (the Agent
// Skills format asks for it: a folder "a-evil" whose SKILL.md says
// "name: deploy" sorted first and took deploy's name and tasks), and
// else to an earlier path in byte order.
func shadow(units []*ir.Unit) ir.Diagnostics {
	// Names are nearly all unique: only a repeated one gets a group, with
	// the units that bear it in catalog order.
	first := make(map[string]int, len(units))
	var byName map[string][]*ir.Unit
	for i, u := range units {
		j, seen := first[u.Name]
		if !seen {
			first[u.Name] = i
			continue
		}
		if byName == nil {
			byName = map[string][]*ir.Unit{}
		}
		if byName[u.Name] == nil {
			byName[u.Name] = []*ir.Unit{units[j]}
		}
		byName[u.Name] = append(byName[u.Name], u)
	}
	var diags ir.Diagnostics
	for _, group := range byName {
		sort.Slice(group, func(i, j int) bool {
			if group[i].Precedence != group[j].Precedence {
				return group[i].Precedence < group[j].Precedence
			}
			if fi, fj := inOwnFolder(group[i]), inOwnFolder(group[j]); fi != fj {
				return fi
			}
			return group[i].Path < group[j].Path
		})
		win := group[0]
		for _, u := range group[1:] {
			u.Status = ir.StatusShadowed
			u.ShadowedBy = filepath.ToSlash(filepath.Join(win.Root, win.Path))
			diags.Add(ir.Diagnostic{
				Root: u.Root, Path: u.Path, Code: ir.CodeShadowed, Severity: ir.SeverityWarning,
				Message: fmt.Sprintf("skill %q at %s is shadowed by %s", u.Name, filepath.ToSlash(filepath.Join(u.Root, u.Path)), u.ShadowedBy),
			})
		}
	}
	return diags
}

// inOwnFolder reports whether u's SKILL.md is in a folder of u's name.
func inOwnFolder(u *ir.Unit) bool { return path.Base(path.Dir(u.Path)) == u.Name }

// ReadBody returns the unit's body (the SKILL.md after its frontmatter) with
// line endings normalized. It re-reads the file and verifies it against the
// digest taken at discovery, so a file changed since then is an error, never
// a stale or swapped body.
func ReadBody(u *ir.Unit) (string, error) {
	root, err := os.OpenRoot(u.RootDir)
	if err != nil {
		return "", fmt.Errorf("%s: %w: %w", u.Path, ErrChanged, err)
	}
	defer root.Close()
	data, err := safefs.ReadFile(root, u.Path, u.Size)
	if errors.Is(err, safefs.ErrTooLarge) {
		// Read up to the size it was loaded at: a larger file grew.
		return "", fmt.Errorf("%s: %w: it is larger than the %d bytes it was loaded at", u.Path, ErrChanged, u.Size)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w: %w", u.Path, ErrChanged, err)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != u.SHA256 || u.BodyOffset > int64(len(data)) {
		return "", fmt.Errorf("%s: %w", u.Path, ErrChanged)
	}
	return strings.ReplaceAll(string(data[u.BodyOffset:]), "\r\n", "\n"), nil
}

// ErrChanged reports a SKILL.md that no longer matches the catalog, or
// can no longer be read (its root moved away).
var ErrChanged = errors.New("SKILL.md changed or went away since it was loaded")
