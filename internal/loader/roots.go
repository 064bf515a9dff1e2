// Package loader discovers SKILL.md folders under a list of roots, parses
// every supported layout and normalizes each skill into an ir.Unit. It owns
// the discover, parse, normalize and validate stages of the pipeline.
package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/rlmc-dev/rlmc/ir"
)

// ProjectRootDirs are the project-level skill folders, highest precedence
// first, relative to the working directory.
var ProjectRootDirs = []string{
	".agents/skills",
	".claude/skills",
	".opencode/skills",
	".opencode/skill",
	".codex/skills",
	".github/skills",
	".cursor/skills",
}

// UserRootDirs are the user-level skill folders, relative to the home
// directory, used when RLMC_SKILLS_ROOT is not set.
var UserRootDirs = []string{
	".agents/skills",
	".claude/skills",
	".config/opencode/skills",
	".codex/skills",
}

// EnvSkillsRoot names the environment variable that replaces the user roots.
const EnvSkillsRoot = "RLMC_SKILLS_ROOT"

// DefaultRoots returns the roots used when none is given: project roots
// under cwd, then the user roots. Project beats user. getenv is os.Getenv
// in production and a stub in tests. Only Resolve calls it: every other
// package asks Resolve, which says where each root came from
// (TestDefaultRootsOnlyThroughResolve).
func DefaultRoots(cwd, home string, getenv func(string) string) []string {
	project, _ := projectDir(cwd, home)
	return defaultRoots(project, home, getenv)
}

// defaultRoots is DefaultRoots of the project folder projectDir found.
func defaultRoots(project, home string, getenv func(string) string) []string {
	var roots []string
	for _, d := range ProjectRootDirs {
		roots = append(roots, filepath.Join(project, filepath.FromSlash(d)))
	}
	if env := getenv(EnvSkillsRoot); env != "" {
		return append(roots, env)
	}
	if home == "" {
		return roots
	}
	for _, d := range UserRootDirs {
		roots = append(roots, filepath.Join(home, filepath.FromSlash(d)))
	}
	return roots
}

// RootOrigin says who named a root.
type RootOrigin uint8

// Root origins, from the one that wins down: Resolve takes the roots of
// the first that names any.
const (
	// FromFlag is a root of Options.Roots: a --root flag, or a Go host's
	// own list.
	FromFlag RootOrigin = iota + 1
	// FromPolicy is a root of the host policy's roots:.
	FromPolicy
	// FromEnv is the root $RLMC_SKILLS_ROOT names, which replaces the
	// user roots among the built-in ones.
	FromEnv
	// FromDefault is a built-in project or user root.
	FromDefault
)

// Root is one root of a load, with who named it.
type Root struct {
	Dir    string
	Origin RootOrigin
}

// Required reports whether a load fails when the root is not a folder: a
// root someone named must be one, so that a mistyped root never passes for
// a root without skills; only the built-in defaults may be absent.
func (r Root) Required() bool { return r.Origin != FromDefault }

// Policy is the part of the host policy that says where the skills are
// and what a load may read (package compiler reads the policy file and
// hands this part to Resolve).
type Policy struct {
	// Roots are used when Options names none; relative ones were resolved
	// against the policy file's folder when it was read.
	Roots []string
	// Exclude is added to Options.Exclude.
	Exclude []string
	// Limits override the limits field by field; a zero field keeps the
	// limit.
	Limits Limits
}

// ProjectDir returns the folder whose project skill folders
// (ProjectRootDirs) the built-in roots are: the nearest of cwd and the
// folders above it that holds one, as git finds a repository from a
// subfolder; a client started in "src/db" of a project otherwise loaded
// none of its skills. The search stops at a repository's root (a folder
// holding .git) and below the home folder, whose skill folders are the
// user's; cwd when no folder on the way holds one.
//
// A folder above cwd whose skill folders someone else could have put
// there is not taken for the project: the search stops there, as at a
// repository's root, and Resolve says so (CodeUntrustedRoot). Another
// user's .agents/skills in /tmp otherwise reached every project below it
// that has none of its own. cwd's own folders are the user's choice, as a
// --root is.
func ProjectDir(cwd, home string) string {
	dir, _ := projectDir(cwd, home)
	return dir
}

// projectDir is ProjectDir, with the diagnostic of the folder above cwd
// it passed over (untrusted), or nil.
func projectDir(cwd, home string) (string, *ir.Diagnostic) {
	if cwd == "" {
		return cwd, nil
	}
	home = filepath.Clean(home)
	start := filepath.Clean(cwd)
	var trust *trusted // made at the first folder above cwd that holds skill folders
	for dir := start; ; {
		if home != "." && dir == home {
			return cwd, nil
		}
		found := false
		for _, d := range ProjectRootDirs {
			root := filepath.Join(dir, filepath.FromSlash(d))
			if info, err := os.Stat(root); err != nil || !info.IsDir() {
				continue
			}
			found = true
			if dir == start {
				break
			}
			if trust == nil {
				trust = newTrusted(start)
			}
			if p, who := trust.untrusted(dir, d); who != "" {
				if p != root {
					who += " through " + ir.Printable(p)
				}
				return cwd, &ir.Diagnostic{Root: root, Path: ".", Code: ir.CodeUntrustedRoot, Severity: ir.SeverityWarning,
					Message: fmt.Sprintf("this skill folder above the working folder can be changed by %s: it is not loaded as the project's; name it with --root to load it", who)}
			}
		}
		if found {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return cwd, nil
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return cwd, nil // a repository's root: no further up
		}
		dir = parent
	}
}

// Env is where the built-in roots lie: the working folder (the project
// roots: see ProjectDir), the home folder (the user roots) and the environment
// ($RLMC_SKILLS_ROOT). A zero field means this process's: its working
// folder, its user's home folder, os.Getenv.
type Env struct {
	Cwd    string
	Home   string
	Getenv func(string) string
}

// orProcess returns e with its zero fields filled from the process.
func (e Env) orProcess() Env {
	if e.Cwd == "" {
		e.Cwd, _ = os.Getwd()
	}
	if e.Home == "" {
		e.Home, _ = os.UserHomeDir()
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	return e
}

// Resolved is what one load reads, as Resolve decided it: every root in
// precedence order with its origin, the exclusions and the limits.
type Resolved struct {
	Roots   []Root
	Exclude []string
	Limits  Limits
	// Prior and PriorOwned are Options', passed on (see Options).
	Prior      *Record
	PriorOwned bool
	// Refused are warnings about folders the built-in roots left out
	// (CodeUntrustedRoot), which the load reports with its own.
	Refused ir.Diagnostics
}

// Dirs returns the roots' folders, in precedence order.
func (r Resolved) Dirs() []string {
	dirs := make([]string, len(r.Roots))
	for i, root := range r.Roots {
		dirs[i] = root.Dir
	}
	return dirs
}

// Origin returns where the roots came from: every root of a load has the
// same origin, but for the built-in ones, among which the root
// $RLMC_SKILLS_ROOT names is FromEnv and the rest FromDefault; for
// those it returns FromDefault.
func (r Resolved) Origin() RootOrigin {
	if len(r.Roots) == 0 {
		return FromDefault
	}
	if o := r.Roots[0].Origin; o == FromFlag || o == FromPolicy {
		return o
	}
	return FromDefault
}

// EnvRoot returns the root $RLMC_SKILLS_ROOT named, when the roots are the
// built-in ones and it is set; else "".
func (r Resolved) EnvRoot() string {
	for _, root := range r.Roots {
		if root.Origin == FromEnv {
			return root.Dir
		}
	}
	return ""
}

// Resolve decides what a load reads, in one place for every caller:
//
//   - the roots: Options.Roots when there are any (FromFlag), else the
//     policy's roots (FromPolicy), else the built-in roots of env:
//     project roots under its working folder, then the folder
//     $RLMC_SKILLS_ROOT names (FromEnv) or, when it is not set, the user
//     roots under its home folder (FromDefault);
//   - the exclusions: Options.Exclude, then the policy's;
//   - the limits: DefaultLimits, with each positive field of
//     Options.Limits overriding, then each positive field of the
//     policy's.
func Resolve(opts Options, p Policy, env Env) Resolved {
	r := Resolved{Exclude: slices.Concat(opts.Exclude, p.Exclude), Limits: opts.Limits, Prior: opts.Prior}
	switch {
	case len(opts.Roots) > 0:
		r.Roots = rootsOf(opts.Roots, FromFlag)
	case len(p.Roots) > 0:
		r.Roots = rootsOf(p.Roots, FromPolicy)
	default:
		env = env.orProcess()
		project, refused := projectDir(env.Cwd, env.Home)
		r.Roots = rootsOf(defaultRoots(project, env.Home, env.Getenv), FromDefault)
		if refused != nil {
			r.Refused = ir.Diagnostics{*refused}
		}
		// The root the environment names, wherever it appears, is the
		// user's and must exist.
		if named := env.Getenv(EnvSkillsRoot); named != "" {
			for i := range r.Roots {
				if r.Roots[i].Dir == named {
					r.Roots[i].Origin = FromEnv
				}
			}
		}
	}
	// Field by field: a host that sets one bound keeps the others (one
	// set alone left the rest 0, and the load found no skill without an
	// error).
	r.Limits = p.Limits.over(opts.Limits.over(DefaultLimits))
	return r
}

// rootsOf returns dirs as roots of origin o.
func rootsOf(dirs []string, o RootOrigin) []Root {
	roots := make([]Root, len(dirs))
	for i, d := range dirs {
		roots[i] = Root{Dir: d, Origin: o}
	}
	return roots
}

// over returns base with l's non-zero fields in place of its own.
func (l Limits) over(base Limits) Limits {
	if l.MaxFileBytes > 0 {
		base.MaxFileBytes = l.MaxFileBytes
	}
	if l.MaxFrontmatterBytes > 0 {
		base.MaxFrontmatterBytes = l.MaxFrontmatterBytes
	}
	if l.MaxDepth > 0 {
		base.MaxDepth = l.MaxDepth
	}
	if l.MaxFolders > 0 {
		base.MaxFolders = l.MaxFolders
	}
	return base
}
