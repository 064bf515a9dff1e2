package httpsafe

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/ir"
)

// Unselectable says why no compile over c can select a skill: the
// catalog has none, or every one is invalid or denied by the host policy
// (a skills volume that is missing, a YAML error in the only skill). It
// returns "" when some unit may be selected. A front-end whose catalog is
// so is not ready: every answer would be no skill, which reads as a task
// that matched nothing.
func Unselectable(c *compiler.Compiler) string {
	r := c.Reach()
	switch {
	case r.Units == 0:
		return "the catalog has no skills"
	case r.Selectable > 0:
		return ""
	}
	return fmt.Sprintf("no skill of the catalog can be selected: %d invalid, %d denied by the host policy", r.Invalid, r.Denied)
}

// Failing says why every compile over c fails, whatever its request: a
// unit the host policy makes mandatory that the catalog lacks, that is
// invalid, that the policy denies, or that conflicts with another
// (unusable_mandatory, as Compiler.Validate finds it). It returns "" when
// a compile can succeed. A front-end whose catalog is so must not take
// traffic: it would refuse every request (a house-style skill renamed,
// and a fleet answering 422 while its balancer sees it ready).
func Failing(ctx context.Context, c *compiler.Compiler) string {
	if len(c.Policy().Mandatory) == 0 {
		// Nothing else fails every compile; and a load's OnReload, which
		// asks, holds the compiles that meet a changed body (they answer
		// body_changed at once): it must stay short.
		return ""
	}
	ds, _ := c.Validate(ctx, compiler.ValidateOptions{}) // ctx done: the checks made so far tell
	for _, d := range ds {
		if d.Code == ir.CodeUnusableMandatory && d.Severity == ir.SeverityError {
			return d.Message
		}
	}
	return ""
}

// PolicyFault reports whether ce, the error of a compile over c, is the
// host policy's rather than the request's: a unit the policy makes
// mandatory refused or missing (mandatory_rejected, unknown_unit) while
// every compile over c fails (Failing), whatever the request. The
// front-ends answer it 500, where 422 told every client its request was
// wrong; a unit the request selected stays the request's (a typo in a
// select is no server fault, and a 5xx is retried).
func (l *CatalogLog) PolicyFault(c *compiler.Compiler, ce *compiler.Error) bool {
	return c != nil && (ce.Code == compiler.ErrMandatoryRejected || ce.Code == compiler.ErrUnknownUnit) &&
		slices.Contains(c.Policy().Mandatory, ce.Unit) && l.FailingFor(c) != ""
}

// maxLoggedErrors bounds the catalog errors a load's warning quotes.
const maxLoggedErrors = 5

// maxLoggedBytes bounds what a log line quotes of one value a client or a
// folder chose (a path, a diagnostic): the line must stay a line.
const maxLoggedBytes = 512

// Clip returns s cut to maxLoggedBytes, between characters, with "..."
// when cut.
func Clip(s string) string { return ir.Clip(s, maxLoggedBytes) }

// CatalogLog tells the operator of `rlmc serve` or `rlmc proxy`, at each
// load of the catalog, what the log line of the load does not: that no
// skill can be selected, and the errors that appeared since the last load
// (a skill whose YAML broke answers no skill from then on). Errors the
// previous load reported are counted, not quoted again: a reload that
// fixes nothing says nothing new.
type CatalogLog struct {
	// Log receives the warnings.
	Log *slog.Logger
	// Consequence says what a catalog that selects nothing means for the
	// front-end's answers ("every compile answers no_route").
	Consequence string

	mu   sync.Mutex
	seen map[string]bool // the errors the last load found, as rendered
	// last is the catalog of the last load and failing what Failing said
	// of it, kept for the readiness probe, which asks at every poll.
	last    *compiler.Compiler
	failing string
}

// FailingFor is Failing of c, as the load of c found it when c is the
// last catalog loaded.
func (l *CatalogLog) FailingFor(c *compiler.Compiler) string {
	l.mu.Lock()
	last, failing := l.last, l.failing
	l.mu.Unlock()
	if c == last {
		return failing
	}
	return Failing(context.Background(), c)
}

// Loaded reports one load of c, the first or a reload.
func (l *CatalogLog) Loaded(c *compiler.Compiler) {
	if why := Unselectable(c); why != "" {
		// Started from the wrong folder, say: the roots tell.
		var roots []string
		for _, r := range c.Catalog().Roots {
			roots = append(roots, r.Dir)
		}
		l.Log.Warn("no skill can be selected; "+l.Consequence+" until one can", "why", why, "roots", roots)
	}
	failing := Failing(context.Background(), c)
	if failing != "" {
		l.Log.Warn("every compile fails until the host policy or the catalog changes (rlmc validate lists why)", "why", failing)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last, l.failing = c, failing
	seen := map[string]bool{}
	var fresh []string
	for _, d := range c.Diagnostics() {
		if d.Severity != ir.SeverityError {
			continue
		}
		line := d.Rooted()
		if !seen[line] && !l.seen[line] {
			fresh = append(fresh, line)
		}
		seen[line] = true
	}
	l.seen = seen
	if len(fresh) > 0 {
		quoted := make([]string, min(len(fresh), maxLoggedErrors))
		for i := range quoted {
			quoted[i] = Clip(fresh[i])
		}
		l.Log.Warn("the catalog has new errors; the skills they name never load (rlmc validate lists them all)",
			"errors", len(seen), "new", len(fresh), "first_new", quoted)
	}
}
