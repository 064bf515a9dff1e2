package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/ir"
)

// compileParams are the flags of `rlmc compile`.
type compileParams struct {
	catalogFlags
	task       string
	taskSet    bool
	selects    []string
	denies     []string
	budget     int
	tokenizer  string
	explain    bool
	trajectory string
}

func newCompileCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var p compileParams
	cmd := &cobra.Command{
		Use:   "compile --task TEXT|- | compile TEXT",
		Short: "Compile the skills a task needs into one prompt block",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.taskSet = cmd.Flags().Changed("task")
			if len(args) == 1 {
				if p.taskSet {
					return usageError("give the task either as --task or as an argument, not both")
				}
				p.task, p.taskSet = args[0], true
			}
			return runCompile(cmd.Context(), p, stdin, stdout, stderr)
		},
	}
	p.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&p.task, "task", "", "the task `TEXT`, or - to read it from standard input (at most 1 MiB)")
	fl.StringArrayVar(&p.selects, "select", nil, "select unit `NAME` explicitly (trusted host input; repeatable)")
	fl.StringArrayVar(&p.denies, "deny", nil, "deny unit `NAME` outright (repeatable)")
	fl.IntVar(&p.budget, "budget", 0, "token ceiling for the selected bodies (default from the policy, else 8000)")
	fl.StringVar(&p.tokenizer, "tokenizer", "", "o200k_base (default) or cl100k_base")
	fl.BoolVar(&p.explain, "explain", false, "explain every decision on standard error")
	fl.StringVar(&p.trajectory, "trajectory", "", "append one JSON audit line per compile to `FILE`")
	return cmd
}

func runCompile(ctx context.Context, p compileParams, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := p.check(); err != nil {
		return err
	}
	if !p.taskSet {
		return usageError("compile needs --task TEXT (or --task - to read standard input)")
	}
	if p.budget < 0 {
		return usageError("--budget must be positive")
	}
	if p.tokenizer != "" && !slices.Contains(compiler.Tokenizers, p.tokenizer) {
		return usageError("--tokenizer must be one of %s, not %q", strings.Join(compiler.Tokenizers, ", "), p.tokenizer)
	}
	task := p.task
	if task == "-" {
		// One byte past the compiler's cap is enough for it to refuse the
		// task as an invalid_request, as it refuses a long --task.
		data, err := io.ReadAll(io.LimitReader(stdin, compiler.MaxTaskBytes+1))
		if err != nil {
			return err
		}
		task = string(data)
	}
	c, err := p.load(ctx)
	if err != nil {
		return err
	}
	req := compiler.Request{Task: task, Select: p.selects, Deny: p.denies, Budget: p.budget, Tokenizer: p.tokenizer}
	var res *compiler.Result
	if p.trajectory != "" {
		f, ferr := os.OpenFile(p.trajectory, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if ferr != nil {
			return usageError("--trajectory: %v", ferr)
		}
		defer f.Close()
		res, err = compiler.NewAudit(f).Compile(ctx, c, req)
	} else {
		res, err = c.Compile(ctx, req)
	}
	if err != nil {
		return reportCompileError(err, p.format, stdout)
	}
	if p.explain {
		if err := compiler.WriteExplanation(stderr, res); err != nil {
			return err
		}
	}
	if p.format == "json" {
		return writeJSON(stdout, res)
	}
	if res.Decision == compiler.DecisionAmbiguous && !p.explain {
		// Nothing goes to stdout; say why on stderr so a person can pick.
		names := make([]string, len(res.Ambiguous))
		for i, n := range res.Ambiguous {
			names[i] = ir.Printable(n)
		}
		fmt.Fprintf(stderr, "rlmc: ambiguous: %s; choose with --select NAME\n", strings.Join(names, ", "))
	}
	_, err = io.WriteString(stdout, res.Prompt)
	return err
}

// reportCompileError prints a compile error once, as JSON on stdout in JSON
// mode, and exits 1.
func reportCompileError(err error, format string, stdout io.Writer) error {
	var ce *compiler.Error
	if !errors.As(err, &ce) {
		return &exitError{code: exitFailure, err: err}
	}
	if format == "json" {
		if werr := writeJSON(stdout, map[string]any{"schema": compiler.Schema, "error": ce}); werr != nil {
			return werr
		}
		return failed()
	}
	return &exitError{code: exitFailure, err: ce}
}
