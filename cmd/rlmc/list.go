package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/ir"
)

func newListCmd(stdout, stderr io.Writer) *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every skill unit, sorted by name",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			return runList(cmd.Context(), f, stdout, stderr)
		},
	}
	f.register(cmd)
	return cmd
}

// listedUnit is one row of `rlmc list`: the unit as any listing shows
// it, and its body's tokens.
type listedUnit struct {
	ir.Summary
	Tokens *int `json:"tokens"`
}

type listing struct {
	Units       []listedUnit   `json:"units"`
	Diagnostics ir.Diagnostics `json:"diagnostics"`
}

func runList(ctx context.Context, f catalogFlags, stdout, stderr io.Writer) error {
	f.sayNoRoot = true // an empty listing must not pass for an empty catalog
	c, err := f.load(ctx, stderr)
	if err != nil {
		return err
	}
	if n := unloadedNote(c.Catalog()); n != "" {
		// The table cannot show a skill that is no unit.
		fmt.Fprintf(stderr, "rlmc: %s\n", n)
	}
	units := c.Catalog().Units
	if len(units) == 0 {
		// A listing of nothing reads as a catalog that was looked at.
		fmt.Fprintln(stderr, "rlmc: warning: "+noSkill(c.Catalog()))
	}
	out := listing{Units: make([]listedUnit, len(units)), Diagnostics: c.Diagnostics()}
	counts := bodyTokens(c, units, func(u *ir.Unit) bool { return u.Status != ir.StatusInvalid })
	for i, u := range units {
		out.Units[i] = listedUnit{Summary: c.Summary(u)}
		if counts[i].err == nil && counts[i].counted {
			out.Units[i].Tokens = &counts[i].n
		}
	}
	c.StoreCache()
	if f.format == "json" {
		return writeJSON(stdout, out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tINVOCATION\tSTATUS\tVARIANT\tTOKENS\tROOT\tPATH")
	for _, u := range out.Units {
		tokens := "-"
		if u.Tokens != nil {
			tokens = fmt.Sprint(*u.Tokens)
		}
		// Names and paths come from folder names: ir.Printable keeps a tab
		// or a newline in one from breaking the table or forging a row.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ir.Printable(u.Name), u.Invocation, u.Status, u.Variant, tokens, ir.Printable(u.Root), ir.Printable(u.Path))
	}
	return tw.Flush()
}

// tokenCount is a unit's body tokens, or why they could not be counted;
// counted is false for a unit that was not asked about.
type tokenCount struct {
	n       int
	err     error
	counted bool
}

// bodyTokens counts the bodies of the units want keeps, by position, on
// every core, through the compiler's token counts (Compiler.BodyTokens):
// a catalog's first listing tokenizes every body, thousands at a time.
func bodyTokens(c *compiler.Compiler, units []*ir.Unit, want func(*ir.Unit) bool) []tokenCount {
	out := make([]tokenCount, len(units))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(units); i = int(next.Add(1) - 1) {
				if want(units[i]) {
					n, err := c.BodyTokens(units[i])
					out[i] = tokenCount{n: n, err: err, counted: true}
				}
			}
		})
	}
	wg.Wait()
	return out
}
