package retrieval

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rlmc-dev/rlmc/internal/mdfence"
	"github.com/rlmc-dev/rlmc/internal/pulse"
)

// Material is what a user pastes into a task beside the instruction: a
// log, a stack trace, a diff, a config file, code, a CSV, a transcript,
// quoted mail. Its words share a word with many skills, so they weigh
// less than the instruction's (MaterialWeight) and route on their own
// only when they say something specific.

// structured matches a line that reads as pasted material rather than
// prose addressed to the assistant by how it begins; structuredLine adds
// what a line ends with or holds anywhere, which a pattern would find by
// backtracking over every line.
var structured = regexp.MustCompile(`^(?:` +
	`\s*>` + // quoted mail
	`|(?:From|To|Cc|Subject|Date|Sent|Reply-To):\s` + // mail headers
	`|\s*\[?\d{1,4}[-/:.]\d{1,2}` + // a time or date first: log lines, transcripts, CSV rows
	`|\s*\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL|PANIC)\b` +
	`|\s*(?:error|warning|fatal|note|help|hint)(?:\[[\w-]+\])?: ` + // a compiler's or a tool's diagnostic (error[E0308]: ...)
	`|\s*(?:[A-Za-z]:)?[\pL\pN_.~/\\@-]*[\pL\pN_]\.\w{1,5}(?::\d+(?::\d+)?|\(\d+(?:,\d+)?\))[: ]\s*(?:-\s*)?(?:(?i:fatal error|error|warning|note|info|hint)|[A-Z]{1,3}\d{3,5})\b` + // a tool's diagnostic placed in a file (src/a.ts:71:18 - error TS2339, app.py:12: error:, App.cs(10,4): error, x.py:1:1: E401), not a request that points at a line ("src/App.tsx:12:5 extract this")
	`|npm (?:ERR!|WARN) ` +
	`|\s+at\s+\S+` + // Java and JavaScript stack frames
	`|\s*File "` + `|Traceback\b|goroutine \d+|panic:` +
	`|diff --git|index [0-9a-f]{6,}|--- |\+\+\+ |@@ ` +
	`|[+-]\S` + // diff lines
	`|\s*[\w.\-"]+\s*[:=]\s*\S{0,80}$` + // key: value, key = value
	`|\s*[<@]\w+[>:]` + // chat and transcript speakers
	`|\s*\$ ` + // a shell prompt
	`|#!/` + // a script's interpreter line
	`|package [\w.]+;?$|import\s+(?:"[^"]{0,200}"|\(|[\w.]+(?:\s+as\s+\w+)?;?)$|from\s+[\w.]+\s+import\s` + // a source file's opening
	`|(?:var|let|const|val)\s+\w+\s*(?::[^=]{0,200})?=|(?:func|def|fn)\s+\w+\s*[(\[]` + // a declaration
	`|\s*(?:SELECT|INSERT INTO|UPDATE \S+ SET|DELETE FROM|(?:CREATE|ALTER|DROP) (?:TABLE|INDEX|VIEW|UNIQUE INDEX)|FROM|WHERE|(?:INNER |LEFT |RIGHT )?JOIN|GROUP BY|ORDER BY)\b` + // SQL, as its keywords are written
	`|\s{4,}\S` + `|\t` + // indented code
	`)`)

// structuredLine reports whether a line (without its line break) reads
// as pasted material: it begins as structured says, it holds a subtitle's
// arrow ("-->") or a shell variable, it is a line of a list or a call
// inside one or of a CSV file, it ends as code or JSON does (a brace, a
// bracket or a semicolon), or it is mostly not words (symbolic). What
// looks at the whole line is Go, not the pattern: an alternative that
// must reach the line's end kept the pattern's matcher running over all
// of it, about 100 ns a byte, and a pasted megabyte took 100 ms between
// two looks at the deadline.
func structuredLine(text string) bool {
	if structured.MatchString(text) || strings.Contains(text, "-->") || shellVariable(text) || listLine(text) || csvLine(text) {
		return true
	}
	if t := strings.TrimRight(text, " \t\r\n\v\f"); t != "" && strings.ContainsRune("{}[];", rune(t[len(t)-1])) {
		return true
	}
	return symbolic(text)
}

// shellVariable reports whether text holds a shell variable or a command
// substitution: "$" and a letter or "_", "${" and one, or "$(".
func shellVariable(text string) bool {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i] // the pattern's "." stops at a line break
	}
	for i := strings.IndexByte(text, '$'); i >= 0; i = strings.IndexByte(text, '$') {
		text = text[i+1:]
		rest := strings.TrimPrefix(text, "{")
		if strings.HasPrefix(text, "(") || rest != "" && (rest[0] == '_' || 'a' <= rest[0]|0x20 && rest[0]|0x20 <= 'z') {
			return true
		}
	}
	return false
}

// listLine reports whether text is a line of a list or a call inside
// one: indented by two blanks or more, it ends with a comma or an opening
// parenthesis.
func listLine(text string) bool {
	body := strings.TrimLeft(text, " \t\n\f\r")
	return len(text)-len(body) >= 2 && len(body) >= 2 && !strings.Contains(body, "\n") &&
		(body[len(body)-1] == ',' || body[len(body)-1] == '(')
}

// csvLine reports whether text is a row of a CSV file: three fields or
// more, the first ending in no blank and each other opening with none (a
// comma then a space is prose's), and none of them empty. A first field
// may hold spaces ("Amazon EC2,41210.55,43870.12").
func csvLine(text string) bool {
	first := strings.IndexByte(text, ',')
	if first <= 0 || isBlank(text[first-1]) {
		return false
	}
	commas := 0
	for i := first; i >= 0; {
		commas++
		if i+1 == len(text) || text[i+1] == ',' || isBlank(text[i+1]) {
			return false
		}
		j := strings.IndexByte(text[i+1:], ',')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return commas >= 2
}

// isBlank reports whether c is a blank as a pattern's \s is: a space, a
// tab, a line break, a form feed or a carriage return.
func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// symbolic reports whether a line is mostly not words: of its three or
// more blank-separated tokens, fewer than half are words (letters, with
// an inner hyphen or apostrophe, and the punctuation prose puts around
// them). A crontab, a command line, a table of figures or paths reads so
// ("*/15 * * * 1-5 /opt/jobs/sync.sh >> /var/log/sync.log"); a sentence,
// even one naming a file or a flag, does not.
func symbolic(line string) bool {
	tokens, words := 0, 0
	for t := range strings.FieldsSeq(line) { // a pasted megabyte has many lines: no slice per line
		tokens++
		if isWordToken(strings.Trim(t, `.,;:!?()"'`)) {
			words++
		}
	}
	return tokens >= 3 && 2*words < tokens
}

// isWordToken reports whether t is a word as prose writes one: letters,
// with hyphens or apostrophes only between them.
func isWordToken(t string) bool {
	if t == "" {
		return false
	}
	prev := '-'
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
		case (r == '-' || r == '\'' || r == '’') && prev != '-':
			r = '-'
		default:
			return false
		}
		prev = r
	}
	return prev != '-'
}

// A pasted document (a contract, a spec, an article, a mail written as
// prose) reads as prose line by line, so it is known by where it stands:
// a task of several paragraphs and at least documentMinWords words is an
// instruction around a document. With two paragraphs, the shorter one is
// the instruction when the other holds at least twice its words ("Can you
// summarize this?" then the article, or the article then the question).
// With more, the last paragraph is the instruction, and the first too when
// it holds at most introWords words ("Got this from a recruiter:") or ends
// with a question or a colon (it asks, or announces what follows); the
// paragraphs between are the document when they hold at least half the
// task's words. A request written in several paragraphs of its own keeps
// them: its middle is seldom most of it. A last paragraph that is a
// labelled note ("Dashboards: ...", "Notes: ..."; one word and a colon,
// no question) after prose that is no document is context: the first
// paragraph is the instruction, and the note weighs as the document's.
const (
	documentMinWords = 100
	introWords       = 30
)

// paragraph is one run of lines between blank lines (or one fenced
// block), with how many words it holds and whether it reads as material
// line by line.
type paragraph struct {
	span
	words    int
	material bool // reads as material line by line
	document bool // stands where a pasted document does
	asks     bool // ends with a question mark or a colon
	note     bool // opens with one word and a colon ("Notes: ...") and asks nothing
	prose    bool // opens with a line of words addressed to someone, no heading, list mark or label
}

// materialSpans returns the byte ranges of task that are pasted
// material: fenced code blocks, paragraphs (runs of lines between blank
// lines) at least half of whose lines read as material, and a pasted
// document's paragraphs (see documentMinWords).
func materialSpans(task string, kinds []*pastedKind, pu *pulse.Pulse) []materialSpan {
	paras := paragraphs(task, kinds, pu)
	document(task, paras)
	var out []materialSpan
	for _, p := range paras {
		w := MaterialWeight
		switch {
		case p.material:
		case p.document:
			w = DocumentWeight
		default:
			continue
		}
		if n := len(out); n > 0 && out[n-1].end == p.start && out[n-1].weight == w { // adjacent spans join
			out[n-1].end = p.end
			continue
		}
		out = append(out, materialSpan{p.span, w})
	}
	if len(out) == 0 {
		out = joinSpans(contextSentences(task), announcedNotes(task))
	} else if len(task) <= maxContextTask {
		// The instruction around pasted material states context too
		// ("Need a NOT NULL column on shipments. Our Spring Boot
		// service runs Flyway on startup and this is the migration I
		// wrote:"): its sentences are read with the material blanked
		// out, so that a log line is neither an ask nor a statement.
		out = joinSpans(out, contextSentences(blankSpans(task, out)))
	}
	// What must stay as it is constrains the request whether or not the
	// request comes with material: "Translate this product description
	// ... Keep the markdown formatting" below a pasted document.
	out = joinSpans(out, constraintClauses(task))
	out = joinSpans(out, pastimeTopics(task))
	return withMentions(task, out)
}

// blankSpans returns task with the bytes of spans, line breaks aside,
// turned to blanks: the same offsets, none of the words.
func blankSpans(task string, spans []materialSpan) string {
	b := []byte(task)
	for _, m := range spans {
		for i := m.start; i < m.end; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// A request often brings its material inline, announced by a colon after
// what it is: "Write this week's update from the notes below: shipped
// SSO, started the billing migration, blocked on the security review."
// The notes are what the update is about, not three more requests, and
// their "security review" drew a security review skill in beside the
// writing one. So, in a typed request, what follows a colon after a noun
// of material (materialNouns, alone or with "below", "above" or "here")
// weighs as a document does: to the end of its sentence, or, when the
// colon ends its line, to the end of the paragraph (a list of notes). So
// does what follows a label opening a sentence after the request
// (contextLabels: "Highlights: I led the Redis cache migration, ..."). A
// colon after anything else announces the request's own parts ("Two
// audits before the release: ...", "do the following: ..."). A list of
// pull requests, commits, changes or tickets after such a colon is what a
// changelog or a summary is written from ("the entry for 2.4.0 from these
// merged PRs:" above "- #815 fix consumer group rebalance storm" asks for
// no Kafka skill).
var materialNouns = set([]string{"notes", "minutes", "log", "logs", "output", "message", "messages", "email", "emails", "mail", "transcript", "text", "feedback", "comments", "data", "numbers", "figures", "bullets", "excerpt", "snippet", "quote", "prs", "commits", "changes", "tickets"})

// contextLabels open a sentence of what the user brings, after the
// request: "Highlights: ...", "Context: ...", "Background: ...".
var contextLabels = set([]string{"highlights", "context", "background", "details", "summary", "facts", "example", "examples", "input", "errors", "error"})

// announcedNotes returns the spans of task that follow a colon announcing
// material (see materialNouns), at DocumentWeight; none for a task longer
// than maxContextTask.
func announcedNotes(task string) []materialSpan {
	if len(task) > maxContextTask || !strings.Contains(task, ":") {
		return nil
	}
	var out []materialSpan
	for start, end := range sentenceBounds(task, false) {
		sentence := task[start:end]
		i := strings.IndexByte(sentence, ':')
		if i < 0 {
			continue
		}
		words := strings.Fields(strings.ToLower(sentence[:i]))
		n := len(words)
		if n >= 2 && (words[n-1] == "below" || words[n-1] == "above" || words[n-1] == "here") {
			n--
		}
		switch {
		case n >= 2 && materialNouns[words[n-1]]:
		case n == 1 && start > 0 && (materialNouns[words[0]] || contextLabels[words[0]]):
			// A label opening a sentence after the request: "Help me write
			// my self-review. Highlights: I led the Redis migration, ..."
		default:
			continue // no material named, or nothing asked before it
		}
		from := start + i + 1
		to := end
		if strings.TrimSpace(sentence[i+1:]) == "" { // the colon ends its line: a list follows
			to = len(task)
			if j := strings.Index(task[from:], "\n\n"); j >= 0 {
				to = from + j
			}
		}
		if strings.TrimSpace(task[from:to]) == "" {
			continue
		}
		out = append(out, materialSpan{span{int32(from), int32(to)}, DocumentWeight})
	}
	return out
}

// keepWords open a clause that says what must stay as it is while the
// request is done: "Translate the onboarding emails into Spanish, keeping
// the friendly tone", "... Keep the markdown formatting". The clause
// constrains the work; it asks for nothing (a tone skill, a Markdown
// skill), so after the request it weighs as a document does.
var keepWords = set([]string{"keep", "keeping", "preserve", "preserving", "maintain", "maintaining", "retain", "retaining"})

// describedKeepWords open a constraint clause only inside a relative
// clause describing what the task asks to write ("Write me a short reply
// that says no thanks but keeps the door open"): elsewhere their subject
// is something that exists, and the clause states its problem ("The
// signup service works but retains deleted users' data", "the app starts
// but keeps crashing").
var describedKeepWords = set([]string{"keeps", "preserves", "maintains", "retains"})

// asciiLower returns s with its ASCII letters in lower case and every
// other byte as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// sentenceSoFar returns the end of text from the start of its last
// sentence: after the last full stop, question or exclamation mark
// followed by a blank, or the last line break.
func sentenceSoFar(text string) string {
	for i := len(text) - 1; i >= 0; i-- {
		switch c := text[i]; {
		case c == '\n':
			return text[i+1:]
		case (c == '.' || c == '!' || c == '?') && i+1 < len(text) && blank(text[i+1]):
			return text[i+1:]
		}
	}
	return text
}

// wordsSoFar returns the words of the last sentence of text
// (sentenceSoFar), in lower case, without the punctuation around them.
func wordsSoFar(text string) []string {
	words := strings.Fields(strings.ToLower(sentenceSoFar(text)))
	for i, w := range words {
		words[i] = strings.Trim(w, `.,;:!?"'()`)
	}
	return words
}

// leaveWords open a clause that keeps something out of the work: what
// to ignore, skip or leave as it is ("review the PR for injection, skip
// the style nits about the repositories"), or what to ask the user
// before doing ("build the form; ask me before changing any design
// tokens") or to ask others for ("then ask the team to review the flags
// in it"). The clause asks for no skill of its own, as a keep clause
// does not. "leave" does so only when the clause ends by saying what
// stays as it is ("leave the alert rules untouched"; "leave comments on
// the PR" asks for them). Not "let me know": "find job openings and let
// me know about discounts" asks for a second thing.
var leaveWords = set([]string{"ignore", "ignoring", "skip", "skipping", "leave",
	"don't touch", "dont touch", "don\u2019t touch", "do not touch", "never touch",
	"ask me", "ask the", "ask them", "check with me"})

// mentionWords open a clause that says what a text being written says
// ("write my standup update from today's commits, also mention the
// queue outage as a blocker"): the thing mentioned is content, not work
// for its skill.
var mentionWords = set([]string{"mention", "mentioning"})

// keepOpeners are every word that can open a constraint clause.
var keepOpeners = func() map[string]bool {
	m := maps.Clone(keepWords)
	maps.Copy(m, describedKeepWords)
	maps.Copy(m, leaveWords)
	maps.Copy(m, mentionWords)
	return m
}()

// writingVerbs ask for a text to be written, whose relative clause
// (describedKeepWords) says what it must be like.
var writingVerbs = set([]string{"write", "draft", "compose", "prepare", "create"})

// describesWriting reports whether the sentence that before ends in asks
// for a text to be written and describes it in a relative clause ("write
// a reply that ...") that the next word continues.
func describesWriting(before string) bool {
	verb := false
	for _, w := range wordsSoFar(before) {
		switch {
		case writingVerbs[w]:
			verb = true
		case verb && (w == "that" || w == "which"):
			return true
		}
	}
	return false
}

// constraintClauses returns the spans of the clauses of task that open
// with a word of keepWords after the start of the task (after a comma,
// a sentence's end, "and" or "but"; after a sentence's end only when a
// sentence before it asks), each to the end of its clause, at
// DocumentWeight; none for a task longer than maxContextTask.
func constraintClauses(task string) []materialSpan {
	if len(task) > maxContextTask {
		return nil
	}
	var out []materialSpan
	// Only ASCII letters are folded, so that lower's offsets are task's:
	// strings.ToLower turns an invalid byte into three ("\x9c Bu! keep").
	lower := asciiLower(task)
	for w := range keepOpeners {
		for off := 0; ; {
			i := strings.Index(lower[off:], w)
			if i < 0 {
				break
			}
			i += off
			off = i + len(w)
			if off < len(lower) && lower[off] != ' ' || i == 0 || !opensClause(lower[:i]) {
				continue
			}
			if describedKeepWords[w] && !describesWriting(lower[:i]) {
				continue
			}
			if opensSentence(lower[:i]) && !asksIn(task[:i]) {
				continue // "Our deps are ancient. Keep them up to date.": the request
			}
			end := len(task)
			if j := strings.IndexAny(task[off:], ",;.!?\n"); j >= 0 {
				end = off + j
			}
			for _, join := range []string{" and ", " but ", " then "} {
				j := strings.Index(lower[off:end], join)
				if j < 0 || join == " and " && staysAsIs(lower[off+j:end]) {
					// "keep the Docker build and the Helm chart untouched":
					// one list of what stays.
					continue
				}
				end = min(end, off+j) // "keep the formatting and convert the units": a request again
			}
			if retention.MatchString(lower[off:end]) {
				continue // "and retain the audit logs for seven years": a request
			}
			if w == "leave" && !staysAsIs(lower[off:end]) {
				continue // "and leave comments on the PR": a request
			}
			out = append(out, materialSpan{span{int32(i), int32(end)}, DocumentWeight})
		}
	}
	// keepOpeners is a map: sorted, the spans come out the same whatever
	// its order (they never overlap: each ends before the next clause).
	slices.SortFunc(out, func(a, b materialSpan) int { return cmp.Compare(a.start, b.start) })
	return out
}

// TopicWeight is how much a term found only in the topic of a pastime
// weighs (pastimeTopics): so little that the topic never routes on its
// own, as pasted material may when the instruction points nowhere ("tell
// me a joke about ..." points nowhere but at a jokes skill).
const TopicWeight = 0.05

// pastimes are short texts written for fun, whose topic is no work a
// skill does: "tell me a joke about kubernetes", "write a limerick about
// regular expressions". Not "story" ("a user story about checkout") nor
// "song" or "rap" (rarely written about a technology, and names of
// skills' subjects).
var pastimes = set([]string{"joke", "jokes", "pun", "puns", "poem", "poems", "limerick", "limericks", "haiku", "haikus", "riddle", "riddles", "sonnet", "sonnets"})

// pastimeDeterminers before a pastime ask for a new one.
var pastimeDeterminers = set([]string{"a", "an", "some", "another", "any", "me", "few", "two", "three"})

// pastimeTopics returns the spans of the topics of the pastimes the task
// asks for, at TopicWeight: "about ..." or "on ..." after "a joke", "a
// short poem", "me jokes" (a determiner or "me" at most two words before
// the pastime, which asks for a new one: "the joke bot on our Kafka
// cluster" and "the riddle on the Godot door scene" name things), at
// most three words between, to the end of the clause. The topic is what
// the text is about, and the skill for it does nothing there; a skill
// for the pastime itself (a jokes tool) keeps its word. None for a task
// longer than maxContextTask.
func pastimeTopics(task string) []materialSpan {
	if len(task) > maxContextTask {
		return nil
	}
	var out []materialSpan
	lower := asciiLower(task)
	after := -1 // words since a pastime in this clause, or -1
	det := 3    // words since a determiner
	for i := 0; i < len(lower); {
		if c := lower[i]; c < 'a' || c > 'z' {
			if strings.IndexByte(",;.!?\n", c) >= 0 {
				after = -1 // the clause ends
			}
			i++
			continue
		}
		j := i
		for j < len(lower) && 'a' <= lower[j] && lower[j] <= 'z' {
			j++
		}
		w := lower[i:j]
		switch {
		case pastimes[w] && det <= 2:
			after = 0
		case after >= 0 && (w == "about" || w == "on"):
			stop := len(lower)
			if k := strings.IndexAny(lower[j:], ",;.!?\n"); k >= 0 {
				stop = j + k
			}
			out = append(out, materialSpan{span{int32(i), int32(stop)}, TopicWeight})
			after = -1
		case after >= 0:
			if after++; after > 3 {
				after = -1
			}
		}
		if det++; pastimeDeterminers[w] {
			det = 1
		}
		i = j
	}
	return out
}

// retention matches a period something is to be kept for ("for 90
// days", "for seven years"): keeping it that long is what is asked, a
// retention policy, not a constraint on other work.
var retention = regexp.MustCompile(`\bfor (?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|thirty|sixty|ninety) (?:hours?|days?|weeks?|months?|years?)\b`)

// staysAsIs reports whether text ends a keep clause by saying that what
// it lists stays as it is ("... untouched", "... as they are").
func staysAsIs(text string) bool {
	t := strings.TrimSpace(text)
	for _, end := range []string{"untouched", "unchanged", "intact", "as is", "as-is", "as they are", "as it is", "the same", "alone"} {
		if strings.HasSuffix(t, end) {
			return true
		}
	}
	return false
}

// opensSentence reports whether a word right after before opens a
// sentence: before ends in a sentence's end.
func opensSentence(before string) bool {
	t := strings.TrimRight(before, " \t\n")
	return t != "" && strings.ContainsRune(".!?", rune(t[len(t)-1]))
}

// asksIn reports whether a sentence of text asks for something (a
// question, a need, or an imperative, as contextSentences reads them,
// with a content word: "Translate it."): a keep clause that opens a sentence
// constrains a request only when one came before it.
func asksIn(text string) bool {
	for _, r := range readSentences(text) {
		if r.asking() && r.content > 0 {
			return true
		}
	}
	return false
}

// opensClause reports whether a word right after before opens a clause:
// before ends in a comma, a sentence's end, or "and", "but", "then" or
// "also" after a blank.
func opensClause(before string) bool {
	t := strings.TrimRight(before, " \t")
	if len(t) == len(before) {
		return false // inside a word
	}
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case ',', ';', '.', '!', '?', ':', '-':
		return true
	}
	return strings.HasSuffix(t, " and") || strings.HasSuffix(t, " but") || strings.HasSuffix(t, " then") || strings.HasSuffix(t, " also")
}

// conversionSource matches a request to make one thing out of another:
// "turn our latest blog post into a LinkedIn thread", "convert this
// folder of PDFs into Markdown". Its first group is the source.
var conversionSource = regexp.MustCompile(`(?i)\b(?:turn|convert|transform|repurpose)\s+(.{3,160}?)\s+(?:into|to)\s+\S`)

// particles make a phrasal verb of a conversion's: "turn on", "turn off".
var particles = set([]string{"on", "off", "up", "down", "out", "around", "back", "over"})

// conversionSources returns the spans of the sources of task's
// conversions (conversionSource); none for a task longer than
// maxContextTask.
func conversionSources(task string) []span {
	if len(task) > maxContextTask {
		return nil
	}
	var out []span
	for _, m := range conversionSource.FindAllStringSubmatchIndex(task, -1) {
		if first, _, _ := strings.Cut(strings.ToLower(task[m[2]:m[3]]), " "); particles[first] {
			continue // "turn off logging to cut costs": no conversion
		}
		out = append(out, span{int32(m[2]), int32(m[3])})
	}
	return out
}

// fromSource reports whether a term e rests on is said only in the
// source of a conversion (conversionSources): a phrase of the source
// ("blog post") is the source's, though one of its words is said again.
// The source is what the work starts from: it decides which skill does the
// work as any word of the request does ("Convert our Svelte 4 dropdown to
// runes" is a Svelte skill's), but it asks for no second skill beside
// that one: what is made out of a blog post is not a blog post, and a
// blog writing skill rode in beside the social one for "Turn our latest
// blog post into a LinkedIn post" (own parts: ownParts).
func (q *Query) fromSource(e Evidence) bool {
	if q.sources == nil {
		q.sources = &sourceTerms{q.termsWithin(conversionSources(q.task))}
	}
	if len(q.sources.only) == 0 {
		return false
	}
	return slices.ContainsFunc(e.Terms, func(s string) bool { return q.sources.only[s] })
}

// sourceTerms caches fromSource's terms: those said only in a source.
type sourceTerms struct{ only map[string]bool }

// termsWithin returns the stems of the task said only within spans,
// which are sorted and apart.
func (q *Query) termsWithin(spans []span) map[string]bool {
	if len(spans) == 0 {
		return nil
	}
	in, out := map[string]bool{}, map[string]bool{}
	within := q.wordsIn(spans)
	for i, st := range q.stems {
		switch {
		case st == "":
		case within[i]:
			in[st] = true
		default:
			out[st] = true
		}
	}
	for st := range out {
		delete(in, st)
	}
	return in
}

// joinSpans returns the union of a and b, each sorted and apart, sorted
// and apart; where two overlap or touch, the one span keeps the lower
// weight.
func joinSpans(a, b []materialSpan) []materialSpan {
	if len(b) == 0 {
		return a
	}
	all := slices.Concat(a, b)
	slices.SortFunc(all, func(x, y materialSpan) int { return cmp.Compare(x.start, y.start) })
	var out []materialSpan
	for _, m := range all {
		if n := len(out); n > 0 && m.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, m.end)
			out[n-1].weight = min(out[n-1].weight, m.weight)
			continue
		}
		out = append(out, m)
	}
	return out
}

// A request of a few sentences often states context after what it asks:
// "Create a Mongoose schema for orders. The orders arrive from Shopify
// webhooks." The second sentence says what the schema is about, not that
// webhooks are wanted, and it drew a webhook skill in beside the schema
// one. So, in the instruction (with any pasted material blanked out:
// materialSpans), a sentence that states
// (its subject first: contextSubjects; no question, no need or wish:
// askingWords) after one that asks (a question, a need, or an
// imperative: a first word none of nonImperative) weighs as a document
// does (DocumentWeight): it can confirm what the request points at and
// never asks for a skill of its own beside it (rule 10). A semicolon ends
// a sentence here too: "Write a Dockerfile for the app; the build already
// happens in our GitHub Actions workflow." A statement before any ask is
// the problem the request is about ("Our Redux store has 60 slices ...
// Show me how to migrate"), and stays the request's; but its words are
// no second skill's own by another's mere mention (Query.passingTerms).
var (
	// contextSubjects open a sentence that states: a determiner or a
	// pronoun of the things talked about.
	contextSubjects = set([]string{"the", "our", "my", "its", "it", "this", "these", "those", "that", "there", "they", "we", "a", "an", "their", "his", "her", "he", "she", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "several", "many", "none", "half",
		"it's", "it'll", "that's", "there's", "they're", "they'll", "we're", "we'll", "we've"})
	// askingWords make a sentence that opens as a statement ask: "We
	// need a schema", "The page should load faster"; so do "have to"
	// and "has to".
	askingWords = set([]string{"need", "needs", "want", "wants", "should", "must", "please", "like", "lets", "let's", "help", "wish", "require", "requires"})
	// enumerators after "the" make a stated sentence one of several
	// requests: "The first one is to calculate the integral".
	enumerators = set([]string{"first", "second", "third", "fourth", "fifth", "next", "last", "other", "final", "main", "goal", "task", "problem", "issue", "question", "idea", "plan"})
	// addingWords anywhere in a stated sentence make it a further
	// request: "The webhook events also have to be documented", "The
	// email sequence is part of this too", "The slow query is next".
	addingWords = set([]string{"also", "too", "next", "second", "third", "another", "plus", "additionally"})
	// timeNouns after "next" make it say when ("The PM will turn this
	// into a PRD next sprint"), not add a request ("The slow query is
	// next").
	timeNouns = set([]string{"sprint", "week", "month", "quarter", "year", "day", "time", "release", "cycle", "iteration", "morning", "afternoon", "evening", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
	// lookWords ask for attention, not for anything a skill does: "Please
	// take a look." asks, and the statement after it is the request.
	lookWords = set([]string{"take", "look", "check", "see", "glance", "eyes", "out", "thoughts", "advice"})
	// nonImperative open a sentence that is no command: prepositions,
	// conjunctions, adverbs, quantifiers and the speaker's own pronouns
	// ("In a park, there is ...", "I'm studying genetics").
	nonImperative = set([]string{"in", "on", "at", "for", "with", "after", "before", "when", "if", "since", "because", "as", "next", "then", "also", "so", "but", "and", "now", "today", "currently", "here", "yesterday", "recently", "sometimes", "every", "each", "some", "most", "all", "both", "no", "one", "i", "you", "i'm", "im", "i've", "ive", "i'd", "id"})
)

// maxContextTask bounds the tasks contextSentences reads: a request
// someone typed, not a megabyte of prose pasted whole, which reads as a
// document when it has paragraphs and costs a pass per sentence when not.
const maxContextTask = 8 << 10

// contextSentences returns the spans of the sentences of task that state
// context after a sentence that asks (see contextSubjects), or that say
// something is done already wherever they stand ("Two of the services
// already have Helm charts. Write a systemd unit for the third one."), at
// DocumentWeight; none when no sentence asks, when those sentences hold
// more than twice the words of the asking ones (a side remark is not the
// bulk of a message), or when the task is longer than maxContextTask.
func contextSentences(task string) []materialSpan {
	var out []materialSpan
	asked := false
	asking, stating := 0, 0 // the words of the sentences that ask, and of those marked
	for _, r := range readSentences(task) {
		switch {
		case r.states && (asked || r.done):
			out = append(out, materialSpan{r.span, DocumentWeight})
			stating += r.words
		case r.asking():
			asking += r.words
			// A sentence asks what it has two content words for; "Fix
			// it." asks, but says nothing the sentences around it do not.
			asked = asked || r.content >= 2
		}
	}
	if stating > 2*asking {
		// Much more said after the ask than in it: the ask was an opener
		// ("Please help me with our networking gear."), and what follows
		// is the request.
		return nil
	}
	return out
}

// statedSpans returns the spans of the sentences of task that state (see
// contextSentences), wherever they are; none for a task longer than
// maxContextTask.
func statedSpans(task string) []span {
	var out []span
	for _, r := range readSentences(task) {
		if r.states {
			out = append(out, r.span)
		}
	}
	return out
}

// sentenceRead is how contextSentences reads one sentence of a task.
type sentenceRead struct {
	span       span // the sentence with its closing mark
	words      int
	content    int  // its content words, lookWords aside
	asks       bool // a question, a need or a wish (askingWords, "have to")
	states     bool // opens with its subject and neither asks nor adds a request
	opensAside bool // opens with a word of nonImperative: no command
	done       bool // says something is done already: "Two of the services already have Helm charts"
}

// asking reports whether the sentence asks: a question, a need, or an
// imperative (neither a statement nor an aside).
func (r sentenceRead) asking() bool { return r.asks || (!r.states && !r.opensAside) }

// readSentences reads each sentence of task (semicolons end one too), or
// none when task is longer than maxContextTask.
func readSentences(task string) []sentenceRead {
	if len(task) > maxContextTask {
		return nil
	}
	var out []sentenceRead
	trim := func(w string) string { return strings.Trim(w, `.,;:!?"'()*_`) }
	for start, end := range sentenceBounds(task, true) {
		text := task[start:end]
		words := strings.Fields(strings.ReplaceAll(strings.ToLower(text), "\u2019", "'"))
		if len(words) == 0 {
			continue
		}
		for i, w := range words {
			words[i] = trim(w)
		}
		first := words[0]
		question := strings.HasSuffix(strings.TrimSpace(text), "?") || end < len(task) && task[end] == '?'
		asks := question || slices.ContainsFunc(words, func(w string) bool { return askingWords[w] })
		for i := 1; i < len(words) && !asks; i++ {
			// "have to", "has to": a need.
			asks = (words[i-1] == "have" || words[i-1] == "has") && words[i] == "to"
		}
		adds := false
		for i, w := range words {
			// "next sprint", "next week" say when, not what else.
			adds = adds || addingWords[w] && !(w == "next" && i+1 < len(words) && timeNouns[words[i+1]])
		}
		content := 0
		for _, w := range words {
			if w != "" && !lookWords[w] && !isStop(w, Stem(w)) {
				content++
			}
		}
		// A first word in -ing is no command either: "Getting this after
		// bumping a dependency:" says what happens.
		aside := nonImperative[first] || len(first) > 5 && strings.HasSuffix(first, "ing") // not "bring"
		out = append(out, sentenceRead{
			// The span takes the sentence's closing mark with it.
			span:    span{int32(start), int32(min(end+1, len(task)))},
			words:   len(words),
			content: content,
			asks:    asks,
			// A number is a subject too: "3 tests fail on CI".
			states:     (contextSubjects[first] || first != "" && strings.Trim(first, "0123456789") == "") && !asks && !adds && !(len(words) > 1 && enumerators[words[1]]),
			opensAside: aside,
			done:       slices.Contains(words, "already"),
		})
	}
	return out
}

// withMentions adds to spans, which are sorted and apart, a span of
// MaterialWeight for each file the task mentions as clients let a user
// attach one ("@schema.sql", "@src/app/main.ts"): the client sends the
// file with the message, and its name is the file's, not the request's.
// Read as the instruction's words, "write a changelog entry for @schema.sql"
// routed an SQL skill beside the changelog one. A mention needs a file
// extension, so a package scope ("@angular/core") or a handle ("@ravi")
// stays the user's words.
func withMentions(task string, spans []materialSpan) []materialSpan {
	if !strings.Contains(task, "@") {
		return spans
	}
	var out []materialSpan
	j := 0
	for off := 0; off < len(task); {
		i := strings.IndexByte(task[off:], '@')
		if i < 0 {
			break
		}
		start := off + i
		end := start + 1
		for end < len(task) && !blank(task[end]) {
			end++
		}
		off = end
		if start > 0 && !blank(task[start-1]) {
			continue // inside a word: an address, a version
		}
		if !isFileMention(task[start+1 : end]) {
			continue
		}
		for j < len(spans) && int(spans[j].end) <= start {
			out = append(out, spans[j])
			j++
		}
		if j < len(spans) && int(spans[j].start) <= start {
			continue // already in pasted material
		}
		out = append(out, materialSpan{span{int32(start), int32(end)}, MaterialWeight})
	}
	return append(out, spans[j:]...)
}

// isFileMention reports whether name, what follows an @, names a file:
// a path whose last element has a short extension ("schema.sql",
// "src/app/main.ts"), trailing punctuation aside.
func isFileMention(name string) bool {
	name = strings.TrimRight(name, ".,;:!?)\"'")
	base := name[strings.LastIndexByte(name, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 || len(base)-dot-1 > 5 {
		return false
	}
	for _, r := range base[dot+1:] {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// materialSpan is a range of pasted material and the weight of a term
// found only there.
type materialSpan struct {
	span
	weight float64
}

// paragraphs splits task into paragraphs, each fenced block one of its
// own, marking material those at least half of whose lines read as
// material (a line of one of the kinds of file the task holds among
// them: "RUN pip install -r requirements.txt" reads as prose on its own),
// and every fenced block.
func paragraphs(task string, kinds []*pastedKind, p *pulse.Pulse) []paragraph {
	var out []paragraph
	lines := strings.SplitAfter(task, "\n")
	off := 0
	closers := mdfence.Blocks(lines)
	closeAt := -1 // the line that closes the block in progress, if any
	var cur paragraph
	n, structuredN := 0, 0 // the current paragraph's lines, and those that read as material
	// lead is the paragraph's first lines up to the first that reads as
	// material, when each reads as words addressed to the assistant
	// (addressed): the request a client or a pipe puts right above a file
	// ("write a changelog entry\napiVersion: apps/v1\n..."), which is
	// the instruction, not the file's first line.
	var lead paragraph
	leadN := 0
	flush := func() {
		if n > 0 {
			cur.material = 2*structuredN >= n
			if cur.material && leadN > 0 && leadN < n {
				rest := cur
				rest.start, rest.words, rest.note = lead.end, cur.words-lead.words, false
				out = append(out, lead, rest)
			} else {
				out = append(out, cur)
			}
		}
		cur, n, structuredN, lead, leadN = paragraph{}, 0, 0, paragraph{}, 0
	}
	read := 0 // bytes read since the context was last looked at
	for i, l := range lines {
		// Every scanPiece bytes, as Analyze splits words: a pulse's
		// few steps of lines can be a megabyte when lines are long.
		if read += len(l); read >= scanPiece {
			read = 0
			if p.Now() {
				break
			}
		} else if p.Stop() {
			break
		}
		start, end := int32(off), int32(off+len(l))
		off += len(l)
		text := strings.TrimRight(l, "\r\n")
		trimmed := strings.TrimSpace(text)
		switch {
		case closeAt < 0 && closers[i] >= 0:
			flush()
			closeAt = closers[i]
			cur = paragraph{span: span{start, end}, material: true}
			continue
		case closeAt >= 0:
			cur.end = end
			cur.words += len(strings.Fields(text))
			if i == closeAt {
				closeAt = -1
				out = append(out, cur)
				cur = paragraph{}
			}
			continue
		case trimmed == "":
			flush()
			continue
		}
		if n == 0 {
			cur.start = start
			cur.note = labelled(trimmed)
			word, _, labelLike := strings.Cut(trimmed, ":")
			cur.prose = addressed(trimmed) && !(labelLike && !strings.ContainsAny(word, " \t"))
		}
		if strings.Contains(trimmed, "?") {
			cur.note = false
		}
		cur.end = end
		cur.asks = strings.HasSuffix(trimmed, "?") || strings.HasSuffix(trimmed, ":")
		cur.words += len(strings.Fields(text))
		n++
		if structuredLine(text) || ofKind(kinds, strings.TrimRight(text, " \t\r")) {
			structuredN++
		} else if structuredN == 0 && leadN == n-1 && addressed(trimmed) {
			lead, leadN = cur, n
		}
	}
	flush()
	return out
}

// addressed reports whether a trimmed line reads as words addressed to
// the assistant rather than a file's first line: it opens with a letter
// or a quotation mark, not a comment's or a list's mark ("# m h dom mon
// dow command", "* Getting build dependencies"), and holds two words or
// more.
func addressed(trimmed string) bool {
	r, _ := utf8.DecodeRuneInString(trimmed)
	return (unicode.IsLetter(r) || strings.ContainsRune(quoteMarks+"'", r)) && strings.ContainsAny(trimmed, " \t")
}

// labelled reports whether a paragraph's first line opens with a single
// capitalised word and a colon, as a note's label does ("Notes:",
// "Dashboards:").
func labelled(line string) bool {
	word, _, ok := strings.Cut(line, ":")
	if !ok || word == "" || strings.ContainsAny(word, " \t`") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(word)
	return unicode.IsUpper(r)
}

// document marks material the paragraphs of a pasted document (see
// documentMinWords). Pasted material is no paragraph of the instruction:
// with two paragraphs one of which is material, the other is the
// instruction, and with more, the instruction is the last paragraph that
// is not material ("wire tracing into this handler" above a pasted source
// file, whose last paragraph was taken for the request).
func document(task string, paras []paragraph) {
	total := 0
	for _, p := range paras {
		total += p.words
	}
	if len(paras) < 2 || total < documentMinWords {
		return
	}
	if len(paras) == 2 {
		a, b := &paras[0], &paras[1]
		if a.material || b.material {
			return // the prose one is the instruction
		}
		switch {
		case a.words >= 2*b.words:
			a.document = true
		case b.words >= 2*a.words:
			b.document = true
		}
		return
	}
	// The document: paras[from:to], before the last paragraph that is
	// not material (a request above a pasted file ends with the file).
	from, to := 0, len(paras)-1
	for to > 0 && paras[to].material {
		to--
	}
	if to == 0 {
		return
	}
	if paras[0].words <= introWords || paras[0].asks || (!paras[0].material && mostlyMaterial(paras[1:to])) {
		from = 1
	}
	if paras[to].note && !paras[0].material {
		// A labelled note after the paste ("Dashboards: ...") is
		// context: the request is the first paragraph.
		from, to = 1, len(paras)
	} else if from == 1 && !paras[0].material && pastedSection(task, paras[0], paras[to]) {
		// A short request that points at what follows ("scale this to
		// 12 servings", "summarize these notes in 5 bullets") leaves
		// the last paragraph to the pasted document when it reads as a
		// section of one (a recipe's "Method", the notes' list of
		// follow-ups) rather than more of the request.
		to = len(paras)
	}
	middle := 0
	for _, p := range paras[from:to] {
		middle += p.words
	}
	if 2*middle < total {
		return
	}
	for i := from; i < to; i++ {
		paras[i].document = true
	}
}

// pastedSection reports whether p, the last prose paragraph of a task
// whose first paragraph first points at what follows (deixis), reads as
// a section of a pasted document, not as more of the request: it opens
// with a heading, a list mark or a label ("Method", "- Q4 themes",
// "context: ..."), not with words addressed to someone ("Focus on the
// pricing part"), it does not speak to the assistant ("you", "me",
// "please": "Draft our reply to the reporter, tell me whether ..."), it
// does not ask, and it holds more than introWords words.
func pastedSection(task string, first, p paragraph) bool {
	if p.prose || p.asks || p.words <= introWords {
		return false
	}
	points, _ := deixis(task[first.start:first.end])
	_, speaks := deixis(task[p.start:p.end])
	return points && !speaks
}

// deixis reports whether a line points at what follows it ("this",
// "these", "the following", "below": "scale this to 12 servings") and
// whether it speaks to the assistant ("you", "me", "please").
func deixis(line string) (points, speaks bool) {
	for _, w := range Words(line) {
		switch w {
		case "this", "these", "following", "below":
			points = true
		case "you", "me", "please":
			speaks = true
		}
	}
	return points, speaks
}

// mostlyMaterial reports whether paras hold at least as many words in
// material paragraphs (code, logs, config) as in prose ones: what a user
// pastes below a request of their own, not a prose document.
func mostlyMaterial(paras []paragraph) bool {
	var material, prose int
	for _, p := range paras {
		if p.material {
			material += p.words
		} else {
			prose += p.words
		}
	}
	return material > 0 && material >= prose
}

// SourceMaterial marks evidence from pasted material (Evidence.Source).
const SourceMaterial = "material"

// SourcePastedKind marks evidence on a word that names the kind of file
// the user pasted (Evidence.Source; Evidence.Kind names it).
const SourcePastedKind = "pasted_kind"

// MaterialWeight is how much a term found only in pasted material weighs
// against one of the instruction.
const MaterialWeight = 0.15

// DocumentWeight is how much a term found only in a pasted document (see
// documentMinWords) weighs against one of the instruction: more than a
// log's or a config's, as a document is prose whose words say what it is
// about, and still little enough that its incidental words route nothing
// on their own. Chosen on the even half of the realskills benchmark (0.15
// and 0.3 tied at 0.615 exactly right; 0.5 gave 0.602) and checked on the
// odd half (0.573, 0.585, 0.561).
const DocumentWeight = 0.3

// markMaterial sets q.material: the scale of each task term that occurs
// only in pasted material (scaleMaterial), and then adds the words of the
// kinds of file the material holds (markPasted).
func (q *Query) markMaterial(seen map[string]bool, known func(string) bool) {
	p := q.pastedMaterial()
	if len(p.spans) == 0 {
		return
	}
	q.markPasted(p.kinds, seen, known, q.scaleMaterial(p.spans, seen))
}

// scaleMaterial sets q.material from the material spans ms and returns
// the terms found outside them, the instruction's. A task that is all
// material (no content word outside it) is its own instruction, and
// nothing is scaled. An instruction whose words no unit uses ("what does
// this do?") is an instruction still: counting only the words the catalog
// knows, it made the paste the task, every word at full weight.
func (q *Query) scaleMaterial(ms []materialSpan, seen map[string]bool) (inInstruction map[string]bool) {
	inInstruction = map[string]bool{}
	inMaterial := map[string]float64{} // the most a stem weighs in the material it is found in
	instructed := false                // a content word outside the material, known to the catalog or not
	j := 0
	for i, sp := range q.spans {
		st := q.stems[i]
		if st == "" {
			continue
		}
		for j < len(ms) && ms[j].end <= sp.start {
			j++
		}
		inside := j < len(ms) && ms[j].start <= sp.start
		instructed = instructed || !inside
		switch {
		case !seen[st]:
		case inside:
			inMaterial[st] = max(inMaterial[st], ms[j].weight)
		default:
			inInstruction[st] = true
		}
	}
	// A term the catalog writes as one word, which the task writes as
	// two ("team_id" for "teamid"), is found where its first word is, at
	// each place the task writes it.
	for st, ats := range q.joined {
		for _, i := range ats {
			at := q.spans[i].start
			k, _ := slices.BinarySearchFunc(ms, at, func(m materialSpan, at int32) int { return cmp.Compare(m.end, at+1) })
			if k < len(ms) && ms[k].start <= at {
				inMaterial[st] = max(inMaterial[st], ms[k].weight)
			} else {
				inInstruction[st] = true
			}
		}
	}
	if !instructed {
		return inInstruction
	}
	for st, w := range inMaterial {
		if !inInstruction[st] {
			if q.material == nil {
				q.material = map[string]float64{}
			}
			q.material[st] = w
		}
	}
	return inInstruction
}

// markPasted adds to the task's terms the words of each kind of file its
// material holds (pastedFiles) that the catalog knows, and records them in
// q.pasted; such a word found in the material too weighs as the
// instruction's, and one the instruction uses is the instruction's.
func (q *Query) markPasted(kinds []*pastedKind, seen map[string]bool, known func(string) bool, inInstruction map[string]bool) {
	for _, k := range kinds {
		for w := range strings.FieldsSeq(k.words) {
			st := Stem(w)
			if inInstruction[st] || !(seen[st] || known(st)) {
				continue
			}
			delete(q.material, st)
			if !seen[st] {
				seen[st] = true
				q.uniqueTerms = append(q.uniqueTerms, st)
			}
			if q.pasted == nil {
				q.pasted = map[string]string{}
			}
			if _, ok := q.pasted[st]; !ok {
				q.pasted[st] = k.name
			}
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

// weightOfAll is the scale of evidence that rests on several task terms
// at once (a phrase, a word pair): that of its least weighty term, so a
// phrase found only in pasted material weighs as its words there do.
func (q *Query) weightOfAll(stems []string) float64 {
	w := 1.0
	for _, s := range stems {
		w = min(w, q.weightOf(s))
	}
	return w
}

// keysWeight is the scale of a declared object or action bonus: that of
// the weightiest of the keys (stems joined by spaces) the task names.
func (q *Query) keysWeight(keys []string) float64 {
	var w float64
	for _, k := range keys {
		w = max(w, q.weightOfAll(strings.Fields(k)))
	}
	return w
}

// sourced marks e as evidence from pasted material when any of the terms
// it rests on is found only there.
func (q *Query) sourced(e Evidence, stems []string) Evidence {
	if q.weightOfAll(stems) < 1 {
		e.Source = SourceMaterial
	}
	return e
}

// pastedOnly reports whether evidence rests on terms found only in pasted
// material (a log, a config, code, an attached file) or a pasted
// document (a mail, an article). Such evidence is no part of the task of
// a unit's own (Problem.OwnPart): a file attached to "write a changelog
// entry" is what the change is, not a second request, and its SQL made an
// SQL skill a second skill; a journalist's mail about an audit under
// "draft a reply" made an audit skill one.
func (q *Query) pastedOnly(e Evidence) bool {
	return e.Source == SourceMaterial && q.weightOfAll(e.Terms) <= DocumentWeight
}

// blank reports whether the byte c is an ASCII blank: a byte of a UTF-8
// sequence is none (unicode.IsSpace would take 0x85 and 0xA0 for one).
func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
