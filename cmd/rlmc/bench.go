package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/bench"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

type benchParams struct {
	// catalogs are the skill roots, in precedence order: a catalog of a
	// project's skills and a user's own is measured as compile loads it.
	catalogs              []string
	cases, policy, format string
	outcomes, noCache     bool
}

func newBenchCmd(stdout, stderr io.Writer) *cobra.Command {
	var p benchParams
	cmd := &cobra.Command{
		Use:   "bench --catalog DIR --cases FILE",
		Short: "Measure routing quality on labelled cases (JSONL or a Skill Router gold set)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(p.catalogs) == 0 || p.cases == "" {
				return usageError("bench needs --catalog DIR and --cases FILE")
			}
			if p.format != "text" && p.format != "json" {
				return usageError("--format must be text or json, not %q", p.format)
			}
			return runBench(cmd.Context(), p, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&p.catalogs, "catalog", nil, "skill root `DIR` (repeatable; first wins, as compile's --root)")
	fl.StringVar(&p.cases, "cases", "", "cases `FILE`: JSONL or gold-set JSON")
	fl.StringVar(&p.policy, "policy", "", "host policy YAML `FILE`")
	fl.StringVar(&p.format, "format", "text", "output format: text or json")
	fl.BoolVar(&p.outcomes, "outcomes", false, "with --format json, include every case's outcome")
	registerNoCache(cmd, &p.noCache)
	return cmd
}

func runBench(ctx context.Context, p benchParams, stdout, stderr io.Writer) error {
	if p.outcomes && p.format != "json" {
		return usageError("--outcomes needs --format json: the table has no row per case")
	}
	cases, notes, err := bench.ReadCases(p.cases)
	// The notes come first, also when the cases are refused: "key "TASK"
	// is no case field" says why a case "has no task".
	for _, n := range notes {
		fmt.Fprintf(stderr, "rlmc: %s\n", n)
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 1 {
		// Every refused case on a line of its own, so that one pass
		// fixes the file.
		for _, e := range j.Unwrap() {
			fmt.Fprintf(stderr, "rlmc: %s\n", ir.EscapeText(e.Error()))
		}
		return usageError("%s: %d problems with the cases (above)", p.cases, len(j.Unwrap()))
	}
	if err != nil {
		return usageError("%v", err)
	}
	var pol compiler.Policy
	if p.policy != "" {
		if pol, err = compiler.LoadPolicy(p.policy); err != nil {
			return usageError("%v", err)
		}
	}
	c, err := loadCatalog(ctx, loader.Options{Roots: p.catalogs}, pol, "--catalog: ", catalogCache(p.noCache, stderr), stderr)
	if err != nil {
		return err
	}
	if len(c.Catalog().Units) == 0 && !c.Diagnostics().HasErrors() {
		// Against no skill every no_route case is right: figures of
		// nothing, from a mistyped folder or a checkout missing. (A
		// catalog with errors fails below, saying which.)
		return &exitError{code: exitFailure, err: fmt.Errorf("--catalog: no skill found under %s: nothing was measured", ir.Printable(strings.Join(p.catalogs, ", ")))}
	}
	// The errors validate lists: the graph's too (a dependency missing,
	// explicit-only or invalid), which leave a skill as unselectable as
	// an invalid one does; bench said one error where validate said
	// seven.
	diags, err := c.Validate(ctx, compiler.ValidateOptions{})
	if err != nil {
		return err
	}
	unknown := bench.LabelProblems(cases, c.Catalog(), c.Policy().Mandatory, c.Policy().Invocation != compiler.InvocationHost)
	for _, u := range unknown {
		fmt.Fprintf(stderr, "rlmc: %s: %s\n", p.cases, u)
	}
	rep, err := bench.Run(ctx, c, cases)
	if err != nil {
		return err
	}
	failures := compileFailures(rep)
	if p.format == "json" {
		if !p.outcomes {
			rep.Outcomes = nil
		}
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
		return benchFailure(diags, unknown, failures, stderr)
	}
	if err := writeBenchTable(stdout, rep); err != nil {
		return err
	}
	return benchFailure(diags, unknown, failures, stderr)
}

// compileFailures lists the cases whose compile failed ("id: error"), in
// the cases' order.
func compileFailures(rep *bench.Report) []string {
	var out []string
	for _, o := range rep.Outcomes {
		if o.Error != "" {
			out = append(out, o.Case.ID+": "+o.Error)
		}
	}
	return out
}

// benchFailure fails (exit 1) a run whose figures are printed but are not
// the catalog's and the cases': the catalog has errors (catalogFailure),
// cases name gold skills no answer can match (unknown: the catalog
// lacks them, or they are explicit-user-only; each said on stderr before
// the run): a misspelt label lowers the figures without a failing run,
// or compiles failed (failures: a policy whose mandatory units cannot
// load fails every one, and the table read as a router that abstains).
func benchFailure(ds ir.Diagnostics, unknown, failures []string, stderr io.Writer) error {
	if err := catalogFailure(ds, stderr); err != nil {
		return err
	}
	if len(failures) > 0 {
		fmt.Fprintf(stderr, "rlmc: bench: %s failed to compile, counted as wrong: %s\n", plural(len(failures), "case"), listSome(failures))
		return failed()
	}
	if len(unknown) > 0 {
		fmt.Fprintf(stderr, "rlmc: the cases name skills no answer can match (%d, above): the figures count them as wrong; fix the cases or the catalog\n", len(unknown))
		return failed()
	}
	return nil
}

// catalogFailure warns and fails (exit 1) when the benchmark's catalog has
// errors: an invalid skill, or a scan limit that stopped loading it (a
// 4,076-skill catalog loads 2,000 without the policy that raises
// limits.max_folders). Figures measured on a catalog missing some of its
// skills are not the catalog's figures, so they are printed but the run
// does not pass. It returns nil when the catalog has no error.
func catalogFailure(ds ir.Diagnostics, stderr io.Writer) error {
	var errs, limits int
	for _, d := range ds {
		if d.Severity != ir.SeverityError {
			continue
		}
		errs++
		if d.Code == ir.CodeScanLimit {
			limits++
		}
	}
	if errs == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "rlmc: bench: the catalog has %s", plural(errs, "error"))
	if limits > 0 {
		fmt.Fprintf(stderr, " (%s: skills past them were not loaded; a host policy's limits raise them)", plural(limits, "scan limit"))
	}
	fmt.Fprintln(stderr, "; these figures are not the whole catalog's (rlmc validate lists the errors)")
	return failed()
}

// writeBenchTable prints a report as a text table: overall, per half and
// per category, then per style when the cases have one.
func writeBenchTable(stdout io.Writer, rep *bench.Report) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "group\tcases\tdecision\ttop1\tr@1\tr@3\tset P\tset R\tall gold\tfalse route\tfalse no-route\tamb. prec.\twrong skill\texact\tBM25 top1\tp50 ms\tp95 ms\t")
	row := func(name string, m bench.Metrics) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t\n", name, m.Cases,
			f(m.DecisionAccuracy), f(m.Top1), f(m.RecallAt1), f(m.RecallAt3), f(m.SetPrecision), f(m.SetRecall),
			f(m.AllGoldSelected), f(m.FalseRouteRate), f(m.FalseNoRouteRate), f(m.AmbiguityPrecision), f(m.WrongSkillRate), f(m.Exact), f(m.BM25Top1), m.LatencyP50MS, m.LatencyP95MS)
	}
	row("overall", rep.Overall)
	row("even half", rep.Halves["even"])
	row("odd half", rep.Halves["odd"])
	cats := make([]string, 0, len(rep.Categories))
	for k := range rep.Categories {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	for _, k := range cats {
		if k == "" {
			row("no category", rep.Categories[k]) // cases that name none
			continue
		}
		row(ir.Printable(k), rep.Categories[k]) // a case file's words: no escape reaches the terminal
	}
	styles := make([]string, 0, len(rep.Styles))
	for k := range rep.Styles {
		styles = append(styles, k)
	}
	sort.Strings(styles)
	for _, k := range styles {
		row("style "+ir.Printable(k), rep.Styles[k])
	}
	return tw.Flush()
}

func f(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}
