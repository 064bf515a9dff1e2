package testkit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// SharedDir is the read-only material (benchmarks, pinned third-party
// collections) kept in a folder named shared beside the repository, outside
// it because none of it may be committed. It is found from the working
// directory, which go test sets to the package's folder, by walking up to
// the module's go.mod; it is "" when there is no module above.
func SharedDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// CI reports whether the tests run under continuous integration (CI=true,
// as GitHub Actions and most CI systems set it). There a missing ../shared
// must fail the tests that need it: a green run would otherwise mean the
// quality gates never ran.
func CI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// ErrSharedAbsent is wrapped by SharedPath's error under CI=true.
var ErrSharedAbsent = errors.New("testkit: ../shared material is absent under CI=true")

// SharedPath returns the path of rel inside SharedDir and whether it
// exists. When it does not and CI() holds, err wraps ErrSharedAbsent. It is
// for callers that cannot skip a test, such as testscript conditions; tests
// call Shared.
func SharedPath(rel ...string) (path string, ok bool, err error) {
	base := SharedDir()
	if base == "" {
		path = filepath.Join(append([]string{"..", "shared"}, rel...)...)
	} else {
		path = filepath.Join(append([]string{base}, rel...)...)
	}
	if _, statErr := os.Stat(path); statErr == nil {
		return path, true, nil
	} else if CI() {
		return path, false, fmt.Errorf("%w: %w", ErrSharedAbsent, statErr)
	}
	return path, false, nil
}

// Shared returns the path of rel inside SharedDir for a test that needs
// it. When it is absent the test is skipped, naming the test and the path,
// or, under CI=true, fails.
func Shared(t testing.TB, rel ...string) string {
	t.Helper()
	path, ok, err := SharedPath(rel...)
	switch {
	case err != nil:
		t.Fatalf("%s cannot run: %v", t.Name(), err)
	case !ok:
		RecordSkip(t.Name())
		t.Skipf("skipping %s: %s is absent (it lives in ../shared beside the repository; under CI=true this fails)", t.Name(), path)
	}
	return path
}

// skipped are the tests of this test binary skipped for want of
// ../shared, for SummarizeSkips.
var skipped struct {
	sync.Mutex
	names []string
}

// RecordSkip notes a test (or a group of scripts) skipped because ../shared
// is absent. Shared records its own skips; a caller that skips another way
// (a testscript condition) calls it.
func RecordSkip(name string) {
	skipped.Lock()
	defer skipped.Unlock()
	if !slices.Contains(skipped.names, name) {
		skipped.names = append(skipped.names, name)
	}
}

// SkipSummary is the one line naming the tests RecordSkip noted, and why;
// "" when there are none.
func SkipSummary(pkg string) string {
	skipped.Lock()
	defer skipped.Unlock()
	if len(skipped.names) == 0 {
		return ""
	}
	names := slices.Sorted(slices.Values(skipped.names))
	return fmt.Sprintf("%s: skipped %s: %s absent (read-only material beside the repository; CI=true makes this a failure)",
		pkg, strings.Join(names, ", "), filepath.Join(SharedDir()))
}

// Main runs the tests of a package that needs ../shared and prints the
// skip summary, one line, after them. go test shows a passing package's
// output only with -v (of several packages, standard error too: it goes
// to the same buffer, dropped on a pass), so the line also goes to the
// terminal when there is one: a plain `go test ./...` at a prompt says
// what it did not run. Piped, without -v, nothing shows it.
func Main(m *testing.M, pkg string) int {
	code := m.Run()
	if line := SkipSummary(pkg); line != "" {
		fmt.Println(line)
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			io.WriteString(tty, line+"\n")
			tty.Close()
		}
	}
	return code
}
