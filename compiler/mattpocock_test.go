package compiler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// mattpocock is the pinned copy of Matt Pocock's skills collection in
// ../shared; THIRD_PARTY/mattpocock-skills pins and describes it.
var mattpocock = []string{"third_party", "mattpocock-skills", "skills"}

func loadMattPocock(t testing.TB, withOverlay bool) *Compiler {
	t.Helper()
	root := testkit.Shared(t, mattpocock...)
	var p Policy
	if withOverlay {
		var err error
		if p, err = LoadPolicy("../THIRD_PARTY/mattpocock-skills/policy.yaml"); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(context.Background(), loader.Options{Roots: []string{root}}, p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMattPocockLoadsCleanly(t *testing.T) {
	for _, overlay := range []bool{false, true} {
		c := loadMattPocock(t, overlay)
		if n := c.Diagnostics().Count(ir.SeverityError); n != 0 {
			t.Errorf("overlay %v: got %d errors: %v", overlay, n, c.Diagnostics())
		}
		// The pinned copy leaves out the collection's scripts, so the links
		// naming them are the only warnings it may raise.
		for _, d := range c.Diagnostics() {
			if d.Severity == ir.SeverityWarning && d.Code != ir.CodeMissingResource {
				t.Errorf("overlay %v: got warning %v; want none but missing_resource", overlay, d)
			}
		}
		if len(c.Catalog().Units) < 20 {
			t.Errorf("overlay %v: only %d units", overlay, len(c.Catalog().Units))
		}
	}
}

// TestMattPocockExplicitOnly compares the loader's verdict with what the
// files say, read here independently of the loader.
func TestMattPocockExplicitOnly(t *testing.T) {
	c := loadMattPocock(t, false)
	dmi := regexp.MustCompile(`(?m)^disable-model-invocation:\s*true\s*$`)
	codex := regexp.MustCompile(`(?m)^\s*allow_implicit_invocation:\s*false\s*$`)
	var want []string
	filepath.Walk(testkit.Shared(t, mattpocock...), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.Name() != "SKILL.md" {
			return err
		}
		data, _ := os.ReadFile(p)
		front, _, _ := strings.Cut(strings.TrimPrefix(string(data), "---\n"), "\n---")
		policy, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "agents", "openai.yaml"))
		if dmi.MatchString(front) || codex.Match(policy) {
			want = append(want, filepath.Base(filepath.Dir(p)))
		}
		return nil
	})
	var got []string
	for _, u := range c.Catalog().Units {
		if u.Invocation == ir.InvocationExplicitUser {
			got = append(got, u.Name)
		}
	}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("explicit-user-only units:\n got %v\nwant %v", got, want)
	}
}

// mattPocockTasks are realistic requests, each with the skill a person
// would pick from the collection.
var mattPocockTasks = []struct{ task, want string }{
	{"Review this pull request diff for bugs before I merge it", "code-review"},
	{"Something is broken: the export job keeps throwing errors, debug it", "diagnosing-bugs"},
	{"Debug this: the checkout test keeps failing and I can't see why", "diagnosing-bugs"},
	{"Let's build this feature test-first with a red-green-refactor loop", "tdd"},
	{"Resolve the merge conflicts after rebasing onto main", "resolving-merge-conflicts"},
	{"Set up pre-commit hooks with husky and lint-staged", "setup-pre-commit"},
	{"Migrate our test fixtures from type assertions to shoehorn", "migrate-to-shoehorn"},
	{"Block dangerous git commands like force push in Claude Code", "git-guardrails-claude-code"},
	{"Build a throwaway prototype to check whether this state model feels right", "prototype"},
	{"Research the third-party API docs and find out what rate limits apply", "research"},
	{"Add notes about this meeting to my Obsidian vault", "obsidian-vault"},
	{"Scaffold the exercise folders for the new course section", "scaffold-exercises"},
	{"Help me design deep modules with small interfaces for this codebase", "codebase-design"},
	{"Pin down the domain language and write an ADR for this decision", "domain-modeling"},
	{"Grill me relentlessly about this plan until we reach a shared understanding", "grilling"},
}

func TestMattPocockTasks(t *testing.T) {
	c := loadMattPocock(t, true)
	for _, tt := range mattPocockTasks {
		t.Run(tt.want, func(t *testing.T) {
			r, err := c.Compile(context.Background(), Request{Task: tt.task})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Selected) == 0 || r.Selected[0].Name != tt.want {
				t.Errorf("%q: got %v; want %s first", tt.task, r.Names(), tt.want)
			}
			for _, s := range r.Selected {
				if u, _ := c.Catalog().Lookup(s.Name); u.Invocation == ir.InvocationExplicitUser {
					t.Errorf("%q activated explicit-user-only %s", tt.task, s.Name)
				}
			}
		})
	}
}

func TestMattPocockOverlayEdges(t *testing.T) {
	c := loadMattPocock(t, true)
	r, err := c.Compile(context.Background(), Request{Task: "go", Select: []string{"implement"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), " "); got != "code-review tdd implement" && got != "tdd code-review implement" {
		t.Errorf("got %q; want tdd and code-review loaded before implement", got)
	}
	r, err = c.Compile(context.Background(), Request{Task: "go", Select: []string{"grill-me"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), " "); got != "grilling grill-me" {
		t.Errorf("got %q; want grilling before grill-me", got)
	}
	for _, u := range c.Catalog().Units {
		if strings.HasPrefix(u.Path, "deprecated/") || strings.HasPrefix(u.Path, "in-progress/") {
			t.Errorf("%s was not excluded by the overlay", u.Path)
		}
	}
}

// TestMattPocockNegatedNameNoEvidence checks that refusing a skill by name
// lends its words to no other: "grill-with-docs" shares "grill" with
// grilling, which the task does not ask for.
func TestMattPocockNegatedNameNoEvidence(t *testing.T) {
	c := loadMattPocock(t, true)
	r, err := c.Compile(context.Background(), Request{Task: "don't use grill-with-docs"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range r.Selected {
		got = append(got, s.Name)
	}
	if len(got) != 0 {
		t.Errorf("got selected %v; want none", got)
	}
}

// TestMattPocockIssueTasks pins the tasks issue 13 found routed where a
// person would not: each selects exactly the skills listed, in any order,
// over the collection as a new user points rlmc at it and with the
// repository's overlay policy.
func TestMattPocockIssueTasks(t *testing.T) {
	for _, overlay := range []bool{false, true} {
		t.Run(fmt.Sprintf("overlay=%v", overlay), func(t *testing.T) { testMattPocockIssueTasks(t, overlay) })
	}
}

func testMattPocockIssueTasks(t *testing.T, overlay bool) {
	c := loadMattPocock(t, overlay)
	tests := []struct {
		name, task string
		want       []string
	}{
		{name: "quoted trigger", task: "debug this", want: []string{"diagnosing-bugs"}},
		{name: "use-when clause, incidental second", task: "I'm in the middle of a rebase and git says there are conflicts in package.json", want: []string{"resolving-merge-conflicts"}},
		{name: "two clauses, two skills", task: "diagnose it, then fix it test-first", want: []string{"diagnosing-bugs", "tdd"}},
		{name: "wrapper no rival, topic word no second", task: "grill me on my plan to migrate from REST to GraphQL", want: []string{"grilling"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := c.Compile(context.Background(), Request{Task: tt.task})
			if err != nil {
				t.Fatal(err)
			}
			got := r.Names()
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("%q: got %v; want %v", tt.task, got, tt.want)
			}
		})
	}
}
