package proxy

import (
	"regexp"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/internal/mdfence"
)

// Agent clients put the files a user attaches into the user's message,
// each in a wrapper of its own: Codex a file piped to `codex exec` in
// <stdin>, OpenCode a file given with -f (or an @ mention) as a part
// "<path>...</path> <type>file</type> <content>...</content>" after one
// saying "Called the Read tool with the following input: ...", its lines
// numbered, and Qwen Code (Gemini CLI) @ mentions between
// "--- Content from referenced files ---" and "--- End of content ---",
// each file after a "Content from PATH:" line. Read as the user's words, an
// attached Dockerfile or SQL file routed its skills whatever the user
// asked ("write a changelog entry for this change"). Each file goes to
// the compile as a fenced block, which rlmc reads as pasted material, and
// the wrappers' own lines, which are the client's, go.

// attachment is one client's wrapper around attached files: the line
// that opens it, the line that closes it, and the lines inside that are
// the client's (a file's path, its length) rather than a file's.
type attachment struct {
	open, close string
	chatter     *regexp.Regexp
}

var attachments = [...]attachment{
	{open: "<stdin>", close: "</stdin>"},
	{open: "<content>", close: "</content>", chatter: regexp.MustCompile(`^\(End of file - total \d+ lines\)$`)},
	{open: "--- Content from referenced files ---", close: "--- End of content ---", chatter: regexp.MustCompile(`^Content from .+:$`)},
}

// clientLine matches a line of a client's own about the files it read for
// the message: OpenCode's "Called the Read tool with the following input:
// {...}", and the <path> and <type> lines it puts above a file's content.
var clientLine = regexp.MustCompile(`^(?:Called the \w+ tool with the following input: .*|<path>[^<]*</path>|<type>\w+</type>)$`)

// withAttachments returns text with every attached file fenced (see
// attachments) and the client's lines about them left out. A wrapper
// runs from its opening line to the last closing line before the next
// opening of its kind (a file that holds a closing line of its own stays
// inside), and one never closed is left as written; so is a wrapper
// inside a fenced block the user wrote. The user's blocks are read in
// the user's lines alone: a fence the user left open is not closed by a
// line of an attached file, and, no fence, it is written escaped, so
// that the fences added around the files do not close it either (the
// text is what routing reads, never what the upstream gets). It costs a
// pass or two over the lines whatever they hold: finding each opener's
// end by scanning ahead made a message of openers never closed cost the
// square of its lines.
func withAttachments(text string) string {
	if !strings.Contains(text, "<stdin>") && !strings.Contains(text, "<content>") && !strings.Contains(text, "--- Content from referenced files ---") && !strings.Contains(text, "Called the ") {
		return text // the common message pays four searches
	}
	lines := strings.Split(text, "\n")
	ends := wrapperEnds(lines)
	blocks := mdfence.Blocks(usersLines(lines, ends)) // the user's fenced blocks
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if c := blocks[i]; c >= 0 {
			out = append(out, lines[i:c+1]...)
			i = c
			continue
		}
		if mdfence.Opens(line) {
			// A fence the user left open is no fence: escaped, it
			// stays text beside the fences added below.
			out = append(out, strings.Replace(lines[i], line[:1], `\`+line[:1], 1))
			continue
		}
		if clientLine.MatchString(line) {
			continue
		}
		a, ok := opening(line)
		if !ok || ends[i] < 0 {
			out = append(out, lines[i])
			continue
		}
		var file []string
		for _, l := range lines[i+1 : ends[i]] {
			if a.chatter == nil || !a.chatter.MatchString(strings.TrimSpace(l)) {
				file = append(file, l)
			}
		}
		out = append(out, fenced(unnumbered(file))...)
		i = ends[i]
	}
	return strings.Join(out, "\n")
}

// usersLines returns lines with the lines inside each wrapper (ends)
// blanked: what the user wrote, in which the user's fences are read.
func usersLines(lines []string, ends []int) []string {
	out := lines
	for i := 0; i < len(lines); i++ {
		if ends[i] < 0 {
			continue
		}
		if &out[0] == &lines[0] {
			out = slices.Clone(lines)
		}
		for k := i + 1; k < ends[i]; k++ {
			out[k] = ""
		}
		i = ends[i]
	}
	return out
}

// wrapperEnds returns, for each line that opens a wrapper, the line that
// closes it (the last closing line of its kind before the next opening
// of its kind), and -1 for every other line and for a wrapper never
// closed. It walks the lines once, from the end.
func wrapperEnds(lines []string) []int {
	ends := make([]int, len(lines))
	last := make([]int, len(attachments)) // the last closing line seen so far (from the end) of each kind before its next opener
	for k := range last {
		last[k] = -1
	}
	for i := len(lines) - 1; i >= 0; i-- {
		ends[i] = -1
		line := strings.TrimSpace(lines[i])
		for k, a := range attachments {
			switch line {
			case a.close:
				if last[k] < 0 {
					last[k] = i
				}
			case a.open:
				ends[i], last[k] = last[k], -1
			}
		}
	}
	return ends
}

// opening returns the wrapper line opens, if any.
func opening(line string) (attachment, bool) {
	for _, a := range attachments {
		if line == a.open {
			return a, true
		}
	}
	return attachment{}, false
}

// numbered matches a line as a client's file reader numbers it ("12: x",
// "    12\tx").
var numbered = regexp.MustCompile(`^\s*\d+(?::|\t)`)

// unnumbered returns lines without their numbers when every line that
// holds anything is numbered: the file as written, whose first line says
// what kind of file it is ("FROM python:3.12").
func unnumbered(lines []string) []string {
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !numbered.MatchString(l) {
			return lines
		}
		n++
	}
	if n == 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if loc := numbered.FindStringIndex(l); loc != nil {
			l = strings.TrimPrefix(l[loc[1]:], " ")
		}
		out[i] = l
	}
	return out
}

// fenced returns lines, without the blank ones at either end, between
// two fences of backticks longer than any run of backticks they hold, so
// a file holding a fence of its own stays inside (CommonMark's rule),
// with a blank line on either side: a block of its own.
func fenced(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	longest := 0
	for _, l := range lines {
		run := 0
		for _, c := range l {
			if c == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	out := make([]string, 0, len(lines)+4)
	out = append(out, "", fence)
	out = append(out, lines...)
	return append(out, fence, "")
}
