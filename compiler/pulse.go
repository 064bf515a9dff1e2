package compiler

import "context"

// pulse lets a loop whose length depends on the input (the words of a task,
// the units of a catalog) notice a cancelled context within a few steps,
// without paying for ctx.Err on every step. The context is otherwise only
// looked at between stages, and one stage over a long task or a large
// catalog must not outlive a deadline.
type pulse struct {
	ctx context.Context
	n   uint
	err error // the context's error, once seen
}

// pulseEvery is how many steps pass between looks at the context: a step is
// at most a few map lookups, so a look costs little beside them.
const pulseEvery = 64

// stop reports whether the context is done, looking at it every pulseEvery
// calls. A nil pulse never stops.
func (p *pulse) stop() bool {
	if p == nil {
		return false
	}
	if p.err == nil {
		p.n++
		if p.n%pulseEvery == 0 {
			p.err = p.ctx.Err()
		}
	}
	return p.err != nil
}

// now looks at the context at once, for a loop whose steps are long.
func (p *pulse) now() bool {
	if p == nil {
		return false
	}
	if p.err == nil {
		p.err = p.ctx.Err()
	}
	return p.err != nil
}
