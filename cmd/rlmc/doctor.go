package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/lockfile"
	"github.com/rlmc-dev/rlmc/ir"
)

// doctorParams are the flags of `rlmc doctor`.
type doctorParams struct {
	catalogFlags
	lock     string
	checkout string
}

func newDoctorCmd(stdout io.Writer) *cobra.Command {
	var p doctorParams
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what rlmc sees (roots, units, policy, dependency graph, tokens) and what is wrong; exit 1 on any error",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := p.check(); err != nil {
				return err
			}
			if p.checkout != "" && p.lock == "" {
				return usageError("--checkout needs --lock FILE")
			}
			return runDoctor(cmd.Context(), p, stdout, cmd.ErrOrStderr())
		},
	}
	p.register(cmd)
	cmd.Flags().StringVar(&p.lock, "lock", "", "vendor lock `FILE` to verify the roots' checkout against")
	cmd.Flags().StringVar(&p.checkout, "checkout", "", "the checkout `DIR` the lock pins (default: the nearest folder holding a root that has the lock's top-level entries)")
	return cmd
}

// Root origins, as doctor reports them.
const (
	originFlag    = "flag"
	originPolicy  = "policy"
	originEnv     = "environment"
	originDefault = "default"
)

// originName is how doctor reports where a root came from.
func originName(o loader.RootOrigin) string {
	switch o {
	case loader.FromFlag:
		return originFlag
	case loader.FromPolicy:
		return originPolicy
	case loader.FromEnv:
		return originEnv
	}
	return originDefault
}

// doctorRoot is one root in precedence order, where it came from, whether
// it can be scanned and what it holds.
type doctorRoot struct {
	Dir    string `json:"dir"`
	Origin string `json:"origin"`
	// State is ok, absent (a default root), missing, not_a_folder or
	// "same folder as root N".
	State string `json:"state"`
	doctorCounts
}

// doctorCounts are the units of a root or of the catalog by standing.
type doctorCounts struct {
	Units        int `json:"units"`
	OK           int `json:"ok"`
	ExplicitOnly int `json:"explicit_only"`
	Invalid      int `json:"invalid"`
	Shadowed     int `json:"shadowed"`
}

// doctorFinding is one thing doctor found, in a section of its report.
type doctorFinding struct {
	Section  string      `json:"section"`
	Severity ir.Severity `json:"severity"`
	Code     string      `json:"code"`
	Message  string      `json:"message"`
}

// doctorReport is everything `rlmc doctor` prints, in JSON as in text.
type doctorReport struct {
	Roots    []doctorRoot    `json:"roots"`
	Units    doctorCounts    `json:"units"` // totals over the catalog
	Policy   string          `json:"policy,omitempty"`
	Lock     string          `json:"lock,omitempty"`
	Checkout string          `json:"checkout,omitempty"`
	Findings []doctorFinding `json:"findings"`
	Tokens   struct {
		Tokenizer string `json:"tokenizer"`
		Units     int    `json:"units"`
		Total     int    `json:"total"`
	} `json:"tokens"`
	OtherWarnings int `json:"other_warnings"` // catalog warnings doctor does not list; rlmc validate does
	Errors        int `json:"errors"`
	Warnings      int `json:"warnings"`
}

// add records a finding and counts it by severity.
func (r *doctorReport) add(section string, sev ir.Severity, code, format string, args ...any) {
	r.Findings = append(r.Findings, doctorFinding{Section: section, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
	switch sev {
	case ir.SeverityError:
		r.Errors++
	case ir.SeverityWarning:
		r.Warnings++
	}
}

// Codes of doctor's own findings; the rest are diagnostic codes (ir.Code).
const (
	findCacheOff            = "cache_off"
	findCheckoutNotFound    = "checkout_not_found"
	findDuplicateRoot       = "duplicate_root"
	findLockMismatch        = "lock_mismatch"
	findLockOk              = "lock_ok"
	findLockUnreadable      = "lock_unreadable"
	findLockVerifyFailed    = "lock_verify_failed"
	findHookFailed          = "hook_failed"
	findHookNotFound        = "hook_command_not_found"
	findHookOK              = "hook_ok"
	findHookSettings        = "hook_settings_invalid"
	findHookTimeout         = "hook_timeout"
	findHookTwice           = "hook_twice"
	findHookNotRun          = "hook_not_run"
	findHookGoRun           = "hook_go_run"
	findHookNotClaudeCode   = "hook_not_claude_code"
	findHookLeavesClaudeOwn = "hook_leaves_claude_skills"
	findHookRoots           = "hook_roots"
	findHookRelativeRoot    = "hook_relative_root"
	findHookSkillTwice      = "hook_skill_twice"
	findNoRoot              = "no_root"
	findNoUnits             = "no_units"
	findAllDenied           = "all_denied"
	findOverlappingRoot     = "overlapping_root"
	findUnreadableBody      = "unreadable_body"
)

// deniedAll returns how many units c's catalog holds when its host policy
// denies each of them (a deny list copied from another project, or
// meant for one skill's name that is all the catalog holds), else 0.
func deniedAll(c *compiler.Compiler) int {
	if r := c.Reach(); r.DeniedAll {
		return r.Units
	}
	return 0
}

// Sections of the report, in the order they print.
const (
	secRoots     = "roots"
	secUnits     = "units"
	secShadowing = "shadowing"
	secPolicy    = "policy entries"
	secGraph     = "dependency graph"
	secResources = "resource links"
	secLock      = "vendor lock"
	secTokens    = "tokens"
	secHook      = "claude code hook"
)

var doctorSections = []string{secRoots, secUnits, secShadowing, secPolicy, secGraph, secResources, secLock, secTokens, secHook}

// runDoctor gathers the report, prints it and fails when it holds an
// error.
func runDoctor(ctx context.Context, p doctorParams, stdout, stderr io.Writer) error {
	var pol compiler.Policy
	if p.policy != "" {
		var err error
		if pol, err = compiler.LoadPolicy(p.policy); err != nil {
			return usageError("%v", err)
		}
	}
	r := &doctorReport{Roots: []doctorRoot{}, Findings: []doctorFinding{}, Policy: p.policy, Lock: p.lock}
	// The roots a command would load, in precedence order, with where
	// each came from, as every command resolves them.
	resolved := compiler.Resolve(loader.Options{Roots: p.roots}, pol, compiler.Env{})
	roots := resolved.Roots
	dirs := make([]string, len(roots))
	for i, root := range roots {
		dirs[i] = root.Dir
	}

	// Roots: only those that are folders are loaded; which of the others
	// is an error depends on who named it.
	var scan []string
	rowOf := map[int]int{} // index in scan -> index in r.Roots
	for i, root := range roots {
		d := root.Dir
		row := doctorRoot{Dir: d, Origin: originName(root.Origin), State: "ok"}
		// The loader's own check, so that doctor reports every root the
		// load would refuse (an unreadable folder too) instead of failing.
		err := loader.CheckRoot(d)
		// A built-in root that is there but cannot be scanned is left
		// out of the load with a warning; a named one fails it.
		code, sev := ir.CodeRootNotFound, ir.SeverityError
		if !root.Required() {
			code, sev = ir.CodeRootUnreadable, ir.SeverityWarning
		}
		switch {
		case err == nil:
			rowOf[len(scan)] = i
			scan = append(scan, d)
		case loader.Absent(err) && !root.Required():
			row.State = "absent"
		case errors.Is(err, fs.ErrNotExist):
			row.State = "missing"
			r.add(secRoots, ir.SeverityError, string(ir.CodeRootNotFound), "root %d %s (%s) does not exist", i+1, ir.Printable(d), row.Origin)
		case errors.Is(err, loader.ErrNotFolder):
			row.State = "not_a_folder"
			r.add(secRoots, sev, string(code), "root %d %s (%s) is not a folder", i+1, ir.Printable(d), row.Origin)
		default:
			row.State = "unreadable"
			r.add(secRoots, sev, string(code), "root %d %s (%s) cannot be read: %s", i+1, ir.Printable(d), row.Origin, ir.EscapeText(errors.Unwrap(err).Error()))
		}
		r.Roots = append(r.Roots, row)
	}
	// One finding per root that overlaps an earlier-listed one: a root
	// inside two others, or listed three times, is said once.
	reported := map[int]bool{}
	for _, o := range loader.RootOverlaps(scan) {
		outer, inner := rowOf[o.Outer], rowOf[o.Inner]
		if reported[inner] {
			continue
		}
		reported[inner] = true
		if o.Same {
			r.Roots[inner].State = fmt.Sprintf("same folder as root %d", outer+1)
			if roots[inner].Origin == loader.FromDefault && roots[outer].Origin == loader.FromDefault {
				if filepath.Clean(dirs[inner]) == filepath.Clean(dirs[outer]) {
					// Run from the home directory, the project roots are
					// the user roots: nothing to fix.
					r.add(secRoots, ir.SeverityInfo, findDuplicateRoot, "root %d is root %d (the project roots are the user roots here): its skills are loaded once, from root %d",
						inner+1, outer+1, outer+1)
					continue
				}
				// Two clients' folders made one (.agents linked to
				// .claude): a layout of the user's, said as it is.
				r.add(secRoots, ir.SeverityInfo, findDuplicateRoot, "root %d %s is the same folder as root %d %s (one is a link to the other): its skills are loaded once, from root %d",
					inner+1, ir.Printable(dirs[inner]), outer+1, ir.Printable(dirs[outer]), outer+1)
				continue
			}
			r.add(secRoots, ir.SeverityWarning, findDuplicateRoot, "root %d %s is the same folder as root %d %s: its skills are loaded once, from root %d; list it once",
				inner+1, ir.Printable(dirs[inner]), outer+1, ir.Printable(dirs[outer]), outer+1)
			continue
		}
		first := min(outer, inner)
		r.add(secRoots, ir.SeverityWarning, findOverlappingRoot, "root %d %s lies inside root %d %s: the skills under it are loaded once, from root %d",
			inner+1, ir.Printable(dirs[inner]), outer+1, ir.Printable(dirs[outer]), first+1)
	}

	// The catalog, loaded from the roots that exist. With none, it is
	// empty: an empty list would mean the default roots to the loader.
	var (
		c   *compiler.Compiler
		err error
	)
	if len(scan) > 0 {
		cache, offs := doctorCache(p.noCache, stderr)
		c, err = compiler.LoadWith(ctx, loader.Options{Roots: scan}, pol, cache)
		// A cache that is off is a finding, not a line on stderr: a
		// command runs without it, but a hook on a large catalog answers
		// only from it.
		for _, off := range offs() {
			r.add(secHook, ir.SeverityWarning, findCacheOff, "%s; the hook answers a large catalog's prompts only from the cache", ir.EscapeText(cacheOffText(off)))
		}
	} else {
		c, err = compiler.New(ir.NewCatalog(nil, nil, nil), pol)
	}
	if err != nil {
		return err
	}
	cat := c.Catalog()
	for _, u := range cat.Units {
		row := &r.Roots[rowOf[u.Precedence]]
		for _, t := range []*doctorCounts{&row.doctorCounts, &r.Units} {
			t.Units++
			switch {
			case u.Status == ir.StatusInvalid:
				t.Invalid++
			case u.Status == ir.StatusShadowed:
				t.Shadowed++
			default:
				t.OK++
				if u.Invocation == ir.InvocationExplicitUser {
					t.ExplicitOnly++
				}
			}
		}
		if u.Status == ir.StatusShadowed {
			r.add(secShadowing, ir.SeverityWarning, string(ir.CodeShadowed), "%s at %s (root %d) is shadowed by %s",
				ir.Printable(u.Name), ir.Printable(u.Path), rowOf[u.Precedence]+1, ir.Printable(u.ShadowedBy))
		}
	}
	for _, d := range resolved.Refused {
		// A project folder the built-in roots left out as untrusted.
		r.add(secRoots, d.Severity, string(d.Code), "%s: %s", ir.Printable(d.Root), d.Message)
	}
	if len(scan) == 0 && r.Errors == 0 && len(resolved.Refused) == 0 {
		// Only default roots, all absent: nothing is wrong with them,
		// but no compile can select anything.
		r.add(secRoots, ir.SeverityWarning, findNoRoot, "%s", noRootText)
	}
	if len(scan) > 0 && r.Units.Units == 0 {
		r.add(secUnits, ir.SeverityWarning, findNoUnits, "no skill found under any root: every compile selects nothing")
	}
	if n := deniedAll(c); n > 0 {
		r.add(secPolicy, ir.SeverityWarning, findAllDenied, "the host policy denies every unit (%d): every compile selects nothing", n)
	}

	// Diagnostics, each in its section; those doctor does not list are
	// counted, and rlmc validate lists them.
	rootNumber := map[string]int{}
	for i := len(scan) - 1; i >= 0; i-- {
		rootNumber[scan[i]] = rowOf[i] + 1
	}
	for _, d := range c.Diagnostics() {
		where := d.Position()
		if n, ok := rootNumber[d.Root]; ok {
			where = fmt.Sprintf("%s (root %d)", where, n)
		}
		switch {
		case d.Code == ir.CodeShadowed || d.Code == ir.CodeExcluded:
			// Shadowing is listed per unit above; exclusions are the
			// policy doing its job.
		case (d.Code == ir.CodeUnknownPolicyUnit || d.Code == ir.CodeUnmatchedExclude) && d.Line > 0:
			r.add(secPolicy, d.Severity, string(d.Code), "%s: %s", where, ir.EscapeText(d.Message))
		case d.Code == ir.CodeUnknownPolicyUnit || d.Code == ir.CodeUnmatchedExclude:
			r.add(secPolicy, d.Severity, string(d.Code), "%s", ir.EscapeText(d.Message))
		case d.Code == ir.CodeScanLimit || d.Code == ir.CodeHiddenSkills:
			r.add(secRoots, d.Severity, string(d.Code), "%s: %s", where, ir.EscapeText(d.Message))
		case d.Code == ir.CodeMissingResource || d.Code == ir.CodeResourceEscape:
			r.add(secResources, d.Severity, string(d.Code), "%s: %s", where, ir.EscapeText(d.Message))
		case d.Severity == ir.SeverityError:
			r.add(secUnits, d.Severity, string(d.Code), "%s: %s", where, ir.EscapeText(d.Message))
		case d.Severity == ir.SeverityWarning:
			r.OtherWarnings++
		}
	}
	for _, d := range compiler.GraphProblems(cat, c.Policy()) {
		r.add(secGraph, d.Severity, string(d.Code), "%s: %s", d.Position(), ir.EscapeText(d.Message))
	}
	if p.lock != "" {
		doctorLock(r, p, scan)
	}

	// Tokens: what loading every unit that can be selected would cost.
	r.Tokens.Tokenizer = c.Policy().Tokenizer
	for i, tc := range bodyTokens(c, cat.Units, func(u *ir.Unit) bool { return u.Status == ir.StatusOK }) {
		switch {
		case !tc.counted:
		case tc.err != nil:
			r.add(secTokens, ir.SeverityError, findUnreadableBody, "%s: %s", ir.Printable(cat.Units[i].Path), ir.EscapeText(tc.err.Error()))
		default:
			r.Tokens.Units++
			r.Tokens.Total += tc.n
		}
	}
	c.StoreCache()

	if cwd, err := os.Getwd(); err == nil {
		home, _ := os.UserHomeDir()
		doctorHooks(ctx, r, cat, cwd, home)
	}

	if p.format == "json" {
		if err := writeJSON(stdout, r); err != nil {
			return err
		}
	} else {
		writeDoctor(stdout, r)
	}
	if r.Errors > 0 {
		return failed()
	}
	return nil
}

// doctorLock verifies the checkout the roots come from against the lock.
func doctorLock(r *doctorReport, p doctorParams, roots []string) {
	l, err := lockfile.Read(p.lock)
	if err != nil {
		r.add(secLock, ir.SeverityError, findLockUnreadable, "%s", ir.EscapeText(err.Error()))
		return
	}
	dir := p.checkout
	if dir == "" {
		dir = findCheckout(l, roots)
	}
	if dir == "" {
		r.add(secLock, ir.SeverityError, findCheckoutNotFound, "no root lies in a checkout of %s (no folder holding a root has the lock's top-level entries); give it with --checkout DIR", ir.Printable(l.Name))
		return
	}
	r.Checkout = dir
	rep, err := lockfile.Verify(dir, l)
	if err != nil {
		r.add(secLock, ir.SeverityError, findLockVerifyFailed, "%s", ir.EscapeText(err.Error()))
		return
	}
	if !rep.OK() {
		r.add(secLock, ir.SeverityError, findLockMismatch, "%s: %d missing, %d extra, %d changed files in %s; rlmc vendor verify %s --lock %s lists them",
			lockTitle(l, p.lock), len(rep.Missing), len(rep.Extra), len(rep.Changed), ir.Printable(dir), ir.Printable(dir), ir.Printable(p.lock))
		return
	}
	r.add(secLock, ir.SeverityInfo, findLockOk, "%s: %d files match in %s (%d not covered by the lock)",
		lockTitle(l, p.lock), rep.Checked, ir.Printable(dir), len(rep.Uncovered))
}

// lockTitle names a lock in doctor's findings: its name and commit, as
// far as it says them (`vendor lock` may write neither), else its file.
func lockTitle(l *lockfile.Lock, file string) string {
	name := ir.Printable(l.Name)
	if l.Name == "" {
		name = "the lock " + ir.Printable(file)
	}
	if l.Commit == "" {
		return name
	}
	return name + " at " + ir.EscapeText(short(l.Commit))
}

// findCheckout returns the nearest folder holding one of the roots (the
// root itself or up to three folders above it) in which every top-level
// entry the lock pins exists: the lock's paths are relative to its
// checkout, which usually holds the skills root as a subfolder.
func findCheckout(l *lockfile.Lock, roots []string) string {
	top := map[string]bool{}
	for _, f := range l.Files {
		top[strings.SplitN(f.Path, "/", 2)[0]] = true
	}
	if len(top) == 0 {
		return ""
	}
	for _, root := range roots {
		dir, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		for range 4 {
			ok := true
			for t := range top {
				if _, err := os.Lstat(filepath.Join(dir, t)); err != nil {
					ok = false
					break
				}
			}
			if ok {
				return dir
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return ""
}

// doctorListMax bounds each section's list so the report stays one screen;
// rlmc validate lists everything.
const doctorListMax = 8

func writeDoctor(w io.Writer, r *doctorReport) {
	fmt.Fprintln(w, "roots, first wins:")
	for i, row := range r.Roots {
		state := row.State
		if row.State == "ok" {
			state = standing(row.doctorCounts)
		}
		fmt.Fprintf(w, "  %d. %s (%s): %s\n", i+1, ir.Printable(row.Dir), row.Origin, strings.ReplaceAll(state, "_", " "))
	}
	if len(r.Roots) == 0 {
		fmt.Fprintln(w, "  none")
	}
	fmt.Fprintf(w, "catalog: %s\n", standing(r.Units))
	if r.Policy != "" {
		fmt.Fprintf(w, "policy file: %s\n", ir.Printable(r.Policy))
	}
	bySection := map[string][]doctorFinding{}
	for _, f := range r.Findings {
		bySection[f.Section] = append(bySection[f.Section], f)
	}
	for _, sec := range doctorSections {
		fs := bySection[sec]
		if sec == secGraph && len(fs) == 0 {
			fmt.Fprintln(w, "dependency graph: ok")
			continue
		}
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", sec)
		for i, f := range fs {
			if i == doctorListMax {
				fmt.Fprintf(w, "  ... and %d more (rlmc validate lists every diagnostic)\n", len(fs)-i)
				break
			}
			fmt.Fprintf(w, "  %s: %s: %s\n", f.Severity, f.Code, f.Message)
		}
	}
	fmt.Fprintf(w, "tokens: loading all %s would cost %d tokens (%s)\n", plural(r.Tokens.Units, "ok unit"), r.Tokens.Total, r.Tokens.Tokenizer)
	other := ""
	if r.OtherWarnings > 0 {
		other = fmt.Sprintf("; %d more %s in rlmc validate", r.OtherWarnings, pluralWord(r.OtherWarnings, "warning"))
	}
	fmt.Fprintf(w, "%s, %s%s\n", plural(r.Errors, "error"), plural(r.Warnings, "warning"), other)
}

// standing renders the counts of a root or of the catalog.
func standing(row doctorCounts) string {
	s := fmt.Sprintf("%s: %d ok", plural(row.Units, "unit"), row.OK)
	if row.ExplicitOnly > 0 {
		s += fmt.Sprintf(" (%d explicit-only)", row.ExplicitOnly)
	}
	if row.Invalid > 0 {
		s += fmt.Sprintf(", %d invalid", row.Invalid)
	}
	if row.Shadowed > 0 {
		s += fmt.Sprintf(", %d shadowed", row.Shadowed)
	}
	return s
}

// pluralWord returns noun, with an s unless n is 1.
func pluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
