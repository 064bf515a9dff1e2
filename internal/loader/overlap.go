package loader

import (
	"path/filepath"
	"sort"

	"github.com/rlmc-dev/rlmc/ir"
)

// firstReach keeps, of the skill folders a root's scan found, those no
// earlier root reached already, and records them in seen (keyed by the
// folder's symlink-resolved path). Two roots overlap when one holds the
// other, or when they are the same folder under two names (running from
// the home directory, ./.agents/skills and ~/.agents/skills are one
// folder): without this, every skill of the overlap was loaded twice and
// reported as shadowing itself. The first root in precedence order owns the
// folder, exclusion included, so a folder one root excludes cannot come
// back through another that holds it under a different relative path.
// It keeps them in founds itself, which the caller no longer uses.
func firstReach(seen map[string]bool, founds []found) []found {
	kept := founds[:0]
	for _, f := range founds {
		if seen[f.dirReal] {
			continue
		}
		seen[f.dirReal] = true
		kept = append(kept, f)
	}
	return kept
}

// firstReport keeps, of the diagnostics a root's scan gave, those no
// earlier root's scan gave with the same code about the same path, and
// records them in seen: two roots that are one folder, or one inside the
// other, find the same unreadable SKILL.md or symlink loop, which is one
// problem, as firstReach keeps each skill folder once. Without it, one
// FIFO at a SKILL.md was "2 errors" when rlmc ran from the home folder.
func firstReport(seen map[string]bool, rootReal string, ds ir.Diagnostics) ir.Diagnostics {
	var kept ir.Diagnostics
	for _, d := range ds {
		k := string(d.Code) + "\x00" + filepath.Join(rootReal, filepath.FromSlash(d.Path))
		if seen[k] {
			continue
		}
		seen[k] = true
		kept = append(kept, d)
	}
	return kept
}

// Overlap says that root Inner (an index into the roots given to
// RootOverlaps) is the same folder as root Outer, or lies inside it. Outer
// is always the earlier of the two when they are the same folder.
type Overlap struct {
	Outer, Inner int
	Same         bool // the two roots are one folder
}

// RootOverlaps reports every pair of roots of which one holds the other,
// comparing symlink-resolved paths. Roots that do not exist take no part.
// The skills of an overlap are loaded once, from the root that comes first
// in precedence order; a host should still fix the root list, and `rlmc
// doctor` says so. Pairs come sorted by Inner, then Outer.
func RootOverlaps(roots []string) []Overlap {
	real := make([]string, len(roots))
	for i, r := range roots {
		if p, err := filepath.EvalSymlinks(r); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				real[i] = abs
			}
		}
	}
	var out []Overlap
	for i := range roots {
		for j := range roots {
			if i == j || real[i] == "" || real[j] == "" {
				continue
			}
			switch {
			case real[i] == real[j]:
				if i < j {
					out = append(out, Overlap{Outer: i, Inner: j, Same: true})
				}
			case Within(real[i], real[j]):
				out = append(out, Overlap{Outer: i, Inner: j})
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Inner != out[b].Inner {
			return out[a].Inner < out[b].Inner
		}
		return out[a].Outer < out[b].Outer
	})
	return out
}
