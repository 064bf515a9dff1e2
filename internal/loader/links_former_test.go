package loader

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scanLinksFormer is scanLinks as it was before it skipped prose by the
// bytes it reads and found backtick runs by searching for them: the
// reference FuzzScanLinksAgrees holds the scan to.
func scanLinksFormer(body []byte, firstLine int) []Link {
	var buf []byte
	text := maskFences(body, &buf)
	lines := newLineIndex(text, firstLine)
	runs := backtickRunsFormer(text)
	var (
		out    []Link
		titles titleCache
	)
	add := func(start, end int, loose bool) {
		if end > start {
			out = append(out, Link{Target: string(text[start:end]), Line: lines.at(start), Loose: loose})
		}
	}
	emit := func(start, end int) { add(start, end, false) }
	run := 0
	for i := 0; i < len(text); {
		if i == 0 || text[i-1] == '\n' {
			if start, end, next, loose, ok := refDefinition(text, i, &titles); ok {
				add(start, end, loose)
				i = next
				continue
			}
		}
		switch c := text[i]; {
		case c == '\\':
			i += 2
		case c == '`':
			for run < runs.len() && runs.start(run) < i {
				run++
			}
			i = runs.skipSpan(run, i)
		case c == '<':
			if start, end, ok := autolink(text, i); ok {
				emit(start, end)
				i = end + 1
			} else if next, ok := htmlTag(text, i, emit); ok {
				i = next
			} else {
				i++
			}
		case c == ']' && i+1 < len(text) && text[i+1] == '(':
			start, end, loose := inlineDestination(text, i+2, &titles)
			add(start, end, loose)
			i = max(end, i+2)
		default:
			i++
		}
	}
	return out
}

// backtickRunsFormer is backtickRuns before it searched for runs.
func backtickRunsFormer(text []byte) *spans {
	s := &spans{} // the maps are made at the first run: most bodies have none
	para, lineBlank := 0, true
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			if lineBlank {
				para++
			}
			lineBlank = true
		case c == '`':
			j := i
			for j < len(text) && text[j] == '`' {
				j++
			}
			s.add(i, j-i, para)
			lineBlank = false
			i = j - 1
		case c != ' ' && c != '\t' && c != '\r':
			lineBlank = false
		}
	}
	return s
}

// FuzzScanLinksAgrees checks that scanLinks finds what its former self
// found, link for link and line for line.
func FuzzScanLinksAgrees(f *testing.F) {
	for _, s := range []string{
		"[a](REF.md)", "[r]: <../x y.md> 'title'", "<a href=\"&#46;&#46;/x\">", "`a\n\n` [b](c) `",
		"```\n[a](x)\n```", "`[a](x)`", "[a](x \"t", "\\`[a](b)`", "x\n \t\r\n`` [a](b) ``\n\n``",
		"a\\\n[r]: x.md\n", "\n\n[a]:\n  y.md", "`` ` `` [a](z.md)",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, want := scanLinks(body, 1), scanLinksFormer(body, 1)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("scanLinks(%q) differs from its former self (-former +now):\n%s", body, diff)
		}
	})
}

var _ = bytes.IndexByte
