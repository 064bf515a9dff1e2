package testkit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
		t.Skipf("skipping %s: %s is absent (it lives in ../shared beside the repository; under CI=true this fails)", t.Name(), path)
	}
	return path
}
