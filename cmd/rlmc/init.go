package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/ir"
)

// initParams are the argument and flags of `rlmc init`.
type initParams struct {
	dir        string
	bare       bool
	claudeCode bool
	// local installs the hook in localSettingsFile, kept out of version
	// control, rather than in the shared initSettingsFile.
	local  bool
	dryRun bool
	// executable is the rlmc the hook will run: the running binary,
	// resolved (see hookExecutable).
	executable string
	// home is the user's home folder, whose Claude Code settings may run
	// the hook for every project already; "" for none.
	home string
}

// initSkillsDir is the skill root init makes: the first default project
// root, and one Claude Code does not list itself (see claudeOwnRoots).
const initSkillsDir = ".agents/skills"

// initSettingsFile is the project's Claude Code settings.
const initSettingsFile = ".claude/settings.json"

// localSettingsFile is the project's settings file kept out of version
// control, whose hooks Claude Code runs too.
const localSettingsFile = ".claude/settings.local.json"

// exampleSkillName names the example skill, small enough to read at once
// and to delete.
const exampleSkillName = "commit-message"

const exampleSkill = `---
name: commit-message
description: Write a git commit message for staged changes, with a short summary line and a body that says why.
metadata:
  note: An example skill made by rlmc init; delete this folder when you have skills of your own.
---
# Commit messages

- A summary line of at most 72 characters, in the imperative: "Add", "Fix".
- A blank line, then why the change was made, not what the diff shows.
`

func newInitCmd(stdout, stderr io.Writer) *cobra.Command {
	var p initParams
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Make .agents/skills in a project (with an example skill), and install the Claude Code hook",
		Long: `Make .agents/skills in a project folder (DIR, default the current one),
with one example skill to delete, or none with --bare. An existing
.agents/skills is left as it is.

With --claude-code, also install rlmc's UserPromptSubmit hook in the
project's .claude/settings.json (with --local, in .claude/settings.local.json,
which a team keeps out of version control: the command names this
machine's rlmc): added to what is there (other settings and hooks kept, in
their order), running this rlmc by its absolute path. A second run changes
nothing, nor does a run while either file already runs the hook. A
settings file that does not parse is never rewritten: init says what to
add by hand and exits 1.

--dry-run shows what would change (a diff for the settings) and writes
nothing.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.dir = "."
			if len(args) == 1 {
				p.dir = args[0]
			}
			if p.claudeCode {
				exe, err := hookExecutable()
				if err != nil {
					return &exitError{code: exitFailure, err: fmt.Errorf("cannot tell where this rlmc is, for the hook's command: %w", err)}
				}
				p.executable = exe
				p.home, _ = os.UserHomeDir()
			}
			return runInit(p, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&p.bare, "bare", false, "make .agents/skills empty, without the example skill")
	fl.BoolVar(&p.claudeCode, "claude-code", false, "install the UserPromptSubmit hook in .claude/settings.json")
	fl.BoolVar(&p.local, "local", false, "with --claude-code, install the hook in .claude/settings.local.json, not the shared .claude/settings.json")
	fl.BoolVar(&p.dryRun, "dry-run", false, "show what would change and write nothing")
	return cmd
}

// hookExecutable is an absolute path of the running rlmc, so the hook runs
// it whatever the PATH of Claude Code's shell: the rlmc on this PATH when
// that is the running one (a package manager's link, as
// /opt/homebrew/bin/rlmc, which an upgrade points at the new version,
// where the file it leads to, in a versioned folder, goes away), else the
// running file with its links resolved.
func hookExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	if onPath, err := exec.LookPath("rlmc"); err == nil {
		if abs, err := filepath.Abs(onPath); err == nil && sameFile(abs, exe) {
			return abs, nil
		}
	}
	return filepath.Abs(exe)
}

// runsThis reports whether the hook command present runs the rlmc at
// executable: its program is that file, by its path or, named without
// one ("rlmc hook claude-code", as the docs write it), by the PATH that
// finds it. A warning compared the command's text with init's own and
// told a user whose documented hook ran this very rlmc to edit it.
func runsThis(present, executable string) bool {
	prog := readHookCommand(present).prog
	if prog == "" {
		return false
	}
	if !strings.ContainsAny(prog, `/\`) {
		found, err := exec.LookPath(prog)
		if err != nil {
			return false
		}
		prog = found
	}
	return filepath.IsAbs(prog) && sameFile(prog, executable)
}

// sameFile reports whether paths a and b lead to the same file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// goRunBuild reports whether exe is a binary `go run` built: it lives in
// a go-build folder under the temporary folder, deleted when go run ends,
// or (Go 1.24 and later) in the build cache, in a folder whose name ends
// in -d, which `go clean -cache` or the cache's trimming deletes: either
// way a hook naming it breaks.
func goRunBuild(exe string) bool {
	parts := strings.Split(filepath.ToSlash(exe), "/")
	if len(parts) < 3 {
		return false
	}
	parent := parts[len(parts)-2]
	for i, p := range parts[:len(parts)-2] {
		if strings.HasPrefix(p, "go-build") && i+1 < len(parts)-1 && parent == "exe" {
			return true
		}
		if p == "go-build" && strings.HasSuffix(parent, "-d") {
			return true
		}
	}
	return false
}

// runInit makes the skill root and installs the hook, saying each step on
// stdout (warnings on stderr).
func runInit(p initParams, stdout, stderr io.Writer) error {
	if err := isFolder(p.dir); err != nil {
		return usageError("%v", err)
	}
	if p.local && !p.claudeCode {
		return usageError("--local says where --claude-code installs the hook: give both")
	}
	var edit hookEdit
	if p.claudeCode {
		// Settings that cannot be edited are refused before anything is
		// made: a project left half set up would send the user back
		// here with a folder init then leaves as it is.
		var err error
		if edit, err = planHook(p); err != nil {
			return refuseSettings(edit.file, err, edit.command, stderr)
		}
	}
	if p.claudeCode && !p.dryRun && goRunBuild(p.executable) {
		// The hook would answer until Go removes the binary, then fail
		// on every prompt: nothing is made or installed.
		return &exitError{code: exitFailure, err: fmt.Errorf("this rlmc was built by go run (%s), which Go deletes (its build cache is trimmed, a temporary folder goes when go run ends): nothing was changed; install rlmc (go install ./cmd/rlmc) and run rlmc init --claude-code with it", ir.Printable(p.executable))}
	}
	would := ""
	if p.dryRun {
		would = "would "
	}
	changed, madeExample := false, false
	skills := filepath.Join(p.dir, filepath.FromSlash(initSkillsDir))
	switch _, err := os.Lstat(skills); {
	case err == nil && !isDir(skills):
		// A file, or a link to nothing or to a file, where the root goes:
		// left as it is it would never be a root, and every command would
		// send the user back here.
		return &exitError{code: exitFailure, err: fmt.Errorf("%s exists and is not a folder (or a link to one): move it away, then run rlmc init again", ir.Printable(skills))}
	case err == nil:
		fmt.Fprintf(stdout, "%s exists: left as it is\n", ir.Printable(skills))
	case !errors.Is(err, fs.ErrNotExist):
		return &exitError{code: exitFailure, err: err}
	case danglingLink(skills) != nil:
		// .agents a link to nothing: said before any "create" line (the
		// lines were printed, then mkdir failed with "file exists").
		return &exitError{code: exitFailure, err: fmt.Errorf("%s: %w", ir.Printable(skills), danglingLink(skills))}
	default:
		changed = true
		fmt.Fprintf(stdout, "%screate %s\n", would, ir.Printable(skills)+string(filepath.Separator))
		warnOutside(p.dir, skills, passiveIs(would, "created"), stderr)
		example := filepath.Join(skills, exampleSkillName, "SKILL.md")
		madeExample = !p.bare
		if !p.bare {
			fmt.Fprintf(stdout, "%screate %s (an example: delete it when you have skills of your own)\n", would, ir.Printable(example))
		}
		if !p.dryRun {
			if err := os.MkdirAll(skills, 0o755); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if !p.bare {
				if err := os.MkdirAll(filepath.Dir(example), 0o755); err != nil {
					return &exitError{code: exitFailure, err: err}
				}
				if err := os.WriteFile(example, []byte(exampleSkill), 0o644); err != nil {
					return &exitError{code: exitFailure, err: err}
				}
			}
		}
	}
	if p.claudeCode {
		c, err := initHook(p, edit, would, stdout, stderr)
		if err != nil {
			return err
		}
		changed = changed || c
	}
	if !changed {
		fmt.Fprintln(stdout, "nothing to change")
	}
	if madeExample && !p.dryRun {
		// What to do next, with the example it just made.
		fmt.Fprintf(stdout, "try it: rlmc compile --root %s \"write a commit message for my staged changes\"\n", shellQuote(skills))
	}
	return nil
}

// hookEdit is the edit of the project's settings that installs the hook:
// the file, the command, the settings before and after, and the command
// already installed, if any (then nothing is edited).
type hookEdit struct {
	file, command, present string
	rel                    string // the file, within the project
	old, edited            []byte
	user                   bool // file is the user's settings, which run the hook for every project
}

// planHook reads the project's settings and makes the edit installing the
// hook, without writing it; an error says why the settings cannot be
// edited (edit still names the file and the command).
func planHook(p initParams) (edit hookEdit, err error) {
	edit.command = shellQuote(p.executable) + " hook claude-code"
	rel, other := initSettingsFile, localSettingsFile
	if p.local {
		rel, other = other, rel
	}
	edit.rel = rel
	edit.file = filepath.Join(p.dir, filepath.FromSlash(rel))
	// Claude Code runs the hooks of both files: a hook in the other one
	// would run twice, and every skill reach the model twice.
	if data, rerr := readSettings(filepath.Join(p.dir, filepath.FromSlash(other))); rerr == nil {
		if _, present, ierr := installHook(data, edit.command); ierr == nil && present != "" {
			edit.file, edit.rel, edit.old, edit.edited, edit.present = filepath.Join(p.dir, filepath.FromSlash(other)), other, data, data, present
			return edit, nil
		}
	}
	// Nor does a hook in the user's settings, which Claude Code runs in
	// every project: a project hook beside it brought every skill twice.
	if p.home != "" {
		user := filepath.Join(p.home, filepath.FromSlash(initSettingsFile))
		if data, rerr := readSettings(user); rerr == nil && resolved(user) != resolved(edit.file) {
			if _, present, ierr := installHook(data, edit.command); ierr == nil && present != "" {
				edit.file, edit.rel, edit.old, edit.edited, edit.present, edit.user = user, user, data, data, present, true
				return edit, nil
			}
		}
	}
	if edit.old, err = readSettings(edit.file); err != nil {
		return edit, err
	}
	if edit.edited, edit.present, err = installHook(edit.old, edit.command); err != nil {
		return edit, err
	}
	if err := danglingLink(edit.file); err != nil {
		return edit, err
	}
	if edit.present == "" && !p.dryRun {
		// The write comes after the skills folder is made: a folder the
		// settings cannot be written in is found now, while nothing is
		// made (it was found after, naming a temporary file).
		return edit, writableFor(edit.file)
	}
	return edit, nil
}

// writableFor reports whether file can be written as writeSettings writes
// it: a temporary file beside it, in its folder or, when that folder is
// still to be made, in the nearest folder above that exists.
func writableFor(file string) error {
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	// A settings file without its owner's write bit was made read-only
	// on purpose (a team's shared settings, a locked dotfile): a rename
	// would replace it all the same, and root would write it anyway.
	if fi, err := os.Stat(file); err == nil && fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s is read-only (mode %04o): make it writable (chmod u+w) for rlmc to add its hook", ir.Printable(file), fi.Mode().Perm())
	}
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	tmp, err := os.CreateTemp(dir, ".rlmc-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("cannot write in %s: %w", ir.Printable(dir), pe.Err)
		}
		return err
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// initHook installs the hook in the project's settings by the edit
// planHook made, and reports whether it changed (or, with --dry-run,
// would change) the file.
func initHook(p initParams, edit hookEdit, would string, stdout, stderr io.Writer) (bool, error) {
	if goRunBuild(p.executable) {
		fmt.Fprintf(stderr, "rlmc: warning: this rlmc was built by go run (%s), which Go deletes: run rlmc init --claude-code with an installed rlmc (go install ./cmd/rlmc)\n", ir.Printable(p.executable))
	}
	file, command, present, old, edited := edit.file, edit.command, edit.present, edit.old, edit.edited
	if present != "" {
		fmt.Fprintf(stdout, "%s already runs the hook: unchanged\n", ir.Printable(file))
		if edit.user {
			fmt.Fprintf(stdout, "it runs in every project; a project hook beside it would bring every skill twice\n")
		}
		if !runsThis(present, p.executable) {
			fmt.Fprintf(stderr, "rlmc: warning: %s runs %s, not this rlmc (%s); edit it by hand to change which rlmc runs\n", ir.Printable(file), ir.EscapeText(present), ir.Printable(p.executable))
		}
		return false, nil
	}
	warnOutside(p.dir, file, passiveIs(would, "changed"), stderr)
	if p.dryRun {
		// The diff names the file within the project, so that it
		// applies there whatever the project's path: patch -p0 -d DIR.
		fmt.Fprintf(stdout, "would install the %s hook in %s (patch -p0 -d %s applies the diff):\n", hookEvent, ir.Printable(file), shellQuote(p.dir))
		_, err := io.WriteString(stdout, lineDiff(edit.rel, old, edited))
		return true, err
	}
	if err := writeSettings(file, old, edited); err != nil {
		return false, &exitError{code: exitFailure, err: err}
	}
	fmt.Fprintf(stdout, "installed the %s hook in %s: %s\n", hookEvent, ir.Printable(file), ir.EscapeText(command))
	return true, nil
}

// warnOutside warns when path, which init is about to change, leads out
// of the project folder dir through a link (.claude linked to the user's
// own ~/.claude, .agents to another project): what changes is there, and
// the line naming path alone would not say so.
func warnOutside(dir, path, change string, stderr io.Writer) {
	real := landsAt(path)
	if loader.Within(landsAt(dir), real) {
		return
	}
	fmt.Fprintf(stderr, "rlmc: warning: %s leads outside %s through a link: %s is what %s\n", ir.Printable(path), ir.Printable(dir), ir.Printable(real), change)
}

// passive is "created" as init says it of what it does, or "would be
// created" with --dry-run (would is "would " then).
func passive(would, done string) string {
	if would != "" {
		return "would be " + done
	}
	return done
}

// passiveIs is passive after "what": "is created", or "would be created".
func passiveIs(would, done string) string {
	if would != "" {
		return passive(would, done)
	}
	return "is " + done
}

// landsAt returns path with the links of its deepest existing part
// resolved, the rest as written: where creating or writing path lands.
func landsAt(path string) string {
	rest := ""
	for cur := filepath.Clean(path); ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			if abs, err := filepath.Abs(r); err == nil {
				r = abs
			}
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return path
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// danglingLink says when the settings file, or its .claude folder, is a
// link to nothing: writing through it would fail, or put a file in the
// link's place, and the dotfiles it meant would never know.
func danglingLink(file string) error {
	for _, p := range []string{filepath.Dir(file), file} {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			target, _ := os.Readlink(p)
			what := "it is"
			if p != file {
				what = ir.Printable(p) + " is"
			}
			return fmt.Errorf("%s a link to %s, which does not exist: create it (or remove the link) and run rlmc init again", what, ir.Printable(target))
		}
	}
	return nil
}

// refuseSettings says why settings cannot be edited and what to add by
// hand, and fails: a file rlmc cannot read is the user's to fix.
func refuseSettings(file string, err error, command string, stderr io.Writer) error {
	fmt.Fprintf(stderr, "rlmc: %s: %s; nothing was changed or made (no skills folder either). Fix the file, or add the hook by hand, merged into what is there, then run rlmc init again:\n%s\n",
		ir.Printable(file), ir.EscapeText(err.Error()), hookSnippet(command))
	return failed()
}

// maxSettingsBytes bounds the settings file read; a real one is a few KiB.
const maxSettingsBytes = 1 << 20

// readSettings returns the settings file's bytes, nothing when it does not
// exist. A FIFO or a device in its place is refused, not waited on.
func readSettings(file string) ([]byte, error) {
	data, err := safefs.ReadPath(file, maxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// writeSettings replaces the settings file, or the file it links to, in
// one step (a temporary file renamed over it), keeping its mode, so
// Claude Code never reads half a file; a file with other names is written
// in place (rewrite), and its old bytes put back when that fails.
func writeSettings(file string, old, data []byte) error {
	// A settings file that is a link (to a dotfiles folder) stays one:
	// the file it leads to is replaced.
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	} else if err := danglingLink(file); err != nil {
		return err // gone dangling since planHook looked
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
		if hardLinks(fi) > 1 {
			// A file with other names (dotfiles kept by hard links)
			// is written in place: a rename would give this name a
			// new file and leave the others with the old settings.
			return rewrite(file, old, data)
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".settings-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// rewrite writes data over the file in place, keeping its inode and so
// every other name it has. A write that fails (a full disk, a file size
// limit) puts old back, so that no name is left with half a file.
func rewrite(file string, old, data []byte) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if err := writeSynced(f, data); err != nil {
		if f.Truncate(0) == nil {
			_, _ = f.WriteAt(old, 0)
		}
		f.Close()
		return err
	}
	return f.Close()
}

// writeSynced writes data to f and syncs it; a test makes it fail.
var writeSynced = func(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// isFolder checks that dir exists and is a folder.
func isFolder(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("folder %s does not exist: make it first, or name an existing project", ir.Printable(dir))
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}
