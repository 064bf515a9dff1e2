package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	n, err := scanJSON(data)
	if err != nil {
		t.Fatalf("got %v; want JSON", err)
	}
	return n.keys
}

func TestInstallHook(t *testing.T) {
	const cmd = "/opt/bin/rlmc hook claude-code"
	tests := []struct {
		name        string
		settings    string
		wantPresent string
		wantErr     error // errSettingsShape, or errAny for a syntax error
	}{
		{name: "no file", settings: ""},
		{name: "empty object", settings: "{}"},
		{name: "empty object on lines", settings: "{\n}\n"},
		{name: "compact", settings: `{"model":"opus","env":{"A":"1"}}`},
		{name: "other hooks", settings: "{\n  \"hooks\": {\n    \"PreToolUse\": []\n  },\n  \"model\": \"opus\"\n}\n"},
		{name: "other prompt hooks", settings: "{\n\t\"hooks\": {\n\t\t\"UserPromptSubmit\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}\n\t\t]\n\t}\n}\n"},
		{name: "empty prompt hooks", settings: `{"hooks": {"UserPromptSubmit": []}}`},
		{name: "escaped key", settings: `{"hook\u0073": {"Stop": []}}`},
		{name: "installed", settings: `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/opt/bin/rlmc hook claude-code"}]}]}}`, wantPresent: cmd},
		{name: "another rlmc installed", settings: `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "'/my dir/rlmc' hook claude-code --budget 900"}]}]}}`, wantPresent: "'/my dir/rlmc' hook claude-code --budget 900"},
		// Claude Code reads keys as spelt: these run no hook, so rlmc's
		// is not installed (a red team's settings, taken for installed).
		{name: "hook keys in capitals", settings: `{"hooks": {"UserPromptSubmit": [{"Hooks": [{"Type": "command", "Command": "/opt/bin/rlmc hook claude-code"}]}]}}`},
		{name: "hooks in capitals", settings: `{"Hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/opt/bin/rlmc hook claude-code"}]}]}}`},
		// Claude Code reads a timeout as a JavaScript number.
		{name: "timeouts that are no integers", settings: `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo hi", "timeout": 2.5}]}, {"hooks": [{"type": "command", "command": "/opt/bin/rlmc hook claude-code", "timeout": 5.0}]}]}}`, wantPresent: cmd},
		{name: "not an object", settings: `[1]`, wantErr: errSettingsShape},
		{name: "byte order mark", settings: "\xef\xbb\xbf{}", wantErr: errSettingsShape},
		{name: "hooks not an object", settings: `{"hooks": []}`, wantErr: errSettingsShape},
		{name: "prompt hooks not an array", settings: `{"hooks": {"UserPromptSubmit": {}}}`, wantErr: errSettingsShape},
		{name: "hooks twice", settings: `{"hooks": {}, "hooks": {"Stop": []}}`, wantErr: errSettingsShape},
		{name: "comment", settings: "{\n  // no\n}", wantErr: errAny},
		{name: "trailing comma", settings: `{"a": 1,}`, wantErr: errAny},
		{name: "two values", settings: `{} {}`, wantErr: errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, present, err := installHook([]byte(tt.settings), cmd)
			if tt.wantErr != nil {
				if err == nil || tt.wantErr == errSettingsShape && !errors.Is(err, errSettingsShape) {
					t.Fatalf("got %v; want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v; want no error", err)
			}
			if present != tt.wantPresent {
				t.Fatalf("got present %q; want %q", present, tt.wantPresent)
			}
			if present != "" {
				if !bytes.Equal(out, []byte(tt.settings)) {
					t.Errorf("got %s; want the settings unchanged", out)
				}
				return
			}
			cmds, err := installedHooks(out)
			if err != nil || !slices.Contains(cmds, cmd) {
				t.Fatalf("got hooks %q (%v) in %s; want %q among them", cmds, err, out, cmd)
			}
			if tt.settings != "" {
				// Every key keeps its place; hooks comes last when new.
				old, got := topKeys(t, []byte(tt.settings)), topKeys(t, out)
				if !slices.Contains(old, "hooks") {
					old = append(old, "hooks")
				}
				if !slices.Equal(got, old) {
					t.Errorf("got keys %v; want %v", got, old)
				}
			}
			// Installing again adds nothing.
			again, present, err := installHook(out, cmd)
			if err != nil || present != cmd || !bytes.Equal(again, out) {
				t.Errorf("got %s, present %q, %v on a second run; want it unchanged", again, present, err)
			}
		})
	}
}

// errAny stands for any error in a table.
var errAny = errors.New("any error")

func TestInstallHookKeepsLayout(t *testing.T) {
	in := "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": []\n    }\n}\n"
	want := "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": [],\n        \"UserPromptSubmit\": [\n" +
		"            {\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n" +
		"                        \"command\": \"rlmc hook claude-code\",\n                        \"timeout\": 5\n" +
		"                    }\n                ]\n            }\n        ]\n    }\n}\n"
	got, _, err := installHook([]byte(in), "rlmc hook claude-code")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got\n%s; want\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Errorf("got invalid JSON")
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		rlmcHook bool
	}{
		{name: "plain", in: "/usr/bin/rlmc hook claude-code", want: []string{"/usr/bin/rlmc", "hook", "claude-code"}, rlmcHook: true},
		{name: "single quoted", in: `'/my dir/rlmc' hook claude-code`, want: []string{"/my dir/rlmc", "hook", "claude-code"}, rlmcHook: true},
		{name: "quote in quotes", in: `'/it'\''s/rlmc' hook claude-code`, want: []string{"/it's/rlmc", "hook", "claude-code"}, rlmcHook: true},
		{name: "double quoted", in: `"$HOME/bin/rlmc" hook claude-code --root "a b"`, want: []string{"$HOME/bin/rlmc", "hook", "claude-code", "--root", "a b"}, rlmcHook: true},
		{name: "after env", in: "env X=1 rlmc hook claude-code", want: []string{"env", "X=1", "rlmc", "hook", "claude-code"}, rlmcHook: true},
		{name: "another hook", in: "rlmc hook other", want: []string{"rlmc", "hook", "other"}},
		{name: "another program", in: "echo rlmc hook", want: []string{"echo", "rlmc", "hook"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shellWords(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("got %q; want %q", got, tt.want)
			}
			if got := isRlmcHook(tt.in); got != tt.rlmcHook {
				t.Errorf("got isRlmcHook %v; want %v", got, tt.rlmcHook)
			}
		})
	}
}

func TestShellQuoteRoundTrips(t *testing.T) {
	for _, s := range []string{"/usr/local/bin/rlmc", "/my dir/rlmc", "/it's/rlmc", `C:\rlmc`, "/a$b/rlmc"} {
		if got := shellWords(shellQuote(s)); !slices.Equal(got, []string{s}) {
			t.Errorf("got %q from %s; want %q", got, shellQuote(s), s)
		}
	}
}

func TestGoRunBuild(t *testing.T) {
	tests := []struct {
		name, exe string
		want      bool
	}{
		{name: "go run", exe: "/tmp/go-build2739013469/b001/exe/rlmc", want: true},
		{name: "go run with GOTMPDIR", exe: "/home/u/tmp/go-build11/b001/exe/rlmc", want: true},
		{name: "installed", exe: "/home/u/go/bin/rlmc"},
		{name: "a folder named exe", exe: "/opt/exe/rlmc"},
		{name: "a test binary", exe: "/tmp/go-build1/b001/rlmc.test"},
		{name: "go run, cached (Go 1.24+)", exe: "/root/.cache/go-build/54/54aa0c1d3e-d/rlmc", want: true},
		{name: "installed under a folder ending in -d", exe: "/opt/rlmc-d/rlmc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := goRunBuild(tt.exe); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

// TestInitRefusesAGoRunBuild: a hook naming a binary go run built
// answers until Go removes it, then fails on every prompt; init warned
// and installed it. It changes nothing now, unless --dry-run.
func TestInitRefusesAGoRunBuild(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	err := runInit(initParams{dir: dir, claudeCode: true, executable: "/root/.cache/go-build/54/54aa0c1d3e-d/rlmc"}, &out, &errs)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitFailure {
		t.Fatalf("got %v; want exit %d", err, exitFailure)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("got %d entries made in the project; want none", len(entries))
	}
	if err := runInit(initParams{dir: dir, claudeCode: true, dryRun: true, executable: "/tmp/go-build1/b001/exe/rlmc"}, &out, &errs); err != nil {
		t.Errorf("--dry-run: got %v; want the diff shown", err)
	}
}

// TestRunsThis: a hook command runs this rlmc when its program is this
// file, by path or through PATH; init warned about the documented
// "rlmc hook claude-code" though PATH found this very rlmc.
func TestRunsThis(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "rlmc")
	other := filepath.Join(dir, "other", "rlmc")
	for _, f := range []string{exe, other} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", filepath.Dir(exe))
	tests := []struct {
		name, command string
		want          bool
	}{
		{name: "by name, found on PATH", command: "rlmc hook claude-code", want: true},
		{name: "by name, with flags", command: "rlmc hook claude-code --budget 500", want: true},
		{name: "by its path", command: shellQuote(exe) + " hook claude-code", want: true},
		{name: "another rlmc", command: shellQuote(other) + " hook claude-code"},
		{name: "a name PATH does not find", command: "rlmc-dev hook claude-code"},
		{name: "no rlmc hook", command: "echo hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runsThis(tt.command, exe); got != tt.want {
				t.Errorf("runsThis(%q): got %v; want %v", tt.command, got, tt.want)
			}
		})
	}
}

// TestSettingsSyntaxErrorPlaced: a settings file that is not JSON is said
// with the line and column where reading stopped: a trailing comma in a
// large file was guesswork.
func TestSettingsSyntaxErrorPlaced(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"trailing comma", "{\n  \"hooks\": {\n    \"x\": 1,\n  }\n}\n", "line 4, column 3: "},
		{"first byte", "}", "line 1, column 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := installedHooks([]byte(tt.data)); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v; want an error starting %q", err, tt.want)
			}
		})
	}
}
