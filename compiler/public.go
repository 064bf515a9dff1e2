package compiler

import (
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/rules"
)

// The loader, the catalog cache and the policy engine are implementation
// packages (internal/); these names are the part of them a Go host needs,
// so that a host imports compiler, ir and rlm and nothing else.
type (
	// Options says where the skills are and what a load may read (go doc
	// shows an alias without its fields, so they are listed here):
	//   - Roots []string: skill roots in precedence order, first wins;
	//     each must be a folder (a *RootError otherwise); none means the
	//     built-in roots (Resolve).
	//   - Exclude []string: skill folders, relative to their root and
	//     slash-separated, left out with everything below them.
	//   - Limits LoadLimits: the loader's bounds; a field left 0 keeps
	//     its default.
	//   - Prior, PriorOwned: an earlier load's record, which LoadWith
	//     sets from its cache; a host leaves them unset.
	Options = loader.Options
	// LoadLimits are the loader's bounds, Options.Limits: MaxFileBytes
	// (per SKILL.md, default 100 KiB), MaxFrontmatterBytes (64 KiB),
	// MaxDepth (folders below a root, 6) and MaxFolders (per root,
	// 50,000). A field left 0 keeps its default. A host policy's limits:
	// (Policy.Limits) set the same bounds from a file.
	LoadLimits = loader.Limits
	// RootError is a root the caller named that is missing or is not a
	// folder; Load returns it rather than an empty catalog.
	RootError = loader.RootError
	// Resolved is what a load reads, as Resolve decided it: each root
	// with where it came from, the exclusions and the limits.
	Resolved = loader.Resolved
	// Root is one root of a Resolved, with who named it (flag, policy,
	// environment or default).
	Root = loader.Root
	// Env is where the built-in roots lie; the zero Env is this
	// process's working folder, home folder and environment.
	Env = loader.Env
	// Cache is the persistent catalog cache LoadWith reads and writes.
	Cache = catcache.Cache
	// CacheOff says why no cache is used (see DefaultCache).
	CacheOff = catcache.Off
	// RuleName names a rule of the policy, as explanations cite it.
	RuleName = rules.RuleName
	// Clause names one clause of a rule.
	Clause = rules.Clause
)

// DefaultCache is the CLI's catalog cache: RLMC_CACHE_DIR, else the user's
// cache folder. When there is none to use it returns nil and why.
func DefaultCache() (*Cache, *CacheOff) { return catcache.Default() }

// Resolve decides, once for every command and host, what a load of opts
// under the policy p reads: the roots (opts.Roots, else the policy's
// roots:, else the built-in roots of env, of which $RLMC_SKILLS_ROOT
// replaces the user ones), the exclusions (opts.Exclude and the policy's)
// and the limits (the defaults, each positive field of opts.Limits and
// then of the policy's limits overriding). Load, Watch, the catalog cache's key and the CLI's
// doctor and hook all go through it.
func Resolve(opts Options, p Policy, env Env) Resolved {
	return loader.Resolve(opts, loader.Policy{
		Roots:   p.Roots,
		Exclude: p.Exclude,
		Limits:  loader.Limits(p.Limits),
	}, env)
}
