package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/gctune"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// buildTimeout bounds a builder's run; its lock is honoured no longer.
const buildTimeout = 10 * time.Minute // catcache's lock age

// newHookBuildCmd is `rlmc hook build-cache`, hidden: the process a hook
// starts, detached, when the catalog cache of its prompt's roots is cold
// and the load does not fit in the hook's deadline. It loads the catalog
// as the hook would (the same roots and policy, so the same cache key),
// which writes the cache file, and removes the build lock the hook took
// for it. Its output goes nowhere.
func newHookBuildCmd(stderr io.Writer) *cobra.Command {
	var roots []string
	var policy string
	var startedBy int
	cmd := &cobra.Command{
		Use:    "build-cache",
		Short:  "Build the catalog cache a hook's prompts need (started by the hook)",
		Hidden: true,
		Args:   noCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer gctune.StartBuild(gctune.Build)()
			ctx, cancel := context.WithTimeout(cmd.Context(), buildTimeout)
			defer cancel()
			return buildHookCache(ctx, roots, policy, startedBy, stderr)
		},
	}
	cmd.Flags().StringArrayVar(&roots, "root", nil, "skill root `DIR` (repeatable)")
	cmd.Flags().StringVar(&policy, "policy", "", "host policy YAML `FILE`")
	cmd.Flags().IntVar(&startedBy, "started-by", 0, "id of the process that took the build lock and started this one")
	return cmd
}

// buildHookCache loads the catalog of roots under policy through the
// default cache, then releases the build lock when this process holds it,
// or the process that started it still does (it names this one in the
// lock only once it has started it).
func buildHookCache(ctx context.Context, roots []string, policy string, startedBy int, stderr io.Writer) error {
	var pol compiler.Policy
	if policy != "" {
		var err error
		if pol, err = compiler.LoadPolicy(policy); err != nil {
			return err
		}
	}
	cache, off := newCatalogCache(false, stderr)
	if off != nil {
		return off
	}
	opts := loader.Options{Roots: roots}
	defer cache.ReleaseBuild(compiler.CacheKey(opts, pol, cache), startedBy)
	_, err := compiler.LoadWith(ctx, opts, pol, cache)
	return err
}

// buildArgs are the arguments of the builder of a hook's load: its roots
// and policy file, as the hook resolved them (relative paths stay
// relative: the builder runs in the hook's folder).
func buildArgs(roots []string, policy string) []string {
	args := []string{"hook", "build-cache"}
	for _, r := range roots {
		args = append(args, "--root", r)
	}
	if policy != "" {
		args = append(args, "--policy", policy)
	}
	return args
}

// startBuilder takes key's build lock and starts, detached, the builder
// that runs args: this executable, in a session of its own, its standard
// streams on the null device, so that neither the hook's exit nor its
// client's waiting on the hook's output waits for it. When another
// process holds the lock, nothing is started (catcache.ErrBuilding).
func startBuilder(cache *catcache.Cache, key catcache.Key, args []string) error {
	lock, err := cache.LockBuild(key)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		lock.Release()
		return err
	}
	// The program's name is rlmc's, whatever the file is called (a test
	// binary runs the command named by its first argument).
	argv := append([]string{"rlmc"}, args...)
	argv = append(argv, "--started-by", strconv.Itoa(os.Getpid()))
	cmd := &exec.Cmd{Path: exe, Args: argv}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		lock.Release()
		return err
	}
	lock.SetOwner(cmd.Process.Pid)
	return cmd.Process.Release()
}
