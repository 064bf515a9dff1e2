package loader

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// headingRE is the expression heading replaced; it stays here as the
// specification heading is checked against.
var headingRE = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)

func headingByRegexp(line string) (string, bool) {
	m := headingRE.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// TestHeadingMatchesRegexp checks heading against the regular expression it
// replaced, on lines chosen for the expression's corners.
func TestHeadingMatchesRegexp(t *testing.T) {
	lines := []string{
		"", "#", "# ", "#  ", "#\t ", "# \t\f", "#a", "# a", "## a ##", "###### six", "####### seven",
		"# a #", "# a # b", "# #", "# ##  ", "#  ## x ##  ", "# a\\#", "#\ttab", "# ünï ##", "# é", "#  é",
		"# a   ", "# a\r", "#\r", "#\r\r", "  # indented", "# \v vertical", "# \u00a0nbsp", "# x#", "# x #\t#",
		"# ####", "#\f#", "## ##", "# \x85", "# a\u2028", "#" + strings.Repeat(" ", 40) + "z",
	}
	for _, l := range lines {
		got, gok := heading([]byte(l))
		want, wok := headingByRegexp(l)
		if gok != wok || string(got) != want {
			t.Errorf("heading(%q) = %q, %v; want %q, %v", l, got, gok, want, wok)
		}
	}
}

// FuzzHeading checks heading against the regular expression it replaced on
// any valid UTF-8 line.
func FuzzHeading(f *testing.F) {
	for _, s := range []string{"# a", "## b ##", "#  ", "# ## ", "###### x", "# é #"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if !utf8.ValidString(l) || strings.Contains(l, "\n") {
			return // heading sees one line of a file already checked for UTF-8
		}
		got, gok := heading([]byte(l))
		want, wok := headingByRegexp(l)
		if gok != wok || string(got) != want {
			t.Fatalf("heading(%q) = %q, %v; want %q, %v", l, got, gok, want, wok)
		}
	})
}

// scanBodyByRegexp is scanBody as it was before heading replaced the
// regular expression, kept to check the two agree.
func scanBodyByRegexp(body []byte) (headings []string, lead string) {
	inFence := false
	for len(body) > 0 {
		raw, rest, _ := strings.Cut(string(body), "\n")
		text := strings.TrimRight(raw, "\r")
		trimmed := strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			inFence = !inFence
		case inFence:
		default:
			if m := headingRE.FindStringSubmatch(text); m != nil {
				headings = append(headings, m[1])
			} else if trimmed != "" && len(lead) < leadLimit {
				if lead != "" {
					lead += " "
				}
				lead += trimmed
				if len(lead) > leadLimit {
					n := leadLimit
					for n > 0 && !utf8.RuneStart(lead[n]) {
						n--
					}
					lead = lead[:n]
				}
			}
		}
		body = []byte(rest)
	}
	return headings, lead
}

func checkScanBody(t *testing.T, body []byte) {
	t.Helper()
	var p Parsed
	scanBody(body, 1, &p)
	wantH, wantLead := scanBodyByRegexp(body)
	if strings.Join(p.Headings, "\x00") != strings.Join(wantH, "\x00") || len(p.Headings) != len(wantH) {
		t.Errorf("headings of %q = %q; want %q", clip(string(body)), p.Headings, wantH)
	}
	if p.Lead != wantLead {
		t.Errorf("lead of %q = %q; want %q", clip(string(body)), p.Lead, wantLead)
	}
}

// TestScanBodyMatchesRegexp checks scanBody against its former self on the
// adversarial corpus and on leads cut inside a multi-byte character.
func TestScanBodyMatchesRegexp(t *testing.T) {
	bodies := corpusSkills(t)
	bodies = append(bodies,
		[]byte(strings.Repeat("é", 700)+"\n"+strings.Repeat("x", 10)+"\n# h\nmore\n"),
		[]byte(strings.Repeat("a", 999)+"\né\nz\n"),
		[]byte("```\n# not a heading\n```\n# heading #\r\n\r\n  lead  \r\n~~~\nx\n"),
	)
	for _, b := range bodies {
		checkScanBody(t, b)
	}
}

// FuzzScanBody checks scanBody against its former self on any valid UTF-8.
func FuzzScanBody(f *testing.F) {
	for _, s := range corpusSkills(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			return
		}
		checkScanBody(t, body)
	})
}

// splitFrontmatterByBuilder is splitFrontmatter as it was before it copied
// the frontmatter at once, kept to check the two agree.
func splitFrontmatterByBuilder(content []byte, start int) (string, int, bool) {
	first, rest, found := bytes.Cut(content[start:], []byte("\n"))
	if strings.TrimRight(string(first), " \t\r") != "---" {
		return "", 0, false
	}
	if !found {
		return "", -1, false
	}
	pos := start + len(first) + 1
	var b strings.Builder
	for len(rest) > 0 {
		line, next, more := bytes.Cut(rest, []byte("\n"))
		lineEnd := pos + len(line)
		if more {
			lineEnd++
		}
		trimmed := strings.TrimRight(string(line), " \t\r")
		if trimmed == "---" {
			return b.String(), lineEnd, true
		}
		b.Write(bytes.TrimSuffix(line, []byte("\r")))
		b.WriteByte('\n')
		pos, rest = lineEnd, next
		if !more {
			break
		}
	}
	return "", -1, false
}

// FuzzSplitFrontmatter checks splitFrontmatter against its former self.
func FuzzSplitFrontmatter(f *testing.F) {
	for _, s := range corpusSkills(f) {
		f.Add(s)
	}
	f.Add([]byte("---\r\nname: a\r\r\ndescription: b\r\n--- \t\r\nbody"))
	f.Add([]byte("--- \nname: a\n...\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, off, ok := splitFrontmatter(data, 0)
		wfm, woff, wok := splitFrontmatterByBuilder(data, 0)
		if fm != wfm || off != woff || ok != wok {
			t.Fatalf("splitFrontmatter(%q) = %q, %d, %v; want %q, %d, %v", data, fm, off, ok, wfm, woff, wok)
		}
	})
}
