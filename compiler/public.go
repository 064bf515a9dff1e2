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
	// Options says where the skills are and what a load may read:
	// Roots in precedence order, Exclude, and the loader's limits.
	Options = loader.Options
	// RootError is a root the caller named that is missing or is not a
	// folder; Load returns it rather than an empty catalog.
	RootError = loader.RootError
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
