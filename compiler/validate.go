package compiler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rlmc-dev/rlmc/ir"
)

// ValidateOptions are the names a host passes in its requests, which
// Validate checks as every request would meet them.
type ValidateOptions struct {
	Select, Deny []string
	// SelectPath and DenyPath name where the names came from in the
	// diagnostics: "select" and "deny" (the Request fields) when empty;
	// the CLI gives its flags.
	SelectPath, DenyPath string
}

// Validate returns, sorted, everything `rlmc validate` reports about c:
// the catalog's and the host policy's diagnostics (Diagnostics), the
// dependency graph's under the policy (GraphProblems), and, for the names
// of o, each that names no unit (unknown_policy_unit), a selection the
// policy or o denies and a deny of a mandatory unit (selection_denied,
// unusable_mandatory). Last, unless one of those already says so, it
// compiles no task under o to find a policy that fails every compile in
// a way no single check sees (mandatory units that conflict, a selection
// that conflicts with one). Load succeeds on all of these. An error
// leaves out the skill it names, or, when its code is unusable_mandatory
// or selection_denied, fails every compile: a host should not serve
// those (rlmc serve is not ready then). The error is ctx's when it ended
// before the last check, which then was not made.
func (c *Compiler) Validate(ctx context.Context, o ValidateOptions) (ir.Diagnostics, error) {
	if c == nil || c.cat == nil {
		return nil, nil
	}
	selPath, denyPath := cmp.Or(o.SelectPath, "select"), cmp.Or(o.DenyPath, "deny")
	ds := append(slices.Clone(c.Diagnostics()), GraphProblems(c.Catalog(), c.Policy())...)
	ds = append(ds, UnknownNames(c, selPath, o.Select)...)
	ds = append(ds, UnknownDenies(c, denyPath, o.Deny)...)
	denied := map[string]bool{}
	for _, n := range slices.Concat(c.Policy().Deny, o.Deny) {
		for _, t := range c.denyTargets(n) {
			denied[t] = true
		}
	}
	for _, n := range slices.Compact(slices.Sorted(slices.Values(o.Select))) {
		if denied[n] {
			ds.Add(ir.Diagnostic{Path: selPath, Code: ir.CodeSelectionDenied, Severity: ir.SeverityError,
				Message: fmt.Sprintf("%s selects unit %s, which is denied; every compile fails on it (selection_rejected)", selPath, ir.Quote(n))})
		}
	}
	for _, n := range slices.Compact(slices.Sorted(slices.Values(o.Deny))) {
		for _, t := range c.denyTargets(n) {
			if slices.Contains(c.Policy().Mandatory, t) {
				ds.Add(ir.Diagnostic{Path: denyPath, Code: ir.CodeUnusableMandatory, Severity: ir.SeverityError,
					Message: fmt.Sprintf("%s denies mandatory unit %s; every compile fails on it", denyPath, ir.Quote(t))})
			}
		}
	}
	ds = append(ds, c.failsEveryCompile(ctx, o, selPath, ds)...)
	ds.Sort()
	return ds, ctx.Err()
}

// failsEveryCompile compiles no task under o and reports the policy or
// the selection that made it fail, which then fails every compile; nil
// when it did not fail, when ds already says why it would, or when it
// failed for the budget alone (a request may raise it).
func (c *Compiler) failsEveryCompile(ctx context.Context, o ValidateOptions, selPath string, ds ir.Diagnostics) ir.Diagnostics {
	for _, d := range ds {
		if d.Code == ir.CodeUnusableMandatory || d.Code == ir.CodeSelectionDenied {
			return nil
		}
	}
	_, err := c.Compile(ctx, Request{Task: "", Select: o.Select, Deny: o.Deny})
	var ce *Error
	if !errors.As(err, &ce) || ce.Reason == ReasonOverBudget {
		return nil
	}
	switch ce.Code {
	case ErrMandatoryRejected:
		return ir.Diagnostics{{Path: "policy", Code: ir.CodeUnusableMandatory, Severity: ir.SeverityError,
			Message: ir.EscapeText(ce.Message) + "; every compile fails on it (mandatory_rejected)"}}
	case ErrSelectionRejected:
		return ir.Diagnostics{{Path: selPath, Code: ir.CodeSelectionDenied, Severity: ir.SeverityError,
			Message: ir.EscapeText(ce.Message) + "; every compile fails on it (selection_rejected)"}}
	}
	return nil
}
