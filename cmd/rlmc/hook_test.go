package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// hookInputCmd writes a Claude Code UserPromptSubmit input to a file:
// `hookinput [-session=ID] FILE PROMPT [CWD]`, where CWD defaults to the
// script's work folder (the input needs an absolute path, which a txtar
// file cannot hold). Each input is a prompt of a session of its own, with
// a transcript $WORK/ID.jsonl, unless -session names one: prompts of one
// session share what the hook gave them.
func hookInputCmd(ts *testscript.TestScript, neg bool, args []string) {
	session := ""
	if len(args) > 0 {
		if id, ok := strings.CutPrefix(args[0], "-session="); ok {
			session, args = id, args[1:]
		}
	}
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: hookinput [-session=ID] FILE PROMPT [CWD]")
	}
	if session == "" {
		n, _ := strconv.Atoi(ts.Getenv("HOOKINPUTS"))
		ts.Setenv("HOOKINPUTS", strconv.Itoa(n+1))
		session = "prompt" + strconv.Itoa(n+1)
	}
	cwd := ts.Getenv("WORK")
	if len(args) == 3 {
		cwd = args[2]
	}
	data, err := json.Marshal(map[string]string{
		"session_id":      session,
		"transcript_path": filepath.Join(ts.Getenv("WORK"), session+".jsonl"),
		"cwd":             cwd,
		"hook_event_name": hookEvent,
		"prompt":          args[1],
	})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// transcribeCmd appends to a session's transcript what Claude Code writes
// there of a hook's answer, the context it adds, as a JSON line:
// `transcribe HOOKOUT TRANSCRIPT`, HOOKOUT a file holding the hook's
// standard output (cp stdout FILE).
func transcribeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: transcribe HOOKOUT TRANSCRIPT")
	}
	var out hookOutput
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &out))
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	ts.Check(enc.Encode(map[string]any{
		"type": "attachment",
		"attachment": map[string]any{
			"type":      "hook_additional_context",
			"content":   []string{out.HookSpecificOutput.AdditionalContext},
			"hookName":  hookEvent,
			"hookEvent": hookEvent,
		},
	}))
	f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	_, err = f.Write(line.Bytes())
	ts.Check(errors.Join(err, f.Close()))
}

// runHookCmd runs the rlmc hook a Claude Code settings file installs, as
// Claude Code runs it (through the shell): `runhook SETTINGS`, with the
// hook input from a preceding stdin command.
// cpenvCmd is `cpenv SRC DST`: copy the file SRC to DST with its $VARS
// replaced by the script's environment, as cmpenv reads them (a settings
// file naming this test's rlmc).
func cpenvCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpenv SRC DST")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

func runHookCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: runhook SETTINGS")
	}
	hooks, err := installedHooks([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	for _, h := range hooks {
		if isRlmcHook(h) {
			err := ts.Exec("sh", "-c", h)
			if neg != (err != nil) {
				ts.Fatalf("got %v running %s; want success %v", err, h, !neg)
			}
			return
		}
	}
	ts.Fatalf("%s installs no rlmc hook", args[0])
}

// waitBuildCmd waits for the builder a hook started to finish: `waitbuild
// DIR` returns once the cache folder DIR holds a catalog cache file and no
// build lock whose process runs (a lock left by a process gone is stale,
// as the next hook finds it), and fails after three minutes, saying what
// it found (a bound on a stuck builder, not a measure of a fast one: on a
// loaded 2-core machine running the whole suite, one took over a minute
// to start).
func waitBuildCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitbuild DIR")
	}
	var caches, held []string
	for range 3600 {
		caches, _ = filepath.Glob(filepath.Join(args[0], "*.cache"))
		held = heldLocks(args[0])
		if len(caches) > 0 && len(held) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("no catalog cache built in %s within three minutes: %d cache files, locks held %q", args[0], len(caches), held)
}

// heldLocks lists the build locks in dir that a running process holds,
// each with the process id it names ("" when none yet).
func heldLocks(dir string) []string {
	locks, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
	var held []string
	for _, l := range locks {
		data, err := os.ReadFile(l)
		if err != nil {
			continue // removed meanwhile
		}
		text := strings.TrimSpace(string(data))
		first, _, _ := strings.Cut(text, " ") // the id, then when its process started
		if pid, err := strconv.Atoi(first); err == nil && gone(pid) {
			continue
		}
		held = append(held, filepath.Base(l)+":"+text)
	}
	return held
}

// gone reports whether process pid has exited (never, where signals
// cannot tell).
func gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	return errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// backdateCmd dates every file and folder below a path an hour back:
// `backdate PATH`. The catalog cache trusts no file modified in the last
// two seconds, and a script's files are written as it starts.
func backdateCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: backdate PATH")
	}
	when := time.Now().Add(-time.Hour)
	ts.Check(filepath.WalkDir(ts.MkAbs(args[0]), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(path, when, when)
	}))
}

func TestHookRoots(t *testing.T) {
	cwd, home := "/p", "/h"
	exist := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, q := range paths {
				if p == q {
					return true
				}
			}
			return false
		}
	}
	noEnv := func(string) string { return "" }
	tests := []struct {
		name   string
		getenv func(string) string
		exists func(string) bool
		want   []string
	}{
		{"none exist", noEnv, exist(), nil},
		{"claude's own folders are left out", noEnv, exist("/p/.claude/skills", "/h/.claude/skills", "/p/.agents/skills"), []string{"/p/.agents/skills"}},
		{"project before user", noEnv, exist("/h/.agents/skills", "/p/.codex/skills"), []string{"/p/.codex/skills", "/h/.agents/skills"}},
		{"the environment's root is kept even when missing", func(k string) string {
			if k == "RLMC_SKILLS_ROOT" {
				return "/env"
			}
			return ""
		}, exist("/h/.agents/skills"), []string{"/env"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _, _ := hookRoots(cwd, home, tt.getenv, tt.exists, func(string) bool { return false })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hookRoots: got %v; want %v", got, tt.want)
			}
		})
	}
}

// TestHookInputNotUTF8: a prompt holding bytes that are not UTF-8 (a paste
// of binary output) is read with U+FFFD for them, not refused, as a file
// written by hand is (strictjson.EncodingError): the prompt still gets its
// skills.
func TestHookInputNotUTF8(t *testing.T) {
	in, err := readHookInput(strings.NewReader("{\"hook_event_name\": \"UserPromptSubmit\", \"prompt\": \"review my code \xff\xfe changes\", \"cwd\": \"/tmp\"}"))
	if err != nil {
		t.Fatalf("got %v; want the input read", err)
	}
	got := ""
	if in.Prompt != nil {
		got = *in.Prompt
	}
	// A run of such bytes is one U+FFFD.
	if want := "review my code \ufffd changes"; got != want {
		t.Errorf("got prompt %q; want %q", got, want)
	}
}

func TestWithProjectDir(t *testing.T) {
	tests := []struct {
		name, command, project, want string
		ok                           bool
	}{
		{"bare", `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR/skills`, "/p", `rlmc hook claude-code --root /p/skills`, true},
		{"braced", `rlmc hook claude-code --root "${CLAUDE_PROJECT_DIR}/skills"`, "/p", `rlmc hook claude-code --root "/p/skills"`, true},
		{"twice", `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR/a --policy $CLAUDE_PROJECT_DIR/p.pl`, "/p", `rlmc hook claude-code --root /p/a --policy /p/p.pl`, true},
		{"longer name", `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR_X/a`, "/p", `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR_X/a`, false},
		{"none", `rlmc hook claude-code`, "/p", `rlmc hook claude-code`, false},
		{"project with a quote", `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR/a`, `/p"q`, `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR/a`, false},
		{"project with an expansion", `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR/a`, `/p$(x)`, `rlmc hook claude-code --root $CLAUDE_PROJECT_DIR/a`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := withProjectDir(tt.command, tt.project)
			if got != tt.want || ok != tt.ok {
				t.Errorf("withProjectDir(%q, %q) = %q, %v; want %q, %v", tt.command, tt.project, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestHookLeavesOutUnreadableRoot: a built-in root that cannot be read is
// left out, with a line saying so, and the other roots' skills reach the
// model; the hook named it to the load, which failed, and no skill was
// sent. Root reads any folder, so the check runs as any other user.
func TestHookLeavesOutUnreadableRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a folder without read permission")
	}
	proj := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("RLMC_CACHE_DIR", t.TempDir())
	skill := "---\nname: tidy-imports\ndescription: Tidy the Go imports of a package. Use when imports are unsorted.\n---\nRun goimports.\n"
	for _, dir := range []string{".agents/skills/other", ".opencode/skills/tidy-imports"} {
		if err := os.MkdirAll(filepath.Join(proj, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".opencode/skills/tidy-imports/SKILL.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(proj, ".agents/skills")
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(unreadable, 0o755) })
	in, _ := json.Marshal(map[string]string{"hook_event_name": hookEvent, "cwd": proj, "session_id": "s", "prompt": "tidy the go imports"})
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"hook", "claude-code"}, bytes.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "tidy-imports") {
		t.Errorf("got stdout %q; want the readable root's skill", stdout.String())
	}
	if !strings.Contains(stderr.String(), "cannot be read") {
		t.Errorf("got stderr %q; want it to name the root left out", stderr.String())
	}
}

// TestHookLoadsWhenTheCacheCannotBeWritten: with the cache file unwritable
// (here a folder in its place; no space left is the same), the hook loads
// the catalog itself and says why, rather than leave the load to a
// builder that fails as the last write did: every prompt said "not
// ready" and started one that burnt a core and wrote nothing.
func TestHookLoadsWhenTheCacheCannotBeWritten(t *testing.T) {
	root := t.TempDir()
	skill := "---\nname: tidy-imports\ndescription: Tidy the Go imports of a package. Use when imports are unsorted.\n---\nRun goimports.\n"
	if err := os.MkdirAll(filepath.Join(root, "tidy-imports"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tidy-imports", "SKILL.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(t.TempDir(), "cache")
	t.Setenv("RLMC_CACHE_DIR", cacheDir)
	cache, off := catcache.Default()
	if off != nil {
		t.Fatal(off)
	}
	key := compiler.CacheKey(loader.Options{Roots: []string{root}}, compiler.Policy{}, cache)
	// The cache file's name: the key's first half, in hex.
	if err := os.MkdirAll(filepath.Join(cacheDir, hex.EncodeToString(key[:16])+".cache", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A compile's write fails, and leaves its note.
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"compile", "--root", root, "tidy the go imports"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr.String())
	}
	// A load left to a builder at once (--load-timeout 1ns) would leave
	// this prompt without skills, and start a builder that fails again.
	in, _ := json.Marshal(map[string]string{"hook_event_name": hookEvent, "cwd": root, "session_id": "s", "prompt": "tidy the go imports"})
	stdout.Reset()
	stderr.Reset()
	if code := Main([]string{"hook", "claude-code", "--timeout", "60s", "--load-timeout", "1ns", "--root", root}, bytes.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("hook: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "tidy-imports") {
		t.Errorf("got stdout %q; want the skill", stdout.String())
	}
	if !strings.Contains(stderr.String(), "cannot be written") {
		t.Errorf("got stderr %q; want it to say the cache cannot be written", stderr.String())
	}
	if locks, _ := filepath.Glob(filepath.Join(cacheDir, "*.lock")); len(locks) > 0 {
		t.Errorf("got build locks %v; want no builder started", locks)
	}
}

// TestHookInputFromADevice: the hook run by hand at a terminal (or with
// /dev/null) says at once that it reads Claude Code's JSON on standard
// input; it waited out its deadline and said "no answer within 1s",
// which reads as slowness.
func TestHookInputFromADevice(t *testing.T) {
	dev, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer dev.Close()
	err = runHook(t.Context(), hookParams{maxChars: hookMaxChars, timeout: time.Minute}, dev, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "standard input is a terminal or a device") {
		t.Errorf("got %v; want it to say standard input is a terminal or a device", err)
	}
}
