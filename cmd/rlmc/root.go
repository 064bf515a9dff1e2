package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlmc-dev/rlmc/internal/suggest"
	"github.com/rlmc-dev/rlmc/ir"
)

// Exit codes, decided here and nowhere else.
const (
	exitOK      = 0
	exitFailure = 1 // a compile error, a validation error, a failing test case
	exitUsage   = 2
)

// exitError carries an exit code for an error that has already been
// reported (for example as JSON on stdout), so Main prints nothing more.
type exitError struct {
	code     int
	reported bool
	err      error
}

func (e *exitError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit %d", e.code)
}

// envHookCheck names the environment variable that makes a hook's error
// exit 1 rather than 0: doctor sets it when it runs an installed hook, so
// that a hook that answers nothing (a mistyped flag, a root that does not
// exist) is told from one that answered. Claude Code never sets it.
const envHookCheck = "RLMC_HOOK_CHECK"

// failed returns an error that exits 1 without printing anything more.
func failed() error { return &exitError{code: exitFailure, reported: true} }

// usageError returns an error that exits 2 and prints its message.
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// Main runs rlmc with args and returns the process exit code. It is the
// entry point of both the binary and the in-process CLI tests.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &writeTracker{w: stdout}
	root := newRootCmd(stdin, out, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil && out.err != nil {
		// A command that printed its result into a full disk or a closed
		// pipe did not deliver it, whatever it returned.
		err = out.err
	}
	if err == nil {
		return exitOK
	}
	if neverBlocks(cmd) {
		// A hook's client reads a non-zero exit as "stop the prompt"
		// (Claude Code blocks it on 2): a hook's error, usage errors
		// included, is one line on stderr and exit 0.
		fmt.Fprintf(stderr, "rlmc: %s\n", ir.EscapeText(err.Error()))
		if os.Getenv(envHookCheck) != "" && !errors.As(err, new(nothingToDo)) {
			return exitFailure
		}
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if !ee.reported && ee.err != nil {
			// An error may quote a path from disk (a file in a
			// vendored checkout, a case file): escaped, it stays one
			// line and sends no terminal escape.
			fmt.Fprintf(stderr, "rlmc: %s\n", ir.EscapeText(ee.err.Error()))
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown flag, bad argument count) are usage errors.
	fmt.Fprintf(stderr, "rlmc: %s\n", ir.EscapeText(err.Error()))
	if isUsage(err) {
		return exitUsage
	}
	return exitFailure
}

// neverBlocksKey annotates a command whose errors must not fail the
// process: the hooks, which run before a user's prompt.
const neverBlocksKey = "rlmc-never-blocks"

// neverBlocks reports whether cmd or a command above it is annotated
// neverBlocksKey.
func neverBlocks(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[neverBlocksKey] != "" {
			return true
		}
	}
	return false
}

// usageErr marks errors from flag parsing.
type usageErr struct{ error }

func isUsage(err error) bool {
	var u usageErr
	return errors.As(err, &u)
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "rlmc",
		Short:         "Compile Agent Skills into a planner prompt with a sandboxed Prolog policy",
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          noCommand,

		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newListCmd(stdout, stderr),
		newValidateCmd(stdout),
		newCompileCmd(stdin, stdout, stderr),
		newTestCmd(stdout),
		newVendorCmd(stdout),
		newBenchCmd(stdout, stderr),
		newGraphCmd(stdout, stderr),
		newDoctorCmd(stdout),
		newVersionCmd(stdout),
		newServeCmd(stderr),
		newProxyCmd(stderr),
		newHookCmd(stdin, stdout, stderr),
		newInitCmd(stdout, stderr),
	)
	setVersion(root)
	initCompletionCmd(root)
	registerCompletions(root)
	wrapArgs(root)
	initHelpCmd(root)
	return root
}

// initHelpCmd adds cobra's help command now, and makes a topic it does
// not know a usage error with the commands it is close to, as a mistyped
// command is: cobra's prints the root's help and exits 0 ("rlmc help
// compiel"). Added after wrapArgs, which would refuse its arguments.
func initHelpCmd(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() != "help" {
			continue
		}
		run := c.Run
		c.Run = nil
		c.RunE = func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			switch {
			case err != nil:
				return usageErr{noCommand(root, args)}
			case len(rest) > 0 && !target.HasAvailableSubCommands():
				return usageError("%s has no command %s", target.CommandPath(), ir.Quote(rest[0]))
			case len(rest) > 0:
				return usageErr{noCommand(target, rest)}
			}
			run(cmd, args)
			return nil
		}
	}
}

// initCompletionCmd adds cobra's completion command now rather than when
// it runs, so that it gets our argument checks: cobra's own prints its help
// and exits 0 for a shell it does not know (tcsh), which a script that
// installs completions reads as success.
func initCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
		}
		c.Use = "completion SHELL" // as the README and docs/commands.md show it
		c.Args = noCommand
		c.RunE = func(*cobra.Command, []string) error {
			return usageError("completion needs a shell: %s", strings.Join(shells, ", "))
		}
	}
}

// noCommand is the argument check of a command that only holds
// subcommands: an argument is a mistyped command, answered with the
// commands it is close to (cobra's suggestions, which it gives only to a
// command without an argument check).
func noCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %s for %q", ir.Quote(args[0]), cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which SuggestionsFor does not apply
	}
	s := cmd.SuggestionsFor(args[0])
	if len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	// A short list (completion's shells) is worth giving whole, as a
	// suggestion by spelling may miss the one meant.
	if len(s) == 0 || len(names) <= 5 {
		msg += " (it takes " + strings.Join(names, ", ") + ")"
	}
	return errors.New(msg)
}

// badValueRE matches pflag's error for a value its flag's type cannot
// parse, and kindWords says what that type wants.
var (
	badValueRE = regexp.MustCompile(`^(invalid argument ".*" for ".*" flag): (?:strconv\.(ParseInt|ParseFloat|ParseBool): parsing ".*": (invalid syntax|value out of range)|(time): .*)$`)
	kindWords  = map[string]string{
		"ParseInt": "a whole number", "ParseFloat": "a number", "ParseBool": "true or false",
		"time": "a duration such as 2s, 500ms or 1m30s",
	}
)

// givenTwiceRE matches pflag's wrapping of onceValue's refusal.
var givenTwiceRE = regexp.MustCompile(`^invalid argument ".*" for ".*" flag: (--\S+ is given more than once .*)$`)

// shorthandRE matches pflag's error for a single-dash word it read as
// shorthand flags.
var shorthandRE = regexp.MustCompile(`^unknown shorthand flag: '.' in -([^ =]+)`)

// unknownFlagRE matches pflag's error for a long flag it does not know.
var unknownFlagRE = regexp.MustCompile(`^unknown flag: --([^ =]+)`)

// flagError makes a flag error a usage error, and names the command's
// flags an unknown one is close to, as cobra does for commands.
func flagError(cmd *cobra.Command, err error) error {
	if m := badValueRE.FindStringSubmatch(err.Error()); m != nil {
		// pflag's "strconv.ParseInt: parsing "abc": invalid syntax" is
		// the parser's, not the user's, language.
		want := kindWords[m[2]+m[4]]
		if m[3] == "value out of range" {
			want += " in range"
		}
		return usageErr{fmt.Errorf("%s: want %s", m[1], want)}
	}
	if args := cmd.Flags().Args(); cmd.HasAvailableSubCommands() && len(args) > 0 {
		// "rlmc comple --task x": cobra found no command "comple" and
		// parsed the flags meant for it as rlmc's own. The mistyped
		// command is the error to report, not the flag.
		if cerr := noCommand(cmd, args); cerr != nil {
			return usageErr{cerr}
		}
	}
	if m := givenTwiceRE.FindStringSubmatch(err.Error()); m != nil {
		return usageErr{errors.New(m[1])}
	}
	m := unknownFlagRE.FindStringSubmatch(err.Error())
	if s := shorthandRE.FindStringSubmatch(err.Error()); s != nil && len(s[1]) > 1 {
		// "-select": a long flag written with one dash, read as the
		// shorthands s, e, l, ...; rlmc has none.
		m = []string{err.Error(), s[1]}
	}
	if m == nil {
		return usageErr{err}
	}
	var close []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if typed := strings.ToLower(m[1]); !f.Hidden && (suggest.Distance(typed, f.Name) <= 2 || strings.HasPrefix(f.Name, typed)) {
			close = append(close, "--"+f.Name)
		}
	})
	if len(close) == 0 {
		return usageErr{fmt.Errorf("%w (%s --help lists the flags)", err, cmd.CommandPath())}
	}
	return usageErr{fmt.Errorf("%w; did you mean %s?", err, strings.Join(close, " or "))}
}

// emptyPath refuses a file or folder flag given an empty value (a
// variable unset in a script: --policy "$POLICY"): the command would run
// without the policy, and so without its deny list, in silence. A flag is
// a path when its usage names its value FILE or DIR.
func emptyPath(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if name, _ := pflag.UnquoteUsage(f); err == nil && (name == "FILE" || name == "DIR") && strings.TrimSpace(f.Value.String()) == "" {
			err = usageErr{fmt.Errorf("--%s needs a %s, and was given none (an unset variable?)", f.Name, name)}
		}
	})
	return err
}

// wrapArgs turns cobra's argument-count errors into usage errors, and
// refuses an empty path flag (emptyPath), before any command runs.
func wrapArgs(c *cobra.Command) {
	check := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := emptyPath(cmd); err != nil {
			return err
		}
		err := check(cmd, args)
		if err == nil {
			return nil
		}
		// cobra's count errors ("accepts 1 arg(s), received 0") do not
		// say what the arguments are; the usage line does.
		if msg := err.Error(); strings.HasPrefix(msg, "accepts ") || strings.HasPrefix(msg, "requires ") {
			err = fmt.Errorf("%w (usage: %s)", err, cmd.UseLine())
		}
		return usageErr{err}
	}
	c.Flags().VisitAll(onlyOnce)
	for _, sub := range c.Commands() {
		sub.SetFlagErrorFunc(c.FlagErrorFunc())
		if sub.Args == nil {
			sub.Args = noArgs
		}
		wrapArgs(sub)
	}
}

// onlyOnce makes a flag that holds one value refuse a second one
// ("--format json --format text"), which would otherwise win in silence:
// a list flag (--root, --select) takes each, and a switch (--explain)
// repeated says the same thing twice.
func onlyOnce(f *pflag.Flag) {
	switch t := f.Value.Type(); {
	case t == "bool" || strings.HasSuffix(t, "Array") || strings.HasSuffix(t, "Slice"):
		return
	}
	if _, done := f.Value.(*onceValue); !done {
		f.Value = &onceValue{Value: f.Value, name: f.Name}
	}
}

// onceValue is a flag's value that may be set once.
type onceValue struct {
	pflag.Value
	name string
	set  bool
}

func (v *onceValue) Set(s string) error {
	if v.set {
		return fmt.Errorf("--%s is given more than once (%s, then %s): give it once", v.name, ir.Quote(v.Value.String()), ir.Quote(s))
	}
	v.set = true
	return v.Value.Set(s)
}

// noArgs refuses the arguments of a command that takes none. cobra's
// NoArgs calls one an unknown command; a folder given to a command with
// --root (rlmc list ../skills) is most likely the root meant.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s takes no arguments, and was given %s", cmd.CommandPath(), ir.Quote(args[0]))
	if cmd.Flags().Lookup("root") != nil {
		if fi, err := os.Stat(args[0]); err == nil && fi.IsDir() {
			msg += "; for a skill root, use --root " + shellQuote(args[0])
		}
	}
	return errors.New(msg)
}

// setting is one numeric flag's value and the least it may be.
type setting struct {
	flag  string
	value int64
	least int64
}

func positive(flag string, v int64) setting    { return setting{flag, v, 1} }
func notNegative(flag string, v int64) setting { return setting{flag, v, 0} }

// checkSettings refuses, as a usage error, the first setting below its
// least: a zero or negative timeout, bound or size would otherwise
// quietly mean something the user did not ask for.
func checkSettings(cmd *cobra.Command, ss ...setting) error {
	for _, s := range ss {
		if s.value >= s.least {
			continue
		}
		shown := strconv.FormatInt(s.value, 10)
		if f := cmd.Flags().Lookup(s.flag); f != nil {
			shown = f.Value.String()
		}
		what := "positive"
		if s.least == 0 {
			what = "zero or more"
		}
		return usageError("--%s must be %s, not %s", s.flag, what, shown)
	}
	return nil
}

// writeTracker passes writes on and keeps the first error, so that Main
// fails a command whose output was lost even where the command did not
// check a write (a table, a report).
type writeTracker struct {
	w   io.Writer
	err error
}

func (t *writeTracker) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}
