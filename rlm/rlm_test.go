package rlm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// recorder is a fake planner that keeps what it received.
type recorder struct {
	mu   sync.Mutex
	got  []*Request
	json [][]byte
}

func (r *recorder) Plan(_ context.Context, req *Request) (*Response, error) {
	data, _ := json.Marshal(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, req)
	r.json = append(r.json, data)
	return &Response{Text: "ok"}, nil
}

func newCompiler(t *testing.T, files map[string]string) *compiler.Compiler {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		testkit.WriteFile(t, filepath.Join(dir, p), c)
	}
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{dir}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var catalog = map[string]string{
	"tdd/SKILL.md":    "---\nname: tdd\ndescription: Test-driven development with red green refactor.\nallowed-tools: Bash Write\n---\nWrite the failing test first.\n",
	"deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy to production.\ndisable-model-invocation: true\n---\nRun the pipeline.\n",
}

func request(task string) *Request {
	return &Request{
		System:   "You are a planner.",
		Task:     task,
		Messages: []Message{{Role: "user", Content: task}},
		Tools:    []Tool{{Name: "read_file", Schema: json.RawMessage(`{"type":"object"}`)}},
		Options:  map[string]any{"model": "m", "temperature": 0.2},
	}
}

func TestMatchingTaskGetsSkillBody(t *testing.T) {
	rec := &recorder{}
	p := WithSkills(rec, newCompiler(t, catalog))
	req := request("implement it with test-driven development")
	if _, err := p.Plan(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := rec.got[0]
	if !strings.HasPrefix(got.System, "<skills>\n<skill name=\"tdd\">\nWrite the failing test first.\n</skill>\n</skills>\n") {
		t.Errorf("got system %q; want the tdd block first", got.System)
	}
	if !strings.HasSuffix(got.System, "You are a planner.") {
		t.Errorf("the host's system context was lost: %q", got.System)
	}
	if req.System != "You are a planner." {
		t.Error("the caller's request was modified")
	}
}

func TestAuthorityIsNeverGranted(t *testing.T) {
	rec := &recorder{}
	p := WithSkills(rec, newCompiler(t, catalog))
	req := request("test-driven development please")
	before := request("test-driven development please")
	if _, err := p.Plan(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := rec.got[0]
	if diff := cmp.Diff(before.Tools, got.Tools); diff != "" {
		t.Errorf("tools changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before.Options, got.Options); diff != "" {
		t.Errorf("options changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before.Messages, got.Messages); diff != "" {
		t.Errorf("messages changed (-want +got):\n%s", diff)
	}
}

func TestUnchangedPaths(t *testing.T) {
	c := newCompiler(t, catalog)
	empty := newCompiler(t, map[string]string{})
	tests := []struct {
		name    string
		planner func(next Planner) Planner
		task    string
	}{
		{name: "unrelated task", planner: func(n Planner) Planner { return WithSkills(n, c) }, task: "what is the capital of France"},
		{name: "explicit only named in task", planner: func(n Planner) Planner { return WithSkills(n, c) }, task: "use the deploy skill now"},
		{name: "nil compiler", planner: func(n Planner) Planner { return WithSkills(n, nil) }, task: "test-driven development"},
		{name: "empty catalog", planner: func(n Planner) Planner { return WithSkills(n, empty) }, task: "test-driven development"},
		{name: "disabled", planner: func(n Planner) Planner { return WithSkills(n, c, Disabled()) }, task: "test-driven development"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			req := request(tt.task)
			want, _ := json.Marshal(req)
			if _, err := tt.planner(rec).Plan(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if rec.got[0] != req {
				t.Error("planner received a different request value")
			}
			if !bytes.Equal(rec.json[0], want) {
				t.Errorf("request changed:\n got %s\nwant %s", rec.json[0], want)
			}
		})
	}
}

func TestSelectionErrorSurfaces(t *testing.T) {
	rec := &recorder{}
	p := WithSkills(rec, newCompiler(t, catalog))
	req := request("anything")
	req.Skills = []string{"no-such-skill"}
	_, err := p.Plan(context.Background(), req)
	var ce *compiler.Error
	if !errors.As(err, &ce) || ce.Code != compiler.ErrUnknownUnit {
		t.Fatalf("got %v; want unknown_unit", err)
	}
	if len(rec.got) != 0 {
		t.Error("the planner was called despite the compile error")
	}
	req.Skills = []string{"deploy"}
	if _, err := p.Plan(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.got[0].System, `<skill name="deploy">`) {
		t.Error("a trusted host selection did not load the explicit-only skill")
	}
}

func TestTaskFromLastUserMessage(t *testing.T) {
	rec := &recorder{}
	p := WithSkills(rec, newCompiler(t, catalog))
	req := &Request{Messages: []Message{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "test-driven development?"}, {Role: "user", Content: "yes, test-driven development"}}}
	if _, err := p.Plan(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.got[0].System, "tdd") {
		t.Error("the task was not taken from the last user message")
	}
}

func TestConcurrentCallsAndAudit(t *testing.T) {
	var trail bytes.Buffer // unsynchronized: the audit's own lock must protect it
	rec := &recorder{}
	p := WithSkills(rec, newCompiler(t, catalog), WithAudit(compiler.NewAudit(&trail)))
	tasks := []string{"test-driven development", "the weather", "red green refactor"}
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := p.Plan(context.Background(), request(tasks[i%3])); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	routes, lines := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(trail.Bytes()))
	for sc.Scan() {
		lines++
		var rec compiler.AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %v", lines, err)
		}
		if rec.Decision == compiler.DecisionRoute {
			routes++
			if rec.Tokens == 0 || rec.Bytes == 0 || len(rec.Selected) != 1 || rec.Fingerprint == "" {
				t.Errorf("route line lacks figures: %+v", rec)
			}
		}
		if rec.CatalogFingerprint == "" || rec.Rejected["no_evidence"]+rec.Rejected["explicit_only"]+rec.Rejected["below_threshold"] == 0 {
			t.Errorf("line lacks the catalog fingerprint or rejection counts: %+v", rec)
		}
	}
	if lines != 30 || routes != 20 {
		t.Errorf("got %d lines, %d routes; want 30 and 20", lines, routes)
	}
}

// TestSelectionWithoutSkillsFails pins the promise of docs/serve.md that a
// selection that cannot be honored is an error from Plan: with no
// compiler, an empty catalog or Disabled, a request naming skills fails
// with ErrNoSkills and the planner is not called.
func TestSelectionWithoutSkillsFails(t *testing.T) {
	c := newCompiler(t, catalog)
	empty := newCompiler(t, map[string]string{})
	tests := []struct {
		name    string
		planner func(next Planner) Planner
	}{
		{name: "nil compiler", planner: func(n Planner) Planner { return WithSkills(n, nil) }},
		{name: "nil *compiler.Compiler", planner: func(n Planner) Planner { return WithSkills(n, (*compiler.Compiler)(nil)) }},
		// A host's "var live *compiler.Live" left unset panicked.
		{name: "nil *compiler.Live", planner: func(n Planner) Planner { return WithSkills(n, (*compiler.Live)(nil)) }},
		// Zero values New and Watch did not make panicked (a second red team).
		{name: "zero *compiler.Compiler", planner: func(n Planner) Planner { return WithSkills(n, &compiler.Compiler{}) }},
		{name: "zero *compiler.Live", planner: func(n Planner) Planner { return WithSkills(n, &compiler.Live{}) }},
		{name: "empty catalog", planner: func(n Planner) Planner { return WithSkills(n, empty) }},
		{name: "disabled", planner: func(n Planner) Planner { return WithSkills(n, c, Disabled()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			req := request("anything")
			req.Skills = []string{"tdd"}
			_, err := tt.planner(rec).Plan(context.Background(), req)
			if !errors.Is(err, ErrNoSkills) {
				t.Errorf("got %v; want an error wrapping ErrNoSkills", err)
			}
			if len(rec.got) != 0 {
				t.Error("the planner was called although the selection was not honored")
			}
		})
	}
}

// TestNilRequest: a nil request is an error, whatever the wrapper would
// have done with a request, never a panic, and the planner is not called.
func TestNilRequest(t *testing.T) {
	c := newCompiler(t, catalog)
	for name, planner := range map[string]func(next Planner) Planner{
		"with skills": func(n Planner) Planner { return WithSkills(n, c) },
		"disabled":    func(n Planner) Planner { return WithSkills(n, c, Disabled()) },
		"no compiler": func(n Planner) Planner { return WithSkills(n, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			if _, err := planner(rec).Plan(context.Background(), nil); !errors.Is(err, ErrNoRequest) {
				t.Errorf("got %v; want ErrNoRequest", err)
			}
			if len(rec.got) != 0 {
				t.Error("the planner was called with no request")
			}
		})
	}
}

// TestNilPlanner: WithSkills given no planner answers ErrNoPlanner at
// every call, whatever it would have done with the request (it panicked),
// and an audit trail made with no writer fails its records, not the call
// (it panicked too).
func TestNilPlanner(t *testing.T) {
	c := newCompiler(t, catalog)
	for _, tt := range []struct {
		name    string
		planner Planner
	}{
		{"nil planner", WithSkills(nil, c)},
		{"nil PlannerFunc", WithSkills(PlannerFunc(nil), c)},
		{"nil planner, disabled", WithSkills(nil, c, Disabled())},
		{"nil planner, no compiler", WithSkills(nil, nil)},
		{"nil planner, audited", WithSkills(nil, c, WithAudit(compiler.NewAudit(nil)))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.planner.Plan(context.Background(), request("red green refactor")); !errors.Is(err, ErrNoPlanner) {
				t.Errorf("got %v; want ErrNoPlanner", err)
			}
		})
	}
	rec := &recorder{}
	_, err := WithSkills(rec, c, WithAudit(compiler.NewAudit(nil))).Plan(context.Background(), request("red green refactor"))
	var ae *compiler.AuditError
	if !errors.As(err, &ae) {
		t.Errorf("audit without a writer: got %v; want an *AuditError", err)
	}
}

// TestOnCompileReportsTheDecision pins that the host learns what each
// compile decided, and can stop the call on an ambiguous task to ask its
// user instead of planning without skills.
func TestOnCompileReportsTheDecision(t *testing.T) {
	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\nmetadata:\n  prolog-rlm: '{\"schema\": 1, \"triggers\": [{\"kind\": \"object\", \"value\": \"text\"}, {\"kind\": \"object\", \"value\": \"prose\"}]}'\n---\nBody of " + name + ".\n"
	}
	c := newCompiler(t, map[string]string{
		"polish-prose/SKILL.md":  skill("polish-prose", "Improve the quality of text."),
		"tighten-prose/SKILL.md": skill("tighten-prose", "Improve the clarity of text."),
		"tdd/SKILL.md":           catalog["tdd/SKILL.md"],
	})
	type report struct {
		Decision    compiler.Decision
		Selected    []string
		Ambiguous   []string
		Fingerprint bool
	}
	var got []report
	errAsk := errors.New("ask the user")
	rec := &recorder{}
	p := WithSkills(rec, c, OnCompile(func(_ context.Context, res *compiler.Result) error {
		got = append(got, report{res.Decision, res.Names(), res.Ambiguous, strings.HasPrefix(res.Fingerprint, "sha256:")})
		if res.Decision == compiler.DecisionAmbiguous {
			return errAsk
		}
		return nil
	}))
	if _, err := p.Plan(context.Background(), request("test-driven development with red green refactor")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Plan(context.Background(), request("improve my text")); !errors.Is(err, errAsk) {
		t.Errorf("got %v; want the callback's error", err)
	}
	want := []report{
		{Decision: "route", Selected: []string{"tdd"}, Fingerprint: true},
		{Decision: "ambiguous", Selected: []string{}, Ambiguous: []string{"polish-prose", "tighten-prose"}, Fingerprint: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
	if len(rec.got) != 1 {
		t.Errorf("got %d planner calls; want 1: the ambiguous one was stopped", len(rec.got))
	}
}

// TestNilOption: a nil Option is no option; it panicked.
func TestNilOption(t *testing.T) {
	rec := &recorder{}
	if _, err := WithSkills(rec, newCompiler(t, catalog), nil).Plan(context.Background(), request("implement it with test-driven development")); err != nil {
		t.Fatal(err)
	}
	if len(rec.got) != 1 || !strings.Contains(rec.got[0].System, `<skill name="tdd">`) {
		t.Errorf("got %v; want the tdd block planned", rec.got)
	}
}
