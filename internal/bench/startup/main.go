//go:build unix

// Command startup measures what a host that starts rlmc for every prompt
// pays, on generated catalogs of realistic skills (internal/realcat: 3 to
// 4 KB a SKILL.md, a long-tailed vocabulary, some dependencies, some
// explicit-only skills), beside the floor of reading every SKILL.md once.
//
// For each size it writes a catalog in a temporary folder, then runs, in
// rounds, interleaved: the floor (`find ROOTS -name SKILL.md -print0 |
// xargs -0 cat`), `rlmc compile` without the cache, `rlmc compile` with a
// warm cache, and one `rlmc hook claude-code` prompt with a warm cache;
// every rlmc is the built binary, exec'd, and its peak RSS is the child's
// rusage Maxrss. It reports medians (and the range) of each, their ratios
// to the floor taken within each round, the hook's first prompt on a cold
// cache and then how many of -hook-prompts prompts were delivered (skills
// printed) within the hook's default deadline, the tokens a listing of
// every skill's description costs beside the tokens rlmc injected, and,
// with -serve D, `rlmc serve` over the catalog under 16 clients on
// loopback for D: compiles a second, latency and the server's peak RSS.
//
// Several binaries can be measured in the same rounds (-bin old=PATH,new=PATH),
// so a before/after comparison shares the machine's moments; by default it
// builds ./cmd/rlmc. -benchfmt FILE writes every sample in Go's benchmark
// format, for benchstat.
//
//	go run ./internal/bench/startup [-sizes 1000,5000] [-runs 5] [-bin PATH|LABEL=PATH,...] [-hook-prompts 5] [-serve 10s] [-benchfmt FILE]
//
// A round at 20,000 skills takes about ten seconds on a 2-core machine:
// keep its runs few (-sizes 20000 -runs 3).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/realcat"
	"github.com/rlmc-dev/rlmc/internal/serveload"
)

// task is the compiled task of the compile runs: common words of the
// generated vocabulary, so units have evidence and a route packs a body.
const task = "audit the invoice ledger report and render a chart"

// tokenizer counts the listing and the injected context.
const tokenizer = "o200k_base"

type binary struct {
	label, path string
}

type config struct {
	sizes       []int
	runs        int
	bins        []binary
	hookPrompts int
	serve       time.Duration
	benchfmt    io.Writer
	seed        uint64
}

func main() {
	sizes := flag.String("sizes", "1000,5000", "catalog sizes, comma-separated")
	runs := flag.Int("runs", 5, "interleaved rounds per size")
	bins := flag.String("bin", "", "rlmc binaries to measure: PATH, or LABEL=PATH,... (default: build ./cmd/rlmc)")
	prompts := flag.Int("hook-prompts", 5, "hook prompts after the first, on the cache the first left")
	benchfmt := flag.String("benchfmt", "", "also write every sample to `FILE` in Go's benchmark format (for benchstat)")
	seed := flag.Uint64("seed", 1, "catalog seed")
	serve := flag.Duration("serve", 10*time.Second, "how long 16 clients load `rlmc serve` over each catalog (0: not measured)")
	flag.Parse()
	if err := run(*sizes, *runs, *bins, *prompts, *serve, *benchfmt, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}

func run(sizes string, runs int, bins string, prompts int, serve time.Duration, benchfmt string, seed uint64) error {
	tmp, err := os.MkdirTemp("", "rlmc-startup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c := config{runs: runs, hookPrompts: prompts, serve: serve, seed: seed}
	if runs < 1 || prompts < 0 || serve < 0 {
		return errors.New("-runs must be positive, -hook-prompts and -serve not negative")
	}
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-sizes: %q is not a positive count", f)
		}
		c.sizes = append(c.sizes, n)
	}
	if c.bins, err = binaries(bins, tmp); err != nil {
		return err
	}
	if benchfmt != "" {
		f, err := os.Create(benchfmt)
		if err != nil {
			return err
		}
		defer f.Close()
		c.benchfmt = f
		fmt.Fprintf(f, "goos: linux\npkg: github.com/rlmc-dev/rlmc/internal/bench/startup\n")
	}
	host, _ := os.Hostname()
	fmt.Printf("rlmc start-up harness: %s, %d cores, %s, %d rounds a size, interleaved; figures are medians [min-max]\n",
		host, runtime.NumCPU(), time.Now().Format("2006-01-02"), runs)
	for _, n := range c.sizes {
		if err := c.size(tmp, n); err != nil {
			return err
		}
	}
	return nil
}

// binaries parses -bin, or builds ./cmd/rlmc.
func binaries(spec, tmp string) ([]binary, error) {
	if spec == "" {
		exe := filepath.Join(tmp, "rlmc")
		out, err := exec.Command("go", "build", "-o", exe, "github.com/rlmc-dev/rlmc/cmd/rlmc").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
		return []binary{{"rlmc", exe}}, nil
	}
	var out []binary
	for _, f := range strings.Split(spec, ",") {
		label, path, ok := strings.Cut(f, "=")
		if !ok {
			label, path = filepath.Base(f), f
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, err
		}
		out = append(out, binary{label, abs})
	}
	return out, nil
}

// sample is one measured process.
type sample struct {
	wall time.Duration
	rss  int64 // KiB
}

// series are the samples of one measurement, with the floor of the same
// round for each.
type series struct {
	s      []sample
	ratios []float64
}

func (s *series) add(x sample, floor time.Duration) {
	s.s = append(s.s, x)
	if floor > 0 {
		s.ratios = append(s.ratios, float64(x.wall)/float64(floor))
	}
}

func (c *config) size(tmp string, n int) error {
	dir := filepath.Join(tmp, fmt.Sprintf("skills-%d", n))
	start := time.Now()
	cat, err := realcat.Write(dir, n, realcat.Options{Seed: c.seed})
	if err != nil {
		return err
	}
	fmt.Printf("\n## %d skills: %d roots, %.1f KB a SKILL.md on average, %.0f MB in all (written in %v)\n",
		n, len(cat.Roots), float64(cat.Bytes)/float64(n)/1000, float64(cat.Bytes)/1e6, time.Since(start).Round(time.Millisecond))
	var roots []string
	for _, r := range cat.Roots {
		roots = append(roots, "--root", r)
	}
	compileArgs := append([]string{"compile", "--task", task, "--format", "json"}, roots...)
	hookArgs := append([]string{"hook", "claude-code"}, roots...)
	var prompts []string
	for i := 0; len(prompts) < max(c.runs, c.hookPrompts)+1; i += 97 {
		if s := cat.Skills[i%n]; !s.Explicit {
			prompts = append(prompts, realcat.Prompt(s))
		}
	}
	type perBin struct {
		uncached, cached, hook series
		delivered              int
		injected               []int
		cacheBytes             int64
		outputs                map[[32]byte]int
	}
	res := make([]perBin, len(c.bins))
	cacheDir := func(b int, what string) string {
		return filepath.Join(tmp, fmt.Sprintf("cache-%d-%d-%s", n, b, what))
	}
	// Warm each binary's cache (and the page cache) once.
	for b, bin := range c.bins {
		res[b].outputs = map[[32]byte]int{}
		if _, _, err := c.exec(bin.path, compileArgs, cacheDir(b, "compile"), nil); err != nil {
			return err
		}
		if _, _, err := c.exec(bin.path, hookArgs, cacheDir(b, "compile"), c.hookInput(prompts[0], dir)); err != nil {
			return err
		}
		res[b].cacheBytes = dirBytes(cacheDir(b, "compile"), ".cache")
	}
	var floor series
	for round := range c.runs {
		f, err := c.floor(cat.Roots)
		if err != nil {
			return err
		}
		floor.add(sample{wall: f}, f)
		c.bench(n, "floor", "", sample{wall: f})
		for k := range c.bins {
			b := (k + round) % len(c.bins) // each binary first in turn
			bin := c.bins[b]
			x, out, err := c.exec(bin.path, append(compileArgs, "--no-cache"), cacheDir(b, "compile"), nil)
			if err != nil {
				return err
			}
			res[b].uncached.add(x, f)
			res[b].outputs[sha256.Sum256(out)]++
			c.bench(n, "uncached", bin.label, x)
			x, out, err = c.exec(bin.path, compileArgs, cacheDir(b, "compile"), nil)
			if err != nil {
				return err
			}
			res[b].cached.add(x, f)
			res[b].outputs[sha256.Sum256(out)]++
			c.bench(n, "cached", bin.label, x)
			x, out, err = c.exec(bin.path, hookArgs, cacheDir(b, "compile"), c.hookInput(prompts[1+round%(len(prompts)-1)], dir))
			if err != nil {
				return err
			}
			res[b].hook.add(x, f)
			c.bench(n, "hook-warm", bin.label, x)
			if ctx, ok := hookContext(out); ok {
				res[b].delivered++
				if t, err := compiler.CountTokens(tokenizer, ctx); err == nil {
					res[b].injected = append(res[b].injected, t)
				}
			}
		}
	}
	fmt.Printf("floor (find | xargs cat): %s\n", durations(floor.s))
	for b, bin := range c.bins {
		r := &res[b]
		fmt.Printf("%s:\n", bin.label)
		fmt.Printf("  uncached compile: %s, %s the floor, peak RSS %s\n", durations(r.uncached.s), ratios(r.uncached.ratios), rss(r.uncached.s))
		fmt.Printf("  cached compile:   %s, %s the floor, peak RSS %s\n", durations(r.cached.s), ratios(r.cached.ratios), rss(r.cached.s))
		fmt.Printf("  hook, warm cache: %s, peak RSS %s, delivered %d of %d\n", durations(r.hook.s), rss(r.hook.s), r.delivered, len(r.hook.s))
		fmt.Printf("  cache files: %.1f MB (%.2f KB a skill)\n", float64(r.cacheBytes)/1e6, float64(r.cacheBytes)/float64(n)/1000)
		if len(r.outputs) != 1 {
			fmt.Printf("  WARNING: compile outputs differ between runs (%d distinct)\n", len(r.outputs))
		}
		if len(r.injected) > 0 {
			fmt.Printf("  tokens injected by the hook: median %d a prompt\n", median(r.injected))
		}
		uncached := median(walls(r.uncached.s))
		if err := c.hookSequence(n, bin, hookArgs, cacheDir(b, "hook"), prompts, dir, uncached); err != nil {
			return err
		}
		if c.serve > 0 {
			sets := []taskSet{
				{"the hook's tasks, again and again", append([]string{task}, prompts...)},
				{"tasks drawn from one for each skill", allPrompts(cat)},
			}
			if err := c.servePhase(bin, roots, cacheDir(b, "compile"), sets); err != nil {
				return err
			}
		}
	}
	if len(c.bins) > 1 {
		same := true
		for b := range res[1:] {
			same = same && maps1(res[0].outputs, res[b+1].outputs)
		}
		fmt.Printf("compile outputs identical across binaries: %v\n", same)
	}
	var listing strings.Builder
	for _, s := range cat.Skills {
		if !s.Explicit {
			fmt.Fprintf(&listing, "- %s: %s\n", s.Name, s.Description)
		}
	}
	if t, err := compiler.CountTokens(tokenizer, listing.String()); err == nil {
		fmt.Printf("a listing of every model-invocable skill's description: %d tokens (%s) at every prompt\n", t, tokenizer)
	}
	return nil
}

// hookSequence runs the hook as a new user's first prompts do: the first
// on an empty cache folder, then, once the cache can be there (at most
// twice an uncached compile and two seconds later: the user types), the
// others, each counted as delivered when it printed skills.
func (c *config) hookSequence(n int, bin binary, args []string, cacheDir string, prompts []string, cwd string, uncached time.Duration) error {
	x, out, err := c.execFull(bin.path, args, cacheDir, c.hookInput(prompts[0], cwd))
	if err != nil {
		return err
	}
	_, first := hookContext(out.stdout)
	line, _, _ := strings.Cut(strings.TrimSpace(out.stderr), "\n")
	fmt.Printf("  hook, first prompt on an empty cache: %v, delivered %v, stderr %q\n", x.wall.Round(time.Millisecond), first, line)
	c.bench(n, "hook-first", bin.label, x)
	start := time.Now()
	limit := 2*uncached + 2*time.Second
	for time.Since(start) < limit && !cacheReady(cacheDir) {
		time.Sleep(50 * time.Millisecond)
	}
	ready := cacheReady(cacheDir)
	if ready {
		fmt.Printf("  cache ready %v after the first prompt returned\n", time.Since(start).Round(10*time.Millisecond))
	} else {
		fmt.Printf("  no cache written within %v of the first prompt\n", limit.Round(time.Millisecond))
	}
	delivered := 0
	var lat []time.Duration
	for i := range c.hookPrompts {
		x, out, err := c.execFull(bin.path, args, cacheDir, c.hookInput(prompts[1+i%(len(prompts)-1)], cwd))
		if err != nil {
			return err
		}
		lat = append(lat, x.wall)
		if _, ok := hookContext(out.stdout); ok {
			delivered++
		}
		c.bench(n, "hook-next", bin.label, x)
	}
	if c.hookPrompts > 0 {
		fmt.Printf("  hook, the next %d prompts: delivered %d of %d within the default deadline, %s\n", c.hookPrompts, delivered, c.hookPrompts, durations(samples(lat)))
	}
	return nil
}

// cacheReady: a catalog cache file is in dir and no builder that still
// runs holds a build lock.
func cacheReady(dir string) bool {
	entries, _ := os.ReadDir(dir)
	cache := false
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".lock") {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || syscall.Kill(pid, 0) == nil {
				return false
			}
		}
		cache = cache || strings.HasSuffix(e.Name(), ".cache")
	}
	return cache
}

// hookInput is the input Claude Code gives the hook for prompt in cwd: a
// session whose transcript is never written, so that each prompt pays
// for the hook's memory of the session (read, stat, store) and gets its
// skills in full, as a first prompt does.
func (c *config) hookInput(prompt, cwd string) []byte {
	data, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": cwd, "session_id": "startup",
		"transcript_path": filepath.Join(cwd, "startup-transcript.jsonl")})
	return data
}

// hookContext returns the context a hook output adds, when it adds one.
func hookContext(out []byte) (string, bool) {
	var o struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(out, &o) != nil || o.HookSpecificOutput.AdditionalContext == "" {
		return "", false
	}
	return o.HookSpecificOutput.AdditionalContext, true
}

// floor times reading every SKILL.md below roots once.
func (c *config) floor(roots []string) (time.Duration, error) {
	args := []string{"-c", `find "$@" -name SKILL.md -print0 | xargs -0 cat >/dev/null`, "floor"}
	cmd := exec.Command("sh", append(args, roots...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("floor: %v: %s", err, stderr.String())
	}
	return time.Since(start), nil
}

type output struct {
	stdout []byte
	stderr string
}

func (c *config) exec(exe string, args []string, cacheDir string, stdin []byte) (sample, []byte, error) {
	x, out, err := c.execFull(exe, args, cacheDir, stdin)
	return x, out.stdout, err
}

// execFull runs one rlmc process and returns its wall time, peak RSS and
// output. A non-zero exit is an error.
func (c *config) execFull(exe string, args []string, cacheDir string, stdin []byte) (sample, output, error) {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "RLMC_CACHE_DIR="+cacheDir)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A child left holding the output (a hook's builder that kept it)
	// must not hold the harness.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, output{}, fmt.Errorf("%s %s: %v\n%.2000s", exe, strings.Join(args[:2], " "), err, stderr.String())
	}
	var x = sample{wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		x.rss = ru.Maxrss
	}
	return x, output{stdout.Bytes(), stderr.String()}, nil
}

// bench writes one sample in Go's benchmark format.
func (c *config) bench(n int, what, label string, x sample) {
	if c.benchfmt == nil {
		return
	}
	name := fmt.Sprintf("BenchmarkStartup/skills=%d/%s", n, what)
	if label != "" {
		name += "/bin=" + label
	}
	fmt.Fprintf(c.benchfmt, "%s 1 %d ns/op", name, x.wall.Nanoseconds())
	if x.rss > 0 {
		fmt.Fprintf(c.benchfmt, " %.1f peak-MiB", float64(x.rss)/1024)
	}
	fmt.Fprintln(c.benchfmt)
}

func dirBytes(dir, suffix string) int64 {
	entries, _ := os.ReadDir(dir)
	var total int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), suffix) {
			total += info.Size()
		}
	}
	return total
}

func walls(s []sample) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, x := range s {
		out[i] = x.wall
	}
	return out
}

func samples(ds []time.Duration) []sample {
	out := make([]sample, len(ds))
	for i, d := range ds {
		out[i] = sample{wall: d}
	}
	return out
}

func durations(s []sample) string {
	w := walls(s)
	if len(w) == 0 {
		return "-"
	}
	return fmt.Sprintf("%v [%v-%v]", round(median(w)), round(slices.Min(w)), round(slices.Max(w)))
}

func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

func ratios(r []float64) string {
	if len(r) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", median(r))
}

func rss(s []sample) string {
	var kb []int64
	for _, x := range s {
		kb = append(kb, x.rss)
	}
	if len(kb) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB [%.0f-%.0f]", float64(median(kb))/1024, float64(slices.Min(kb))/1024, float64(slices.Max(kb))/1024)
}

// median is the middle value (the lower of the two middle ones).
func median[T int | int64 | float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func maps1(a, b map[[32]byte]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// serveClients is how many clients load the server, as the issue's
// target counts them.
const serveClients = 16

// taskSet is a set of tasks the clients of servePhase draw from.
type taskSet struct {
	name  string
	tasks []string
}

// allPrompts returns a task for each skill that is not explicit-only: drawn
// from at random, they measure compiles, as few come again while the
// server still holds their answers (compiler.ServeMemo, 256): about 5% at
// 5,000 skills, a quarter at 1,000.
func allPrompts(cat *realcat.Catalog) []string {
	var out []string
	for _, s := range cat.Skills {
		if !s.Explicit {
			out = append(out, realcat.Prompt(s))
		}
	}
	return out
}

// servePhase runs `rlmc serve` over roots on a loopback port (its catalog
// cache warm from the compiles), and, for each set of tasks in turn, has
// serveClients clients send tasks drawn from it, as fast as it answers,
// for c.serve, and reports the compiles a second, the latency quantiles
// and the failures; then the server's peak RSS. The clients run in this
// process, on the same two cores as the server.
func (c *config) servePhase(bin binary, roots []string, cacheDir string, sets []taskSet) error {
	cmd := exec.Command(bin.path, append([]string{"serve", "--addr", "127.0.0.1:0"}, roots...)...)
	cmd.Env = append(os.Environ(), "RLMC_CACHE_DIR="+cacheDir)
	logs, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	// The server logs one JSON line when it listens, with its address,
	// and one when its catalog is loaded; until then it answers 503.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(logs)
		listening, sent := "", false
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if sent || json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			switch {
			case line.Msg == "listening":
				listening = line.Addr
			case line.Msg == "catalog loaded" && listening != "":
				addr <- listening
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	var url string
	select {
	case a, ok := <-addr:
		if !ok {
			return fmt.Errorf("%s serve: exited before its catalog was loaded", bin.label)
		}
		url = "http://" + a
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("%s serve: no catalog loaded after 2 minutes", bin.label)
	}
	for _, set := range sets {
		reqs := make([]serveload.Request, len(set.tasks))
		for i, t := range set.tasks {
			reqs[i] = serveload.Request{Task: t}
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.serve)
		start := time.Now()
		rec := serveload.Run(ctx, url, "", serveClients, 1<<30, 0, reqs)
		elapsed := time.Since(start)
		cancel()
		fmt.Printf("  serve, %d clients for %v, %s (%d): %.0f compiles/s, p50 %v, p99 %v, %d of %d failed\n",
			serveClients, c.serve, set.name, len(set.tasks), float64(rec.Requests)/elapsed.Seconds(), rec.Quantile(0.5).Round(100*time.Microsecond), rec.Quantile(0.99).Round(100*time.Microsecond), rec.Failed, rec.Requests)
		for _, f := range rec.Failures[:min(3, len(rec.Failures))] {
			fmt.Printf("    failed: %s\n", f)
		}
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	peak := int64(0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = int64(ru.Maxrss)
	}
	fmt.Printf("  serve: peak RSS %d MiB\n", peak/1024)
	return nil
}
