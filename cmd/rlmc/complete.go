package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

// completionBudget bounds the catalog load behind a completion: a shell
// waits for it on every tab, so a slow disk or a huge root gives no names
// rather than a frozen prompt.
const completionBudget = 2 * time.Second

// registerCompletions adds shell completion to every command's flags:
// skill names for --select, --deny and --why (loaded from the command's own
// --root and --policy, quietly), and the fixed values of --format and
// --tokenizer. Cobra's `completion` command writes the shell scripts that
// call them.
func registerCompletions(c *cobra.Command) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	if fl := c.Flags().Lookup("format"); fl != nil {
		formats := []string{"text", "json"}
		if vs := fl.Annotations[formatValues]; len(vs) > 0 {
			formats = vs
		}
		_ = c.RegisterFlagCompletionFunc("format", fixed(formats...))
	}
	if c.Flags().Lookup("tokenizer") != nil {
		_ = c.RegisterFlagCompletionFunc("tokenizer", fixed(compiler.Tokenizers...))
	}
	for _, name := range []string{"select", "deny", "why"} {
		if c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, completeSkillNames(name == "select"))
		}
	}
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

// completeSkillNames offers the names of the catalog the command would
// load, each with the start of its description. Only names that follow
// the naming rule are offered (a hostile folder name could break the
// completion protocol, and such a unit can never be selected anyway);
// for --select, only units that can be selected (ok, not shadowed). Any
// failure (a bad policy, a missing root, the time bound) offers nothing.
func completeSkillNames(selectable bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var f catalogFlags
		f.roots, _ = cmd.Flags().GetStringArray("root")
		f.policy, _ = cmd.Flags().GetString("policy")
		ctx, cancel := context.WithTimeout(context.Background(), completionBudget)
		defer cancel()
		c, err := f.load(ctx, io.Discard)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, u := range c.Catalog().Units {
			if u.Status == ir.StatusShadowed || selectable && u.Status != ir.StatusOK {
				continue
			}
			if !loader.ValidName(u.Name) || !strings.HasPrefix(u.Name, toComplete) {
				continue
			}
			out = append(out, cobra.CompletionWithDesc(u.Name, completionDesc(u.Description)))
		}
		slices.Sort(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionDesc is a description as a shell shows it beside a name: one
// line of printable text, cut at 60 characters.
func completionDesc(s string) string {
	s = ir.EscapeText(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return s
}
