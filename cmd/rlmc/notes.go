package main

import (
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

// maxNamed is how many names a note lists before it says "and N more", so
// that a large catalog's note stays one short line.
const maxNamed = 3

// compileNotes renders, one short line each, what a person reading the text
// output of a compile should know and cannot see in the prompt: why a unit
// the task points at was not loaded, and whether the catalog itself is in
// bad shape. It returns nothing when all is well. It is pure rendering of
// the result, keyed on reason codes, so that JSON and text say the same,
// and of cat's invalid units, which a result only counts.
func compileNotes(res *compiler.Result, cat *ir.Catalog, invocation compiler.InvocationMode) []string {
	var notes []string
	for _, s := range res.Selected {
		// The prompt shows a reference, not the body: say so, and how to
		// have the body instead.
		if s.Rendering == compiler.RenderingReference {
			notes = append(notes, fmt.Sprintf("%s rendered as reference: its body does not fit the budget; raise --budget to inline it", noteName(s.Name)))
		}
	}
	notes = append(notes, shadowNotes(res, cat)...)
	notes = append(notes, invokedNotes(res)...)
	for _, rj := range res.Rejected {
		if len(rj.Reasons) == 0 || invoked(rj) {
			continue
		}
		r := rj.Reasons[0]
		switch r.Code {
		case compiler.ReasonExplicitOnly:
			if n := explicitOnlyNote(rj, func(name string) string {
				how := "add --select " + name
				if invocation != compiler.InvocationHost {
					how += ", or start the task with /" + name + ","
				}
				return how
			}); n != "" {
				notes = append(notes, n)
			}
		case compiler.ReasonOverBudget:
			notes = append(notes, fmt.Sprintf("%s not loaded: over budget (%s); raise --budget", noteName(rj.Name), ir.EscapeText(r.Detail)))
		case compiler.ReasonMissingDependency, compiler.ReasonDependencyCycle:
			notes = append(notes, fmt.Sprintf("%s not loaded: %s: %s", noteName(rj.Name), r.Code, ir.EscapeText(r.Detail)))
		case compiler.ReasonDependencyRejected:
			note := fmt.Sprintf("%s not loaded: %s: %s", noteName(rj.Name), r.Code, ir.EscapeText(r.Detail))
			if f := r.Facts; f != nil && f.DependencyReason == compiler.ReasonExplicitOnly {
				// The one dependency rejection a user can lift.
				note += fmt.Sprintf("; add --select %s to load it", noteName(f.Dependency))
			}
			notes = append(notes, note)
		case compiler.ReasonConflict:
			// A unit the task points at strongly, left out for another:
			// the user would not know why it is missing.
			if rj.Score >= compiler.Threshold {
				notes = append(notes, fmt.Sprintf("%s not loaded: %s", noteName(rj.Name), ir.EscapeText(r.Detail)))
			}
		case compiler.ReasonNegated:
			notes = append(notes, fmt.Sprintf("%s not loaded: the task asks not to use it", noteName(rj.Name)))
		}
	}
	if len(res.Ambiguous) > 0 {
		notes = append(notes, fmt.Sprintf("ambiguous: %s; choose with --select NAME", ambiguousNames(res, ir.Printable)))
	} else if res.Decision == compiler.DecisionNoRoute && len(res.Selected) == 0 && len(notes) == 0 {
		if len(cat.Units) == 0 {
			notes = append(notes, noRouteLead+noSkill(cat))
		} else {
			notes = append(notes, noRouteNote(res))
		}
	}
	if invalid := invalidNames(cat); len(invalid) > 0 {
		notes = append(notes, fmt.Sprintf("%s in the catalog: %s; run rlmc validate", plural(len(invalid), "invalid skill"), listSome(invalid)))
	}
	if n := unloadedNote(cat); n != "" {
		notes = append(notes, n)
	}
	return append(notes, rootSkillNotes(cat)...)
}

// rootSkillNotes says, for each root that is itself a skill (a SKILL.md
// at its top, an index or a README written as one), how many skill
// folders under it were not read as skills: they are that skill's
// resources, and a compile that routes none of them said only that the
// task matched nothing.
func rootSkillNotes(cat *ir.Catalog) []string {
	var notes []string
	for _, u := range cat.Units {
		if u.Path != loader.SkillFile {
			continue
		}
		n := 0
		for _, d := range cat.Diagnostics {
			if d.Code == ir.CodeNestedSkill && d.Root == u.Root {
				n++
			}
		}
		if n > 0 {
			notes = append(notes, fmt.Sprintf("%s holds %s, which makes the root one skill (%s): the %s under it are its resources, not loaded; move that %s out to load them (rlmc validate lists them)",
				ir.Printable(u.Root), loader.SkillFile, noteName(u.Name), plural(n, "skill folder"), loader.SkillFile))
		}
	}
	return notes
}

// shadowNotes says, for each selected unit that shadows another of its
// name in a lower root, which copy reached the model: two skills of one
// name are two versions a user may not know they have (a project's copy
// over the user's, a client's folder over another's), and the prompt
// shows the body without where it came from.
func shadowNotes(res *compiler.Result, cat *ir.Catalog) []string {
	var shadowed map[string][]string // winner's path -> the copies it shadows
	for _, u := range cat.Units {
		if u.Status == ir.StatusShadowed {
			if shadowed == nil {
				shadowed = map[string][]string{}
			}
			shadowed[u.ShadowedBy] = append(shadowed[u.ShadowedBy], ir.Printable(filepath.ToSlash(filepath.Join(u.Root, u.Path))))
		}
	}
	var notes []string
	for _, s := range res.Selected {
		win := filepath.ToSlash(filepath.Join(s.Root, s.Path))
		switch copies := shadowed[win]; len(copies) {
		case 0:
		case 1:
			notes = append(notes, fmt.Sprintf("%s loaded from %s, which shadows the %s at %s", noteName(s.Name), ir.Printable(win), noteName(s.Name), copies[0]))
		default:
			notes = append(notes, fmt.Sprintf("%s loaded from %s, which shadows %d others of its name: %s", noteName(s.Name), ir.Printable(win), len(copies), listSome(copies)))
		}
	}
	return notes
}

// noRouteNote says that a compile selected nothing, which its empty
// prompt does not: the best-scoring unit the task came close to, with the
// rule that left it out, or that no unit had evidence at all.
func noRouteNote(res *compiler.Result) string {
	var best *compiler.Rejected
	for i, rj := range res.Rejected {
		if rj.Score > 0 && len(rj.Reasons) > 0 && (best == nil || rj.Score > best.Score) {
			best = &res.Rejected[i]
		}
	}
	if best == nil {
		// A task that only says what not to do asks for nothing: its
		// words were no evidence, whatever skills hold them.
		for _, e := range res.Events {
			if e.Kind == compiler.EventRefusal {
				return noRouteLead + "the task says what not to do (" + ir.Quote(e.Detail) + "), whose words count for no skill, and its other words are in none"
			}
		}
		return noRouteLead + "the task's words are in no skill of the catalog"
	}
	return fmt.Sprintf("%sthe closest, %s (score %.2f), left out by %s; --why %s says more", noRouteLead, noteName(best.Name), best.Score, best.Reasons[0].Rule, noteName(best.Name))
}

// noRouteLead opens the note of a compile that selected nothing.
const noRouteLead = "no skill selected: "

// noSkillFound says that the roots hold no skill: "0 units" and an empty
// prompt read as a catalog that was checked and a task that matched
// nothing.
const noSkillFound = "no skill found under the roots"

// noSkill says why a catalog of no unit has none: the roots hold no
// skill, or the host policy's exclude leaves out every one found.
func noSkill(cat *ir.Catalog) string {
	if slices.ContainsFunc(cat.Diagnostics, func(d ir.Diagnostic) bool { return d.Code == ir.CodeExcluded }) {
		return "the host policy's exclude leaves out every skill found"
	}
	return noSkillFound
}

// ambiguousNames lists the rivals of an ambiguous result, each as print
// renders a name.
func ambiguousNames(res *compiler.Result, print func(string) string) string {
	names := make([]string, len(res.Ambiguous))
	for i, n := range res.Ambiguous {
		names[i] = print(n)
	}
	return strings.Join(names, ", ")
}

// invalidNames returns, as notes print them, the names of cat's invalid
// units: skills that never load, whatever the task, which every result
// rejects as invalid. They are read from the catalog, since a result
// counts them without naming them (compiler.Result.Unlisted). An invalid
// unit that shadows a namesake says so: the copy the user may mean, in a
// root ranked below, never loads either.
func invalidNames(cat *ir.Catalog) []string {
	shadowed := map[string]int{}
	for _, u := range cat.Units {
		if u.Status == ir.StatusShadowed {
			shadowed[u.Name]++
		}
	}
	var out []string
	for _, u := range cat.Units {
		if u.Status != ir.StatusInvalid {
			continue
		}
		name := noteName(u.Name)
		if n := shadowed[u.Name]; n > 0 {
			name += fmt.Sprintf(" (shadowing %s)", plural(n, "namesake"))
		}
		out = append(out, name)
	}
	return out
}

// whyNotes says, one line for each unit bearing a name the user asked
// about (--why), what became of it: selected or rejected, with the first
// reason as --explain writes it. A name no unit bears gets no line here:
// the unknown_policy_unit warning said so.
func whyNotes(res *compiler.Result, names []string) []string {
	var out []string
	for _, n := range names {
		for _, s := range res.Selected {
			if s.Name == n {
				out = append(out, fmt.Sprintf("why %s: selected: %s", noteName(n), ir.EscapeText(s.Reasons[0].String())))
			}
		}
		for _, rj := range res.Rejected {
			if rj.Name == n && len(rj.Reasons) > 0 {
				out = append(out, fmt.Sprintf("why %s (%s): rejected, score %.3f: %s%s", noteName(n), ir.Printable(rj.Where()), rj.Score, ir.EscapeText(rj.Reasons[0].String()), evidenceNote(rj.Evidence)))
			}
		}
	}
	return out
}

// maxNoteEvidence is how many pieces of evidence a --why note quotes.
const maxNoteEvidence = 3

// evidenceNote is "; evidence: ..." quoting the largest pieces of ev, the
// words a rejected unit's score came from, or "" when it has none.
func evidenceNote(ev []compiler.Evidence) string {
	if len(ev) == 0 {
		return ""
	}
	var parts []string
	for i, e := range ev {
		if i == maxNoteEvidence {
			parts = append(parts, fmt.Sprintf("%d more", len(ev)-i))
			break
		}
		part := fmt.Sprintf("%s %s %+.3f", e.Field, ir.Quote(e.Said()), e.Weight)
		if from := e.From(); from != "" {
			part += " (" + from + ")"
		}
		parts = append(parts, part)
	}
	return "; evidence: " + strings.Join(parts, ", ")
}

// maxNameRunes is how much of a name a note prints: a skill that is invalid
// may be named anything, and a note stays one short line.
const maxNameRunes = 64

// noteName is a unit's name as a note prints it: escaped, cut to
// maxNameRunes, and quoted unless it is a valid name, so that a name
// holding ", " or "and 2 more" cannot pass for more of the note.
func noteName(name string) string {
	if !loader.ValidName(name) {
		if r := []rune(name); len(r) > maxNameRunes {
			name = string(r[:maxNameRunes]) + "…"
		}
		return strconv.Quote(name)
	}
	return ir.Printable(name)
}

// listSome joins up to maxNamed names and counts the rest.
func listSome(names []string) string {
	if len(names) <= maxNamed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamed], ", "), len(names)-maxNamed)
}

// unloaded returns, as notes print them, the skills the loader found but
// could not make a unit of, not even an invalid one: each error
// diagnostic that no unit's folder holds (a SKILL.md that cannot be read,
// a skill folder that is a symlink out of its root), with its code. A
// result neither lists nor counts them, so without this the task's words
// for such a skill would seem to have matched nothing.
func unloaded(cat *ir.Catalog) []string {
	type place struct{ root, dir string }
	var (
		folders map[place]bool // made at the first error: most catalogs have none
		out     []string
	)
	for _, d := range cat.Diagnostics {
		if d.Severity != ir.SeverityError || d.Path == "" || d.Root == "" || isCatalogWarning(d.Code) {
			continue
		}
		if folders == nil {
			folders = make(map[place]bool, len(cat.Units))
			for _, u := range cat.Units {
				folders[place{u.Root, path.Dir(u.Path)}] = true
			}
		}
		held := false
		for p := d.Path; !held; p = path.Dir(p) {
			held = folders[place{d.Root, p}]
			if p == "." || p == "/" {
				break
			}
		}
		if !held {
			out = append(out, fmt.Sprintf("%s (%s)", ir.Printable(d.Path), d.Code))
		}
	}
	return out
}

// unloadedNote is the note about the skills unloaded lists, or "".
func unloadedNote(cat *ir.Catalog) string {
	lost := unloaded(cat)
	if len(lost) == 0 {
		return ""
	}
	return fmt.Sprintf("%s not loaded: %s; run rlmc validate", plural(len(lost), "skill"), listSome(lost))
}

// isCatalogWarning reports the codes catalogWarnings reports.
func isCatalogWarning(c ir.Code) bool {
	return c == ir.CodeScanLimit || c == ir.CodeUnknownPolicyUnit || c == ir.CodeUnmatchedExclude || c == ir.CodeHiddenSkills ||
		c == ir.CodeRootUnreadable || c == ir.CodeUntrustedRoot
}

// catalogWarnings returns the diagnostics every command reports on
// standard error, whatever its format: a scan bound hit (skills past it
// are missing from the catalog) and host-policy entries that match
// nothing (a mistyped exclude or deny changes nothing, silently). Other
// diagnostics are about single skills and are `rlmc validate`'s to list.
func catalogWarnings(ds ir.Diagnostics) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, d := range ds {
		if isCatalogWarning(d.Code) {
			out = append(out, d)
		}
	}
	return out
}

// maxCatalogWarnings is how many catalog warnings of one code a command
// prints one by one.
const maxCatalogWarnings = 20

// writeCatalogWarnings prints catalogWarnings, one "rlmc: " line each,
// naming the root so the user knows which one to fix; past
// maxCatalogWarnings of a code, one line counts the rest (a policy shared
// by many projects may name thousands of units a catalog lacks, and every
// command printed a line for each).
func writeCatalogWarnings(w io.Writer, ds ir.Diagnostics) {
	said := map[ir.Code]int{}
	for _, d := range catalogWarnings(ds) {
		said[d.Code]++
		if n := said[d.Code]; n > maxCatalogWarnings {
			continue
		}
		where := ""
		switch {
		case d.Path == "." && d.Root != "":
			d.Path = d.Root // about the root itself
		case d.Root != "":
			where = ir.Printable(d.Root) + ": "
		}
		fmt.Fprintf(w, "rlmc: %s%s\n", where, d.String())
	}
	for _, c := range slices.Sorted(maps.Keys(said)) {
		if n := said[c]; n > maxCatalogWarnings {
			fmt.Fprintf(w, "rlmc: %d more %s warnings; rlmc validate lists them all\n", n-maxCatalogWarnings, c)
		}
	}
}

// splitNames reads repeatable name flags where each value may also hold
// several names separated by commas (--select a,b): a unit name never
// holds a comma, so a comma can only be a separator.
func splitNames(values []string) []string {
	var out []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// invokedNotes says why the unit the task invoked ("/deploy ...") was not
// loaded, whatever the reason: the user asked for it by name, and an
// answer without it would not say why.
func invokedNotes(res *compiler.Result) []string {
	var out []string
	for _, rj := range res.Rejected {
		if invoked(rj) {
			r := rj.Reasons[0]
			out = append(out, fmt.Sprintf("%s not loaded although the task invokes it (%s): %s: %s", noteName(rj.Name), ir.EscapeText(r.Facts.Invoked), r.Code, ir.EscapeText(r.Detail)))
		}
	}
	return out
}

// explicitOnlyNote says of rj, an explicit-user-only unit the task points
// at strongly, how to load it (how(name) says how, before "to load it"),
// else "": an explicit-only unit that a single incidental word points at
// is no news.
func explicitOnlyNote(rj compiler.Rejected, how func(name string) string) string {
	if len(rj.Reasons) == 0 || rj.Reasons[0].Code != compiler.ReasonExplicitOnly || rj.Score < compiler.Threshold {
		return ""
	}
	name := noteName(rj.Name)
	return fmt.Sprintf("%s matches the task (score %.2f) but is explicit-user-only: %s to load it", name, rj.Score, how(name))
}

// invoked reports whether rj is the unit the task invoked.
func invoked(rj compiler.Rejected) bool {
	return len(rj.Reasons) > 0 && rj.Reasons[0].Facts != nil && rj.Reasons[0].Facts.Invoked != ""
}
