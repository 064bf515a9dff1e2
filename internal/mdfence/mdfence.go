// Package mdfence reads the fences of Markdown's fenced code blocks as
// CommonMark does, for the two places that must agree on where a pasted
// block starts and ends: retrieval, which reads fenced blocks as pasted
// material, and the proxy, which fences the files clients attach and
// leaves alone what the user fenced.
package mdfence

import "strings"

// maxIndent is the most spaces a fence may be indented by: a line
// indented four or more is a line of code (CommonMark), such as the
// "~~~~" with which tsc and Python underline a quoted line of code.
const maxIndent = 3

// unindented returns line, without its line ending, after the spaces a
// fence may be indented by, and false when it is indented further (or by
// a tab, which counts as four).
func unindented(line string) (string, bool) {
	line = strings.TrimRight(line, "\r\n")
	rest := strings.TrimLeft(line, " ")
	if len(line)-len(rest) > maxIndent || strings.HasPrefix(rest, "\t") {
		return "", false
	}
	return rest, true
}

// Opens reports whether a line, as written, is a fence: three backticks
// or tildes or more after at most three spaces, and for backticks an
// info string without one, so "```ls``` works" is inline code.
func Opens(line string) bool {
	rest, ok := unindented(line)
	switch {
	case !ok:
		return false
	case strings.HasPrefix(rest, "~~~"):
		return true
	case strings.HasPrefix(rest, "```"):
		return !strings.Contains(strings.TrimLeft(rest, "`"), "`")
	}
	return false
}

// Run returns the run of backticks or tildes a fence line starts with,
// after its indentation, or "" for a line indented as code.
func Run(line string) string {
	rest, ok := unindented(line)
	if !ok || rest == "" {
		return ""
	}
	return rest[:len(rest)-len(strings.TrimLeft(rest, rest[:1]))]
}

// Closes reports whether a line, as written, closes a block that the
// fence run opened: the same mark, at least as many, and nothing after
// them. A file holding a fenced block of its own is pasted inside a
// longer fence ("````" around "```go"), and stays one block.
func Closes(opened, line string) bool {
	rest, ok := unindented(line)
	if !ok {
		return false
	}
	run := Run(rest)
	return run != "" && opened != "" && run[0] == opened[0] && len(run) >= len(opened) && strings.TrimSpace(rest[len(run):]) == ""
}
