package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestCompileTaskCap checks that a task over the compiler's cap is an
// invalid_request whether it comes from standard input or from --task, and
// that a task at the cap compiles.
func TestCompileTaskCap(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "tdd", "SKILL.md"), "---\nname: tdd\ndescription: Test-driven development.\n---\n# tdd\n")
	tests := []struct {
		name     string
		args     []string
		stdin    string
		exit     int
		contains string
	}{
		{name: "stdin over the cap", args: []string{"--task", "-"}, stdin: strings.Repeat("x ", compiler.MaxTaskBytes/2+1), exit: exitFailure, contains: `"code": "invalid_request"`},
		{name: "argument over the cap", args: []string{"--task", strings.Repeat("x ", compiler.MaxTaskBytes/2+1)}, exit: exitFailure, contains: `"code": "invalid_request"`},
		{name: "stdin at the cap", args: []string{"--task", "-"}, stdin: strings.Repeat("x ", compiler.MaxTaskBytes/2), exit: 0, contains: `"decision": "no_route"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"compile", "--root", root, "--format", "json"}, tt.args...)
			if got := Main(args, strings.NewReader(tt.stdin), &stdout, &stderr); got != tt.exit {
				t.Fatalf("exit: got %d; want %d (stderr %q)", got, tt.exit, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.contains) {
				t.Errorf("stdout: got %.300q; want it to contain %q", stdout.String(), tt.contains)
			}
		})
	}
}
