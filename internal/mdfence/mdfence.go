// Package mdfence reads the fences of Markdown's fenced code blocks, for
// the two places that must agree on where a pasted block starts and ends:
// retrieval, which reads fenced blocks as pasted material, and the proxy,
// which fences the files clients attach and leaves alone what the user
// fenced.
//
// A fence is three backticks or tildes or more, at any indentation (a
// block in a list item is indented as the item is), and it is a fence
// only when a later line closes it. CommonMark runs a block left open to
// the end of the document, but what a user pastes into a task is seldom
// Markdown that forgot to close: tsc and Python underline the code they
// quote with runs of tildes ("  ~~~~~~~~"), and such a line, read as a
// fence, took everything after it, the user's request too, into a block.
package mdfence

import "strings"

// opens reports whether a trimmed line could open a block: three
// backticks or tildes or more, and for backticks an info string without
// one, so "```ls``` works" is inline code.
func opens(trimmed string) bool {
	switch {
	case strings.HasPrefix(trimmed, "~~~"):
		return true
	case strings.HasPrefix(trimmed, "```"):
		return !strings.Contains(strings.TrimLeft(trimmed, "`"), "`")
	}
	return false
}

// Opens reports whether a line, as written, could open a block: a run
// of three backticks or tildes or more at any indentation. Whether it
// does depends on the lines after it (Blocks).
func Opens(line string) bool { return opens(strings.TrimSpace(line)) }

// run returns the run of backticks or tildes a trimmed line starts with.
func run(trimmed string) string {
	if trimmed == "" {
		return ""
	}
	return trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, trimmed[:1]))]
}

// closer reports whether a trimmed line is a run of backticks or tildes
// and nothing else, which closes a block opened by a run of the same
// mark no longer than it.
func closer(trimmed string) bool {
	r := run(trimmed)
	return len(r) >= 3 && (r[0] == '`' || r[0] == '~') && strings.TrimSpace(trimmed[len(r):]) == ""
}

// Blocks returns, for each of lines (with or without their line endings),
// the index of the line that closes the fenced block it opens, or -1 for
// a line that opens none: no fence, a fence inside another block, or a
// fence no later line closes. A block is closed by the first later line
// of the same mark, at least as long, with nothing after it, so a file
// holding a fenced block of its own is pasted inside a longer fence
// ("````" around "```go") and stays one block. It reads each line a
// bounded number of times, whatever they hold.
func Blocks(lines []string) []int {
	out := make([]int, len(lines))
	type cand struct{ at, n int }
	var closers [2][]cand // by mark: backticks, tildes
	mark := func(c byte) int {
		if c == '~' {
			return 1
		}
		return 0
	}
	for i, l := range lines {
		out[i] = -1
		if t := strings.TrimSpace(l); closer(t) {
			r := run(t)
			closers[mark(r[0])] = append(closers[mark(r[0])], cand{i, len(r)})
		}
	}
	// longest[m][k] is the longest closer of mark m from the k-th on: a
	// fence no later closer is long enough for is answered at once.
	var longest [2][]int
	for m := range closers {
		longest[m] = make([]int, len(closers[m])+1)
		for k := len(closers[m]) - 1; k >= 0; k-- {
			longest[m][k] = max(longest[m][k+1], closers[m][k].n)
		}
	}
	var next [2]int // the first closer of each mark not yet passed
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !opens(t) {
			continue
		}
		r := run(t)
		m := mark(r[0])
		cs := closers[m]
		for next[m] < len(cs) && cs[next[m]].at <= i {
			next[m]++
		}
		if longest[m][next[m]] < len(r) {
			continue // never closed: no fence
		}
		k := next[m]
		for cs[k].n < len(r) {
			k++
		}
		out[i] = cs[k].at
		i = cs[k].at // the block's lines are passed; so are its closers, at the next fence
	}
	return out
}
