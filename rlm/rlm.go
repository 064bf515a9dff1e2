// Package rlm puts rlmc in front of a planner call: WithSkills wraps any
// Planner so that every request reaches it with the skills its task needs
// already in its context, chosen by the compiler, never by the model.
package rlm

import (
	"context"
	"encoding/json"
	"fmt"

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

type skills struct {
	next     Planner
	c        *compiler.Compiler
	disabled bool
	audit    *compiler.Audit
	deny     []string
	budget   int
}

// WithSkills returns a Planner that compiles skills for each request's task
// and puts the rendered block in front of the request's System context
// before calling next. With no compiler, an empty catalog, or Disabled, it
// calls next with the request untouched. A task that selects nothing also
// reaches next untouched. It never edits tools, messages or options. A
// compile error (for example an explicit selection that cannot be honored)
// is returned, and next is not called.
func WithSkills(next Planner, c *compiler.Compiler, opts ...Option) Planner {
	s := &skills{next: next, c: c}
	for _, o := range opts {
		o(s)
	}
	if s.disabled || c == nil || len(c.Catalog().Units) == 0 {
		return next
	}
	return s
}

// Plan implements Planner.
func (s *skills) Plan(ctx context.Context, req *Request) (*Response, error) {
	creq := compiler.Request{Task: taskOf(req), Select: req.Skills, Deny: s.deny, Budget: s.budget}
	var (
		res *compiler.Result
		err error
	)
	if s.audit != nil {
		res, err = s.audit.Compile(ctx, s.c, creq)
	} else {
		res, err = s.c.Compile(ctx, creq)
	}
	if err != nil {
		return nil, fmt.Errorf("rlm: compiling skills: %w", err)
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

func taskOf(req *Request) string {
	if req.Task != "" {
		return req.Task
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}
