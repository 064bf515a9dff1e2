package retrieval

import "strings"

// Invocation is a unit the task invokes by name as a command, as the
// clients' users do: "/cut-release-branch 5.4". Said is the invocation as
// the task writes it.
type Invocation struct {
	Unit string
	Said string
	// Args are the command's arguments as the task writes them (see
	// maskCommand): what follows the name up to where the task asks for
	// something else; "" for none.
	Args string
}

// Invocation returns the unit the task invokes (Invoked), if any: the
// command the task opens with.
func (q *Query) Invocation() (Invocation, bool) {
	if q.invoked == nil {
		return Invocation{}, false
	}
	return *q.invoked, true
}

// invocation finds the unit q's task invokes (Invoked): a unit of the
// index it names, unless the task refuses it ("/deploy? no, don't run
// deploy") or its first line reads as pasted material.
func (ix *Index) invocation(q *Query) *Invocation {
	name, ok := Invoked(q.task)
	if !ok {
		return nil
	}
	if ms := q.pastedMaterial().spans; len(ms) > 0 && int(ms[0].start) <= name.at {
		return nil
	}
	id, ok := ix.ids[name.said[1:]]
	if !ok {
		if id, ok = ix.ids[name.name]; !ok {
			return nil
		}
	}
	u := ix.units[id].Name
	if q.negated[u] != "" {
		return nil
	}
	return &Invocation{Unit: u, Said: name.said}
}

// maskCommand masks the words of the command the task opens with, its
// name and its arguments, and sets the invocation's Args: a command's
// arguments are what it is run on ("/release-notes for the android build
// fixes and the redis cache change" asks for no Android or Redis skill),
// evidence for no unit. They run to the end of the sentence or the line,
// a semicolon, or a word that starts another request ("then", "also",
// "afterwards", "plus": "/cut-release-branch 2.9 then draft the release
// notes" asks for release notes too). A comma or an "and" does not end
// them.
func (q *Query) maskCommand(masked []bool) []bool {
	if q.invoked == nil {
		return masked
	}
	at := len(q.task) - len(strings.TrimLeft(q.task, " \t\r\n"))
	first := 0
	for first < len(q.spans) && int(q.spans[first].start) < at {
		first++
	}
	end := first
	for end < len(q.words) {
		if end > first && (commandEnds[q.words[end]] || q.endsRequest(end-1)) {
			break
		}
		end++
	}
	if end == first {
		return masked
	}
	if masked == nil {
		masked = make([]bool, len(q.words))
	}
	for i := first; i < end; i++ {
		masked[i] = true
	}
	if name := at + len(q.invoked.Said); name < int(q.spans[end-1].end) {
		q.invoked.Args = strings.TrimSpace(q.task[name:q.spans[end-1].end])
	}
	return masked
}

// commandEnds are the words that start another request after a command's
// arguments.
var commandEnds = set([]string{"then", "also", "afterwards", "plus"})

// endsRequest reports whether the gap after word k ends a request: a
// sentence's end (endsWithMark), a line break or a semicolon.
func (q *Query) endsRequest(k int) bool {
	gap := q.task[q.spans[k].end:q.spans[k+1].start]
	return strings.ContainsAny(gap, "\n;") || endsWithMark(gap)
}

// InvokedName is a name a task invokes, at byte at.
type InvokedName struct {
	name, said string
	at         int
}

// Name is the invoked name, folded to lower case as unit names are
// written.
func (n InvokedName) Name() string { return n.name }

// Invoked returns the name task invokes as a command, as Claude Code,
// Codex, OpenCode and Cursor read one: a slash that opens the task (after
// blanks), then a name of two characters or more (letters, digits, and
// ".", "_" or "-" inside it), then the task's end, a blank or
// punctuation. Only the opening counts: a "/name" further on is as likely
// a path ("the /api endpoint", "files in /tmp"), a link target, a
// mention ("what does /deploy do?") or a line of something pasted, which
// the user shows rather than runs. A path ("/api/orders") goes on with a
// slash and is none; a file ("/deploy.sh") names no unit.
func Invoked(task string) (InvokedName, bool) {
	i := len(task) - len(strings.TrimLeft(task, " \t\r\n"))
	if i == len(task) || task[i] != '/' {
		return InvokedName{}, false
	}
	j := i + 1
	for j < len(task) && nameByte(task[j]) {
		j++
	}
	// A name ends with a letter or digit: "/deploy." ends a sentence.
	for j > i+1 && strings.IndexByte("._-", task[j-1]) >= 0 {
		j--
	}
	if j-i-1 < 2 || (j < len(task) && !strings.ContainsRune(" \t\n\r,.;:!?)]}\"'`", rune(task[j]))) {
		return InvokedName{}, false
	}
	if j+1 < len(task) && task[j] == ':' && nameByte(task[j+1]) {
		// A plugin's namespace ("/superpowers:brainstorming"), which
		// says which plugin's skill, and no catalog says which that is.
		return InvokedName{}, false
	}
	return InvokedName{name: strings.ToLower(task[i+1 : j]), said: task[i:j], at: i}, true
}

// nameByte reports whether b may be part of an invoked name.
func nameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("._-", b) >= 0
}
