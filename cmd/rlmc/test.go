package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/ir"
	"github.com/rlmc-dev/rlmc/suite"
)

func newTestCmd(stdout io.Writer) *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:   "test DIR",
		Short: "Run behaviour case files against a catalog and host policy",
		Long: `Run every DIR/*.txtar case (format in README.md, "Pin your own guarantees")
against the catalog of --root (or the case's own skills/) and --policy.
Each case is listed as PASS or FAIL with its differences; the exit code is 0
only when every case passes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			return runTest(cmd.Context(), args[0], f, stdout)
		},
	}
	f.register(cmd)
	return cmd
}

type testReport struct {
	Cases  []testCase `json:"cases"`
	Passed int        `json:"passed"`
	Failed int        `json:"failed"`
}

type testCase struct {
	Name     string   `json:"name"`
	Note     string   `json:"note"`
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures,omitempty"`
}

func runTest(ctx context.Context, dir string, f catalogFlags, stdout io.Writer) error {
	cases, err := suite.Load(dir)
	if err != nil {
		return usageError("%v", err)
	}
	r := &suite.Runner{Roots: f.roots}
	if f.policy != "" {
		if r.Policy, err = compiler.LoadPolicy(f.policy); err != nil {
			return usageError("%v", err)
		}
		if len(r.Roots) == 0 {
			r.Roots = r.Policy.Roots
		}
	}
	var rep testReport
	for _, c := range cases {
		out := r.Run(ctx, c)
		rep.Cases = append(rep.Cases, testCase{Name: c.Name, Note: c.Note, Pass: out.Passed(), Failures: out.Failures})
		if out.Passed() {
			rep.Passed++
		} else {
			rep.Failed++
		}
	}
	if f.format == "json" {
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	} else {
		for _, c := range rep.Cases {
			status := "PASS"
			if !c.Pass {
				status = "FAIL"
			}
			// A case file name, its note and a failure quote text from
			// disk: escaped, none can start a forged PASS line.
			fmt.Fprintf(stdout, "%s %s: %s\n", status, ir.Printable(c.Name), ir.EscapeText(c.Note))
			for _, fl := range c.Failures {
				fmt.Fprintf(stdout, "    %s\n", ir.EscapeText(fl))
			}
		}
		fmt.Fprintf(stdout, "%d passed, %d failed\n", rep.Passed, rep.Failed)
	}
	if rep.Failed > 0 {
		return failed()
	}
	return nil
}
