package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/gctune"
	"github.com/rlmc-dev/rlmc/internal/safefs"
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
	why        []string
	all        bool
	carried    []string
}

func newCompileCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var p compileParams
	cmd := &cobra.Command{
		Use:   "compile [TASK]...",
		Short: "Compile the skills a task needs into one prompt block",
		// A task typed without quotes arrives as several words: they are
		// the task, joined by single spaces.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if p.noCache {
				defer gctune.StartBuild(gctune.Build)() // it reads every skill
			} else {
				defer gctune.StartShort(gctune.Command)()
			}
			p.taskSet = cmd.Flags().Changed("task")
			if len(args) > 0 {
				if p.taskSet {
					return usageError("give the task either as --task or as arguments, not both")
				}
				p.task, p.taskSet = strings.Join(args, " "), true
			}
			if cmd.Flags().Changed("budget") && p.budget <= 0 {
				return usageError("--budget must be a positive number of tokens, not %d", p.budget)
			}
			if err := valuesGiven(cmd, map[string]string{"task": p.task, "tokenizer": p.tokenizer}, map[string][]string{"select": p.selects, "deny": p.denies, "why": p.why}); err != nil {
				return err
			}
			for _, f := range p.carried {
				if strings.TrimSpace(f) == "" || f != "-" && isFlag(cmd, f) {
					return usageError("--carried needs a FILE, and was given %q", f)
				}
			}
			return runCompile(cmd.Context(), p, stdin, stdout, stderr)
		},
	}
	p.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&p.task, "task", "", "the task `TEXT`, or - to read it from standard input (at most 1 MiB)")
	fl.StringArrayVar(&p.selects, "select", nil, "select unit `NAME` explicitly (trusted host input; repeatable, or NAME,NAME)")
	fl.StringArrayVar(&p.denies, "deny", nil, "deny unit `NAME` outright (repeatable, or NAME,NAME)")
	intVar(fl, &p.budget, "budget", 0, "positive token ceiling for the selected bodies (default from the policy, else 8000)")
	fl.StringVar(&p.tokenizer, "tokenizer", "", "o200k_base (default) or cl100k_base")
	fl.BoolVar(&p.explain, "explain", false, "explain every decision on standard error")
	fl.StringArrayVar(&p.why, "why", nil, "say what became of unit `NAME` and list it in the JSON result, whatever its reason (repeatable, or NAME,NAME)")
	fl.BoolVar(&p.all, "all-rejected", false, "list every rejected unit in the JSON result, not only those a rule decided about")
	fl.StringVar(&p.trajectory, "trajectory", "", "append one JSON audit line per compile to `FILE`")
	fl.StringArrayVar(&p.carried, "carried", nil, "the conversation already holds `FILE` (an earlier prompt; - reads standard input): a skill whose block it holds is given, not sent again (repeatable)")
	return cmd
}

func runCompile(ctx context.Context, p compileParams, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := p.check(); err != nil {
		return err
	}
	if !p.taskSet {
		return usageError("compile needs a task: its words as arguments, --task TEXT, or --task - to read standard input")
	}
	if p.budget < 0 {
		return usageError("--budget must be a positive number of tokens, not %d", p.budget)
	}
	if p.tokenizer != "" && !slices.Contains(compiler.Tokenizers, p.tokenizer) {
		return usageError("--tokenizer must be one of %s, not %q", strings.Join(compiler.Tokenizers, ", "), p.tokenizer)
	}
	task := p.task
	if task == "-" {
		// One byte past the compiler's cap tells a task that is too long,
		// refused as an invalid_request as a long --task is, without
		// reading the rest of a pipe that may never end.
		data, err := io.ReadAll(io.LimitReader(stdin, compiler.MaxTaskBytes+1))
		if err != nil {
			// Standard input that cannot be read (a folder given with
			// < DIR) is the command line's mistake, as a bad flag is.
			return usageError("--task -: reading the task from standard input: %v", err)
		}
		if len(data) > compiler.MaxTaskBytes {
			return reportCompileError(&compiler.Error{Stage: compiler.StageAnalyze, Code: compiler.ErrInvalidRequest,
				Message: fmt.Sprintf("the task on standard input is longer than the limit of %d bytes", compiler.MaxTaskBytes)}, p.format, stdout)
		}
		task = string(data)
	}
	if strings.TrimSpace(task) == "" {
		// Legitimate with --select or mandatory units, but an unset
		// variable or an empty pipe looks the same: say so, not silently.
		fmt.Fprintln(stderr, "rlmc: the task is empty: no skill is routed from it (only --select and the policy's mandatory units load)")
	}
	carried, err := readCarried(p.carried, p.task == "-", stdin)
	if err != nil {
		return err
	}
	p.sayNoRoot = true
	c, err := p.load(ctx, stderr)
	if err != nil {
		return err
	}
	denies := splitNames(p.denies)
	// A denied name the catalog lacks denies nothing: say so, as the
	// policy's deny list does (unknown_policy_unit), since it is most
	// likely a typo for a unit that stays allowed. --explain says it
	// among the result's diagnostics.
	why := splitNames(p.why)
	if !p.explain {
		for _, d := range slices.Concat(compiler.UnknownDenies(c, "--deny", denies), compiler.UnknownNames(c, "--why", why)) {
			fmt.Fprintf(stderr, "rlmc: %s\n", d.String())
		}
	}
	req := compiler.Request{Task: task, Select: splitNames(p.selects), Deny: denies, Budget: p.budget, Tokenizer: p.tokenizer,
		Why: why, AllRejected: p.all, Carried: carried}
	var (
		res      *compiler.Result
		auditErr error // the compile's record was not written
	)
	if p.trajectory != "" {
		f, ferr := openTrajectory(p.trajectory)
		if ferr != nil {
			return ferr
		}
		defer f.Close()
		res, err = compiler.NewAudit(f).Compile(ctx, c, req)
		var ae *compiler.AuditError
		switch {
		case !errors.As(err, &ae):
		case res != nil:
			// The compile succeeded and only its record failed: the
			// result is still printed, and the run fails after it.
			auditErr, err = &exitError{code: exitFailure, err: fmt.Errorf("--trajectory: %w", ae.Err)}, nil
		default:
			// The compile failed too: both are said.
			fmt.Fprintf(stderr, "rlmc: --trajectory: %v\n", ae.Err)
		}
	} else {
		res, err = c.Compile(ctx, req)
	}
	if err != nil {
		return reportCompileError(err, p.format, stdout)
	}
	c.StoreCache()
	if err := printCompile(p, res, c, why, strings.TrimSpace(task) == "", stdout, stderr); err != nil {
		return err
	}
	return auditErr
}

// openTrajectory opens the --trajectory file for appending. "-" is
// refused rather than made a file of that name: standard output holds the
// command's own answer, and a newcomer reads "-" as standard output, as
// --task - reads standard input.
func openTrajectory(name string) (*os.File, error) {
	if name == "-" {
		return nil, usageError("--trajectory -: standard output holds the answer; give a file (/dev/stderr for standard error)")
	}
	f, err := safefs.OpenAppend(name)
	if err != nil {
		return nil, usageError("--trajectory: %v", err)
	}
	return f, nil
}

// printCompile prints a compile's result as p asks: its explanation, and
// the JSON document or the prompt with its notes.
func printCompile(p compileParams, res *compiler.Result, c *compiler.Compiler, why []string, emptyTask bool, stdout, stderr io.Writer) error {
	if p.explain {
		if err := compiler.WriteExplanation(stderr, res); err != nil {
			return err
		}
	}
	if p.format == "json" {
		return writeJSON(stdout, res)
	}
	if !p.explain {
		// The prompt alone cannot say why a skill the user expected is
		// missing; one line each on stderr does (--explain says it all).
		for _, n := range compileNotes(res, c.Catalog(), c.Policy().Invocation) {
			if emptyTask && strings.HasPrefix(n, noRouteLead) {
				continue // the empty task was said already
			}
			fmt.Fprintf(stderr, "rlmc: %s\n", n)
		}
		for _, n := range whyNotes(res, why) {
			fmt.Fprintf(stderr, "rlmc: %s\n", n)
		}
	}
	_, err := io.WriteString(stdout, res.Prompt)
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
		if werr := writeJSON(stdout, compiler.ErrorDocument(ce)); werr != nil {
			return werr
		}
		return failed()
	}
	return &exitError{code: exitFailure, err: ce}
}

// valuesGiven refuses a flag given without a value: one that took the
// next flag as its value (--task --explain compiled the task
// "--explain"), an empty one (--tokenizer "" is no tokenizer), or a list
// of names with none in it (--select= selects nothing). Each would run
// something the user did not ask for, in silence.
func valuesGiven(cmd *cobra.Command, values map[string]string, lists map[string][]string) error {
	for _, name := range slices.Sorted(maps.Keys(values)) {
		v := values[name]
		if !cmd.Flags().Changed(name) {
			continue
		}
		if isFlag(cmd, v) {
			hint := ""
			if name == "task" {
				hint = " (a task that starts with -- goes after a lone --: rlmc compile -- TASK)"
			}
			return usageError("--%s needs a value, and took the flag %s as it%s", name, v, hint)
		}
		if strings.TrimSpace(v) == "" && name != "task" { // an empty task is said at run time
			return usageError("--%s needs a value, and was given none", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(lists)) {
		for _, v := range lists[name] {
			if len(splitNames([]string{v})) == 0 {
				return usageError("--%s needs a unit NAME, and was given none", name)
			}
		}
	}
	return nil
}

// isFlag reports whether v is one of cmd's flags, long (--explain, with
// or without a value) or short (-h).
func isFlag(cmd *cobra.Command, v string) bool {
	if rest, ok := strings.CutPrefix(v, "--"); ok {
		name, _, _ := strings.Cut(rest, "=")
		return cmd.Flags().Lookup(name) != nil
	}
	return len(v) == 2 && v[0] == '-' && cmd.Flags().ShorthandLookup(v[1:]) != nil
}

// maxCarriedBytes bounds a --carried file: a conversation's prompts, not
// its whole transcript.
const maxCarriedBytes = 16 << 20

// readCarried reads the --carried files into a Request.Carried: nil for
// none. "-" reads standard input (a pipeline's earlier prompts), unless
// the task is read from it (taskStdin). A file that cannot be read is the
// command line's mistake.
func readCarried(files []string, taskStdin bool, stdin io.Reader) (func(string) bool, error) {
	if len(files) == 0 {
		return nil, nil
	}
	texts := make([]string, 0, len(files))
	read := false // standard input, once
	for _, f := range files {
		var (
			data []byte
			err  error
		)
		if f == "-" {
			if taskStdin || read {
				return nil, usageError("--carried -: standard input is read once, and the task or another --carried - reads it")
			}
			read = true
			data, err = io.ReadAll(io.LimitReader(stdin, maxCarriedBytes+1))
			if err == nil && len(data) > maxCarriedBytes {
				err = fmt.Errorf("over %d bytes", maxCarriedBytes)
			}
		} else {
			data, err = safefs.ReadPath(f, maxCarriedBytes)
		}
		if err != nil {
			return nil, usageError("--carried %s: %v", f, err)
		}
		texts = append(texts, string(data))
	}
	return compiler.CarriedIn(texts...), nil
}
