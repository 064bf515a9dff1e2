//go:build unix

// Package coldstart measures whole rlmc processes, the cost a host that
// starts rlmc for every prompt pays, beside the cost of reading the same
// SKILL.md files with cat, in the same run.
//
// Each iteration of a sub-benchmark runs `find ROOT... -name SKILL.md -exec
// cat {} +` (the floor: every skill file walked to and read once) and then
// one `rlmc compile` process, back to back, and times only the second; the
// floor's time is reported beside it (cat-ms/op) with their ratio (x-cat)
// and rlmc's peak resident memory (peak-RSS-MB). Modes:
//
//   - uncached: --no-cache, the full load;
//   - cached: a cache written by an earlier run, nothing changed since;
//   - one-changed: a cache, and one SKILL.md edited before each run.
//
// Sizes are 1,000 and 5,000 skills; RLMC_COLDSTART_SIZES (for example
// "1000,5000,20000") picks others. Run:
//
//	go test -run '^$' -bench . -count 6 ./bench/coldstart
package coldstart

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// task is the compiled task: words of the generated vocabulary, so units
// have evidence and a route reaches token counting, as a real prompt does.
const task = "audit the invoice ledger report and render a chart"

var (
	tmp      string
	buildRun sync.Once
	bin      string
	buildErr error
	catalogs = map[int][]string{}
)

func TestMain(m *testing.M) {
	var err error
	if tmp, err = os.MkdirTemp("", "rlmc-coldstart-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// rlmcBinary builds rlmc once per process.
func rlmcBinary(b *testing.B) string {
	buildRun.Do(func() {
		bin = filepath.Join(tmp, "rlmc")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/rlmc-dev/rlmc/cmd/rlmc").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return bin
}

// catalog generates n skills once per process and returns their roots.
func catalog(b *testing.B, n int) []string {
	if roots, ok := catalogs[n]; ok {
		return roots
	}
	roots := testkit.GenerateCatalog(b, filepath.Join(tmp, fmt.Sprintf("skills-%d", n)), n, 1)
	catalogs[n] = roots
	return roots
}

func sizes(b *testing.B) []int {
	spec := os.Getenv("RLMC_COLDSTART_SIZES")
	if spec == "" {
		return []int{1000, 5000}
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("RLMC_COLDSTART_SIZES: %q is not a positive count", f)
		}
		out = append(out, n)
	}
	return out
}

func BenchmarkColdStart(b *testing.B) {
	exe := rlmcBinary(b)
	for _, n := range sizes(b) {
		roots := catalog(b, n)
		// Each root holds testkit.SkillsPerRoot skills, under the loader's
		// folder bound, so no policy is needed.
		args := []string{"compile", "--task", task, "--format", "json"}
		for _, r := range roots {
			args = append(args, "--root", r)
		}
		cacheDir := filepath.Join(tmp, fmt.Sprintf("cache-%d", n))
		edited := filepath.Join(roots[0], "cat00", skillName(b, roots[0]), "SKILL.md")
		b.Run(fmt.Sprintf("skills=%d/uncached", n), func(b *testing.B) {
			measure(b, roots, exe, append(args, "--no-cache"), cacheDir, nil)
		})
		b.Run(fmt.Sprintf("skills=%d/cached", n), func(b *testing.B) {
			run(b, exe, args, cacheDir) // writes the cache
			measure(b, roots, exe, args, cacheDir, nil)
		})
		b.Run(fmt.Sprintf("skills=%d/one-changed", n), func(b *testing.B) {
			run(b, exe, args, cacheDir)
			k := 0
			measure(b, roots, exe, args, cacheDir, func() {
				k++
				appendLine(b, edited, fmt.Sprintf("Edit %d.\n", k))
			})
		})
	}
}

// measure runs the floor and then rlmc b.N times, before each pair calling
// edit (when not nil) with the timer stopped.
func measure(b *testing.B, roots []string, exe string, args []string, cacheDir string, edit func()) {
	var floor time.Duration
	var rss int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if edit != nil {
			edit()
		}
		start := time.Now()
		cat(b, roots)
		floor += time.Since(start)
		b.StartTimer()
		rss += run(b, exe, args, cacheDir)
	}
	b.StopTimer()
	b.ReportMetric(float64(floor.Milliseconds())/float64(b.N), "cat-ms/op")
	if floor > 0 {
		b.ReportMetric(float64(b.Elapsed())/float64(floor), "x-cat")
	}
	b.ReportMetric(float64(rss)/float64(b.N)/1024, "peak-RSS-MB")
}

// run starts one rlmc process and returns its peak resident memory in KiB.
func run(b *testing.B, exe string, args []string, cacheDir string) int64 {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "RLMC_CACHE_DIR="+cacheDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("rlmc %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// cat reads every SKILL.md under roots, as the floor.
func cat(b *testing.B, roots []string) {
	args := append(append([]string{}, roots...), "-name", "SKILL.md", "-exec", "cat", "{}", "+")
	cmd := exec.Command("find", args...) // stdout is the null device
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("find: %v\n%.500s", err, stderr.String())
	}
}

// skillName returns the first skill folder of a generated root's cat00.
func skillName(b *testing.B, root string) string {
	entries, err := os.ReadDir(filepath.Join(root, "cat00"))
	if err != nil || len(entries) == 0 {
		b.Fatalf("generated root %s has no cat00 skill: %v", root, err)
	}
	return entries[0].Name()
}

func appendLine(b *testing.B, path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		b.Fatal(err)
	}
}
