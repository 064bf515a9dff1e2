package retrieval

import (
	"fmt"

	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/ir"
)

// diagnostics reports what the index ignores in cat's usable units and
// why: aliases and triggers made only of stop words, and aliases that spell
// another unit's name (names as nameKeys maps them). When p stops it
// returns what it found so far.
func diagnostics(cat *ir.Catalog, names map[string]string, p *pulse.Pulse) ir.Diagnostics {
	out := contentless(cat, p)
	if p.Now() {
		return out
	}
	return append(out, aliasCollisions(cat, names)...)
}

// declared returns a warning of code about u, located where its aliases
// and triggers are declared.
func declared(u *ir.Unit, code ir.Code, msg string) ir.Diagnostic {
	return u.DeclaredAt(code, ir.SeverityWarning, msg)
}

// contentless reports every alias and trigger made only of stop words: the
// index ignores them (see hasContent), and the author should know why they
// never match.
func contentless(cat *ir.Catalog, p *pulse.Pulse) ir.Diagnostics {
	var out ir.Diagnostics
	for _, u := range cat.Units {
		if p.Now() {
			return out
		}
		if u.Status != ir.StatusOK {
			continue
		}
		report := func(what, value string) {
			if !hasContent(value) {
				out.Add(declared(u, ir.CodeNoContentWord, fmt.Sprintf("%s %q has no content word, only stop words; it is ignored as evidence", what, value)))
			}
		}
		for _, a := range u.Aliases {
			report("alias", a)
		}
		for _, t := range u.Triggers {
			report(string(t.Kind)+" trigger", t.Value)
		}
	}
	return out
}

// aliasCollisions reports every alias that spells another unit's name
// (nameKey: in another form, or with "skill"): the
// index ignores it (see usableAliases), so that no unit takes over a name
// that is not its own.
func aliasCollisions(cat *ir.Catalog, names map[string]string) ir.Diagnostics {
	var out ir.Diagnostics
	for _, u := range cat.Units {
		if u.Status != ir.StatusOK {
			continue
		}
		for _, a := range u.Aliases {
			if owner, ok := names[nameKey(a)]; ok && owner != u.Name {
				out.Add(declared(u, ir.CodeAliasCollision, fmt.Sprintf("alias %q is the name of unit %q; it is ignored", a, owner)))
			}
		}
	}
	return out
}
