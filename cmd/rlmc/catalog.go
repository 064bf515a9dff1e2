package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/loader"
)

// catalogFlags are the flags every command that loads skills shares.
type catalogFlags struct {
	roots  []string
	policy string
	format string
}

func (f *catalogFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.roots, "root", nil, "skill root `DIR` (repeatable; first wins; replaces the default roots)")
	cmd.Flags().StringVar(&f.policy, "policy", "", "host policy YAML `FILE`")
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: text or json")
}

func (f *catalogFlags) check() error {
	if f.format != "text" && f.format != "json" {
		return usageError("--format must be text or json, not %q", f.format)
	}
	return nil
}

// load builds a compiler from the flags: the host policy, then the roots.
func (f *catalogFlags) load(ctx context.Context) (*compiler.Compiler, error) {
	var p compiler.Policy
	if f.policy != "" {
		var err error
		if p, err = compiler.LoadPolicy(f.policy); err != nil {
			return nil, usageError("%v", err)
		}
	}
	return compiler.Load(ctx, loader.Options{Roots: f.roots, RootsExplicit: len(f.roots) > 0}, p)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}
