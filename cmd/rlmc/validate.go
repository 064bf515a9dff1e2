package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/ir"
)

// validateParams are the flags of `rlmc validate`.
type validateParams struct {
	catalogFlags
	selects, denies []string
	strict          bool
}

func newValidateCmd(stdout io.Writer) *cobra.Command {
	var p validateParams
	cmd := &cobra.Command{
		Use:   "validate [PATH]...",
		Short: "Report diagnostics; exit 1 when any is an error (or, with --strict, a warning)",
		Long: `Report every diagnostic of the catalog: each skill's own, the dependency
graph's (a missing dependency, a cycle, a dependency that is explicit-only
or invalid) and the host policy's (an entry that matches nothing). Each PATH
is a skill root, or a skill folder, as --root DIR. --select and --deny check
the names a host would pass to compile.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := p.check(); err != nil {
				return err
			}
			if len(args) > 0 {
				if len(p.roots) > 0 {
					return usageError("give the roots either as PATH arguments or with --root, not both")
				}
				p.roots = args
			}
			return runValidate(cmd.Context(), p, stdout, cmd.ErrOrStderr())
		},
	}
	p.register(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&p.selects, "select", nil, "check that unit `NAME` exists, as compile --select needs (repeatable, or NAME,NAME)")
	fl.StringArrayVar(&p.denies, "deny", nil, "check that unit `NAME` exists, as compile --deny expects (repeatable, or NAME,NAME)")
	fl.BoolVar(&p.strict, "strict", false, "exit 1 on warnings too")
	return cmd
}

type validation struct {
	Units       int            `json:"units"`
	Errors      int            `json:"errors"`
	Warnings    int            `json:"warnings"`
	Diagnostics ir.Diagnostics `json:"diagnostics"`
}

func runValidate(ctx context.Context, p validateParams, stdout, stderr io.Writer) error {
	// The catalog warnings are part of this command's report, on stdout:
	// they are not repeated on stderr. "0 units, 0 errors" must not pass
	// for a clean catalog when no root was found.
	p.sayNoRoot = true
	c, err := p.loadTo(ctx, io.Discard, stderr)
	if err != nil {
		return err
	}
	ds, err := c.Validate(ctx, compiler.ValidateOptions{Select: splitNames(p.selects), Deny: splitNames(p.denies), SelectPath: "--select", DenyPath: "--deny"})
	if err != nil {
		return err
	}
	v := validation{Units: len(c.Catalog().Units), Errors: ds.Count(ir.SeverityError), Warnings: ds.Count(ir.SeverityWarning), Diagnostics: ds}
	if p.format == "json" {
		if err := writeJSON(stdout, v); err != nil {
			return err
		}
	} else {
		// The text names each path from where rlmc runs, joined to its
		// root, so that an editor or a terminal opens it at its line,
		// and foo/SKILL.md over two roots is told apart (the JSON has
		// the root apart).
		for _, d := range ds {
			if d.Root != "" {
				d.Path = filepath.ToSlash(filepath.Join(d.Root, filepath.FromSlash(d.Path)))
			}
			fmt.Fprintln(stdout, d.String())
		}
		fmt.Fprintf(stdout, "%s, %s, %s\n", plural(v.Units, "unit"), plural(v.Errors, "error"), plural(v.Warnings, "warning"))
	}
	if v.Units == 0 && len(ds) == 0 {
		// "0 units, 0 errors" reads as a pass: say that nothing was
		// checked (doctor's no_units), and fail --strict on it. With a
		// diagnostic (a SKILL.md that cannot be read), something was.
		fmt.Fprintln(stderr, "rlmc: warning: "+noSkill(c.Catalog())+": nothing was checked")
		if p.strict {
			return failed()
		}
	}
	if n := deniedAll(c); n > 0 {
		// As doctor's all_denied: a catalog that loads, with a policy
		// under which no compile can select anything.
		fmt.Fprintf(stderr, "rlmc: warning: the host policy denies every unit (%d): every compile selects nothing\n", n)
		if p.strict {
			return failed()
		}
	}
	if v.Errors > 0 || (p.strict && v.Warnings > 0) {
		return failed()
	}
	return nil
}
