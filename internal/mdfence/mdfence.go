// Package mdfence reads the fences of Markdown's fenced code blocks as
// CommonMark does, for the two places that must agree on where a pasted
// block starts and ends: retrieval, which reads fenced blocks as pasted
// material, and the proxy, which fences the files clients attach and
// leaves alone what the user fenced.
package mdfence

import "strings"

// Opens reports whether a trimmed line is a fence: three backticks or
// tildes or more, and for backticks an info string without one, so
// "```ls``` works" is inline code.
func Opens(trimmed string) bool {
	switch {
	case strings.HasPrefix(trimmed, "~~~"):
		return true
	case strings.HasPrefix(trimmed, "```"):
		return !strings.Contains(strings.TrimLeft(trimmed, "`"), "`")
	}
	return false
}

// Run returns the run of backticks or tildes a fence line starts with.
func Run(trimmed string) string {
	if trimmed == "" {
		return ""
	}
	return trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, trimmed[:1]))]
}

// Closes reports whether the fence line trimmed closes a block that the
// fence run opened: the same mark, at least as many, and nothing after
// them. A file holding a fenced block of its own is pasted inside a
// longer fence ("````" around "```go"), and stays one block.
func Closes(opened, trimmed string) bool {
	run := Run(trimmed)
	return run != "" && opened != "" && run[0] == opened[0] && len(run) >= len(opened) && strings.TrimSpace(trimmed[len(run):]) == ""
}
