// Package pulse lets a loop whose length depends on the input notice a
// cancelled context within a few steps.
package pulse

import "context"

// Pulse lets a loop whose length depends on the input (the words of a task,
// the units of a catalog) notice a cancelled context within a few steps,
// without paying for ctx.Err on every step. The context is otherwise only
// looked at between stages, and one stage over a long task or a large
// catalog must not outlive a deadline. A Pulse is not safe for concurrent
// use.
type Pulse struct {
	ctx context.Context
	n   uint
	err error // the context's error, once seen
}

// New returns a pulse over ctx.
func New(ctx context.Context) *Pulse { return &Pulse{ctx: ctx} }

// every is how many steps pass between looks at the context: a step is at
// most a few map lookups, so a look costs little beside them.
const every = 64

// Stop reports whether the context is done, looking at it every 64 calls.
// A nil pulse never stops.
func (p *Pulse) Stop() bool {
	if p == nil {
		return false
	}
	if p.err == nil {
		p.n++
		if p.n%every == 0 {
			p.err = p.ctx.Err()
		}
	}
	return p.err != nil
}

// Now looks at the context at once, for a loop whose steps are long.
func (p *Pulse) Now() bool {
	if p == nil {
		return false
	}
	if p.err == nil {
		p.err = p.ctx.Err()
	}
	return p.err != nil
}

// Err returns the context's error once Stop or Now has seen it, else nil.
func (p *Pulse) Err() error {
	if p == nil {
		return nil
	}
	return p.err
}

// Context returns the context the pulse watches; nil for a nil pulse.
// Workers on other goroutines read it directly, since a Pulse is not safe
// for concurrent use.
func (p *Pulse) Context() context.Context {
	if p == nil {
		return nil
	}
	return p.ctx
}
