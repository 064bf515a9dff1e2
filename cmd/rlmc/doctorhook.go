package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

// claudeDefaultTimeout is Claude Code's bound on a hook that names none.
const claudeDefaultTimeout = 60 * time.Second

// doctorHookPrompt is the prompt doctor sends through an installed hook.
const doctorHookPrompt = "rlmc doctor: check that this hook answers"

// doctorHooks checks the rlmc hooks installed in the project's and the
// user's Claude Code settings: the file parses, the command resolves, and
// one compile through it answers within the hook's timeout. A settings
// file that does not exist, or runs no rlmc hook, is not reported.
func doctorHooks(ctx context.Context, r *doctorReport, cat *ir.Catalog, project, home string) {
	// Claude Code runs the hooks of the project's shared settings and of
	// its local ones (a file kept out of version control) alike.
	files := []string{filepath.Join(project, filepath.FromSlash(initSettingsFile)), filepath.Join(project, filepath.FromSlash(localSettingsFile))}
	if home != "" {
		if h := filepath.Join(home, filepath.FromSlash(initSettingsFile)); resolved(h) != resolved(files[0]) {
			files = append(files, h)
		}
	}
	var installed []string // the files, once a hook, that run an rlmc hook
	commands := map[string]bool{}
	for _, file := range files {
		data, err := readSettings(file)
		if err == nil && data == nil {
			continue
		}
		var hooks []claudeHook
		if err == nil {
			hooks, err = installedHookList(data)
		}
		if err != nil {
			r.add(secHook, ir.SeverityError, findHookSettings, "%s: %s: Claude Code cannot read it either", ir.Printable(file), ir.EscapeText(err.Error()))
			continue
		}
		if key := repeatedHookKey(data); key != "" {
			r.add(secHook, ir.SeverityError, findHookSettings, "%s: %s is given more than once: Claude Code reads the last one only, and the hooks of the others never run", ir.Printable(file), key)
		}
		for _, h := range hooks {
			switch hc := readHookCommand(h.Command); {
			case hc.prog != "":
				installed = append(installed, ir.Printable(file))
				commands[h.Command] = true
				doctorHook(ctx, r, file, project, h, hc)
			case hc.runsRlmc:
				// Mistyped, it fails on every prompt: a usage error exits
				// 2, which blocks the prompt; "hook claude_code" prints
				// nothing, and the prompt goes without skills.
				r.add(secHook, ir.SeverityError, findHookNotClaudeCode, "%s: %s runs rlmc, but not its hook (rlmc hook claude-code): every prompt is blocked or goes without skills", ir.Printable(file), ir.EscapeText(h.Command))
			}
		}
	}
	switch {
	case len(installed) > 1 && len(commands) > 1:
		// Claude Code runs the hooks of every one of these files, on every
		// prompt: each hook adds its block.
		r.add(secHook, ir.SeverityWarning, findHookTwice, "rlmc's hook runs %d times on every prompt (%s): every selected skill reaches the model as many times; keep one (in the user's settings, it runs in every project)",
			len(installed), strings.Join(installed, ", "))
	case len(installed) > 1:
		// Claude Code runs a command that two files give alike once.
		r.add(secHook, ir.SeverityInfo, findHookTwice, "rlmc's hook is installed %d times with the same command (%s): Claude Code runs it once, but a change to one of them makes it run twice, each adding its block; keep one (in the user's settings, it runs in every project)",
			len(installed), strings.Join(installed, ", "))
	}
	if len(installed) > 0 {
		doctorClaudeOwn(r, cat, project, home)
	}
}

// doctorClaudeOwn says, for each skill folder the hook leaves to Claude
// Code (claudeOwnRoots, in the project and the home folder) that holds
// skills, that the hook never routes them: doctor's roots list them, and
// a user who put a skill there would look for why it never loads. A skill
// of such a folder that a root the hook routes holds a copy of (one
// copied rather than moved to .agents/skills) reaches the model twice:
// Claude Code lists its own, and the hook sends the copy's text.
func doctorClaudeOwn(r *doctorReport, cat *ir.Catalog, project, home string) {
	own := claudeOwnDirs(project, home)
	copies := map[string][]string{} // a unit's name -> the SKILL.md of its copies outside own
	if cat != nil {
		for _, u := range cat.Units {
			if !slices.ContainsFunc(own, func(d string) bool { return within(u.File, resolved(d)) }) {
				copies[u.Name] = append(copies[u.Name], u.File)
			}
		}
	}
	seen := map[string]bool{}
	for _, dir := range claudeOwnDirs(project, home) {
		if seen[resolved(dir)] {
			continue
		}
		seen[resolved(dir)] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		n, links := 0, 0
		var names []string
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "SKILL.md")); err == nil {
				n++
				names = append(names, noteName(e.Name()))
				if e.Type()&fs.ModeSymlink != 0 {
					links++
				} else if files := copies[e.Name()]; len(files) > 0 {
					r.add(secHook, ir.SeverityWarning, findHookSkillTwice, "%s: Claude Code lists this skill itself, and the hook routes a copy of it (%s): selected, it reaches the model twice, and the two may differ; keep one (move it to .agents/skills, or remove the copy)",
						ir.Printable(filepath.Join(dir, e.Name(), "SKILL.md")), ir.Printable(files[0]))
				}
			}
		}
		switch {
		case n > 0 && links == n:
			// A skills CLI's install: each a link to a folder that a
			// root of the hook holds too.
			r.add(secHook, ir.SeverityInfo, findHookLeavesClaudeOwn, "%s: the hook leaves its %s (%s), links to skill folders elsewhere, to Claude Code, which lists them to the model itself, and never selects them, wherever they lead: remove a link for rlmc to route its skill", ir.Printable(dir), folderCount(n), listSome(names))
		case n > 0:
			r.add(secHook, ir.SeverityInfo, findHookLeavesClaudeOwn, "%s: the hook leaves its %s (%s) to Claude Code, which lists them to the model itself, and never selects them: keep the skills rlmc should route in .agents/skills", ir.Printable(dir), folderCount(n), listSome(names))
		}
	}
}

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// maxHookTimeout bounds the timeout doctor gives a hook it runs, whatever
// the settings say.
const maxHookTimeout = time.Hour

// hookTimeout is the timeout of a hook whose settings say seconds (0 or
// less: unset, Claude Code's default), at most maxHookTimeout: 9.3e9
// seconds overflowed a Duration into a negative one, which every run of
// the hook "exceeded".
func hookTimeout(seconds float64) time.Duration {
	if !(seconds > 0) {
		return claudeDefaultTimeout
	}
	return time.Duration(min(seconds, maxHookTimeout.Seconds()) * float64(time.Second))
}

// doctorHook checks one installed hook command, hc as readHookCommand
// read it.
func doctorHook(ctx context.Context, r *doctorReport, file, project string, h claudeHook, hc hookCommand) {
	where := ir.Printable(file)
	words, prog := hc.words, hc.prog
	if err := commandResolves(expandProgram(prog, project)); err != nil {
		r.add(secHook, ir.SeverityError, findHookNotFound, "%s: %s: %s; every prompt reports the failure", where, ir.EscapeText(h.Command), ir.EscapeText(err.Error()))
		return
	}
	if goRunBuild(prog) {
		// It answers today, and breaks the day Go removes it.
		r.add(secHook, ir.SeverityWarning, findHookGoRun, "%s: %s is a binary go run built, which Go deletes (its build cache is trimmed, a temporary folder goes when go run ends): install rlmc (go install ./cmd/rlmc) and change this hook's command to run it (rlmc init --claude-code leaves a hook already there as it is)", where, ir.EscapeText(prog))
	}
	// A settings file comes with the project, and a cloned project is
	// not trusted: doctor runs a hook only when it is an rlmc program
	// from outside the project, given plain words (it runs them without
	// a shell, so nothing else can ride along). $CLAUDE_PROJECT_DIR, which
	// docs/hooks.md has a hook name its roots by, is the one expansion
	// doctor makes itself, as Claude Code sets it: the project.
	command := h.Command
	if rel := relativeRootArgs(words); len(rel) > 0 {
		// Claude Code starts a hook in the folder it was started in, a
		// subfolder of the project as often as not, where the root is
		// not: doctor, which runs the hook in the project, saw it answer.
		var named, fixed []string
		for _, a := range rel {
			named = append(named, a.path)
			fixed = append(fixed, fmt.Sprintf("%s \"$CLAUDE_PROJECT_DIR/%s\"", a.flag, strings.TrimPrefix(a.path, "./")))
		}
		r.add(secHook, ir.SeverityWarning, findHookRelativeRoot, "%s: %s names %s relative to the folder Claude Code is started in: started in a subfolder, the hook finds no skills; name it from $CLAUDE_PROJECT_DIR (%s)",
			where, ir.EscapeText(h.Command), ir.EscapeText(strings.Join(named, ", ")), ir.EscapeText(strings.Join(fixed, " ")))
	}
	if expanded, ok := withProjectDir(command, project); ok {
		command = expanded
		ehc := readHookCommand(command)
		words, prog = ehc.words, ehc.prog
	}
	if why := notRunnable(command, words, prog, project); why != "" {
		r.add(secHook, ir.SeverityInfo, findHookNotRun, "%s: %s: not run: %s", where, ir.EscapeText(h.Command), why)
		return
	}
	timeout := hookTimeout(h.Timeout)
	took, out, note, err := runHookCommand(ctx, words, project, timeout)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		r.add(secHook, ir.SeverityError, findHookTimeout, "%s: %s gave no answer within its timeout of %v", where, ir.EscapeText(h.Command), timeout)
	case strings.Contains(note, "skills not ready"):
		r.add(secHook, ir.SeverityInfo, findHookOK, "%s: %s answered in %v, without skills: the catalog cache was not built yet, and a builder it started is building it for the prompts after this one (run rlmc doctor again to measure them)",
			where, ir.EscapeText(h.Command), took.Round(time.Millisecond))
	case err != nil:
		r.add(secHook, ir.SeverityError, findHookFailed, "%s: %s: %s; every prompt goes without skills", where, ir.EscapeText(h.Command), ir.EscapeText(err.Error()))
	case len(bytes.TrimSpace(out)) > 0 && !json.Valid(out):
		r.add(secHook, ir.SeverityError, findHookFailed, "%s: %s printed something that is not JSON, which Claude Code adds to every prompt as it is", where, ir.EscapeText(h.Command))
	default:
		r.add(secHook, ir.SeverityInfo, findHookOK, "%s: %s answered in %v (its own deadline: %v)", where, ir.EscapeText(h.Command), took.Round(time.Millisecond), hookDeadline(words))
	}
	if own := hookRootArgs(words, project); len(own) > 0 && !checkedRoots(r.Roots, own) {
		// The catalog above is doctor's roots': a hook that names its
		// own was run, but its skills were never checked, and no_root's
		// advice to make .agents/skills was wrong for it.
		var args []string
		for _, d := range own {
			args = append(args, "--root "+shellQuote(d))
		}
		r.add(secHook, ir.SeverityInfo, findHookRoots, "%s: the hook reads its own roots, not the roots above: rlmc doctor %s checks its skills", where, strings.Join(args, " "))
	}
}

// hookRootArgs returns the roots a hook command's words name with
// --root, absolute (relative ones as Claude Code runs the hook: in the
// project).
func hookRootArgs(words []string, project string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		var dir string
		switch w := words[i]; {
		case w == "--root" && i+1 < len(words):
			dir = words[i+1]
			i++
		case strings.HasPrefix(w, "--root="):
			dir = strings.TrimPrefix(w, "--root=")
		default:
			continue
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(project, dir)
		}
		out = append(out, filepath.Clean(dir))
	}
	return out
}

// flagPath is a path a hook command gives a flag.
type flagPath struct{ flag, path string }

// relativeRootArgs returns the relative paths a hook command's words
// give --root and --policy, as written.
func relativeRootArgs(words []string) []flagPath {
	var out []flagPath
	for i := 0; i < len(words); i++ {
		var a flagPath
		switch w := words[i]; {
		case (w == "--root" || w == "--policy") && i+1 < len(words):
			a = flagPath{w, words[i+1]}
			i++
		case strings.HasPrefix(w, "--root="), strings.HasPrefix(w, "--policy="):
			a.flag, a.path, _ = strings.Cut(w, "=")
		default:
			continue
		}
		if a.path != "" && !filepath.IsAbs(a.path) && !strings.HasPrefix(a.path, "$") && !strings.HasPrefix(a.path, "~") {
			out = append(out, a)
		}
	}
	return out
}

// checkedRoots reports whether every one of dirs is among the roots doctor
// checked.
func checkedRoots(roots []doctorRoot, dirs []string) bool {
	for _, d := range dirs {
		if !slices.ContainsFunc(roots, func(r doctorRoot) bool { abs, err := filepath.Abs(r.Dir); return err == nil && abs == d }) {
			return false
		}
	}
	return true
}

// hookDeadline is the --timeout of an rlmc hook command's words, else the
// default.
func hookDeadline(words []string) time.Duration {
	for i, w := range words {
		v, ok := strings.CutPrefix(w, "--timeout=")
		if !ok && w == "--timeout" && i+1 < len(words) {
			v, ok = words[i+1], true
		}
		if d, err := time.ParseDuration(v); ok && err == nil && d > 0 {
			return d
		}
	}
	return defaultHookTimeout
}

// commandResolves checks that a hook's program can run: an absolute path
// to an executable file, or a name on PATH.
func commandResolves(prog string) error {
	if prog == "" {
		return errors.New("no rlmc program in the command")
	}
	if !filepath.IsAbs(prog) && !strings.ContainsAny(prog, `/\`) {
		_, err := exec.LookPath(prog)
		return err
	}
	fi, err := os.Stat(prog)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", prog)
	}
	return nil
}

// expandProgram returns the program word prog as the shell that runs a
// hook expands it: a leading ~ is the home folder, $NAME and ${NAME} the
// environment's (CLAUDE_PROJECT_DIR the project, as Claude Code sets it).
// "$HOME/bin/rlmc" is found where the shell finds it, not reported missing.
func expandProgram(prog, project string) string {
	if rest, ok := strings.CutPrefix(prog, "~"); ok && (rest == "" || rest[0] == '/') {
		if home, err := os.UserHomeDir(); err == nil {
			prog = home + rest
		}
	}
	return os.Expand(prog, func(name string) string {
		if v, ok := os.LookupEnv(name); ok {
			return v
		}
		if name == "CLAUDE_PROJECT_DIR" {
			return project
		}
		return ""
	})
}

// withProjectDir returns command with $CLAUDE_PROJECT_DIR (or
// ${CLAUDE_PROJECT_DIR}) replaced by project, and whether it held one; a
// project path the shell would read as more than a word's text (quotes,
// expansions) is not put in, and the command stays as it is.
func withProjectDir(command, project string) (string, bool) {
	if !strings.Contains(command, "CLAUDE_PROJECT_DIR") || strings.ContainsAny(project, shellSyntax+`"'\ `) {
		return command, false
	}
	out := strings.ReplaceAll(command, "${CLAUDE_PROJECT_DIR}", project)
	var b strings.Builder
	for {
		i := strings.Index(out, "$CLAUDE_PROJECT_DIR")
		if i < 0 {
			b.WriteString(out)
			break
		}
		end := i + len("$CLAUDE_PROJECT_DIR")
		if end < len(out) && (out[end] == '_' || out[end] >= 'a' && out[end] <= 'z' || out[end] >= 'A' && out[end] <= 'Z' || out[end] >= '0' && out[end] <= '9') {
			b.WriteString(out[:end]) // another variable's name: left as it is
		} else {
			b.WriteString(out[:i])
			b.WriteString(project)
		}
		out = out[end:]
	}
	return b.String(), b.String() != command
}

// shellSyntax is what a command line means to the shell beyond plain
// words: lists, pipes, redirections, expansions, substitutions, globs.
const shellSyntax = ";&|<>$`(){}*?[]~!#\n\r"

// notRunnable says why doctor does not run a hook command, or "": the
// command must be the rlmc program prog itself, then "hook claude-code",
// in words with no shell syntax (Claude Code runs it through a shell, and
// doctor without one), and prog must lie outside project, so that a
// settings file shipped with a project cannot make doctor run the
// project's own programs.
func notRunnable(command string, words []string, prog, project string) string {
	switch {
	case strings.ContainsAny(command, shellSyntax):
		return "it uses the shell beyond plain words, and doctor runs no shell"
	case len(words) < 3 || words[0] != prog || words[1] != "hook" || words[2] != "claude-code":
		return "doctor runs only a command that starts with the rlmc program and hook claude-code"
	case !filepath.IsAbs(prog) && strings.ContainsAny(prog, `/\`):
		return "its rlmc program is a path within the project"
	}
	path := prog
	if !filepath.IsAbs(path) {
		var err error
		if path, err = exec.LookPath(prog); err != nil {
			return err.Error()
		}
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return err.Error()
	}
	if loader.Within(resolved(abs), resolved(path)) {
		return "its rlmc program lies within the project, and doctor runs no program a project brings"
	}
	return ""
}

// runHookCommand runs a hook command's words, the program first
// (notRunnable checked them), as Claude Code runs the hook: in the
// project, with the project in CLAUDE_PROJECT_DIR, with a sample hook
// input, and with envHookCheck set, so that a hook's error exits 1; it
// returns how long it took, what it printed and the first line of its
// stderr. A non-zero exit is an error carrying that line.
func runHookCommand(ctx context.Context, words []string, project string, timeout time.Duration) (time.Duration, []byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	abs, err := filepath.Abs(project)
	if err != nil {
		return 0, nil, "", err
	}
	input, _ := json.Marshal(map[string]string{"hook_event_name": hookEvent, "prompt": doctorHookPrompt, "cwd": abs, "session_id": "rlmc-doctor"})
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Dir = abs
	// envHookCheck: a hook's error exits 1 here, where Claude Code
	// would see 0 and go on without skills.
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+abs, envHookCheck+"=1")
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A hook that leaves a child holding its output open must not hold
	// doctor past the timeout.
	cmd.WaitDelay = time.Second
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if ctx.Err() == context.DeadlineExceeded {
		return took, nil, "", context.DeadlineExceeded
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
	if err != nil {
		if first != "" {
			return took, nil, first, fmt.Errorf("%v: %s", err, first)
		}
		return took, nil, first, err
	}
	return took, stdout.Bytes(), first, nil
}

// folderCount says n skill folders in words: "1 skill folder", "3 skill
// folders".
func folderCount(n int) string {
	if n == 1 {
		return "1 skill folder"
	}
	return fmt.Sprintf("%d skill folders", n)
}
