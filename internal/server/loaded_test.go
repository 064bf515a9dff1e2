package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestLoadedLineMeansReady: once "catalog loaded" is logged the server
// answers compiles. It logged the line before it took the catalog, so a
// client that started on the line (the start-up harness, a supervisor
// reading the log) had its first requests answered 503 not_ready.
func TestLoadedLineMeansReady(t *testing.T) {
	root, policy := smallCatalog(t)
	var s *Server
	seen := false
	log := testkit.OnLog("catalog loaded", func() {
		seen = true
		if s.Live() == nil {
			t.Error("got no catalog when the server logged it loaded; want it serving")
		}
	})
	s, _ = newTestServer(t, Config{Roots: []string{root}, PolicyFile: policy, Logger: log})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal(`got no "catalog loaded" line`)
	}
}

// TestEmptyCatalogWarned: a server whose roots hold no skill says so once
// loaded; it answered no_route to everything with an INFO line of
// "units": 0 as the only sign.
func TestEmptyCatalogWarned(t *testing.T) {
	warned := false
	log := testkit.OnLog("no skill can be selected; every compile answers no_route until one can", func() { warned = true })
	s, _ := newTestServer(t, Config{Roots: []string{t.TempDir()}, Logger: log})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !warned {
		t.Fatal("got no warning for an empty catalog; want one")
	}
	// Nor does it say it is ready: a replica whose skills volume is
	// missing took traffic and answered no_route to every compile.
	rec := httptest.NewRecorder()
	s.readyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "the catalog has no skills") {
		t.Fatalf("readyz of an empty catalog: got %d %s; want 503 saying it has no skills", rec.Code, rec.Body)
	}
}

// TestCatalogErrorsWarned: a server whose catalog has skills that cannot
// load says so at load, and a reload quotes the errors that are new,
// whatever sorts before them; a reload that finds nothing new says
// nothing more. Its log said only "catalog loaded" with the count of
// units, and the skill answered no_route from then on.
func TestCatalogErrorsWarned(t *testing.T) {
	root := t.TempDir()
	broken := func(name string) {
		testkit.WriteFile(t, filepath.Join(root, name, "SKILL.md"), "---\nname: "+name+"\ndescription: [unclosed\n---\nBody.\n")
	}
	for _, n := range []string{"a1", "a2", "a3", "a4", "a5", "a6"} {
		broken(n)
	}
	testkit.WriteFile(t, filepath.Join(root, "good", "SKILL.md"), "---\nname: good\ndescription: Review Go code.\n---\nBody.\n")
	var first []string
	warned := 0
	log := testkit.OnLogRecord("the catalog has new errors; the skills they name never load (rlmc validate lists them all)", func(r slog.Record) {
		warned++
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "first_new" {
				first, _ = a.Value.Any().([]string)
			}
			return true
		})
	})
	s, _ := newTestServer(t, Config{Roots: []string{root}, Logger: log})
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if warned != 1 || len(first) != 5 || !strings.Contains(first[0], filepath.ToSlash(filepath.Join(root, "a1", "SKILL.md"))) {
		t.Fatalf("got %d warnings quoting %q; want one quoting the first five, a1/SKILL.md under its root first", warned, first)
	}
	s.reloaded(compiler.Reload{Compiler: s.Live().Current()})
	if warned != 1 {
		t.Fatalf("got %d warnings after a reload that found nothing new; want 1", warned)
	}
	broken("zeta")
	c, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	s.reloaded(compiler.Reload{Compiler: c})
	if warned != 2 || len(first) != 1 || !strings.Contains(first[0], "zeta/SKILL.md") {
		t.Fatalf("got %d warnings quoting %q after zeta broke; want 2, the second quoting zeta/SKILL.md alone", warned, first)
	}
}

// TestNothingSelectableNotReady: a catalog whose every skill is invalid,
// or denied by the host policy, answers no_route to every compile like an
// empty one: the server warns and is not ready. It said ready.
func TestNothingSelectableNotReady(t *testing.T) {
	for _, tc := range []struct{ name, skill, policy string }{
		{"every skill invalid", "---\nname: x\ndescription: [unclosed\n---\nBody.\n", ""},
		{"every skill denied", "---\nname: x\ndescription: Review Go code.\n---\nBody.\n", "deny: [x]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFile(t, filepath.Join(root, "x", "SKILL.md"), tc.skill)
			cfg := Config{Roots: []string{root}}
			if tc.policy != "" {
				cfg.PolicyFile = filepath.Join(t.TempDir(), "policy.yaml")
				testkit.WriteFile(t, cfg.PolicyFile, tc.policy)
			}
			warned := false
			cfg.Logger = testkit.OnLog("no skill can be selected; every compile answers no_route until one can", func() { warned = true })
			s, _ := newTestServer(t, cfg)
			if err := s.Watch(context.Background()); err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			s.readyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			if !warned || rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "no skill of the catalog can be selected") {
				t.Fatalf("got warned %v, readyz %d %s; want a warning and 503 saying no skill can be selected", warned, rec.Code, rec.Body)
			}
		})
	}
}

// TestEveryCompileFailsNotReady: a host policy under which every compile
// fails (a mandatory unit the catalog lacks, or two mandatory units that
// conflict) makes the server warn and not ready. It logged the reload a
// success and said ready while answering every compile 422.
func TestEveryCompileFailsNotReady(t *testing.T) {
	conflicts := "metadata:\n  prolog-rlm: '{\"schema\": 1, \"conflicts\": [{\"kind\": \"skill\", \"name\": \"spaces\"}]}'\n"
	for _, tc := range []struct{ name, policy string }{
		{"a mandatory unit the catalog lacks", "mandatory: [house-style]\n"},
		{"mandatory units that conflict", "mandatory: [tabs, spaces]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteFile(t, filepath.Join(root, "tabs", "SKILL.md"), "---\nname: tabs\ndescription: Indent with tabs.\n"+conflicts+"---\nBody.\n")
			testkit.WriteFile(t, filepath.Join(root, "spaces", "SKILL.md"), "---\nname: spaces\ndescription: Indent with spaces.\n---\nBody.\n")
			cfg := Config{Roots: []string{root}, PolicyFile: filepath.Join(t.TempDir(), "policy.yaml")}
			testkit.WriteFile(t, cfg.PolicyFile, tc.policy)
			warned := false
			cfg.Logger = testkit.OnLog("every compile fails until the host policy or the catalog changes (rlmc validate lists why)", func() { warned = true })
			s, ts := newTestServer(t, cfg)
			if err := s.Watch(context.Background()); err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			s.readyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			if !warned || rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "every compile fails") {
				t.Fatalf("got warned %v, readyz %d %s; want a warning and 503 saying every compile fails", warned, rec.Code, rec.Body)
			}
			// The host policy's fault, not the request's: 500, where 422
			// told every client its request was wrong.
			if status, _ := postCompile(t, ts.URL, `{"task": "indent with tabs"}`); status != http.StatusInternalServerError {
				t.Errorf("a compile: got %d; want 500", status)
			}
			// An error about a unit the client selected is the client's,
			// a typo, all the same: 422; one about the mandatory unit,
			// which the compile may meet first, the policy's.
			status, unit := postCompile(t, ts.URL, `{"task": "x", "select": ["nope-typo"]}`)
			want := http.StatusInternalServerError
			if unit == "nope-typo" {
				want = http.StatusUnprocessableEntity
			}
			if status != want {
				t.Errorf("a compile selecting a unit no skill bears: got %d about %q; want %d", status, unit, want)
			}
		})
	}
	// A request that denies a mandatory unit of a policy that works is the
	// request's fault: 422 as before.
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "tabs", "SKILL.md"), "---\nname: tabs\ndescription: Indent with tabs.\n---\nBody.\n")
	cfg := Config{Roots: []string{root}, PolicyFile: filepath.Join(t.TempDir(), "policy.yaml")}
	testkit.WriteFile(t, cfg.PolicyFile, "mandatory: [tabs]\n")
	s, ts := newTestServer(t, cfg)
	if err := s.Watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if status, _ := postCompile(t, ts.URL, `{"task": "x", "deny": ["tabs"]}`); status != http.StatusUnprocessableEntity {
		t.Errorf("a request denying a mandatory unit: got %d; want 422", status)
	}
}

// postCompile posts body to the server at url's /v1/compile and returns
// the status and the unit its error names, if any.
func postCompile(t *testing.T, url, body string) (status int, unit string) {
	t.Helper()
	resp, err := http.Post(url+"/v1/compile", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct{ Error struct{ Unit string } }
	json.NewDecoder(resp.Body).Decode(&doc)
	return resp.StatusCode, doc.Error.Unit
}
