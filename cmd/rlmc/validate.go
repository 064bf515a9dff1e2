package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/ir"
)

func newValidateCmd(stdout io.Writer) *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Report diagnostics; exit 1 when any is an error",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			return runValidate(cmd.Context(), f, stdout)
		},
	}
	f.register(cmd)
	return cmd
}

type validation struct {
	Units       int            `json:"units"`
	Errors      int            `json:"errors"`
	Warnings    int            `json:"warnings"`
	Diagnostics ir.Diagnostics `json:"diagnostics"`
}

func runValidate(ctx context.Context, f catalogFlags, stdout io.Writer) error {
	c, err := f.load(ctx)
	if err != nil {
		return err
	}
	ds := c.Diagnostics()
	v := validation{Units: len(c.Catalog().Units), Errors: ds.Count(ir.SeverityError), Warnings: ds.Count(ir.SeverityWarning), Diagnostics: ds}
	if v.Diagnostics == nil {
		v.Diagnostics = ir.Diagnostics{}
	}
	if f.format == "json" {
		if err := writeJSON(stdout, v); err != nil {
			return err
		}
	} else {
		for _, d := range ds {
			fmt.Fprintln(stdout, d.String())
		}
		fmt.Fprintf(stdout, "%d units, %d errors, %d warnings\n", v.Units, v.Errors, v.Warnings)
	}
	if v.Errors > 0 {
		return failed()
	}
	return nil
}
