package ir

import (
	"cmp"
	"slices"
	"strings"
)

// Root is a folder that skills were discovered under.
type Root struct {
	Dir        string `json:"dir"` // as given or derived, for display
	Precedence int    `json:"precedence"`
}

// Catalog is the normalized result of loading every root: all units,
// including invalid and shadowed ones, and every diagnostic.
type Catalog struct {
	Roots       []Root      `json:"roots"`
	Units       []*Unit     `json:"units"`
	Diagnostics Diagnostics `json:"diagnostics"`

	byName map[string]*Unit
}

// NewCatalog sorts units by name, then precedence, then path
// (CompareUnits), and indexes the unit that answers to each name: the one
// not shadowed. Units given in that order already are checked in one
// pass, not sorted again.
func NewCatalog(roots []Root, units []*Unit, diags Diagnostics) *Catalog {
	if !slices.IsSortedFunc(units, CompareUnits) {
		slices.SortStableFunc(units, CompareUnits)
	}
	diags.Sort()
	c := &Catalog{Roots: roots, Units: units, Diagnostics: diags, byName: make(map[string]*Unit, len(units))}
	for _, u := range units {
		if u.Status == StatusShadowed {
			continue
		}
		if _, dup := c.byName[u.Name]; !dup {
			c.byName[u.Name] = u
		}
	}
	return c
}

// CompareUnits orders units as a catalog holds them: by name, then
// precedence, then path.
func CompareUnits(a, b *Unit) int {
	// Name alone decides nearly every comparison: the others are compared
	// only on a tie (cmp.Or would compare all three first).
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Precedence, b.Precedence), strings.Compare(a.Path, b.Path))
}

// Lookup returns the unit that answers to name, which is never a shadowed one.
func (c *Catalog) Lookup(name string) (*Unit, bool) {
	u, ok := c.byName[name]
	return u, ok
}
