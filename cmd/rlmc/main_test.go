package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlmc-dev/rlmc/internal/catcache"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

func TestMain(m *testing.M) {
	// testscript.Main runs the tests, or (in a script's "rlmc") the
	// command, and exits the process itself.
	testscript.Main(summarized{m}, map[string]func(){
		"rlmc": func() {
			os.Exit(withCacheDir(func() int { return Main(hookArgs(os.Args[1:]), os.Stdin, os.Stdout, os.Stderr) }))
		},
	})
}

// hookArgs gives a script's `rlmc hook claude-code` without a --timeout
// a deadline of 30 s: a cold first prompt took over the default second
// under the race detector on a loaded machine, and a test's outcome must
// not depend on how busy the machine is. No script relies on the default
// deadline passing (those that test a deadline give their own).
func hookArgs(args []string) []string {
	if len(args) < 2 || args[0] != "hook" || args[1] != "claude-code" {
		return args
	}
	for _, a := range args {
		if a == "--timeout" || strings.HasPrefix(a, "--timeout=") {
			return args
		}
	}
	return append([]string{"hook", "claude-code", "--timeout", "30s"}, args[2:]...)
}

// withCacheDir runs f with catcache.EnvDir naming a temporary folder,
// removed after, unless it is set already. No test may read or write the
// user's own catalog cache: the tests that run Main in this process get a
// folder of their own (scripts get one each, in Setup).
func withCacheDir(f func() int) int {
	if os.Getenv(catcache.EnvDir) != "" {
		return f()
	}
	tmp, err := os.MkdirTemp("", "rlmc-cache-test-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	os.Setenv(catcache.EnvDir, tmp)
	return f()
}

// summarized runs the tests and then prints testkit's skip summary: the
// testscript runner exits the process itself, so the summary goes in Run.
type summarized struct{ m *testing.M }

func (s summarized) Run() int {
	return withCacheDir(func() int { return testkit.Main(s.m, "cmd/rlmc") })
}

// TestScripts runs the CLI contract tests in testdata/script. Each script
// runs rlmc from this test binary; `exits N cmd args...` checks an exact
// exit code. Run with -update to rewrite expected output in the scripts.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *testkit.Update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv(catcache.EnvDir, env.WorkDir+"/.rlmc-cache")
			env.Setenv("SHARED", testkit.SharedDir())
			repo, _ := filepath.Abs("../..")
			env.Setenv("REPO", repo)
			// The rlmc a script runs, as init writes it into a hook.
			if bin, err := exec.LookPath("rlmc"); err == nil {
				if bin, err = filepath.EvalSymlinks(bin); err == nil {
					env.Setenv("RLMC_BIN", bin)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mkfifo":     mkfifoCmd,
			"hookinput":  hookInputCmd,
			"transcribe": transcribeCmd,
			"waitbuild":  waitBuildCmd,
			"backdate":   backdateCmd,
			"runhook":    runHookCmd,
			"cpenv":      cpenvCmd,
			"schema":     schemaCmd,
			"bigfile":    bigFileCmd,
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: exits CODE command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("%v", err)
				}
				if got != want {
					ts.Fatalf("got exit code %d; want %d", got, want)
				}
			},
		},
		Condition: func(cond string) (bool, error) {
			if cond == "shared" {
				// Absent locally, a [!shared] script skips; under CI=true
				// the condition fails the script instead.
				_, ok, err := testkit.SharedPath()
				if !ok && err == nil {
					testkit.RecordSkip("the testscript steps after [!shared] skip")
				}
				return ok, err
			}
			return false, errors.New("unknown condition " + cond)
		},
	})
}

// bigFileCmd writes a file of N bytes of one letter: "bigfile NAME N",
// for inputs too large to hold in a txtar.
func bigFileCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bigfile NAME BYTES")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), bytes.Repeat([]byte("a"), n), 0o644))
}
