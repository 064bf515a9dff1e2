package retrieval

import "strings"

// Command is the command a task opens with, as the clients' users type
// one: "/cut-release-branch 5.4" invokes the unit cut-release-branch. Said
// is the invocation as the task writes it.
type Command struct {
	Unit string
	Said string
	// Args are the command's arguments as the task writes them (see
	// commandEnd): what follows the name up to where the task asks for
	// something else; "" for none.
	Args string
}

// Command returns the command the task opens with (Invoked), if it
// invokes a unit of the index.
func (q *Query) Command() (Command, bool) {
	if q.command == nil {
		return Command{}, false
	}
	return *q.command, true
}

// command finds the command q's task opens with (Invoked), which invokes
// the unit of the index it names exactly (which no later refusal in the
// task takes back: see AnalyzeWith), and returns it with the number of
// words it takes, its name and its arguments; nil and 0 when the task
// opens with none, or when its opening line reads as pasted material once
// the command's slash is read as a word's (a log line such as
// "/usr/bin/x: not found" is no command, nor is an indented block).
func (ix *Index) command(q *Query) (*Command, int) {
	name, ok := Invoked(q.task)
	if !ok {
		return nil, 0
	}
	line, _, _ := strings.Cut(q.task[name.at:], "\n")
	if structuredLine(q.task[:name.at] + line[1:]) {
		return nil, 0
	}
	// Unit names are lower case: "$HOME" names no unit home, nor
	// "/Deploy" deploy.
	id, ok := ix.ids[name.said[1:]]
	if !ok {
		return nil, 0
	}
	cmd := &Command{Unit: ix.units[id].Name, Said: name.said}
	// The name's own words ("cut", "release", "branch") are the
	// command's whatever they are: a unit may be called build-then-ship.
	from := name.at + len(name.said)
	args := 0
	for args < len(q.spans) && int(q.spans[args].start) < from {
		args++
	}
	end := q.commandEnd(args)
	shown := end // the arguments as shown end before a joining word
	for shown > args && joiners[q.words[shown-1]] {
		shown--
	}
	if shown > args {
		cmd.Args = strings.TrimSpace(q.task[from:q.spans[shown-1].end])
	}
	return cmd, end
}

// commandEnd returns the word after the arguments of a command, which
// start at word args: a command's arguments are what it is run on
// ("/release-notes for the android build fixes and the redis cache
// change" asks for no Android or Redis skill), evidence for no unit. They
// run to the end of the sentence or the line, a semicolon, another
// command, an "and" or "but" that starts another request (joinsRequest),
// or a word that does ("then", "also": "/cut-release-branch 2.9 then
// draft the release notes" asks for release notes too).
func (q *Query) commandEnd(args int) int {
	end := args
	for end < len(q.words) {
		if commandEnds[q.words[end]] || q.joinsRequest(end) || q.opensCommand(end) || (end > 0 && q.endsRequest(end-1)) {
			break
		}
		end++
	}
	return end
}

// joiners are the words that join the arguments to what ends them.
var joiners = set([]string{"and", "or", "but"})

// commandEnds are the words that start another request after a command's
// arguments.
var commandEnds = set([]string{"then", "also", "afterwards", "afterward", "plus", "next", "additionally"})

// endsRequest reports whether the gap after word k ends a request: a
// sentence's end (endsWithMark, or a mark of Chinese and Japanese), a
// line or paragraph break or a semicolon.
func (q *Query) endsRequest(k int) bool {
	gap := q.task[q.spans[k].end:q.spans[k+1].start]
	return strings.ContainsAny(gap, "\n\r\u2028\u2029\u0085;；。！？…") || endsWithMark(gap)
}

// opensCommand reports whether word k is written as another command
// ("/deploy staging and /code-review the diff"), which has arguments of
// its own.
func (q *Query) opensCommand(k int) bool {
	at := int(q.spans[k].start)
	return at > 0 && (q.task[at-1] == '/' || q.task[at-1] == '$') && (at == 1 || isBlank(q.task[at-2]))
}

// joinsRequest reports whether word k is an "and" or a "but" that starts
// another request: after a comma ("/deploy staging, and review the
// diff"), or before a verb a request opens with.
func (q *Query) joinsRequest(k int) bool {
	w := q.words[k]
	if w != "and" && w != "but" || k == 0 {
		return false
	}
	if strings.Contains(q.task[q.spans[k-1].end:q.spans[k].start], ",") {
		return true
	}
	// "and" before a verb a request opens with: "/deploy staging and
	// review the diff" asks for a review too, "the android fixes and the
	// redis change" is one argument.
	return k+1 < len(q.words) && requestVerbs[q.words[k+1]]
}

// requestVerbs are verbs a second request opens with after "and": what a
// developer asks an agent to do.
var requestVerbs = set([]string{"review", "fix", "write", "add", "update", "check", "test", "run", "draft", "create", "open", "build", "refactor", "document", "explain", "debug", "investigate", "summarize", "send", "post", "tell", "show", "find", "make", "merge", "scan", "migrate", "translate", "generate", "remove", "delete", "rename", "lint", "format", "profile", "audit", "help"})

// maskWords marks words from to to in masked (of n words, allocated when
// nil and needed).
func maskWords(masked []bool, n, from, to int) []bool {
	if from >= to {
		return masked
	}
	if masked == nil {
		masked = make([]bool, n)
	}
	for i := from; i < to; i++ {
		masked[i] = true
	}
	return masked
}

// InvokedName is a name a task invokes, at byte at.
type InvokedName struct {
	said string
	at   int
}

// Name is the invoked name as the task writes it; "" for none.
func (n InvokedName) Name() string {
	if n.said == "" {
		return ""
	}
	return n.said[1:]
}

// Invoked returns the name task invokes as a command, as the clients'
// users write one: a slash (Claude Code, OpenCode, Cursor) or a dollar
// sign (Codex's mention) that opens the task (after blanks), then a name
// of two characters or more (letters, digits, ".", "_" and "-"), then the
// task's end or a blank. Only the opening counts: a "/name" further on is
// as likely a path ("the /api endpoint", "files in /tmp"), a link target,
// a mention ("what does /deploy do?") or a line of something pasted,
// which the user shows rather than runs. A path ("/api/orders") goes on
// with a slash and is none; a file ("/deploy.sh"), a price ("$20") and a
// shell variable ("$HOME") name no unit.
func Invoked(task string) (InvokedName, bool) {
	i := len(task) - len(strings.TrimLeft(task, " \t\r\n"))
	if i == len(task) || task[i] != '/' && task[i] != '$' {
		return InvokedName{}, false
	}
	j := i + 1
	for j < len(task) && nameByte(task[j]) {
		j++
	}
	if j-i-1 < 2 || (j < len(task) && !strings.ContainsRune(" \t\n\r", rune(task[j]))) {
		// As a client reads a command, the name ends at a blank:
		// "/deploy?" and "/tmp: No space left" are none, nor is a
		// plugin's "/superpowers:brainstorming", whose plugin no
		// catalog names.
		return InvokedName{}, false
	}
	return InvokedName{said: task[i:j], at: i}, true
}

// nameByte reports whether b may be part of an invoked name.
func nameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("._-", b) >= 0
}
