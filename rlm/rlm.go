// Package rlm puts rlmc in front of a planner call: WithSkills wraps any
// Planner so that every request reaches it with the skills its task needs
// already in its context, chosen by the compiler, never by the model.
package rlm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
)

// Message is one turn of the conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Tool is a tool the host offers the model. rlmc never adds, removes or
// changes tools, whatever a skill's allowed-tools says.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

// Request is a planner (completion) call.
type Request struct {
	// System is the planner's context; the skill block is put in front of it.
	System string `json:"system,omitempty"`
	// Task is the text skills are compiled for. When empty, the content of
	// the last user message is used.
	Task     string    `json:"task,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	Tools    []Tool    `json:"tools,omitempty"`
	// Options are provider settings (model, temperature...), passed through.
	Options map[string]any `json:"options,omitempty"`
	// Skills are trusted host selections (for example a /name the user typed
	// in the host's own UI). They must never come from model output.
	Skills []string `json:"skills,omitempty"`
}

// Response is what a planner returns.
type Response struct {
	Text string `json:"text"`
}

// Planner is a planner or completion call.
type Planner interface {
	Plan(ctx context.Context, req *Request) (*Response, error)
}

// PlannerFunc adapts a function to Planner.
type PlannerFunc func(ctx context.Context, req *Request) (*Response, error)

// Plan calls f.
func (f PlannerFunc) Plan(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }

// Option configures WithSkills.
type Option func(*skills)

// Disabled turns the wrapper into a pass-through, for hosts that let users
// switch skills off.
func Disabled() Option { return func(s *skills) { s.disabled = true } }

// WithAudit appends one JSON line per compile to the audit trail.
func WithAudit(a *compiler.Audit) Option { return func(s *skills) { s.audit = a } }

// WithDeny denies units on every call, on top of the compiler's policy.
func WithDeny(names ...string) Option {
	return func(s *skills) { s.deny = append(s.deny, names...) }
}

// WithBudget sets the token ceiling of the skill block.
func WithBudget(tokens int) Option { return func(s *skills) { s.budget = tokens } }

// OnCompile calls f with the result of every compile, before next is
// called: its Decision, Names() (the selected units), Ambiguous (the rivals
// of an ambiguous task, best first), Fingerprint and the rest. When f
// returns an error, Plan returns it and next is not called: a host can
// stop on an ambiguous decision and ask its user which skill to select,
// instead of planning without one. f is not called when no compile
// happens (Disabled, no compiler, an empty catalog) or when the compile
// fails (Plan returns that error). f reads res and never changes it: a
// Live catalog with LiveOptions.Memo gives the same result to every
// request like this one.
func OnCompile(f func(ctx context.Context, res *compiler.Result) error) Option {
	return func(s *skills) { s.onCompile = f }
}

// ErrNoSkills is what Plan's error wraps when a request selects skills
// (Request.Skills) that the wrapper cannot load because it has none: it
// was made Disabled, with a nil compiler or over an empty catalog. A
// selection that cannot be honored is an error, never a plain call.
var ErrNoSkills = errors.New("no skills are available")

type skills struct {
	next      Planner
	src       compiler.Source
	disabled  bool
	audit     *compiler.Audit
	deny      []string
	budget    int
	onCompile func(context.Context, *compiler.Result) error
}

// WithSkills returns a Planner that compiles skills for each request's task
// and puts the rendered block in front of the request's System context
// before calling next. src is a *compiler.Compiler, or a *compiler.Live
// (compiler.Watch) whose latest catalog each call compiles against, and
// which retries a compile after a reload (up to 8 compiles) when a skill
// changed on disk meanwhile. With no compiler (a nil src), an empty catalog, or Disabled,
// it calls next with the request untouched, unless the request selects
// skills: then Plan returns an error wrapping ErrNoSkills. A task that
// selects nothing also reaches next untouched. It never edits tools,
// messages or options. A compile error (for example an explicit selection
// that cannot be honored) is returned, and next is not called. OnCompile
// tells the host what each compile decided.
func WithSkills(next Planner, src compiler.Source, opts ...Option) Planner {
	s := &skills{next: next, src: src}
	for _, o := range opts {
		if o != nil { // a nil Option is no option, as a nil slice of them is
			o(s)
		}
	}
	switch {
	case s.disabled:
		return passThrough{next: next, why: "skills are disabled"}
	case src == nil:
		return passThrough{next: next, why: "there is no compiler"}
	}
	return s
}

// passThrough is WithSkills without skills: requests reach next untouched,
// but one that selects skills fails, since they cannot be loaded.
type passThrough struct {
	next Planner
	why  string
}

// Plan implements Planner.
func (p passThrough) Plan(ctx context.Context, req *Request) (*Response, error) {
	switch {
	case req == nil:
		return nil, ErrNoRequest
	case missing(p.next):
		return nil, ErrNoPlanner
	}
	if len(req.Skills) > 0 {
		return nil, fmt.Errorf("rlm: cannot load the selected skills %s: %s: %w", strings.Join(req.Skills, ", "), p.why, ErrNoSkills)
	}
	return p.next.Plan(ctx, req)
}

// ErrNoRequest is Plan's error for a nil request: there is no task to
// compile skills for, nor a request to hand on.
var ErrNoRequest = errors.New("rlm: no request")

// ErrNoPlanner is Plan's error when WithSkills was given no planner to
// call (a nil Planner or a nil PlannerFunc): a host's mistake, said where
// it calls rather than as a panic inside the wrapper.
var ErrNoPlanner = errors.New("rlm: no planner to call (WithSkills was given a nil Planner)")

// missing reports whether p is no planner: nil, or a nil PlannerFunc. A
// nil pointer of a host's own type may be a planner that works (its
// method need not read it), so only the call can tell.
func missing(p Planner) bool {
	f, isFunc := p.(PlannerFunc)
	return p == nil || isFunc && f == nil
}

// Plan implements Planner.
func (s *skills) Plan(ctx context.Context, req *Request) (*Response, error) {
	switch {
	case req == nil:
		return nil, ErrNoRequest
	case missing(s.next):
		// Said before any compile: no result could reach a model.
		return nil, ErrNoPlanner
	}
	// A live catalog may become empty, or be emptied, between two calls,
	// so this is decided at each call.
	switch c := s.src.Current(); {
	case c == nil || c.Catalog() == nil: // nil, or a zero *Compiler New did not make
		return passThrough{next: s.next, why: "there is no compiler"}.Plan(ctx, req)
	case len(c.Catalog().Units) == 0:
		return passThrough{next: s.next, why: "the catalog is empty"}.Plan(ctx, req)
	}
	creq := compiler.Request{Task: taskOf(req), Select: req.Skills, Deny: s.deny, Budget: s.budget}
	var (
		res *compiler.Result
		err error
	)
	if s.audit != nil {
		res, err = s.audit.Compile(ctx, s.src, creq)
	} else {
		res, err = s.src.Compile(ctx, creq)
	}
	if err != nil {
		return nil, fmt.Errorf("rlm: compiling skills: %w", err)
	}
	if s.onCompile != nil {
		if err := s.onCompile(ctx, res); err != nil {
			return nil, err
		}
	}
	if res.Prompt == "" {
		return s.next.Plan(ctx, req)
	}
	withSkills := *req // shallow copy: tools, messages and options are shared, never edited
	withSkills.System = res.Prompt
	if req.System != "" {
		withSkills.System += "\n" + req.System
	}
	return s.next.Plan(ctx, &withSkills)
}

// taskOf returns the text skills are compiled for: Task, else the last
// user message, clipped to the compile's bound (compiler.ClipTask), since
// a user's message may be of any length.
func taskOf(req *Request) string {
	task := req.Task
	for i := len(req.Messages) - 1; i >= 0 && task == ""; i-- {
		if req.Messages[i].Role == "user" {
			task = req.Messages[i].Content
		}
	}
	clipped, _ := compiler.ClipTask(task)
	return clipped
}
