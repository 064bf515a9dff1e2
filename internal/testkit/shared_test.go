package testkit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// stopping, so that Shared's outcome can be checked.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestNeedsShared" }
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestShared(t *testing.T) {
	// Resolved, because the working directory SharedDir reads is.
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	WriteFile(t, filepath.Join(tmp, "repo", "go.mod"), "module example\n")
	WriteFile(t, filepath.Join(tmp, "repo", "pkg", "x.go"), "package pkg\n")
	WriteFile(t, filepath.Join(tmp, "shared", "benchmarks", "cases.jsonl"), "{}\n")
	t.Chdir(filepath.Join(tmp, "repo", "pkg"))
	present := filepath.Join(tmp, "shared", "benchmarks")
	absent := filepath.Join(tmp, "shared", "third_party")

	tests := []struct {
		name     string
		ci       string
		rel      string
		wantPath string
		wantSkip bool
		wantFail bool
	}{
		{name: "present locally", ci: "", rel: "benchmarks", wantPath: present},
		{name: "present under CI", ci: "true", rel: "benchmarks", wantPath: present},
		{name: "absent locally skips", ci: "", rel: "third_party", wantPath: absent, wantSkip: true},
		{name: "absent with CI=false skips", ci: "false", rel: "third_party", wantPath: absent, wantSkip: true},
		{name: "absent under CI fails", ci: "true", rel: "third_party", wantPath: absent, wantFail: true},
		{name: "absent under CI=1 fails", ci: "1", rel: "third_party", wantPath: absent, wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			r := &recorder{TB: t}
			got := Shared(r, tt.rel)
			if got != tt.wantPath {
				t.Errorf("got path %s; want %s", got, tt.wantPath)
			}
			if skipped := r.skipped != ""; skipped != tt.wantSkip {
				t.Errorf("got skipped %v (%q); want %v", skipped, r.skipped, tt.wantSkip)
			}
			if failed := r.failed != ""; failed != tt.wantFail {
				t.Errorf("got failed %v (%q); want %v", failed, r.failed, tt.wantFail)
			}
			// The message names what did not run and what was missing.
			for _, msg := range []string{r.skipped, r.failed} {
				if msg != "" && (!strings.Contains(msg, "TestNeedsShared") || !strings.Contains(msg, tt.wantPath)) {
					t.Errorf("got message %q; want it to name the test and %s", msg, tt.wantPath)
				}
			}
			_, ok, err := SharedPath(tt.rel)
			if ok != (tt.wantPath == present) || errors.Is(err, ErrSharedAbsent) != tt.wantFail {
				t.Errorf("got SharedPath ok %v, err %v; want ok %v, ErrSharedAbsent %v", ok, err, tt.wantPath == present, tt.wantFail)
			}
		})
	}
}

func TestSharedDirIsBesideTheModule(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// This package is internal/testkit: the module root is two up.
	want := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(wd))), "shared")
	if got := SharedDir(); got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

func TestSkipSummary(t *testing.T) {
	RecordSkip("TestB")
	RecordSkip("TestA")
	RecordSkip("TestB")
	got := SkipSummary("pkg")
	if !strings.HasPrefix(got, "pkg: skipped TestA, TestB") || strings.Count(got, "TestB") != 1 || strings.Contains(got, "\n") {
		t.Errorf("got %q; want one line naming TestA and TestB once each", got)
	}
}
