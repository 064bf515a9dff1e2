package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// The documents' shell blocks follow one convention (issue 27), which
// TestDocCommands enforces:
//
//   - A shell block is a fenced block with no language, or sh, shell,
//     bash or console. Code and data are tagged with their language
//     (go, json, yaml, text, ...) and are not shell blocks.
//   - A shell block whose first line starts with "$ " is run. Each "$ "
//     line is a command (a line ending in a backslash goes on on the
//     next), and the lines after it, up to the next "$ " line, are what
//     it prints, standard output and standard error together. The
//     commands run with sh from the repository's root, on its own skills
//     (.agents/skills) and examples, and must exit 0; one that fails on
//     purpose shows its code the shell's way: `rlmc ...; echo "exit $?"`.
//   - Every other shell block says why it is not run, in a comment on
//     the line right before its fence: <!-- not run: needs docker -->.
//
// A block that is neither run nor marked fails the test, as does a marker
// before a block that is not a shell block, or before a run block.

// notRunRE is the marker of a shell block that is not run.
var notRunRE = regexp.MustCompile(`^<!-- not run: (.+?) -->$`)

// shellInfo are the info strings of shell blocks.
var shellInfo = []string{"", "sh", "shell", "bash", "console"}

// docBlock is one fenced block of a Markdown document.
type docBlock struct {
	file   string   // the document, relative to the repository
	line   int      // the 1-based line of the opening fence
	info   string   // the fence's info string
	body   []string // the lines between the fences
	start  int      // the 0-based line of the body's first line
	notRun string   // the reason of a not-run marker, or ""
}

func (b docBlock) shell() bool { return slices.Contains(shellInfo, b.info) }

func (b docBlock) run() bool {
	return b.shell() && len(b.body) > 0 && strings.HasPrefix(b.body[0], "$ ")
}

func (b docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var fenceLineRE = regexp.MustCompile("^( *)(```+)(.*)$")

// docBlocks returns the fenced blocks of a Markdown text, or an error for
// a fence that is never closed.
func docBlocks(file, text string) ([]docBlock, error) {
	lines := strings.Split(text, "\n")
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		m := fenceLineRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := docBlock{file: file, line: i + 1, info: strings.TrimSpace(m[3]), start: i + 1}
		if i > 0 {
			if mm := notRunRE.FindStringSubmatch(strings.TrimSpace(lines[i-1])); mm != nil {
				b.notRun = mm[1]
			}
		}
		closed := false
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == m[2] && strings.HasPrefix(lines[i], m[1]) {
				closed = true
				break
			}
			b.body = append(b.body, strings.TrimPrefix(lines[i], m[1]))
		}
		if !closed {
			return nil, fmt.Errorf("%s: the block never closes", b.where())
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// docCommand is one "$ " command of a run block and the output the
// document shows for it.
type docCommand struct {
	block   *docBlock
	line    int      // the 1-based line of the "$ " line
	shown   []string // the command's lines as written, "$ " included
	command string   // the command for sh, continuations joined
	output  []string // the lines the document shows it prints
}

// commands splits a run block into its commands.
func (b *docBlock) commands() []*docCommand {
	var cmds []*docCommand
	for i := 0; i < len(b.body); i++ {
		line := b.body[i]
		if !strings.HasPrefix(line, "$ ") {
			c := cmds[len(cmds)-1] // a run block starts with "$ "
			c.output = append(c.output, line)
			continue
		}
		c := &docCommand{block: b, line: b.start + i + 1, shown: []string{line}}
		text := strings.TrimPrefix(line, "$ ")
		for strings.HasSuffix(text, `\`) && i+1 < len(b.body) {
			i++
			c.shown = append(c.shown, b.body[i])
			text += "\n" + b.body[i] // sh joins the lines
		}
		c.command = text
		cmds = append(cmds, c)
	}
	return cmds
}

// docFiles are the documents whose blocks are checked, relative to the
// repository.
func docFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, f := range files {
		out = append(out, "docs/"+filepath.Base(f))
	}
	return out
}

// What a real run may print differently from what a document shows, and
// nothing else. Paths name the reader's machine, so the run's own are
// written as a reader's clone in a reader's home (and -update writes them
// so); times, durations and Go versions differ from run to run and are
// masked on both sides, so a document shows a real value from some run.
const (
	docRepoPath = "/home/you/rlmc"
	docHomePath = "/home/you"
)

var docMasks = []struct {
	what string
	re   *regexp.Regexp
	to   string
}{
	{"an RFC 3339 time", regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "<time>"},
	{"a duration field of a JSON line", regexp.MustCompile(`("\w+_ms": ?)\d+(\.\d+)?`), "${1}<duration>"},
	{"a Go duration", regexp.MustCompile(`\b\d+(\.\d+)?(ns|us|µs|ms|s|m|h)\b`), "<duration>"},
	{"a Go version", regexp.MustCompile(`\bgo1\.\d+(\.\d+)?((rc|beta)\d+)?\b`), "<go version>"},
}

// docDisplay writes a real run's output as a document shows it: the
// repository's path and the home folder as a reader's.
func docDisplay(out, repo, home string) string {
	// One pass, the longer path first: the repository may lie in the home
	// folder, and a path written once is not rewritten again.
	olds := []string{repo, docRepoPath}
	if home != "" {
		olds = append(olds, home, docHomePath)
		if len(home) > len(repo) {
			olds = append(olds[2:], olds[:2]...)
		}
	}
	return strings.NewReplacer(olds...).Replace(out)
}

// docMask masks what differs from run to run.
func docMask(s string) string {
	for _, m := range docMasks {
		s = m.re.ReplaceAllString(s, m.to)
	}
	return s
}

// TestDocMasks pins what each mask forgives, and that it forgives no more.
func TestDocMasks(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"time":"2026-12-03T20:11:13.807952527Z","duration_ms":168.52}`, `{"time":"<time>","duration_ms":<duration>}`},
		{"reloaded in 1.5s, drained in 250ms", "reloaded in <duration>, drained in <duration>"},
		{"rlmc (devel) go1.26.8", "rlmc (devel) <go version>"},
		{"4 units: 4 ok; 1887 tokens; score 13.347", "4 units: 4 ok; 1887 tokens; score 13.347"},
		{"sha256:4e93d0313751795d7a467c7dff220dc3dd3220be21c32b94c9066185ded58537", "sha256:4e93d0313751795d7a467c7dff220dc3dd3220be21c32b94c9066185ded58537"},
	} {
		if got := docMask(tt.in); got != tt.want {
			t.Errorf("docMask(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	if got := docDisplay("/r/x/.agents/skills /h/.codex/skills", "/r/x", "/h"); got != docRepoPath+"/.agents/skills "+docHomePath+"/.codex/skills" {
		t.Errorf("docDisplay: got %q", got)
	}
}

// docUpdates are the outputs -update writes, by command.
type docUpdates struct {
	sync.Mutex
	m map[*docCommand][]string
}

// TestDocCommands runs every command README.md and docs/*.md show with its
// output, and checks that each shell block is run or says why it is not.
// -update rewrites the outputs that differ.
func TestDocCommands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the documents' commands are POSIX shell")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var (
		cmds    = map[string]*docCommand{} // by the id a script names
		scripts = map[string]string{}
		notRun  = map[string]int{}
		run     int
	)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(repo, file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docBlocks(file, string(data))
		if err != nil {
			t.Error(err)
			continue
		}
		var script strings.Builder
		for i := range blocks {
			b := &blocks[i]
			switch {
			case b.notRun != "" && !b.shell():
				t.Errorf("%s: a not-run marker before a %q block, which is no shell block", b.where(), b.info)
			case b.notRun != "" && b.run():
				t.Errorf("%s: a run block (its first line starts with \"$ \") marked not run", b.where())
			case b.notRun != "":
				notRun[b.notRun]++
			case b.run():
				run++
				for _, c := range b.commands() {
					id := fmt.Sprintf("%s:%d", file, c.line)
					cmds[id] = c
					fmt.Fprintf(&script, "doc %s\n", id)
				}
			case b.shell():
				t.Errorf("%s: a shell block that is neither run (its first line starts with \"$ \") nor marked <!-- not run: REASON --> on the line before it; tag code or data with its language", b.where())
			}
		}
		if script.Len() > 0 {
			// One script a document, named after it: docs-commands.md.
			scripts[strings.ReplaceAll(file, "/", "-")] = "cd $REPO\n" + script.String()
		}
	}
	t.Logf("%d shell blocks run, %d marked not run", run, func() (n int) {
		for _, k := range notRun {
			n += k
		}
		return n
	}())
	for _, why := range slices.Sorted(func(yield func(string) bool) {
		for k := range notRun {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Logf("not run (%d): %s", notRun[why], why)
	}
	if run == 0 {
		t.Fatal("no document shows a command to run; the convention is broken")
	}

	dir := t.TempDir()
	for name, s := range scripts {
		testkit.WriteFile(t, filepath.Join(dir, name+".txtar"), s)
	}
	updates := &docUpdates{m: map[*docCommand][]string{}}
	goEnv := docGoEnv(t)
	t.Run("run", func(t *testing.T) {
		testscript.Run(t, testscript.Params{
			Dir:             dir,
			ContinueOnError: true,
			Setup: func(env *testscript.Env) error {
				env.Setenv("REPO", repo)
				env.Setenv("HOME", env.WorkDir+"/home")
				env.Setenv(catcache.EnvDir, env.WorkDir+"/.rlmc-cache")
				for k, v := range goEnv {
					env.Setenv(k, v)
				}
				return os.MkdirAll(env.WorkDir+"/home", 0o755)
			},
			Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
				"doc": func(ts *testscript.TestScript, neg bool, args []string) {
					c := cmds[args[0]]
					ts.Logf("$ %s", c.command)
					if err := ts.Exec("sh", "-c", "exec 2>&1\n"+c.command); err != nil {
						ts.Fatalf("%s: %s: %v", args[0], c.command, err)
					}
					got := strings.Split(strings.TrimSuffix(docDisplay(ts.ReadFile("stdout"), repo, ts.Getenv("HOME")), "\n"), "\n")
					if len(got) == 1 && got[0] == "" {
						got = nil
					}
					if slices.Equal(maskLines(got), maskLines(c.output)) {
						return
					}
					if *testkit.Update {
						updates.Lock()
						updates.m[c] = got
						updates.Unlock()
						return
					}
					ts.Fatalf("%s: the output %s shows for `%s` is not what it prints (-doc +run; go test ./cmd/rlmc -run TestDocCommands -update rewrites it):\n%s",
						args[0], c.block.file, c.command, cmp.Diff(c.output, got))
				},
			},
		})
	})
	if *testkit.Update && len(updates.m) > 0 {
		writeDocOutputs(t, repo, updates.m)
	}
}

func maskLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = docMask(l)
	}
	return out
}

// docGoEnv is what the go command needs to build an example inside a
// script, whose HOME is its own: the build and module caches it already
// has, and no network or other toolchain.
func docGoEnv(t testing.TB) map[string]string {
	t.Helper()
	env := map[string]string{"GOPROXY": "off", "GOTOOLCHAIN": "local", "GOFLAGS": os.Getenv("GOFLAGS")}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if i < len(vals) {
			env[k] = vals[i]
		}
	}
	return env
}

// writeDocOutputs rewrites the outputs of the given commands in their
// documents.
func writeDocOutputs(t testing.TB, repo string, outputs map[*docCommand][]string) {
	t.Helper()
	byFile := map[string][]*docCommand{}
	for c := range outputs {
		byFile[c.block.file] = append(byFile[c.block.file], c)
	}
	for file, cs := range byFile {
		path := filepath.Join(repo, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		// From the bottom up, so that the lines above keep their numbers.
		slices.SortFunc(cs, func(a, b *docCommand) int { return b.line - a.line })
		for _, c := range cs {
			from := c.line - 1 + len(c.shown)
			to := from + len(c.output)
			lines = slices.Concat(lines[:from], outputs[c], lines[to:])
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %d outputs in %s", len(cs), file)
	}
}
