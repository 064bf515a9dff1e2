package loader

import (
	"bytes"
	"errors"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/rlmc-dev/rlmc/ir"
)

// This file finds the links of a SKILL.md body and decides which name files
// of the skill folder. A body is read by Markdown renderers, by browsers (for
// its HTML) and by agents that take a path at its word, so every form any of
// them would follow counts: inline links and images, reference definitions,
// autolinks, and URL attributes of HTML tags, whatever their spelling
// (character references, percent-encoding, backslashes). Text in fenced code
// blocks and code spans is not a link. The scan errs towards finding too
// much: a false link costs a warning, a missed one a silent escape.

// scanLinks returns the link destinations of body outside code, in order.
// firstLine is the file line of body[0].
func scanLinks(body []byte, firstLine int) []Link {
	sc := linkScratches.Get().(*linkScratch)
	defer linkScratches.Put(sc)
	text := maskFences(body, &sc.masked)
	lines := newLineIndex(text, firstLine)
	runs := backtickRuns(text, &sc.runs)
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
			// Most of a body is prose the scan has nothing to do with:
			// it goes on to the next byte a case above reads, or to the
			// start of the next line (where a reference definition may
			// begin).
			i++
			if c == '\n' {
				continue
			}
			for i < len(text) && !markup[text[i]] {
				i++
			}
			if i < len(text) && text[i] == '\n' {
				i++
			}
		}
	}
	return out
}

// linkScratch is what one scan builds and drops: the body with its code
// blocks blanked and its backtick runs. Most real bodies have both, and
// made anew for each they were a tenth of what an uncached start
// allocated; a scan's links are copied out of them (Link.Target).
type linkScratch struct {
	masked []byte
	runs   spans
}

var linkScratches = sync.Pool{New: func() any { return new(linkScratch) }}

// markup marks the bytes the link scan stops at: those its cases read,
// and the line break before a line that may hold a reference definition.
var markup = [256]bool{'\\': true, '`': true, '<': true, ']': true, '\n': true}

// maskFences returns body with every line of a fenced code block, fences
// included, blanked to spaces: a copy, made in *buf, when there is a block
// to blank, else body itself, which the caller only reads. Newlines stay, so offsets keep
// their lines and a blanked block still ends a paragraph. A fence opens with
// at most three spaces of indent and three or more backticks or tildes (an
// info string after backticks may hold none), and closes with at least as
// many of the same character and nothing else; an unclosed fence runs to
// the end, as CommonMark has it.
func maskFences(body []byte, buf *[]byte) []byte {
	if !bytes.Contains(body, []byte("```")) && !bytes.Contains(body, []byte("~~~")) {
		return body // no fence can open: most bodies, found at the speed of a search
	}
	text := body
	copied := false
	var fence byte
	var fenceLen int
	for pos := 0; pos < len(text); {
		end := len(text)
		if k := bytes.IndexByte(text[pos:], '\n'); k >= 0 {
			end = pos + k
		}
		line := bytes.TrimRight(text[pos:end], "\r")
		blank := fence != 0
		if fence == 0 {
			if ch, n, ok := fenceOpen(line); ok {
				fence, fenceLen, blank = ch, n, true
			}
		} else if fenceClose(line, fence, fenceLen) {
			fence = 0
		}
		if blank {
			if !copied {
				*buf = append((*buf)[:0], body...)
				text, copied = *buf, true
			}
			for k := pos; k < end; k++ {
				text[k] = ' '
			}
		}
		pos = end + 1
	}
	return text
}

func fenceIndent(line []byte) ([]byte, bool) {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return line[n:], n <= 3
}

func fenceOpen(line []byte) (byte, int, bool) {
	rest, ok := fenceIndent(line)
	if !ok || len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return 0, 0, false
	}
	ch := rest[0]
	n := 0
	for n < len(rest) && rest[n] == ch {
		n++
	}
	if n < 3 || (ch == '`' && bytes.IndexByte(rest[n:], '`') >= 0) {
		return 0, 0, false
	}
	return ch, n, true
}

func fenceClose(line []byte, ch byte, n int) bool {
	rest, ok := fenceIndent(line)
	if !ok {
		return false
	}
	k := 0
	for k < len(rest) && rest[k] == ch {
		k++
	}
	return k >= n && len(bytes.TrimRight(rest[k:], " \t")) == 0
}

// lineIndex maps byte offsets to file lines.
type lineIndex struct {
	text   []byte
	starts []int // offset of the first byte of each line, found on first use
	first  int
}

func newLineIndex(text []byte, first int) lineIndex {
	return lineIndex{text: text, first: first}
}

// at returns the file line of offset. The line starts are found on the
// first call: most bodies have no link, and then no line is ever asked.
func (x *lineIndex) at(offset int) int {
	if x.starts == nil {
		x.starts = make([]int, 1, bytes.Count(x.text, []byte("\n"))+1)
		for i, c := range x.text {
			if c == '\n' {
				x.starts = append(x.starts, i+1)
			}
		}
	}
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > offset }) - 1 + x.first
}

// spans are the backtick runs of a text with the paragraph each sits in, so
// a code span's closing run (the next run of the same length in the same
// paragraph) is found in time linear in the text overall.
type spans struct {
	runs   [][3]int      // start, length, paragraph
	byLen  map[int][]int // run length -> indices into runs, in order
	cursor map[int]int   // run length -> first index of byLen not yet passed
}

func backtickRuns(text []byte, s *spans) *spans {
	// The maps are made at the first run of the first body that has one,
	// and emptied for each body after it.
	s.runs = s.runs[:0]
	for n := range s.byLen {
		s.byLen[n] = s.byLen[n][:0]
	}
	clear(s.cursor)
	// para counts the blank lines that end before counted, a line start;
	// a line with a run is not blank, so a run's paragraph is the count
	// taken up to its line. Each line is looked at once.
	para, counted := 0, 0
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], '`')
		if k < 0 {
			return s
		}
		i += k
		for {
			nl := bytes.IndexByte(text[counted:i], '\n')
			if nl < 0 {
				break
			}
			if blankLine(text[counted : counted+nl]) {
				para++
			}
			counted += nl + 1
		}
		j := i
		for j < len(text) && text[j] == '`' {
			j++
		}
		s.add(i, j-i, para)
		i = j
	}
}

// add records a run of n backticks at start, in paragraph para.
func (s *spans) add(start, n, para int) {
	if s.byLen == nil {
		s.byLen, s.cursor = map[int][]int{}, map[int]int{}
	}
	s.byLen[n] = append(s.byLen[n], len(s.runs))
	s.runs = append(s.runs, [3]int{start, n, para})
}

// blankLine reports whether line holds only spaces, tabs and carriage
// returns.
func blankLine(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func (s *spans) start(k int) int { return s.runs[k][0] }

func (s *spans) len() int { return len(s.runs) }

// skipSpan returns where scanning resumes after the backtick at i: past the
// closing run when the run starting there opens a code span, else past the
// run, whose backticks are then literal.
func (s *spans) skipSpan(k, i int) int {
	if k >= len(s.runs) || s.runs[k][0] != i {
		return i + 1 // inside a run whose first backtick was escaped: literal
	}
	n, para := s.runs[k][1], s.runs[k][2]
	same := s.byLen[n]
	c := s.cursor[n]
	for c < len(same) && same[c] <= k {
		c++
	}
	s.cursor[n] = c
	if c < len(same) && s.runs[same[c]][2] == para {
		return s.runs[same[c]][0] + n
	}
	return i + n
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' }

// skipBlank skips spaces and tabs, then at most one line break and the
// spaces, tabs and blockquote markers after it, the way a destination may
// sit on the line after its label.
func skipBlank(text []byte, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && (text[i] == '\r' || text[i] == '\n') {
		if text[i] == '\r' {
			i++
		}
		if i < len(text) && text[i] == '\n' {
			i++
		}
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '>') {
			i++
		}
	}
	return i
}

// destination reads a link destination at i: <...> up to the closing
// bracket on the same line (spaces allowed), or a run without spaces or
// controls in which parentheses balance. It returns the destination's
// bounds, brackets excluded, where the text after it starts, and whether it
// is well formed (an opening bracket is closed).
func destination(text []byte, i int) (start, end, after int, ok bool) {
	if i < len(text) && text[i] == '<' {
		j := i + 1
		for j < len(text) && text[j] != '>' && text[j] != '\n' {
			if text[j] == '\\' && j+1 < len(text) && text[j+1] != '\n' {
				j++
			}
			j++
		}
		if j < len(text) && text[j] == '>' {
			return i + 1, j, j + 1, true
		}
		return i + 1, j, j, false
	}
	j, depth := i, 0
	for j < len(text) {
		c := text[j]
		if c <= ' ' || c == 0x7f {
			break
		}
		if c == '\\' && j+1 < len(text) && text[j+1] > ' ' {
			j += 2
			continue
		}
		if c == '(' {
			depth++
		} else if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
		j++
	}
	return i, j, j, true
}

// inlineDestination reads the destination of an inline link or image, whose
// "](" ends just before i. loose means the text after it is not an optional
// title and a closing parenthesis, so CommonMark would not make it a link.
func inlineDestination(text []byte, i int, tc *titleCache) (start, end int, loose bool) {
	start, end, after, ok := destination(text, skipBlank(text, i))
	if !ok {
		return start, end, true
	}
	j := skipTitle(text, skipBlank(text, after), tc)
	j = skipBlank(text, j)
	return start, end, j >= len(text) || text[j] != ')'
}

// titleCache remembers, per closing character, the last title search: the
// stretch it covered and whether it ended on a closer. A later search that
// starts inside that stretch ends the same way, so a body of many unclosed
// titles costs linear time, not a scan to the paragraph's end per link.
type titleCache struct {
	from, end [3]int // end: one past the closer, or where the search gave up
	found     [3]bool
	used      [3]bool
}

// skipTitle skips a link title ("...", '...' or (...)) at i, if there is
// one, and returns where the text after it starts. A title may not cross a
// blank line.
func skipTitle(text []byte, i int, tc *titleCache) int {
	if i >= len(text) {
		return i
	}
	closer, k := text[i], 0
	switch closer {
	case '"':
	case '\'':
		k = 1
	case '(':
		closer, k = ')', 2
	default:
		return i
	}
	if tc.used[k] && i > tc.from[k] && i < tc.end[k] {
		if tc.found[k] {
			return tc.end[k]
		}
		return i
	}
	end := scanTitle(text, i, closer)
	tc.used[k], tc.from[k], tc.found[k] = true, i, end > i
	tc.end[k] = end
	if end == i {
		tc.end[k] = len(text) // refined below when a blank line stopped it
		if b := blankAfter(text, i); b >= 0 {
			tc.end[k] = b
		}
	}
	return end
}

// blankAfter returns the offset of the first blank line after i, or -1.
func blankAfter(text []byte, i int) int {
	for j := i; j < len(text); j++ {
		if text[j] != '\n' {
			continue
		}
		k := j + 1
		for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r') {
			k++
		}
		if k >= len(text) || text[k] == '\n' {
			return j
		}
	}
	return -1
}

// scanTitle returns one past the closer of the title opening at i, or i when
// a blank line or the end comes first.
func scanTitle(text []byte, i int, closer byte) int {
	for j := i + 1; j < len(text); j++ {
		switch {
		case text[j] == '\\':
			j++
		case text[j] == closer:
			return j + 1
		case text[j] == '\n':
			k := j + 1
			for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r') {
				k++
			}
			if k >= len(text) || text[k] == '\n' {
				return i // a blank line ends the paragraph before the title closes
			}
		}
	}
	return i
}

// refDefinition reads a link reference definition "[label]: destination"
// starting the line at i, behind any blockquote markers and list marker. A
// label starting with ^ is a footnote, whose text is no destination. loose
// means the rest of the line is not an optional title, so CommonMark would
// not make it a definition.
func refDefinition(text []byte, i int, tc *titleCache) (start, end, next int, loose, ok bool) {
	j := i
	skipPrefix := func() {
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '>') {
			j++
		}
	}
	skipPrefix()
	if j < len(text) && (text[j] == '-' || text[j] == '*' || text[j] == '+') && j+1 < len(text) && (text[j+1] == ' ' || text[j+1] == '\t') {
		j++
	} else {
		k := j
		for k < len(text) && k-j < 9 && text[k] >= '0' && text[k] <= '9' {
			k++
		}
		if k > j && k+1 < len(text) && (text[k] == '.' || text[k] == ')') && (text[k+1] == ' ' || text[k+1] == '\t') {
			j = k + 1
		}
	}
	skipPrefix()
	if j >= len(text) || text[j] != '[' || (j+1 < len(text) && text[j+1] == '^') {
		return 0, 0, 0, false, false
	}
	k := j + 1
	for k < len(text) && k-j <= 1000 && text[k] != ']' && text[k] != '[' && text[k] != '\n' {
		if text[k] == '\\' && k+1 < len(text) {
			k++
		}
		k++
	}
	if k+1 >= len(text) || text[k] != ']' || text[k+1] != ':' || k == j+1 {
		return 0, 0, 0, false, false
	}
	start, end, after, wellFormed := destination(text, skipBlank(text, k+2))
	if end == start {
		return 0, 0, 0, false, false
	}
	rest := after
	for rest < len(text) && (text[rest] == ' ' || text[rest] == '\t') {
		rest++
	}
	if t := skipTitle(text, rest, tc); t > rest {
		rest = t
	}
	for rest < len(text) && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\r') {
		rest++
	}
	loose = !wellFormed || rest < len(text) && text[rest] != '\n'
	return start, end, end, loose, true
}

// autolink reads an autolink "<scheme:...>" at i, and returns the bounds of
// the URL inside the brackets.
func autolink(text []byte, i int) (start, end int, ok bool) {
	j := i + 1
	if n := schemeLen(string(text[j:min(len(text), j+33)])); n < 2 {
		return 0, 0, false
	}
	for k := j; k < len(text); k++ {
		switch c := text[k]; {
		case c == '>':
			return j, k, true
		case c <= ' ' || c == '<':
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// schemeLen returns the length of the URL scheme s starts with, not counting
// the colon, or 0 when it starts with none.
func schemeLen(s string) int {
	for k := 0; k < len(s) && k <= 32; k++ {
		c := s[k]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case k > 0 && (c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'):
		case k > 0 && c == ':':
			return k
		default:
			return 0
		}
	}
	return 0
}

// urlAttributes are the HTML attributes whose value a browser loads or
// follows as a URL.
var urlAttributes = map[string]bool{
	"href": true, "src": true, "srcset": true, "poster": true, "xlink:href": true,
	"action": true, "formaction": true, "background": true, "data": true, "cite": true,
}

// htmlTag reads an HTML start tag at i the lenient way browsers do (it may
// span lines; "/" between attributes is ignored; values are quoted or not),
// emits the value of each URL attribute, and returns where the tag ends.
func htmlTag(text []byte, i int, emit func(start, end int)) (next int, ok bool) {
	j := i + 1
	for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || j > i+1 && (text[j] >= '0' && text[j] <= '9' || text[j] == '-')) {
		j++
	}
	if j == i+1 || j < len(text) && !isSpace(text[j]) && text[j] != '/' && text[j] != '>' {
		return 0, false
	}
	for j < len(text) {
		for j < len(text) && (isSpace(text[j]) || text[j] == '/') {
			j++
		}
		if j >= len(text) || text[j] == '>' {
			return j + 1, true
		}
		nameStart := j
		j++ // a name may start with "=", as in browsers
		for j < len(text) && !isSpace(text[j]) && text[j] != '/' && text[j] != '>' && text[j] != '=' {
			j++
		}
		name := strings.ToLower(string(text[nameStart:j]))
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		if j >= len(text) || text[j] != '=' {
			continue
		}
		j++
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		var start, end int
		if j < len(text) && (text[j] == '"' || text[j] == '\'') {
			q := text[j]
			start = j + 1
			end = start
			for end < len(text) && text[end] != q {
				end++
			}
			j = end + 1
		} else {
			start = j
			for j < len(text) && !isSpace(text[j]) && text[j] != '>' {
				j++
			}
			end = j
		}
		if !urlAttributes[name] {
			continue
		}
		if name != "srcset" {
			emit(start, end)
			continue
		}
		// srcset: comma-separated candidates, each a URL and a descriptor.
		for k := start; k < end; {
			for k < end && (isSpace(text[k]) || text[k] == ',') {
				k++
			}
			u := k
			for k < end && !isSpace(text[k]) && text[k] != ',' {
				k++
			}
			emit(u, k)
			for k < end && text[k] != ',' {
				k++
			}
		}
	}
	return len(text), true
}

// linkKind says what a link destination names.
type linkKind int

const (
	linkNone     linkKind = iota // no file: empty, a fragment, or the folder itself
	linkExternal                 // a URL with a scheme other than file:
	linkEscape                   // a file outside the skill folder
	linkLocal                    // a path inside the skill folder
)

// resolveLink reads a raw destination the way the most permissive of its
// readers would, and returns the slash-separated path inside the skill folder
// it names (for linkLocal) or why it leaves the folder (for linkEscape).
// Character references are decoded; a backslash before ASCII punctuation
// other than a dot or a slash is a Markdown escape, any other backslash a
// separator; tabs and line breaks vanish as in browsers; a fragment and
// query go; percent-encoding is decoded once. A file: URL, a drive letter,
// a leading / or ~, and a path whose .. segments climb above the folder all
// leave it. Ignorable code points are dropped, before and after decoding.
func resolveLink(raw string) (rel string, kind linkKind, why string) {
	// Ignorable code points (zero-width space, soft hyphen, combining
	// grapheme joiner, ...) go, as the rendered prompt drops them: a
	// reader sees .\u200b./ as ../, so it must climb here too.
	t := ir.StripIgnorable(html.UnescapeString(raw))
	t = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, t)
	t = strings.TrimFunc(t, func(r rune) bool { return r <= ' ' || r == 0x7f })
	t = backslashes(t)
	if n := schemeLen(t); n == 1 {
		return "", linkEscape, "is an absolute Windows path"
	} else if n > 1 {
		if strings.EqualFold(t[:n], "file") {
			return "", linkEscape, "is a file: URL naming a file anywhere on the disk"
		}
		return "", linkExternal, ""
	}
	if k := strings.IndexAny(t, "#?"); k >= 0 {
		t = t[:k]
	}
	if dec, err := url.PathUnescape(t); err == nil {
		t = strings.ReplaceAll(ir.StripIgnorable(dec), `\`, "/")
	}
	switch {
	case t == "":
		return "", linkNone, ""
	case strings.HasPrefix(t, "~"):
		return "", linkEscape, "is in a home folder"
	case strings.HasPrefix(t, "/"):
		return "", linkEscape, "is an absolute path"
	case schemeLen(t) == 1:
		return "", linkEscape, "is an absolute Windows path"
	}
	clean := path.Clean(t)
	switch {
	case isSiblingSkill(clean):
		// Collections link their skills to one another. Such a link is
		// not a resource of this skill but a way around the policy: the
		// model may follow it into a skill no compile selected.
		return "", linkEscape, "names another skill's SKILL.md, which the model may read though no compile selected that skill (a requires edge says this skill needs it)"
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", linkEscape, "leaves the skill folder"
	case clean == ".":
		return "", linkNone, ""
	}
	return clean, linkLocal, ""
}

// isSiblingSkill reports whether the cleaned link target clean names the
// SKILL.md of a folder beside the skill's own ("../other/SKILL.md").
func isSiblingSkill(clean string) bool {
	dir, ok := strings.CutPrefix(clean, "../")
	if !ok {
		return false
	}
	dir, ok = strings.CutSuffix(dir, "/"+SkillFile)
	return ok && dir != ".." && !strings.Contains(dir, "/")
}

// backslashes drops the backslash of a Markdown escape and turns every other
// backslash into a slash, so ..\..\x climbs as it would on Windows.
func backslashes(t string) string {
	if !strings.Contains(t, `\`) {
		return t
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(t) && isEscapable(t[i+1]) {
			i++
			b.WriteByte(t[i])
			continue
		}
		b.WriteByte('/')
	}
	return b.String()
}

func isEscapable(c byte) bool {
	return c != '.' && c != '/' && c != '\\' && strings.IndexByte("!\"#$%&'()*+,-:;<=>?@[]^_`{|}~", c) >= 0
}

// maxLinkReports bounds the link warnings of one skill per code, so a body
// of thousands of bad links costs a few lines of output, not thousands.
const maxLinkReports = 20

// resources keeps the links that name regular files inside the skill folder.
// A link that leaves the folder is a resource_escape warning, one to a file
// the folder does not hold a missing_resource warning; neither is indexed.
// Each target is checked and reported once, at its first line. Every check
// is a stat through an os.Root on the folder: nothing is opened, so a FIFO
// cannot block, and a symlink cannot lead out.
func resources(f found, links []Link, s *diagSink, rc *recorder) []string {
	var (
		root    *os.Root
		openErr error
		checked = map[string]bool{} // raw targets (and looseness) already checked
		seen    = map[string]bool{} // resources already kept
		out     []string
		reports = map[ir.Code]int{}
	)
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	report := func(line int, code ir.Code, format string, args ...any) {
		if reports[code]++; reports[code] <= maxLinkReports {
			s.add(line, code, ir.SeverityWarning, format, args...)
		}
	}
	for _, l := range links {
		key := l.Target
		if l.Loose {
			key = "loose\x00" + key
		}
		if checked[key] {
			continue
		}
		checked[key] = true
		rel, kind, why := resolveLink(l.Target)
		switch {
		case kind == linkNone || kind == linkExternal:
			continue
		case kind == linkLocal && l.Loose:
			continue // not a link to any renderer; only an escape is worth a word
		case kind == linkEscape:
			report(l.Line, ir.CodeResourceEscape, "link %q %s; not indexed", clip(l.Target), why)
			continue
		}
		if seen[rel] {
			continue
		}
		if root == nil && openErr == nil {
			root, openErr = os.OpenRoot(f.dirReal)
		}
		if openErr != nil {
			break // the folder itself is gone; reading its SKILL.md says why
		}
		rc.stamp(filepath.Join(f.dirReal, filepath.FromSlash(rel)))
		info, err := root.Stat(rel)
		switch {
		case err == nil && info.Mode().IsRegular():
			seen[rel] = true
			out = append(out, rel)
		case err == nil:
			// A folder, or a special file that is never opened.
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			report(l.Line, ir.CodeMissingResource, "link %q names %s, which the skill folder does not hold; not indexed", clip(l.Target), rel)
		default:
			report(l.Line, ir.CodeResourceEscape, "link %q cannot be resolved inside the skill folder (%v); not indexed", clip(l.Target), rootErr(err))
		}
	}
	for _, code := range []ir.Code{ir.CodeMissingResource, ir.CodeResourceEscape} {
		if n := reports[code] - maxLinkReports; n > 0 {
			s.add(0, code, ir.SeverityWarning, "%d more links like the above are not reported; none is indexed", n)
		}
	}
	sort.Strings(out)
	return out
}
