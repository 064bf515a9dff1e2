package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/gctune"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/strictjson"
	"github.com/rlmc-dev/rlmc/ir"
)

// hookEvent is the Claude Code hook event `rlmc hook claude-code` answers.
const hookEvent = "UserPromptSubmit"

// defaultHookTimeout bounds a hook run: the user waits for it before every
// prompt.
const defaultHookTimeout = time.Second

// maxHookInput bounds the hook input read from stdin. JSON escaping can
// make a prompt up to six times longer (\u00XX for every byte), and the
// other fields are short.
const maxHookInput = 6*compiler.MaxTaskBytes + 64<<10

// hookMaxChars is Claude Code's limit on what a hook adds to the context:
// a longer output is not added whole. The hook keeps its whole output
// (the JSON, escaping included) within it.
const hookMaxChars = 10000

// hookFitTries bounds how many compiles the hook makes to fit its output
// in --max-chars: each shrinks the budget in proportion to how much too
// long the last output was.
const hookFitTries = 6

// claudeOwnRoots are the skill folders, relative to the project and to the
// home folder, that Claude Code lists to the model itself. The hook leaves
// them out of its default roots, so no skill reaches the model twice.
var claudeOwnRoots = []string{".claude/skills"}

// hookParams are the flags of `rlmc hook claude-code`.
type hookParams struct {
	roots   []string
	policy  string
	selects []string
	denies  []string
	budget  int
	// budgetSet is whether --budget was given: 0 is the default only
	// when it was not, as for compile.
	budgetSet bool
	maxChars  int
	timeout   time.Duration
	// loadTimeout bounds the catalog's load when the catalog cache is
	// cold: past it, the load is left to a builder (0: until shortly
	// before the deadline, see loadMargin).
	loadTimeout time.Duration
	loadBy      time.Time // when the load is left to a builder
	noCache     bool
	// resend gives every selected skill in full with each prompt, even
	// one the conversation holds (see hookSession).
	resend bool
}

// hookInput is the part of Claude Code's UserPromptSubmit input the hook
// reads; other fields are ignored, so a newer Claude Code that adds some
// still works.
type hookInput struct {
	HookEventName *string `json:"hook_event_name"`
	Prompt        *string `json:"prompt"`
	Cwd           string  `json:"cwd"`
	// SessionID and TranscriptPath name the conversation (see
	// hookSession); a value that is not a string is no conversation, so
	// the prompt still gets its skills, each in full.
	SessionID      any `json:"session_id"`
	TranscriptPath any `json:"transcript_path"`
}

// hookOutput is what the hook prints when a compile selects skills: Claude
// Code adds additionalContext to the prompt's context.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func newHookCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	hook := &cobra.Command{
		Use:   "hook",
		Short: "Run rlmc as a client's per-prompt hook; never blocks a prompt",
		Long: `Run rlmc as a client's per-prompt hook.

A hook never blocks the user's prompt: every error, a mistyped flag or
subcommand included, prints one line on standard error, nothing on standard
output, and exits 0.`,
		Args:        noCommand,
		Annotations: map[string]string{neverBlocksKey: "true"},
		// A hook command line without its client would otherwise print
		// the help on stdout, which the client adds to every prompt.
		RunE: func(*cobra.Command, []string) error {
			return errors.New("rlmc hook needs a client: rlmc hook claude-code")
		},
	}
	var p hookParams
	cc := &cobra.Command{
		Use:   "claude-code",
		Short: "Answer Claude Code's UserPromptSubmit hook with the skills the prompt needs",
		Long: `Answer Claude Code's UserPromptSubmit hook.

Reads the hook input (JSON on standard input: the prompt and the working
directory), compiles the prompt against that directory's skill roots and the
user's, and prints the hook output that adds the selected skills' block as
context. When nothing is selected it prints nothing.

Without --root, the roots are the default project roots of the prompt's
working directory and the user roots (or $RLMC_SKILLS_ROOT), except
.claude/skills: Claude Code lists the skills there to the model itself.

Explicit-user-only skills load by --select in the hook's command line,
the policy's mandatory, or a prompt that opens with their /name (after a
blank: Claude Code takes a prompt that starts with / as its own command);
the prompt's words never load them.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer gctune.StartShort(gctune.Command)()
			p.budgetSet = cmd.Flags().Changed("budget")
			return runHook(cmd.Context(), p, stdin, stdout, stderr)
		},
	}
	fl := cc.Flags()
	fl.StringArrayVar(&p.roots, "root", nil, rootFlagHelp)
	fl.StringVar(&p.policy, "policy", "", "host policy YAML `FILE`")
	fl.StringArrayVar(&p.selects, "select", nil, "select unit `NAME` on every prompt (trusted host input; repeatable, or NAME,NAME)")
	fl.StringArrayVar(&p.denies, "deny", nil, "deny unit `NAME` outright (repeatable, or NAME,NAME)")
	intVar(fl, &p.budget, "budget", 0, "positive token ceiling for the selected bodies (default from the policy, else 8000)")
	intVar(fl, &p.maxChars, "max-chars", hookMaxChars, "positive ceiling on the whole output in characters (Claude Code's limit); bodies that do not fit are rendered as references")
	fl.DurationVar(&p.timeout, "timeout", defaultHookTimeout, "deadline of the whole hook run")
	fl.DurationVar(&p.loadTimeout, "load-timeout", 0, "how long a load may take before it is left to a builder that writes the catalog cache (default: until shortly before the deadline)")
	fl.MarkHidden("load-timeout")
	fl.BoolVar(&p.resend, "resend", false, "give each selected skill in full with every prompt, even one given earlier in the session")
	registerNoCache(cc, &p.noCache)
	hook.AddCommand(cc, newHookBuildCmd(stderr))
	// The help the command library prints (--help, as a settings file
	// may pass it) goes to standard error: standard output is what the
	// client adds to the prompt. Only the help: a shell's completion
	// reads its answers on standard output.
	help := hook.HelpFunc()
	hook.SetHelpFunc(func(c *cobra.Command, args []string) {
		c.SetOut(stderr)
		help(c, args)
	})
	return hook
}

// runHook answers one hook call. Its errors are printed by Main on one
// line and exit 0 (see neverBlocks), so it just returns them.
func runHook(ctx context.Context, p hookParams, stdin io.Reader, stdout, stderr io.Writer) error {
	// Each names the flag it is about: one message listing every bound
	// left the user to find which they broke.
	switch {
	case p.budget < 0 || p.budgetSet && p.budget == 0:
		return fmt.Errorf("--budget must be positive, not %d", p.budget)
	case p.maxChars <= 0:
		return fmt.Errorf("--max-chars must be positive, not %d", p.maxChars)
	case p.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, not %v", p.timeout)
	case p.loadTimeout < 0:
		return fmt.Errorf("--load-timeout must be zero or more, not %v", p.loadTimeout)
	case isDevice(stdin):
		// Run by hand at a terminal, the read waited for the deadline
		// and said "no answer within 1s", which reads as slowness.
		return errors.New(`standard input is a terminal or a device, not the JSON Claude Code writes to the hook: pipe it in, as in echo '{"prompt":"review my diff","cwd":"'$PWD'"}' | rlmc hook claude-code (for a plain task, rlmc compile --task)`)
	}
	// The deadline counts from the process's start, as the client's
	// does: starting a 30 MB program on a busy machine can take a tenth
	// of it.
	ctx, cancel := context.WithDeadline(ctx, processStart.Add(p.timeout))
	defer cancel()
	if p.loadTimeout == 0 {
		p.loadTimeout = max(p.timeout-loadMargin(p.timeout), 0)
	}
	p.loadBy = processStart.Add(p.loadTimeout)
	type answer struct {
		out []byte
		err error
	}
	done := make(chan answer, 1)
	var cold coldLoad
	// The cache is made here, so that why it is off is known to the
	// line said at the deadline however soon that comes.
	cache, off := newCatalogCache(p.noCache, stderr)
	if cache != nil {
		// The hook reads its cache file rather than map it: a file cut
		// short in place under a mapping (cp over it as root, a
		// restore) stops the process with SIGBUS, exit 2, which Claude
		// Code takes as "block this prompt". Reading costs about 90 ms
		// more at 20,000 skills (213 to 302 ms, within the deadline).
		cache.Mapped = false
	}
	if off != nil {
		cold.off(cacheOffText(off))
	}
	go func() {
		var a answer
		defer func() {
			// A hook that panics would exit 2, which blocks the
			// prompt: a panic is one more error.
			if r := recover(); r != nil {
				a.err = fmt.Errorf("internal error: %v", r)
			}
			done <- a
		}()
		a.out, a.err = hookAnswer(ctx, p, stdin, stderr, cache, off, &cold)
	}()
	// A load not done by p.loadBy is left to a builder whether or
	// not it heeds its context at once.
	leave := time.NewTimer(time.Until(p.loadBy))
	defer leave.Stop()
	for {
		select {
		case a := <-done:
			if a.err != nil && ctx.Err() != nil {
				// The answer came back as the deadline passed, with the
				// deadline's error: said as the deadline is below, with
				// why the cache did not serve, whichever of the two the
				// select saw first.
				return joinError(fmt.Errorf("no answer within %v", p.timeout), cold.why())
			}
			if a.err != nil {
				return a.err
			}
			_, err := stdout.Write(a.out)
			return err
		case <-leave.C:
			if err := cold.leave(false); err != nil {
				return err
			}
		case <-ctx.Done():
			// Whatever still runs (a read that ignores the context) is
			// left behind: the process exits, the prompt goes on. A
			// load not done is left to a builder, building or not: one
			// that a catalog changed since its file was written keeps
			// reading skills may not have said so yet.
			if err := cold.leave(true); err != nil {
				return err
			}
			return joinError(fmt.Errorf("no answer within %v", p.timeout), cold.why())
		}
	}
}

// isDevice reports whether r is a file that is a terminal or another
// character device (/dev/null), which never holds a hook's input.
func isDevice(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// loadMargin is how long before its deadline a hook leaves a load that
// builds to a builder: time to start one (a fork and an exec, up to a
// tenth of a second on a busy machine), answer and exit.
func loadMargin(timeout time.Duration) time.Duration { return min(timeout/4, 250*time.Millisecond) }

// processStart is when this process began running Go code, near enough
// to when the client started it.
var processStart = time.Now()

// coldLoad is a hook's load through the catalog cache, which the hook
// leaves to a builder process (see startBuilder), once, when it builds
// and is not done by its loadBy: its cache file is not there yet, or the
// load finds the catalog changed since the file was written, or the file
// damaged, and reads and analyses skills. A prompt cut off at its
// deadline would never get to write the file, prompt after prompt.
type coldLoad struct {
	mu       sync.Mutex
	start    func() error // nil while no load runs, or once left
	cancel   func()       // ends the load
	building bool
	loadBy   time.Time
	err      error
	// note says why the cache does not serve the hook: off, or no
	// builder could be started.
	note string
}

// off records why the hook has no catalog cache, for the line it says
// when it runs out of time.
func (c *coldLoad) off(note string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.note = note
}

// why is the note off or a failed builder left.
func (c *coldLoad) why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.note
}

// begin records a load, how to leave it to a builder and to end it, and
// whether it builds from the start (no cache file).
func (c *coldLoad) begin(start func() error, cancel func(), building bool, loadBy time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start, c.cancel, c.building, c.loadBy = start, cancel, building, loadBy
}

// builds records that the load turned out to build (catcache's OnBuild),
// and leaves it at once when its loadBy has passed.
func (c *coldLoad) builds() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.building = true
	if c.start != nil && !time.Now().Before(c.loadBy) {
		c.leaveLocked()
	}
}

// end records that the load is over.
func (c *coldLoad) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start = nil
}

// leave starts the builder of a load that still runs and builds (or of
// any load still running, with always), ends the load, and returns the
// not-ready error to answer with when it built; nil when no such load
// runs.
func (c *coldLoad) leave(always bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.start != nil && (c.building || always) {
		c.leaveLocked()
	}
	return c.err
}

func (c *coldLoad) leaveLocked() {
	err := c.start()
	c.start = nil
	if err != nil && !errors.Is(err, catcache.ErrBuilding) {
		// No builder can take the load (a cache folder refused or
		// that cannot be made): it goes on to the deadline, as a load
		// without a cache does.
		c.note = "the catalog cache could not be built: " + err.Error()
		var off *catcache.Off
		if errors.As(err, &off) {
			c.note = cacheOffText(off)
		}
		return
	}
	if c.building {
		c.err = notReady()
	}
	c.cancel()
}

// notReady is the hook's one line when its catalog is not loaded in time
// because the catalog cache is being built, by the builder this prompt
// started or by another's.
func notReady() error {
	return errors.New("skills not ready (building the catalog cache); this prompt goes without skills")
}

// hookAnswer reads the hook input, compiles its prompt and returns what to
// print: the hook output, or nothing when no skill is selected. A load
// that builds (no cache file, or one that no longer serves it) runs for
// at most p.loadTimeout, and is left to a builder past it (through cold,
// which runHook also uses when the deadline comes first); when a builder
// is at work already, it does not load at all.
func hookAnswer(ctx context.Context, p hookParams, stdin io.Reader, stderr io.Writer, cache *catcache.Cache, off *catcache.Off, cold *coldLoad) ([]byte, error) {
	in, err := readHookInput(stdin)
	if err != nil {
		return nil, err
	}
	var pol compiler.Policy
	if p.policy != "" {
		if pol, err = compiler.LoadPolicy(p.policy); err != nil {
			return nil, err
		}
	}
	opts := loader.Options{Roots: p.roots}
	linkedNote := ""
	var claudeListed map[string]bool // skill folders Claude Code lists through links
	if compiler.Resolve(opts, pol, compiler.Env{Cwd: in.Cwd}).Origin() == loader.FromDefault {
		// Neither --root nor the policy names roots: the built-in ones
		// of the prompt's folder, those that exist.
		home, _ := os.UserHomeDir()
		var linked, shared []string
		var builtin loader.Resolved
		opts.Roots, linked, shared, builtin = hookRoots(in.Cwd, home, os.Getenv, isDir, isSymlink)
		var left []string
		opts.Roots, left = scannable(opts.Roots, builtin.EnvRoot())
		for _, d := range builtin.Refused {
			left = append(left, ir.Printable(d.Root)+": "+d.Message)
		}
		if len(linked) > 0 {
			left = append(left, fmt.Sprintf("%s left out: a link to Claude Code's own skill folder, whose skills Claude Code lists itself", strings.Join(linked, ", ")))
		}
		if len(shared) > 0 {
			left = append(left, fmt.Sprintf("%s left out: Claude Code's own skill folder is a link to it, so Claude Code lists its skills itself", strings.Join(shared, ", ")))
		}
		linkedNote = strings.Join(left, "; ")
		claudeListed = claudeLinked(in.Cwd, home)
		if len(opts.Roots) == 0 {
			return nil, nothingToDo{joinError(fmt.Errorf("no skill root under %s or the home folder (%s is left to Claude Code)", in.Cwd, strings.Join(claudeOwnRoots, ", ")), linkedNote)}
		}
	}
	// A cache that is off is said in the hook's one line on stderr, with
	// the error or the note, not in a line of its own.
	cacheNote := func() string {
		if o := cache.Off(); o != nil {
			off = o
		}
		if off == nil {
			return ""
		}
		return cacheOffText(off)
	}
	loadCtx := ctx
	writeFailed := "" // why the cache file cannot be written, said with the answer
	if cache != nil {
		// A load that has not finished shortly before the deadline is
		// left to a builder, whether the cache file is missing or cannot
		// serve this load as it stands (a skill edited since it was
		// written, a damaged file): the load then reads and analyses
		// what changed and writes the file again, which a prompt that
		// is cut off at its deadline would never get to, prompt after
		// prompt.
		key := compiler.CacheKey(opts, pol, cache)
		has, busy := cache.Has(key), cache.Building(key)
		if busy && !has {
			// Another prompt's builder is at work, and there is no file
			// to start from: a load here would only slow it down.
			return nil, notReady()
		}
		if why := cache.WriteFailed(key); why != "" {
			// A builder would fail to write the file as the last one
			// did (no space left, a folder in its place), whether an
			// older file is there or not, and every prompt would wait
			// for it: this one loads by itself, and says why, answered
			// or cut off at its deadline.
			writeFailed = fmt.Sprintf("the catalog cache cannot be written in %s (%s): each prompt loads the catalog without it", ir.Printable(cache.Dir), ir.EscapeText(why))
			cold.off(writeFailed)
		} else {
			args := buildArgs(opts.Roots, p.policy)
			var cancel context.CancelFunc
			loadCtx, cancel = context.WithCancel(ctx)
			defer cancel()
			// With a builder at work, the file may still serve this
			// prompt as it stands (the lock may be one left behind):
			// the load is left at once if it turns out to build.
			loadBy := p.loadBy
			if busy {
				loadBy = time.Time{}
			}
			cold.begin(func() error { return startBuilder(cache, key, args) }, cancel, !has, loadBy)
			defer cold.end()
			onBuild := cache.OnBuild
			cache.OnBuild = func() {
				if onBuild != nil {
					onBuild()
				}
				cold.builds()
			}
		}
	}
	c, err := compiler.LoadWith(loadCtx, opts, pol, cache)
	if err != nil {
		if loadCtx.Err() != nil && ctx.Err() == nil {
			// Left to a builder: the load ended for it.
			if err := cold.leave(false); err != nil {
				return nil, err
			}
		}
		return nil, joinError(err, cacheNote())
	}
	cold.end()
	// A prompt over the compile's bound is the user's to send: the skills
	// come from its start and end.
	task, _ := compiler.ClipTask(*in.Prompt)
	denies := splitNames(p.denies)
	// A skill Claude Code lists itself through a link in its own folder
	// is left to it, as that folder is: routed too, it reached the model
	// twice.
	// One the host selects or makes mandatory is the host's to load: left
	// to Claude Code, it failed every prompt (a mandatory unit denied).
	selects := splitNames(p.selects)
	listed := slices.DeleteFunc(unitsIn(c, claudeListed), func(n string) bool {
		return slices.Contains(selects, n) || slices.Contains(pol.Mandatory, n)
	})
	var session *hookSession
	if !p.resend {
		session = openSession(cache, in)
	}
	res, out, err := fitHook(ctx, c, compiler.Request{Task: task, Select: selects, Deny: slices.Concat(denies, listed), Budget: p.budget, Carried: session.carried()}, p.maxChars)
	if err != nil {
		return nil, joinError(err, cacheNote())
	}
	c.StoreCache()
	notes := []string{hookNote(c.Diagnostics(), c.Catalog()), linkedNote}
	if len(listed) > 0 {
		them := "them"
		if len(listed) == 1 {
			them = "it"
		}
		notes = append(notes, fmt.Sprintf("%s left to Claude Code, which lists %s itself through a link in %s", listSome(listed), them, strings.Join(claudeOwnRoots, ", ")))
	}
	// A --deny naming no unit is likely a typo for one that stays
	// allowed, as compile says.
	for _, d := range compiler.UnknownDenies(c, "--deny", denies) {
		notes = append(notes, d.Message)
	}
	if res != nil && len(res.Selected) > 0 {
		// Some skills are delivered; say which the prompt pointed at but
		// the budget left out.
		notes = append(notes, overBudget(res)...)
	}
	if given := givenUnits(res); len(given) > 0 {
		notes = append(notes, fmt.Sprintf("%s given in full with an earlier prompt of this session: a line points to it (--resend gives it again)", listSome(given)))
	}
	if res != nil {
		notes = append(notes, shadowNotes(res, c.Catalog())...)
		notes = append(notes, invokedNotes(res)...)
		// A skill the prompt names in words, or points at strongly, that
		// only the user may invoke: the prompt goes without it, and the
		// user would not know to type /name.
		for _, rj := range res.Rejected {
			if invoked(rj) {
				continue
			}
			notes = append(notes, explicitOnlyNote(rj, func(name string) string {
				if pol.Invocation == compiler.InvocationHost {
					return "the host policy (invocation: host) lets no prompt invoke it; make it mandatory in the policy"
				}
				// A blank first: Claude Code takes a prompt that starts
				// with / as a command of its own, and "Unknown command"
				// never reaches the hook.
				return `start the prompt with " /` + name + `" (a blank, then /` + name + `)`
			}))
		}
	}
	if strings.TrimSpace(task) == "" {
		// Not an error (a --select still loads), but nothing routes
		// from it, which an empty answer alone does not say.
		notes = append(notes, "the prompt is empty: no skill is routed from it")
	}
	if res != nil && len(res.Ambiguous) > 0 {
		// Nothing is loaded, and the user would not know why: the
		// prompt can name the one it means.
		notes = append(notes, fmt.Sprintf("ambiguous: %s; none of them loaded: name the skill you mean in the prompt", ambiguousNames(res, noteName)))
	}
	note := joinNotes(append(notes, writeFailed, cacheNote())...)
	if note != "" {
		fmt.Fprintf(stderr, "rlmc: %s\n", note)
	}
	// Saved before the answer is written, within the deadline: a block
	// given now is pending until the next prompt's transcript shows it.
	session.save(res)
	return out, nil
}

// fitHook compiles req and returns the result with the hook output (nil
// when nothing is selected), which it keeps within maxChars characters:
// while the output is longer, it compiles again with a smaller budget, so
// the bodies that fit stay inline and the rest become references (rule
// 12), never dropped for being long. The budget shrinks in proportion to
// how much too long the output was, but never to one that drops a skill
// the first compile selected: a budget that does is a floor, and the next
// try lies between it and the least budget known too long (a body of
// spaces is long in characters and cheap in tokens, and its proportional
// budget was below its reference's cost). An output that still does not
// fit after hookFitTries compiles is an error: the prompt goes on without
// skills, and the user is told why.
func fitHook(ctx context.Context, c *compiler.Compiler, req compiler.Request, maxChars int) (*compiler.Result, []byte, error) {
	tooLong := ""
	var (
		wanted []string // the skills the first compile selected: shrinking never drops one
		floor  int      // a budget known to drop one of them (0: none yet)
		ceil   int      // the tokens of the last too long output: a budget of them gives it again
		next   int      // the proportional guess after the last too long output
	)
	for try := 0; ; try++ {
		res, err := c.Compile(ctx, req)
		var ce *compiler.Error
		dropped := err != nil && tooLong != "" && errors.As(err, &ce) && (ce.Code == compiler.ErrSelectionRejected || ce.Code == compiler.ErrMandatoryRejected)
		if err != nil && !dropped {
			return nil, nil, err
		}
		var names []string
		if !dropped {
			names = res.Names()
			slices.Sort(names)
			// A unit the host selects (or makes mandatory) that no longer
			// fits is dropped too: the limit is --max-chars, not --budget.
			dropped = tooLong != "" && !slices.Equal(names, wanted)
		}
		if try == 0 {
			wanted = names
		}
		if !dropped && len(res.Selected) == 0 {
			if over := overBudget(res); len(over) > 0 {
				return nil, nil, errors.New(strings.Join(over, "; "))
			}
			return res, nil, nil
		}
		if dropped {
			floor = req.Budget
		} else {
			out, err := hookJSON(res.Prompt)
			if err != nil {
				return nil, nil, err
			}
			n := jsLength(out)
			if n <= maxChars {
				return res, out, nil
			}
			ceil = res.Budget.Used // any budget from it on gives this output again
			next = res.Budget.Used * maxChars / n * 9 / 10
			tooLong = fmt.Sprintf("the selected skills' output (%d characters) does not fit in --max-chars %d, even as references", n, maxChars)
		}
		budget := next
		if budget >= ceil {
			budget = ceil * 3 / 4
		}
		if budget <= floor {
			budget = floor + (ceil-floor)/2
		}
		if try+1 == hookFitTries || budget <= floor || budget <= 0 {
			return nil, nil, errors.New(tooLong)
		}
		req.Budget = budget
	}
}

// jsLength returns the length of text as JavaScript measures a string,
// in UTF-16 code units, as Claude Code (a Node program) measures a hook's
// output: a character outside the Basic Multilingual Plane (an emoji)
// counts twice.
func jsLength(text []byte) int {
	n := 0
	for _, r := range string(text) {
		n += max(utf16.RuneLen(r), 1) // an invalid rune is one unit, U+FFFD
	}
	return n
}

// overBudget says, one note each, why a compile left out units for the
// budget alone (rule 12): the task pointed at them, and the prompt goes
// on without them only because of --budget (or of --max-chars, which
// shrinks it).
func overBudget(res *compiler.Result) []string {
	var out []string
	for _, rj := range res.Rejected {
		if len(rj.Reasons) > 0 && rj.Reasons[0].Code == compiler.ReasonOverBudget && !invoked(rj) {
			out = append(out, fmt.Sprintf("%s not loaded: over budget (%s); raise --budget or --max-chars", noteName(rj.Name), ir.EscapeText(rj.Reasons[0].Detail)))
		}
	}
	return out
}

// hookJSON is the hook output that adds prompt to the context.
func hookJSON(prompt string) ([]byte, error) {
	var out hookOutput
	out.HookSpecificOutput.HookEventName = hookEvent
	out.HookSpecificOutput.AdditionalContext = prompt
	var buf bytes.Buffer
	if err := compiler.WriteJSON(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// joinError adds note, when there is one, to err's line.
// nothingToDo is a hook's error that is no failure of the hook: the
// prompt's folder gives it nothing to do (no skill root under it or the
// home folder, as in every project without skills for a hook in the
// user's settings). It is said on stderr as any error is, but a check run
// (RLMC_HOOK_CHECK, rlmc doctor) passes: doctor reported it as a broken
// hook beside its own no_root warning, which says what to do.
type nothingToDo struct{ error }

func (n nothingToDo) Unwrap() error { return n.error }

func joinError(err error, note string) error {
	if note == "" {
		return err
	}
	return fmt.Errorf("%w; %s", err, note)
}

// hookNote is what the hook says about the catalog on standard error: one
// line, not one per finding, since the user reads it in a transcript before
// every prompt. It names the invalid skills (a skill the user wrote that
// never loads, and no other sign of why) and counts the catalog warnings.
func hookNote(ds ir.Diagnostics, cat *ir.Catalog) string {
	var parts []string
	if invalid := invalidNames(cat); len(invalid) > 0 {
		parts = append(parts, fmt.Sprintf("%s left out: %s; `rlmc validate` says why", plural(len(invalid), "invalid skill"), listSome(invalid)))
	}
	if n := unloadedNote(cat); n != "" {
		parts = append(parts, n)
	}
	parts = append(parts, rootSkillNotes(cat)...)
	var errs, warns int
	for _, d := range catalogWarnings(ds) {
		if d.Severity == ir.SeverityError {
			errs++ // a scan bound hit: skills past it are missing
		} else {
			warns++
		}
	}
	var counts []string
	if errs > 0 {
		counts = append(counts, plural(errs, "error"))
	}
	if warns > 0 {
		counts = append(counts, plural(warns, "warning"))
	}
	if len(counts) > 0 {
		parts = append(parts, fmt.Sprintf("the catalog has %s; `rlmc doctor` lists them", strings.Join(counts, " and ")))
	}
	return strings.Join(parts, "; ")
}

// readHookInput decodes and checks the hook input: a UserPromptSubmit
// event (when it names one) with a prompt and an absolute working folder.
func readHookInput(stdin io.Reader) (hookInput, error) {
	var in hookInput
	data, err := io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	if err != nil {
		return in, fmt.Errorf("reading the hook input: %w", err)
	}
	if len(data) > maxHookInput {
		return in, fmt.Errorf("the hook input is longer than %d bytes", maxHookInput)
	}
	// Keys are read as spelt, each once: "PROMPT" or a second "prompt"
	// is no prompt (encoding/json would take either); a client's other
	// keys (session_id, transcript_path, ...) are left out. A byte that
	// is not UTF-8 (a paste of binary output) is read as U+FFFD rather than
	// refused, as a file written by hand would be: the prompt still gets
	// its skills.
	_, err = strictjson.UnmarshalKnown(bytes.ToValidUTF8(data, []byte("\uFFFD")), &in)
	var ke *strictjson.KeyError
	if errors.As(err, &ke) {
		return in, fmt.Errorf("the hook input gives %q more than once", ke.Key)
	}
	if errors.Is(err, strictjson.ErrNotObject) {
		// encoding/json says what it is instead (and null, which decodes
		// to nothing, has no prompt).
		err = json.Unmarshal(data, &in)
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			// Name the field and what it holds, not a Go type.
			return in, fmt.Errorf("the hook input's %s is %s, not what a client sends", te.Field, jsonKind(te.Value))
		}
		return in, fmt.Errorf("the hook input is not a JSON object (a client writes its prompt event to standard input as JSON; for a plain task use rlmc compile)%s", jsonCause(err))
	}
	switch {
	case in.HookEventName != nil && *in.HookEventName != hookEvent:
		return in, fmt.Errorf("hook_event_name is %q; rlmc answers %s", *in.HookEventName, hookEvent)
	case in.Prompt == nil:
		return in, errors.New("the hook input has no prompt")
	case !filepath.IsAbs(in.Cwd):
		return in, fmt.Errorf("the hook input's cwd must be an absolute path, not %q", in.Cwd)
	}
	return in, nil
}

// hookRoots returns the built-in roots of a prompt in cwd (as Resolve
// decides them) that exist, less Claude Code's own folders, and, apart,
// those left out as one of them under another name, which a user would
// otherwise not know are left to Claude Code: linked, a root that is a
// link to one (".agents/skills" made a link to ".claude/skills"), and
// shared, a root one of them is a link to (".claude/skills" made a link
// to ".agents/skills"). A root named by RLMC_SKILLS_ROOT is kept even
// when missing, so that Load reports it, as it does for every command.
// builtin is Resolve's decision, which says that root and what it left
// out.
func hookRoots(cwd, home string, getenv func(string) string, exists, isLink func(string) bool) (roots, linked, shared []string, builtin loader.Resolved) {
	own, ownPaths := map[string]bool{}, map[string]bool{} // resolved, and as written
	// The project's own folder is where the built-in roots find the
	// project: up from a subfolder (loader.ProjectDir).
	for _, p := range claudeOwnDirs(loader.ProjectDir(cwd, home), home) {
		own[resolved(p)], ownPaths[p] = true, true
	}
	builtin = compiler.Resolve(loader.Options{}, compiler.Policy{}, compiler.Env{Cwd: cwd, Home: home, Getenv: getenv})
	for _, r := range builtin.Roots {
		// A root that is a link to Claude Code's own folder is that
		// folder.
		switch {
		case r.Origin == loader.FromEnv || (!own[resolved(r.Dir)] && exists(r.Dir)):
			roots = append(roots, r.Dir)
		case exists(r.Dir) && !ownPaths[filepath.Clean(r.Dir)]:
			if isLink(r.Dir) {
				linked = append(linked, r.Dir)
			} else {
				shared = append(shared, r.Dir)
			}
		}
	}
	return roots, linked, shared, builtin
}

// scannable returns the roots the loader can scan and, as notes, the
// built-in ones it cannot (a folder without read permission, a file):
// named to the load, one would fail it and no skill would reach the
// model, where every command leaves such a root out with a warning
// (root_unreadable). The root $RLMC_SKILLS_ROOT names (env) is kept, to
// fail the load as it does every command's.
func scannable(roots []string, env string) (ok, notes []string) {
	for _, r := range roots {
		if err := loader.CheckRoot(r); err != nil && r != env {
			notes = append(notes, err.Error()+"; its skills are left out")
			continue
		}
		ok = append(ok, r)
	}
	return ok, notes
}

// claudeLinked returns, resolved, the skill folders Claude Code lists
// through a link in one of its own folders (claudeOwnRoots, in the
// project and the home folder): skills CLIs install a skill in
// .agents/skills and link .claude/skills/NAME to it, so a root of the
// hook holds it too.
func claudeLinked(cwd, home string) map[string]bool {
	out := map[string]bool{}
	for _, dir := range claudeOwnDirs(loader.ProjectDir(cwd, home), home) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			if t, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name())); err == nil {
				out[t] = true
			}
		}
	}
	return out
}

// claudeOwnDirs returns Claude Code's own skill folders (claudeOwnRoots)
// in the project and the home folder, either "" for none.
func claudeOwnDirs(project, home string) []string {
	var out []string
	for _, d := range claudeOwnRoots {
		for _, base := range []string{project, home} {
			if base != "" {
				out = append(out, filepath.Join(base, filepath.FromSlash(d)))
			}
		}
	}
	return out
}

// unitsIn returns the names of c's units whose folder is one of folders
// (resolved paths), in catalog order; a shadowed one is not its name's
// unit (denying its name would deny the one that shadows it).
func unitsIn(c *compiler.Compiler, folders map[string]bool) []string {
	if len(folders) == 0 {
		return nil
	}
	var out []string
	for _, u := range c.Catalog().Units {
		if u.Status != ir.StatusShadowed && u.File != "" && folders[filepath.Dir(u.File)] {
			out = append(out, u.Name)
		}
	}
	return out
}

func isSymlink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// resolved is path with its symlinks resolved, or path itself when it
// cannot be (it does not exist).
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// jsonCause is ": " and what a decoding error says of the input: the
// kind of value for a type error (whose text names Go types), else the
// error itself.
func jsonCause(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return ": it is " + jsonKind(te.Value)
	}
	return ": " + err.Error()
}

// joinNotes joins the notes that are not empty into one stderr line.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
