package compiler

import (
	"context"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// buildShuffled writes files in a random order with random mtimes into a
// fresh folder, so that neither location, creation order nor time can leak
// into a fingerprint.
func buildShuffled(t *testing.T, files map[string]string, seed int64) *Compiler {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "some", "other", "place")
	paths := slices.Sorted(maps.Keys(files))
	rng := rand.New(rand.NewSource(seed))
	rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	for _, p := range paths {
		file := filepath.Join(dir, filepath.FromSlash(p))
		testkit.WriteFile(t, file, files[p])
		when := time.Unix(rng.Int63n(1<<31), 0)
		if err := os.Chtimes(file, when, when); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFingerprintsAreStable(t *testing.T) {
	a := build(t, standard, Policy{})
	b := buildShuffled(t, standard, 1)
	c := buildShuffled(t, standard, 2)
	if a.CatalogFingerprint() != b.CatalogFingerprint() || b.CatalogFingerprint() != c.CatalogFingerprint() {
		t.Fatalf("catalog fingerprints differ: %s %s %s", a.CatalogFingerprint(), b.CatalogFingerprint(), c.CatalogFingerprint())
	}
	tasks := []string{"review my code changes", "Please REVIEW the code changes!", "code changes need a review"}
	var first string
	for i, task := range tasks {
		for _, comp := range []*Compiler{a, b, c} {
			for run := 0; run < 2; run++ {
				r, err := comp.Compile(context.Background(), Request{Task: task})
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 && first == "" {
					first = r.Fingerprint
				}
				if r.Fingerprint != first {
					t.Errorf("task %q: got %s; want %s (same prompt, same fingerprint)", task, r.Fingerprint, first)
				}
			}
		}
	}
}

func TestFingerprintCoversEveryByte(t *testing.T) {
	changed := map[string]string{}
	for k, v := range standard {
		changed[k] = v
	}
	changed["checklist/SKILL.md"] = standard["checklist/SKILL.md"] + "."
	a := build(t, standard, Policy{})
	b := build(t, changed, Policy{})
	ra, err := a.Compile(context.Background(), Request{Task: "review my code changes"})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Compile(context.Background(), Request{Task: "review my code changes"})
	if err != nil {
		t.Fatal(err)
	}
	if ra.Fingerprint == rb.Fingerprint {
		t.Error("one byte changed in a selected body kept the fingerprint")
	}
	if a.CatalogFingerprint() == b.CatalogFingerprint() {
		t.Error("one byte changed in a unit kept the catalog fingerprint")
	}
	rc, err := b.Compile(context.Background(), Request{Task: "test driven development"})
	if err != nil {
		t.Fatal(err)
	}
	rd, _ := a.Compile(context.Background(), Request{Task: "test driven development"})
	if rc.Fingerprint != rd.Fingerprint {
		t.Error("a change outside the selection moved the prompt fingerprint")
	}
}

// TestBodyChangedAfterLoad: a SKILL.md changed on disk since the load
// fails the compile that would put its body in the prompt, and so does
// one a memo kept the answer of before the change.
func TestBodyChangedAfterLoad(t *testing.T) {
	for _, tc := range []struct {
		name string
		memo int
	}{{"no_memo", 0}, {"memo", 4}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "tdd", "SKILL.md")
			testkit.WriteFile(t, file, standard["tdd/SKILL.md"])
			c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, Policy{})
			if err != nil {
				t.Fatal(err)
			}
			c.memo = newMemo(tc.memo, nil)
			req := Request{Select: []string{"tdd"}}
			if _, err := c.Compile(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, file, standard["tdd/SKILL.md"]+"injected")
			_, err = c.Compile(context.Background(), req)
			if ce, ok := err.(*Error); !ok || ce.Code != ErrBodyChanged {
				t.Errorf("got %v; want body_changed", err)
			}
		})
	}
}

// TestBodyChangedOfARejectedCandidate: a candidate whose body changed
// since the load, rejected before packing, does not fail the compile (a
// live catalog whose reload fails answered 503 for every task that came
// near the edited skill); selected, it does.
func TestBodyChangedOfARejectedCandidate(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "tdd", "SKILL.md"), standard["tdd/SKILL.md"])
	lint := filepath.Join(dir, "lint", "SKILL.md")
	// Near enough to the task to be a candidate (rule 10 rejects it), so
	// that the compile reads its body.
	lintDesc := "Review the refactor loop of test files."
	testkit.WriteFile(t, lint, skill("lint", lintDesc, "", "# Lint"))
	c, err := Load(context.Background(), loader.Options{Roots: []string{dir}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	task := "test-driven development with a red-green-refactor loop for this test"
	before, err := c.Compile(context.Background(), Request{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	rejected := false
	for _, r := range before.Rejected {
		rejected = rejected || (r.Name == "lint" && r.Score >= CandidateFloor)
	}
	if !rejected || len(before.Selected) != 1 || before.Selected[0].Name != "tdd" {
		t.Fatalf("setup: got selected %v, rejected %v; want tdd selected and lint a rejected candidate", before.Selected, before.Rejected)
	}
	testkit.WriteFile(t, lint, skill("lint", lintDesc, "", "# Lint\nedited"))
	after, err := c.Compile(context.Background(), Request{Task: task})
	if err != nil {
		t.Fatalf("got %v; want the compile unaffected by a rejected candidate's edit", err)
	}
	if after.Fingerprint != before.Fingerprint {
		t.Error("the prompt fingerprint moved")
	}
	_, err = c.Compile(context.Background(), Request{Task: task, Select: []string{"lint"}})
	if ce, ok := err.(*Error); !ok || ce.Code != ErrBodyChanged {
		t.Errorf("selected: got %v; want body_changed", err)
	}
}

// TestHasherEncoding pins the fingerprints' encoding: each part, a string
// or bytes alike, as its length (8 bytes, big-endian) and its bytes, all
// under one SHA-256. The digest was computed apart from this code.
func TestHasherEncoding(t *testing.T) {
	h := newHasher()
	h.add("rlmc/catalog/v2")
	h.add("")
	h.addBytes([]byte(`{"name":"x"}`))
	const want = "sha256:3847945cc77144a3bad451e707ddb11acbf8e1d57ff2fdc504aa1758d69af2a8"
	if got := h.sum(); got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

// TestCatalogFingerprintRootRanks: a root listed twice (loaded once)
// shifts the places of the roots after it and changes nothing a compile
// decides, nor the catalog fingerprint (it did: a unit's root counted by
// its place in the list).
func TestCatalogFingerprintRootRanks(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(a, "x", "SKILL.md"), "---\nname: x\ndescription: Write a Dockerfile.\n---\nBody.\n")
	testkit.WriteFile(t, filepath.Join(b, "x", "SKILL.md"), "---\nname: x\ndescription: Write a Makefile.\n---\nBody.\n")
	testkit.WriteFile(t, filepath.Join(b, "y", "SKILL.md"), "---\nname: y\ndescription: Review code.\n---\nBody.\n")
	fp := func(roots ...string) string {
		t.Helper()
		c, err := Load(context.Background(), Options{Roots: roots}, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		return c.CatalogFingerprint()
	}
	once, twice := fp(a, b), fp(a, a, b)
	if once != twice {
		t.Errorf("got %s with a root listed twice; want %s, as with it once", twice, once)
	}
	if swapped := fp(b, a); swapped == once {
		t.Errorf("got the same fingerprint with the roots swapped; want another: the other x shadows")
	}
}

// TestPolicyFingerprint: a host policy that changes what a compile may
// decide changes the policy fingerprint, and the catalog's stays (a deny
// lifted on replicas changed their answers under one catalog
// fingerprint, with nothing to tell them apart); where the roots are
// read from changes neither.
func TestPolicyFingerprint(t *testing.T) {
	a := t.TempDir()
	testkit.WriteFile(t, filepath.Join(a, "x", "SKILL.md"), "---\nname: x\ndescription: Write a Dockerfile.\n---\nBody.\n")
	load := func(p Policy, roots ...string) *Compiler {
		t.Helper()
		c, err := Load(context.Background(), Options{Roots: roots}, p)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := load(Policy{}, a)
	tests := []struct {
		name   string
		policy Policy
		same   bool
	}{
		{name: "same policy", policy: Policy{}, same: true},
		{name: "defaults spelled out", policy: Policy{Budget: DefaultBudget, Tokenizer: DefaultTokenizer}, same: true},
		{name: "policy roots", policy: Policy{Roots: []string{a}}, same: true},
		{name: "loading only", policy: Policy{Exclude: []string{"nope"}, Limits: Limits{MaxDepth: 5}}, same: true},
		{name: "empty deny", policy: Policy{Deny: []string{}}, same: true},
		{name: "deny", policy: Policy{Deny: []string{"x"}}},
		{name: "priority", policy: Policy{Priority: map[string]int{"x": 5}}},
		{name: "budget", policy: Policy{Budget: 100}},
		{name: "min confidence", policy: Policy{MinConfidence: 0.5}},
		// The default spelled out keeps fingerprints from before the key.
		{name: "invocation task", policy: Policy{Invocation: InvocationTask}, same: true},
		{name: "invocation host", policy: Policy{Invocation: InvocationHost}},
	}
	if x, y := load(Policy{Deny: []string{"x", "y"}}, a), load(Policy{Deny: []string{"y", "x", "x"}}, a); x.PolicyFingerprint() != y.PolicyFingerprint() {
		t.Errorf("a deny list in another order, with a repeat, changed the policy fingerprint")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := load(tt.policy, a)
			if got := c.PolicyFingerprint() == base.PolicyFingerprint(); got != tt.same {
				t.Errorf("policy fingerprint the same as with no policy: got %v; want %v", got, tt.same)
			}
			if c.CatalogFingerprint() != base.CatalogFingerprint() {
				t.Errorf("got catalog fingerprint %s; want %s, the policy aside", c.CatalogFingerprint(), base.CatalogFingerprint())
			}
		})
	}
}
