package retrieval

import (
	"regexp"
	"strings"
)

// Material is what a user pastes into a task beside the instruction: a
// log, a stack trace, a diff, a config file, code, a CSV, a transcript,
// quoted mail. Its words share a word with many skills, so they weigh
// less than the instruction's (MaterialWeight) and route on their own
// only when they say something specific.

// structured matches a line that reads as pasted material rather than
// prose addressed to the assistant.
var structured = regexp.MustCompile(`^(?:` +
	`\s*>` + // quoted mail
	`|(?:From|To|Cc|Subject|Date|Sent|Reply-To):\s` + // mail headers
	`|\s*\[?\d{1,4}[-/:.]\d{1,2}` + // a time or date first: log lines, transcripts, CSV rows
	`|.*-->` + // subtitles
	`|\s*\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL|PANIC)\b` +
	`|\s+at\s+\S+` + // Java and JavaScript stack frames
	`|\s*File "` + `|Traceback\b|goroutine \d+|panic:` +
	`|diff --git|index [0-9a-f]{6,}|--- |\+\+\+ |@@ ` +
	`|[+-]\S` + // diff lines
	`|\s*[\w.\-"]+\s*[:=]\s*\S{0,80}$` + // key: value, key = value
	`|.*[{}\[\];]\s*$` + // code and JSON
	`|\s*[<@]\w+[>:]` + // chat and transcript speakers
	`|\s*\$ ` + // a shell prompt
	`|\s{4,}\S` + `|\t` + // indented code
	`|[^,\s]+(?:,[^,]*){2,}$` + // CSV
	`)`)

// materialSpans returns the byte ranges of task that are pasted
// material: fenced code blocks, and paragraphs (runs of lines between
// blank lines) at least half of whose lines read as material.
func materialSpans(task string) []span {
	var out []span
	lines := strings.SplitAfter(task, "\n")
	off := 0
	fenced := false
	var para []span // the current paragraph's lines
	structuredN := 0
	add := func(sp span) { // adjacent spans join
		if n := len(out); n > 0 && out[n-1].end == sp.start {
			out[n-1].end = sp.end
			return
		}
		out = append(out, sp)
	}
	flush := func() {
		if len(para) > 0 && 2*structuredN >= len(para) {
			add(span{para[0].start, para[len(para)-1].end})
		}
		para, structuredN = para[:0], 0
	}
	for _, l := range lines {
		start, end := off, off+len(l)
		off = end
		text := strings.TrimRight(l, "\r\n")
		trimmed := strings.TrimSpace(text)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			flush()
			add(span{int32(start), int32(end)})
			fenced = !fenced
			continue
		}
		if fenced {
			add(span{int32(start), int32(end)})
			continue
		}
		if trimmed == "" {
			flush()
			continue
		}
		para = append(para, span{int32(start), int32(end)})
		if structured.MatchString(text) {
			structuredN++
		}
	}
	flush()
	return out
}

// SourceMaterial marks evidence from pasted material (Evidence.Source).
const SourceMaterial = "material"

// MaterialWeight is how much a term found only in pasted material weighs
// against one of the instruction.
const MaterialWeight = 0.15

// markMaterial sets q.material: the scale of each task term that occurs
// only in pasted material. A task that is all material (no term outside
// it) is its own instruction, and nothing is scaled.
func (q *Query) markMaterial(seen map[string]bool) {
	ms := materialSpans(q.task)
	if len(ms) == 0 {
		return
	}
	inInstruction := map[string]bool{}
	inMaterial := map[string]bool{}
	j := 0
	for i, sp := range q.spans {
		st := q.stems[i]
		if st == "" || !seen[st] {
			continue
		}
		for j < len(ms) && ms[j].end <= sp.start {
			j++
		}
		if j < len(ms) && ms[j].start <= sp.start {
			inMaterial[st] = true
		} else {
			inInstruction[st] = true
		}
	}
	if len(inInstruction) == 0 {
		return
	}
	for st := range inMaterial {
		if !inInstruction[st] {
			if q.material == nil {
				q.material = map[string]float64{}
			}
			q.material[st] = MaterialWeight
		}
	}
}

// weightOf is the scale of a task term: MaterialWeight for one found only
// in pasted material, else 1.
func (q *Query) weightOf(t string) float64 {
	if w, ok := q.material[t]; ok {
		return w
	}
	return 1
}
