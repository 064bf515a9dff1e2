package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/suite"
	"github.com/rlmc-dev/rlmc/ir"
)

func newTestCmd(stdout io.Writer) *cobra.Command {
	var (
		f   catalogFlags
		run string
	)
	cmd := &cobra.Command{
		Use:   "test DIR",
		Short: "Run behaviour case files against a catalog and host policy",
		Long: `Run every DIR/*.txtar case (format in docs/testing.md)
against the catalog of --root (or the case's own skills/) and --policy.
Each case is listed as PASS or FAIL with its differences (a malformed case
file is a FAIL saying why; the others still run); the exit code is 0 only
when every case passes. --run REGEX runs only the cases whose name (the
file name without .txtar) it matches.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			// An interrupt ends the run between cases, so that the case
			// folder of the one running is removed (the default ends the
			// process at once and leaves it in the temporary folder).
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runTest(ctx, args[0], f, run, stdout, cmd.ErrOrStderr())
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&run, "run", "", "run only the cases whose name matches `REGEX`")
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

func runTest(ctx context.Context, dir string, f catalogFlags, run string, stdout, stderr io.Writer) error {
	cases, err := suite.Load(dir)
	if err != nil {
		return usageError("%v", err)
	}
	if run != "" {
		re, err := regexp.Compile(run)
		if err != nil {
			return usageError("--run: %v", err)
		}
		cases = slices.DeleteFunc(cases, func(c *suite.Case) bool { return !re.MatchString(c.Name) })
		if len(cases) == 0 {
			// Running nothing must not read as every case passing.
			return usageError("--run %s matches no case in %s", ir.Quote(run), ir.Printable(dir))
		}
	}
	r := &suite.Runner{}
	if f.policy != "" {
		if r.Policy, err = compiler.LoadPolicy(f.policy); err != nil {
			return usageError("%v", err)
		}
	}
	// The roots --root or the policy names hold for every case; without
	// them each case loads the built-in roots, or its own catalog.
	from := ""
	switch res := compiler.Resolve(loader.Options{Roots: f.roots}, r.Policy, compiler.Env{}); res.Origin() {
	case loader.FromPolicy:
		from = f.policy + ": roots: "
		fallthrough
	case loader.FromFlag:
		r.Roots = res.Dirs()
	case loader.FromDefault:
		// Cases without a catalog of their own, run on no catalog at
		// all, would fail as if their tasks routed nothing.
		n := 0
		for _, c := range cases {
			if c.Err == nil && !c.HasCatalog() { // a malformed case runs nothing
				n++
			}
		}
		if n > 0 && res.EnvRoot() == "" && len(existingRoots(res.Dirs())) == 0 {
			fmt.Fprintf(stderr, "rlmc: %s (for the %s without skills/ of its own)\n", noRootText, plural(n, "case"))
		}
	}
	// A root that does not exist would fail every case that runs on it
	// with the same message: say it once, before any runs.
	for _, root := range r.Roots {
		if err := loader.CheckRoot(root); err != nil {
			return usageError("%s%v", from, err)
		}
	}
	var rep testReport
	for i, c := range cases {
		out := r.Run(ctx, c)
		if ctx.Err() != nil {
			// The case running was cut short: its outcome says nothing.
			return &exitError{code: exitFailure, err: fmt.Errorf("interrupted in case %d of %d; none is reported", i+1, len(cases))}
		}
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
