package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/gctune"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// catalogFlags are the flags every command that loads skills shares.
type catalogFlags struct {
	roots   []string
	policy  string
	format  string
	formats []string // the values --format takes, the default first
	noCache bool
	// sayNoRoot makes a load from the default roots, none of which
	// exists, say so on stderr: a compile that selects nothing because
	// there is no catalog at all would otherwise look like one whose task
	// matched nothing.
	sayNoRoot bool
}

// noRootText is what compile and doctor say when no default root exists.
const noRootText = "no skill root found: none of the default roots exists (.agents/skills, .claude/skills, ... here and in the home folder), so nothing can be selected; `rlmc init` makes .agents/skills here, or pass --root DIR"

// existingRoots returns those of dirs that are folders the loader can scan.
func existingRoots(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if loader.CheckRoot(d) == nil {
			out = append(out, d)
		}
	}
	return out
}

// rootFlagHelp is the help of every command's --root flag.
const rootFlagHelp = "skill root `DIR`, which must exist (repeatable; first wins; replaces the default roots)"

// formatValues annotates a --format flag with the values it takes, for
// shell completion.
const formatValues = "rlmc-format-values"

// register adds --root, --policy and --format to cmd; --format takes
// formats (the default first), text or json when none are given.
func (f *catalogFlags) register(cmd *cobra.Command, formats ...string) {
	if len(formats) == 0 {
		formats = []string{"text", "json"}
	}
	f.formats = formats
	cmd.Flags().StringArrayVar(&f.roots, "root", nil, rootFlagHelp)
	cmd.Flags().StringVar(&f.policy, "policy", "", "host policy YAML `FILE`")
	cmd.Flags().StringVar(&f.format, "format", formats[0], "output format: "+strings.Join(formats, " or "))
	_ = cmd.Flags().SetAnnotation("format", formatValues, formats)
	registerNoCache(cmd, &f.noCache)
}

// registerNoCache adds --no-cache to cmd.
func registerNoCache(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "no-cache", false, "neither read nor write the catalog cache (see RLMC_CACHE_DIR)")
}

// catalogCache returns the persistent catalog cache, or nil when it is
// turned off or there is no cache folder: a command runs the same
// without one. A cache that turns out to be unusable (a relative
// RLMC_CACHE_DIR, a folder that is a link, another user's or writable by
// others) is said in one line on stderr, once: the command goes on
// without it. RLMC_CACHE_DEBUG=1 prints why a cache file was not used or
// written, on stderr.
func catalogCache(noCache bool, stderr io.Writer) *catcache.Cache {
	warn := func(off *catcache.Off) { fmt.Fprintf(stderr, "rlmc: %s\n", cacheOffText(off)) }
	c, off := newCatalogCache(noCache, stderr)
	if off != nil {
		warn(off)
	}
	if c != nil {
		c.Warn = warn
	}
	return c
}

// doctorCache is catalogCache for doctor: why the cache is off is kept
// for its report rather than said on stderr, and offs returns it.
func doctorCache(noCache bool, stderr io.Writer) (cache *catcache.Cache, offs func() []*catcache.Off) {
	var (
		mu   sync.Mutex
		seen []*catcache.Off
	)
	c, off := newCatalogCache(noCache, stderr)
	if off != nil {
		seen = append(seen, off)
	}
	if c != nil {
		c.Warn = func(o *catcache.Off) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, o)
		}
	}
	return c, func() []*catcache.Off {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// newCatalogCache is catalogCache saying nothing: it returns why there is
// no cache when Default says, and the cache's own Off says the rest.
func newCatalogCache(noCache bool, stderr io.Writer) (*catcache.Cache, *catcache.Off) {
	if noCache {
		return nil, nil
	}
	c, off := catcache.Default()
	if off != nil {
		return nil, off
	}
	// A command loads its catalog once: the cache file is mapped, not
	// read.
	c.Mapped = true
	// Without a cache file to start from, it reads and analyses every
	// skill, as --no-cache does, and then writes one.
	c.OnBuild = gctune.Building
	// From the cache, it decodes what it keeps: collecting meanwhile
	// finds little garbage and takes a core.
	c.Reserve = gctune.Reserve
	if os.Getenv(catcache.EnvDebug) != "" {
		c.Debug = stderr
	}
	return c, nil
}

// cacheOffText is why the cache is off and what the user can do.
func cacheOffText(off *catcache.Off) string {
	return off.Error() + " (set " + catcache.EnvDir + " to the absolute path of a folder of your own, or pass --no-cache)"
}

func (f *catalogFlags) check() error {
	if !slices.Contains(f.formats, f.format) {
		return usageError("--format must be %s, not %q", strings.Join(f.formats, " or "), f.format)
	}
	return nil
}

// load builds a compiler from the flags: the host policy, then the roots.
// A root that does not exist or is not a folder is a usage error naming
// it; a scan bound hit or a policy entry that matches nothing is a warning
// on stderr, whatever the output format.
func (f *catalogFlags) load(ctx context.Context, stderr io.Writer) (*compiler.Compiler, error) {
	return f.loadTo(ctx, stderr, stderr)
}

// loadTo is load with the catalog warnings on warnings (io.Discard for a
// command that reports them itself) and the cache's line on stderr.
func (f *catalogFlags) loadTo(ctx context.Context, warnings, stderr io.Writer) (*compiler.Compiler, error) {
	var p compiler.Policy
	if f.policy != "" {
		var err error
		if p, err = compiler.LoadPolicy(f.policy); err != nil {
			return nil, usageError("%v", err)
		}
	}
	from := ""
	r := compiler.Resolve(loader.Options{Roots: f.roots}, p, compiler.Env{})
	if r.Origin() == loader.FromPolicy {
		from = f.policy + ": roots: "
	}
	if f.sayNoRoot && r.EnvRoot() == "" && r.Origin() == loader.FromDefault && len(existingRoots(r.Dirs())) == 0 && len(r.Refused) == 0 {
		// RLMC_SKILLS_ROOT aside: a root it names that is missing is
		// the loader's error; a project folder left out as untrusted
		// is the load's warning, which says what to do instead.
		fmt.Fprintf(stderr, "rlmc: %s\n", noRootText)
	}
	return loadCatalog(ctx, loader.Options{Roots: f.roots}, p, from, catalogCache(f.noCache, stderr), warnings)
}

// loadCatalog is compiler.LoadWith for every command, through cache (nil:
// none): a root error becomes a usage error (prefixed with where the root
// came from), and the catalog warnings go to stderr.
func loadCatalog(ctx context.Context, opts loader.Options, p compiler.Policy, from string, cache *catcache.Cache, stderr io.Writer) (*compiler.Compiler, error) {
	c, err := compiler.LoadWith(ctx, opts, p, cache)
	var re *loader.RootError
	if errors.As(err, &re) {
		return nil, usageError("%s%v", from, err)
	}
	if err != nil {
		return nil, err
	}
	writeCatalogWarnings(stderr, c.Diagnostics())
	return c, nil
}

func writeJSON(w io.Writer, v any) error { return compiler.WriteJSON(w, v) }
