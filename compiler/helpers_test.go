package compiler

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// skill renders a SKILL.md; meta is the prolog-rlm JSON or "".
func skill(name, desc, meta, body string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n", name, desc)
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	if meta != "" {
		fmt.Fprintf(&b, "metadata:\n  prolog-rlm: '%s'\n", meta)
	}
	fmt.Fprintf(&b, "---\n%s\n", body)
	return b.String()
}

// build writes files (path -> content) into a temporary root and returns a
// compiler over it.
func build(t testing.TB, files map[string]string, p Policy) *Compiler {
	t.Helper()
	dir := t.TempDir()
	for path, content := range files {
		testkit.WriteFile(t, filepath.Join(dir, filepath.FromSlash(path)), content)
	}
	c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reasonOf returns the first reason code of the named unit, and whether it
// was selected.
func reasonOf(r *Result, name string) (ReasonCode, bool) {
	for _, s := range r.Selected {
		if s.Name == name {
			return s.Reasons[0].Code, true
		}
	}
	for _, rj := range r.Rejected {
		if rj.Name == name {
			return rj.Reasons[0].Code, false
		}
	}
	return "", false
}

// reasonsOf returns the reasons of the unit named name, selected or
// rejected; none for "".
func reasonsOf(r *Result, name string) []Reason {
	for _, s := range r.Selected {
		if s.Name == name {
			return s.Reasons
		}
	}
	for _, rj := range r.Rejected {
		if rj.Name == name {
			return rj.Reasons
		}
	}
	return nil
}

// standing reports whether code is one a result counts in Unlisted rather
// than lists, unless the request asks: a unit's standing, which no rule of
// the policy decided.
func standing(code ReasonCode) bool {
	switch code {
	case ReasonNoEvidence, ReasonBelowThreshold, ReasonShadowed, ReasonInvalid:
		return true
	}
	return false
}

// checkAccounting fails unless every unit appears at most once, selected
// or rejected, and the listed units and Unlisted's counts add up to the
// catalog, every count a standing's.
func checkAccounting(t testing.TB, c *Compiler, r *Result) {
	t.Helper()
	count := map[string]int{}
	for _, s := range r.Selected {
		count[s.Name+"@"+s.Path]++
	}
	for _, rj := range r.Rejected {
		count[rj.Name+"@"+rj.Path]++
	}
	unlisted := 0
	for code, n := range r.Unlisted {
		if !standing(code) || n <= 0 {
			t.Errorf("unlisted counts %d %s; want only standings, each counted at least once", n, code)
		}
		unlisted += n
	}
	if got, want := len(r.Selected)+len(r.Rejected)+unlisted, len(c.Catalog().Units); got != want {
		t.Errorf("got %d selected, %d rejected and %d unlisted; want them to add up to the catalog's %d units", len(r.Selected), len(r.Rejected), unlisted, want)
	}
	for _, u := range c.Catalog().Units {
		if n := count[u.Name+"@"+u.Path]; n > 1 {
			t.Errorf("unit %s at %s appears %d times; want at most once", u.Name, u.Path, n)
		}
		delete(count, u.Name+"@"+u.Path)
	}
	if len(count) > 0 {
		keys := make([]string, 0, len(count))
		for k := range count {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Errorf("result lists units not in the catalog: %v", keys)
	}
	if got := strings.Count(r.Prompt, "<skill name="); got != len(r.Selected) {
		t.Errorf("prompt has %d <skill name= openings; want %d", got, len(r.Selected))
	}
}
