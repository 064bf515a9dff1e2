package retrieval

import "strings"

// Invocation is a unit the task's instruction invokes by name, as the
// clients' users do: "/cut-release-branch 5.4". Said is the invocation as
// the task writes it. (Codex's "$tdd" is not read: a line holding a shell
// variable reads as pasted material, which invokes nothing.)
type Invocation struct {
	Unit string
	Said string
}

// Invocations returns the units the task invokes in its instruction, in
// the order first invoked, each once. Pasted material invokes nothing: a
// pasted log or page saying "/wipe-staging-db" is what the user shows,
// not what they ask for.
func (q *Query) Invocations() []Invocation { return q.invoked }

// invocations finds the invocations of the index's units in q's
// instruction (Invoked, less what lies in pasted material), the units
// q negates left out: "don't run /deploy" invokes nothing.
func (ix *Index) invocations(q *Query) []Invocation {
	var out []Invocation
	seen := map[string]bool{}
	ms := q.pastedMaterial().spans
	m := 0
	for _, c := range Invoked(q.task) {
		for m < len(ms) && int(ms[m].end) <= c.at {
			m++
		}
		if m < len(ms) && int(ms[m].start) <= c.at {
			continue
		}
		id, ok := ix.invokedUnit(c)
		if !ok {
			continue
		}
		u := ix.units[id].Name
		if seen[u] || q.negated[u] != "" {
			continue
		}
		seen[u] = true
		out = append(out, Invocation{Unit: u, Said: c.said})
	}
	return out
}

// InvokedName is a name task writes as an invocation, at byte at.
type InvokedName struct {
	name, said string
	at         int
}

// Name is the invoked name, folded to lower case as unit names are
// written.
func (n InvokedName) Name() string { return n.name }

// Invoked returns the names task writes as invocations, in task order: a
// slash that starts the task or follows a blank or an opening bracket or
// quote, then a name of two characters or more (letters, digits, and ".",
// "_", ":" or "-" inside it) that ends the task or is followed by a blank
// or punctuation. A path ("/api/orders", "/usr/bin/env") is no
// invocation: it goes on with a slash. A file ("/deploy.sh") is one of a
// name no unit has: a name matches only the unit it spells.
func Invoked(task string) []InvokedName {
	var out []InvokedName
	for i := 0; i < len(task); i++ {
		c := task[i]
		if c != '/' {
			continue
		}
		if i > 0 && !strings.ContainsRune(" \t\n\r([{\"'`", rune(task[i-1])) {
			continue
		}
		j := i + 1
		for j < len(task) && nameByte(task[j]) {
			j++
		}
		// A name ends with a letter or digit: "/deploy." ends a sentence.
		for j > i+1 && strings.IndexByte("._:-", task[j-1]) >= 0 {
			j--
		}
		if j-i-1 < 2 || (j < len(task) && !strings.ContainsRune(" \t\n\r,.;:!?)]}\"'`", rune(task[j]))) {
			i = j
			continue
		}
		out = append(out, InvokedName{name: strings.ToLower(task[i+1 : j]), said: task[i:j], at: i})
		i = j
	}
	return out
}

// nameByte reports whether b may be part of an invoked name.
func nameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("._:-", b) >= 0
}

// invokedUnit returns the position of the unit c names: as written, else
// folded to lower case, else the part after a plugin's namespace
// ("/superpowers:brainstorming", as Claude Code names a plugin's skill).
func (ix *Index) invokedUnit(c InvokedName) (int32, bool) {
	for _, n := range []string{c.said[1:], c.name, c.name[strings.LastIndexByte(c.name, ':')+1:]} {
		if id, ok := ix.ids[n]; ok {
			return id, true
		}
	}
	return 0, false
}
