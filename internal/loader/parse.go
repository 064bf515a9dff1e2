package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/rlmc-dev/rlmc/internal/suggest"
	"github.com/rlmc-dev/rlmc/ir"
)

// Frontmatter holds the SKILL.md frontmatter fields rlmc interprets. Fields a
// client defines but rlmc does not act on are kept in HostFields.
type Frontmatter struct {
	Name                   string
	NameLine               int
	HasName                bool
	Description            string
	DescriptionLine        int
	WhenToUse              string
	License                string
	Compatibility          string
	CompatibilityLine      int
	Metadata               map[string]string
	MetadataLines          map[string]int
	AllowedTools           []string
	DisableModelInvocation bool
	HostFields             map[string]any
}

// Parsed is one SKILL.md after parsing: its frontmatter, where its body
// starts, and what the body links to and is titled.
type Parsed struct {
	Frontmatter
	BodyOffset int64
	BodyLine   int // file line where the body starts
	Headings   []string
	Lead       string // the body's opening prose, up to leadLimit bytes
	Links      []Link
	// Refused: the frontmatter is a mapping but a field holds the wrong
	// kind of value (license: [1]); the skill is invalid, and nothing of
	// it is read but its name, which still names the invalid unit: named
	// after its folder instead, it could shadow a valid skill of that
	// name and hide its own.
	Refused bool
}

// leadLimit bounds the opening prose of a body kept as routing evidence.
// The body itself is never kept: it is read lazily and verified.
const leadLimit = 1000

// Link is a link destination found in a body, as written.
type Link struct {
	Target string
	Line   int
	// Loose marks text that reads like a link but that CommonMark would not
	// make one (say "[a](b c)"): it is checked for escapes, never indexed.
	Loose bool
}

// hostFieldKeys are client-defined keys (Claude Code, OpenCode) that are
// recorded verbatim and never interpreted. In particular allowed-tools and
// friends never grant anything.
var hostFieldKeys = map[string]bool{
	"argument-hint": true, "arguments": true, "model": true, "effort": true,
	"context": true, "agent": true, "hooks": true, "paths": true,
	"user-invocable": true, "disallowed-tools": true, "shell": true, "version": true,
}

// frontmatterKeys and metadataKeys are the keys rlmc reads, by the form
// spelled folds them to (lower case, "-" for "_"), each as rlmc reads it.
var (
	frontmatterKeys = map[string]string{
		"name": "name", "description": "description", "when-to-use": "when_to_use",
		"license": "license", "compatibility": "compatibility", "allowed-tools": "allowed-tools",
		"disable-model-invocation": "disable-model-invocation", "metadata": "metadata",
	}
	metadataKeys = map[string]string{PrologRLMKey: PrologRLMKey}
)

// dependencyKeys are frontmatter keys authors write for what a skill
// needs ("requires: [react-components]"), which no client reads: the
// dependency would be dropped without a word.
var dependencyKeys = map[string]bool{
	"requires": true, "require": true, "dependencies": true, "depends-on": true, "depends": true, "needs": true,
}

// unknownKey says of a frontmatter key rlmc does not read that it is
// ignored: a warning for one that declares dependencies (it says where
// they go) or is a key rlmc reads misspelt beyond case and "_"
// ("descripton"; the skill then most likely lacks what it meant), an
// info for any other (clients add keys of their own).
func unknownKey(s *diagSink, line int, key string, v *yaml.Node) {
	canon := spellingOf(key)
	if dependencyKeys[canon] && namesSkills(v) {
		s.add(line, ir.CodeUnknownField, ir.SeverityWarning,
			"frontmatter key %q is not read: if it names skills this one needs, they are not loaded with it; a skill declares what it requires in metadata.%s (\"requires\": [{\"kind\": \"skill\", \"name\": ...}]), or the host policy's requires", key, PrologRLMKey)
		return
	}
	if meant := suggest.Closest(canon, knownKeys, min(2, max(1, len(canon)/4))); meant != "" {
		s.add(line, ir.CodeMisspelledField, ir.SeverityWarning, "unknown frontmatter key %q ignored; did you mean %q?", key, frontmatterKeys[meant])
		return
	}
	s.add(line, ir.CodeUnknownField, ir.SeverityInfo, "unknown frontmatter key %q ignored", key)
}

// namesSkills reports whether v, a dependency key's value, holds what
// could be a skill's name: a scalar or list item that is a valid name
// ("react-components"), not "none" or a package with its version
// ("Dependencies: none", "dependencies: python>=3.8, pandas>=1.5").
func namesSkills(v *yaml.Node) bool {
	switch v.Kind {
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if namesSkills(item) {
				return true
			}
		}
	case yaml.ScalarNode:
		for item := range strings.SplitSeq(v.Value, ",") {
			switch item = strings.TrimSpace(item); strings.ToLower(item) {
			case "", "none", "n/a", "na", "null", "false", "no":
			default:
				if ValidName(item) {
					return true
				}
			}
		}
	}
	return false
}

// commentCut says, as an info, that the plain value v of key ends where
// " #" opens a YAML comment on its line ("Format C# code #formatting
// #csharp" is read as "Format C# code"): the words after it are lost to
// the description, and every client reads it so; quoting keeps them.
func commentCut(s *diagSink, key string, v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.Style == 0 && v.LineComment != "" {
		s.add(v.Line+1, ir.CodeLenientYAML, ir.SeverityInfo, "%s ends where %q begins: YAML reads \" #\" as a comment's start (quote the value to keep it)", key, clip(v.LineComment))
	}
}

// knownKeys are frontmatterKeys' keys, sorted.
var knownKeys = slices.Sorted(maps.Keys(frontmatterKeys))

// decodeFlag decodes the scalar v as a boolean: YAML's true and false
// (and yes, no, on and off, which yaml.v3 reads as such), or the same
// words quoted, "true" as a string: an author who quoted it meant it, and
// "yes" quoted was already read so.
func decodeFlag(v *yaml.Node, b *bool) bool {
	if v.Tag == "!!str" {
		switch strings.ToLower(v.Value) {
		case "true":
			*b = true
			return true
		case "false":
			*b = false
			return true
		}
	}
	return v.Decode(b) == nil
}

// spelled returns the key rlmc reads for key, which present's keys stand
// beside: a key that is one of known spelled with other case or "_" for
// "-" ("disable_model_invocation", "Description") is read as that one,
// with a misspelled_field warning; an author who wrote it meant it, and
// ignoring "disable_model_invocation: true" would make an explicit-only
// skill automatic. Beside the key itself, it is not read, and "" says so,
// with the same warning: the author's two values may disagree, and the
// one not read was dropped as an unknown key, an info. Any other key is
// returned as it is. "when-to-use" and "when_to_use" are both read.
func spelled(s *diagSink, line int, what, key string, known map[string]string, present map[string]bool) string {
	canon := spellingOf(key)
	want, ok := known[canon]
	if !ok || key == want || (canon == "when-to-use" && key == "when-to-use") {
		return key
	}
	if present[want] {
		s.add(line, ir.CodeMisspelledField, ir.SeverityWarning, "%s %q is not read: %q is there too, and is read; keep one", what, key, want)
		return ""
	}
	s.add(line, ir.CodeMisspelledField, ir.SeverityWarning, "%s %q is read as %q: spell it so", what, key, want)
	return want
}

// readKey is the key rlmc reads key as, "" for one it does not read:
// "when-to-use" and "when_to_use" are one key.
func readKey(key string) string {
	if key == "when-to-use" {
		return "when_to_use"
	}
	if want, ok := frontmatterKeys[spellingOf(key)]; ok && want == key {
		return key
	}
	return "" // a key of its own, or a misspelling beside the key itself
}

// readOnce records that the key written as written, on line, is read as
// want, and reports false, with an invalid_field error, when another
// spelling was read as want before: YAML refuses a key written twice, but
// "Disable-Model-Invocation: true" above "disable_model_invocation:
// false" are two keys, and the last one made an explicit-only skill
// automatic. A key rlmc does not read (want "") is never refused.
func readOnce(s *diagSink, read map[string]int, line int, what, written, want string) bool {
	if want == "" {
		return true
	}
	if first, ok := read[want]; ok {
		s.add(line, ir.CodeInvalidField, ir.SeverityError, "%s %q is read as %q, which line %d already gives: keep one", what, written, want, first)
		return false
	}
	read[want] = line
	return true
}

// spellingOf is key as rlmc compares a key an author may have written with
// other case or "_" for "-" (or "-" for "_"): lower case, with "-".
func spellingOf(key string) string { return strings.ReplaceAll(strings.ToLower(key), "_", "-") }

// NodeShape names the shape of a YAML value for a message ("a list",
// "a whole number"), for skills and host policies alike.
func NodeShape(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!int":
		return "a whole number"
	case "!!float":
		// "budget must be a whole number, not 1.5": "not a number"
		// would say the opposite of what is wrong.
		return n.Value
	case "!!bool":
		return "true or false"
	}
	return "a string"
}

// mappingKeys returns the keys of the YAML mapping m.
func mappingKeys(m *yaml.Node) map[string]bool {
	keys := make(map[string]bool, len(m.Content)/2)
	for i := 0; i < len(m.Content); i += 2 {
		keys[m.Content[i].Value] = true
	}
	return keys
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// diagSink collects diagnostics for one file.
type diagSink struct {
	path  string
	diags ir.Diagnostics
}

func (s *diagSink) add(line int, code ir.Code, sev ir.Severity, format string, args ...any) {
	s.diags.Add(ir.Diagnostic{Path: s.path, Line: line, Code: code, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// addAt is add for the file name beside SKILL.md (a Codex policy, a
// manifest): the diagnostic is placed at that file, where it is fixed.
func (s *diagSink) addAt(name string, code ir.Code, sev ir.Severity, format string, args ...any) {
	s.diags.Add(ir.Diagnostic{Path: path.Join(path.Dir(s.path), name), Code: code, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// addBeside adds the error err of the file name beside SKILL.md (a Codex
// policy, a manifest) at that file, and at its line when the YAML or JSON
// reader gave one: that is where it is fixed.
func (s *diagSink) addBeside(name string, code ir.Code, err error) {
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	msg := yamlAt.ReplaceAllString(err.Error(), "")
	s.diags.Add(ir.Diagnostic{Path: path.Join(path.Dir(s.path), name), Line: line, Code: code, Severity: ir.SeverityError, Message: msg})
}

// yamlAt is the YAML library's prefix and line in a message that quotes it.
var yamlAt = regexp.MustCompile(`yaml: (line \d+: )?`)

// ParseSkill parses the bytes of a SKILL.md. path is used only to locate
// diagnostics. It never panics on any input; a nil Parsed means the file
// could not be read as a skill at all, and the diagnostics say why; a
// Parsed with Refused set was read as far as its name (see Refused).
func ParseSkill(path string, content []byte, limits Limits) (*Parsed, ir.Diagnostics) {
	s := &diagSink{path: path}
	if int64(len(content)) > limits.MaxFileBytes {
		s.add(0, ir.CodeFileTooLarge, ir.SeverityError, "SKILL.md is %d bytes; the limit is %d", len(content), limits.MaxFileBytes)
		return nil, s.diags
	}
	if i := bytes.IndexByte(content, 0); i >= 0 {
		if utf16Text(content) {
			// Every other byte NUL is text saved as UTF-16, as some
			// Windows editors save it: name the fix, not the byte.
			s.add(1, ir.CodeNULByte, ir.SeverityError, "SKILL.md is UTF-16 text (it holds NUL bytes): save it as UTF-8")
			return nil, s.diags
		}
		s.add(lineAt(content, i), ir.CodeNULByte, ir.SeverityError, "SKILL.md contains a NUL byte")
		return nil, s.diags
	}
	if !utf8.Valid(content) {
		s.add(lineAt(content, firstInvalidUTF8(content)), ir.CodeInvalidUTF8, ir.SeverityError, "SKILL.md is not valid UTF-8")
		return nil, s.diags
	}
	start := 0
	if bytes.HasPrefix(content, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	fmText, bodyOffset, ok := splitFrontmatter(content, start)
	if !ok {
		if bodyOffset < 0 {
			s.add(1, ir.CodeInvalidYAML, ir.SeverityError, "frontmatter opened with --- is never closed")
		} else if crOnly(content) {
			s.add(1, ir.CodeMissingFrontmatter, ir.SeverityError, "SKILL.md's lines end in a carriage return alone (classic Mac OS line endings), so no line is ---: save it with LF or CRLF line endings")
		} else {
			s.add(1, ir.CodeMissingFrontmatter, ir.SeverityError, "SKILL.md must start with a --- frontmatter block")
		}
		return nil, s.diags
	}
	if len(fmText) > limits.MaxFrontmatterBytes {
		s.add(1, ir.CodeFrontmatterTooLarge, ir.SeverityError, "frontmatter is %d bytes; the limit is %d", len(fmText), limits.MaxFrontmatterBytes)
		return nil, s.diags
	}
	p := &Parsed{BodyOffset: int64(bodyOffset), BodyLine: lineAt(content, bodyOffset)}
	switch parseFrontmatter(s, fmText, &p.Frontmatter) {
	case fmUnreadable:
		// Not YAML (a repeated key, an anchor): nothing of it is read,
		// but a plain name line still names the invalid unit, which
		// would otherwise take its folder's name and shadow the skill
		// of that name in a root ranked below.
		if name, line, ok := plainName(fmText); ok {
			return &Parsed{Frontmatter: Frontmatter{HasName: true, Name: name, NameLine: line + 1}, Refused: true}, s.diags
		}
		return nil, s.diags
	case fmRefused:
		return &Parsed{Frontmatter: Frontmatter{HasName: p.HasName, Name: p.Name, NameLine: p.NameLine}, Refused: true}, s.diags
	}
	scanBody(content[bodyOffset:], p.BodyLine, p)
	return p, s.diags
}

// utf16Text reports whether content reads as UTF-16: a byte order mark
// of either order, or, in its first bytes, a NUL at every even or every
// odd position (ASCII text in UTF-16 without a mark).
func utf16Text(content []byte) bool {
	if bytes.HasPrefix(content, []byte{0xff, 0xfe}) || bytes.HasPrefix(content, []byte{0xfe, 0xff}) {
		return true
	}
	head := content[:min(len(content), 64)&^1]
	if len(head) < 8 {
		return false
	}
	even, odd := true, true
	for i := 0; i < len(head); i += 2 {
		even = even && head[i] == 0 && head[i+1] != 0
		odd = odd && head[i+1] == 0 && head[i] != 0
	}
	return even || odd
}

// crOnly reports whether content's lines end in a carriage return alone:
// it holds a CR and no LF.
func crOnly(content []byte) bool {
	return bytes.IndexByte(content, '\r') >= 0 && bytes.IndexByte(content, '\n') < 0
}

// splitFrontmatter finds the frontmatter between a first line "---" and the
// next line "---", as clients find it: a "..." line ends a YAML document,
// not the frontmatter, so what follows it up to "---" is a second document
// (which DecodeYAML refuses), never body text the model reads while the
// frontmatter's reader sees none of its keys. It returns the frontmatter with CRLF folded to
// LF, and the byte offset of the body. ok is false when there is no
// frontmatter (offset 0) or when it is never closed (offset -1).
func splitFrontmatter(content []byte, start int) (fm string, bodyOffset int, ok bool) {
	first, rest, found := bytes.Cut(content[start:], []byte("\n"))
	if !isFence(first, "---") {
		return "", 0, false
	}
	if !found {
		return "", -1, false
	}
	fmStart := start + len(first) + 1
	pos := fmStart
	for len(rest) > 0 {
		line, next, more := bytes.Cut(rest, []byte("\n"))
		lineEnd := pos + len(line)
		if more {
			lineEnd++
		}
		if isFence(line, "---") {
			return foldCRLF(content[fmStart:pos]), lineEnd, true
		}
		pos, rest = lineEnd, next
		if !more {
			break
		}
	}
	return "", -1, false
}

// isFence reports whether line is marker followed only by spaces, tabs and
// carriage returns.
func isFence(line []byte, marker string) bool {
	return string(bytes.TrimRight(line, " \t\r")) == marker
}

// foldCRLF returns the frontmatter lines, each ended by "\n", with one
// carriage return dropped before each line feed: a copy made once, and
// line by line only when there is a carriage return to drop.
func foldCRLF(lines []byte) string {
	if bytes.IndexByte(lines, '\r') < 0 {
		return string(lines)
	}
	var b strings.Builder
	b.Grow(len(lines))
	for len(lines) > 0 {
		line, rest, _ := bytes.Cut(lines, []byte("\n"))
		b.Write(bytes.TrimSuffix(line, []byte("\r")))
		b.WriteByte('\n')
		lines = rest
	}
	return b.String()
}

// plainName returns the value of the frontmatter's one top-level
// "name: value" line, and that line's number within it, when there is
// exactly one such line and its value, bare or simply quoted, is a valid
// name.
func plainName(text string) (name string, line int, ok bool) {
	found := 0
	for i, l := range strings.Split(text, "\n") {
		v, is := strings.CutPrefix(strings.TrimRight(l, " \t\r"), "name:")
		if !is {
			continue
		}
		found++
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		name, line = v, i+1
	}
	return name, line, found == 1 && ValidName(name)
}

// fmVerdict is what parseFrontmatter made of a frontmatter.
type fmVerdict uint8

const (
	fmRead       fmVerdict = iota // every field read
	fmRefused                     // a mapping, with a field of the wrong kind
	fmUnreadable                  // not YAML, or not a mapping
)

func parseFrontmatter(s *diagSink, text string, fm *Frontmatter) fmVerdict {
	doc, fast := decodeFrontmatterFast(text)
	var err error
	if !fast {
		doc, err = DecodeYAML([]byte(text))
	}
	var refused *YAMLError
	if err != nil && !errors.As(err, &refused) {
		// Many published skills write "description: Audit code: find bugs",
		// which strict YAML refuses and every client accepts. Quote such
		// plain top-level values and try once more.
		repaired, first := quotePlainValues(text)
		if first < 0 {
			s.add(yamlErrorLine(err), ir.CodeInvalidYAML, ir.SeverityError, "frontmatter is not valid YAML: %s", yamlProblem(text, err))
			return fmUnreadable
		}
		var again error
		if doc, again = DecodeYAML([]byte(repaired)); again != nil && !errors.As(again, &refused) {
			s.add(yamlErrorLine(err), ir.CodeInvalidYAML, ir.SeverityError, "frontmatter is not valid YAML: %s", yamlProblem(text, err))
			return fmUnreadable
		}
		if again == nil {
			// The line of the first value quoted (the frontmatter's line
			// i is the file's i+2): the YAML library's own line is where
			// it gave up, which for the first line it does not say.
			s.add(first+2, ir.CodeLenientYAML, ir.SeverityInfo, "a plain value holds \": \"; read it as text, as clients do (quote it to silence this)")
		}
	}
	if refused != nil {
		s.add(refused.Line+1, ir.CodeInvalidYAML, ir.SeverityError, "frontmatter: %s", refused.Msg)
		return fmUnreadable
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return fmRead // empty frontmatter: the missing fields are reported later
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		s.add(root.Line+1, ir.CodeInvalidYAML, ir.SeverityError, "frontmatter must be a mapping of keys to values")
		return fmUnreadable
	}
	valid := true
	present := mappingKeys(root)
	read := map[string]int{} // a key rlmc reads, by the line it was read from
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		line := k.Line + 1 // the frontmatter starts on file line 2
		key := spelled(s, line, "frontmatter key", k.Value, frontmatterKeys, present)
		if key == "" {
			continue
		}
		if !readOnce(s, read, line, "frontmatter key", k.Value, readKey(key)) {
			valid = false
			continue
		}
		bad := func(want string) {
			s.add(line, ir.CodeInvalidField, ir.SeverityError, "%s must be %s", key, want)
			valid = false
		}
		switch key {
		case "name":
			fm.HasName, fm.NameLine = true, line
			if !scalarString(v, &fm.Name) {
				bad("a string")
			}
		case "description":
			fm.DescriptionLine = line
			if !scalarString(v, &fm.Description) {
				bad("a string")
			}
			commentCut(s, k.Value, v)
		case "when_to_use", "when-to-use":
			if !scalarString(v, &fm.WhenToUse) {
				bad("a string")
			}
			commentCut(s, k.Value, v)
		case "license":
			if !scalarString(v, &fm.License) {
				bad("a string")
			}
		case "compatibility":
			fm.CompatibilityLine = line
			if !scalarString(v, &fm.Compatibility) {
				bad("a string")
			}
		case "allowed-tools":
			tools, ok := stringOrList(v)
			if !ok {
				bad("a string or a list of strings")
			}
			fm.AllowedTools = tools
		case "disable-model-invocation":
			// An empty value is no answer: it would leave the skill
			// automatic, which its author did not write.
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || !decodeFlag(v, &fm.DisableModelInvocation) {
				bad("true or false")
			}
		case "metadata":
			if v.Kind != yaml.MappingNode {
				bad("a mapping of strings to strings")
				continue
			}
			fm.Metadata, fm.MetadataLines = map[string]string{}, map[string]int{}
			inMetadata := mappingKeys(v)
			readMeta := map[string]int{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				mk, mv := v.Content[j], v.Content[j+1]
				var val string
				if mk.Kind != yaml.ScalarNode {
					s.add(mk.Line+1, ir.CodeInvalidField, ir.SeverityError, "metadata.%s must be a string", mk.Value)
					valid = false
					continue
				}
				if !scalarString(mv, &val) {
					// The Agent Skills format says strings, and published
					// collections put mappings there for other clients
					// (metadata.openclaw: {requires: ...}): the value is
					// left out and the skill stays usable. prolog-rlm is
					// rlmc's own, and must be its JSON string.
					if spellingOf(mk.Value) == PrologRLMKey {
						s.add(mk.Line+1, ir.CodeInvalidField, ir.SeverityError, "metadata.%s must be a string", mk.Value)
						valid = false
						continue
					}
					s.add(mk.Line+1, ir.CodeInvalidField, ir.SeverityWarning, "metadata.%s is %s, not a string: left out (metadata holds strings)", mk.Value, NodeShape(mv))
					continue
				}
				mkey := spelled(s, mk.Line+1, "metadata key", mk.Value, metadataKeys, inMetadata)
				if mkey == "" {
					continue
				}
				if want := metadataKeys[spellingOf(mkey)]; want == mkey && !readOnce(s, readMeta, mk.Line+1, "metadata key", mk.Value, mkey) {
					valid = false
					continue
				}
				fm.Metadata[mkey] = val
				fm.MetadataLines[mkey] = mk.Line + 1
			}
		default:
			if hostFieldKeys[k.Value] {
				var val any
				if err := v.Decode(&val); err != nil {
					bad("well-formed YAML")
					continue
				}
				if fm.HostFields == nil {
					fm.HostFields = map[string]any{}
				}
				fm.HostFields[k.Value] = val
				continue
			}
			unknownKey(s, line, k.Value, v)
		}
	}
	if !valid {
		return fmRefused
	}
	return fmRead
}

// continuationEnds reports whether an indented line ends a plain value
// wrapped onto it rather than continue it: a blank line, or a comment (a
// "#" first, which YAML reads as one).
func continuationEnds(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == '#'
}

var topLevelPair = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(.+)$`)

// quotePlainValues single-quotes top-level plain values that contain ": ",
// which strict YAML refuses and people write in a sentence, and returns
// the text and the index of the first line it quoted (-1: none). A value
// holding " #" and no ": " is left as it is: strict YAML reads the rest
// as a comment, as it did before the repair (quoted, "true # only for
// users" was a string, and made a valid flag invalid). A value wrapped
// onto lines indented with spaces below its key is one value, as YAML
// folds a plain one: its lines are joined by a space onto the key's line,
// and left blank, so that every other line keeps its number (a line
// indented with a tab is no YAML, and said so).
func quotePlainValues(text string) (repaired string, first int) {
	lines := strings.Split(text, "\n")
	first = -1
	for i, l := range lines {
		m := topLevelPair.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v := strings.TrimRight(m[2], " \t")
		if v == "" || strings.ContainsAny(v[:1], `'"[{|>&*!%@`+"`") {
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "" && lines[end][0] == ' ' && !continuationEnds(lines[end]) {
			v += " " + strings.TrimSpace(lines[end])
			end++
		}
		if !strings.Contains(v, ": ") {
			continue
		}
		lines[i] = m[1] + ": '" + strings.ReplaceAll(v, "'", "''") + "'"
		for j := i + 1; j < end; j++ {
			lines[j] = ""
		}
		if first < 0 {
			first = i
		}
	}
	return strings.Join(lines, "\n"), first
}

// scalarString accepts a YAML scalar of any tag as text, the way clients do
// (a description of "yes" stays the text "yes").
func scalarString(n *yaml.Node, out *string) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	if n.Tag == "!!null" {
		*out = ""
		return true
	}
	*out = n.Value
	return true
}

func stringOrList(n *yaml.Node) ([]string, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		var s string
		scalarString(n, &s)
		return strings.Fields(strings.ReplaceAll(s, ",", " ")), true
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			var s string
			if !scalarString(c, &s) {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// YAMLError is YAML that parses but that rlmc refuses because readers
// disagree on what it means: a second document (most readers ignore it, some
// read it), an anchor or alias (expansion can be exponential), a merge key
// (YAML 1.1 readers apply it, YAML 1.2 readers keep a key named "<<") or a
// repeated key (which one wins differs). Line is 1-based in the YAML text.
type YAMLError struct {
	Line int
	Msg  string
}

func (e *YAMLError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// DecodeYAML parses data as at most one YAML document and refuses every
// construct that YAMLError lists. It is the one place every YAML rlmc reads
// goes through (frontmatter, agents/openai.yaml, the host policy), so that
// they all fail closed alike. Empty input is a document of kind 0. A syntax
// error is returned as yaml.v3 reports it ("yaml: line N: problem"), its
// line counted from 1 (syntaxLine); a refusal is a *YAMLError.
func DecodeYAML(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{}, nil
		}
		return nil, syntaxLine(err, data)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxLine(err, data)
	default:
		return nil, &YAMLError{Line: max(extra.Line, 1), Msg: "more than one YAML document; readers disagree on which one counts"}
	}
	if err := refuseAmbiguous(&doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// syntaxLine returns err, a yaml.v3 syntax error in data, placed on a
// line of data counted from 1, as a reader counts. yaml.v3 places its
// scanner's problems so, but its parser's at a mark counted from 0, one
// line above ("foo: [x" on the fifth line was said to be on the fourth,
// and a newcomer edited a good line); either on the first line at no line
// at all; and a problem found at the end of data (a list or a quote left
// open) past its last line.
func syntaxLine(err error, data []byte) error {
	msg := err.Error()
	problem, ok := strings.CutPrefix(msg, "yaml: ")
	if !ok || slices.ContainsFunc(composerProblems, func(p string) bool { return strings.HasPrefix(problem, p) }) {
		return err
	}
	line := 1
	if m := yamlSyntax.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		problem = m[2]
		if slices.Contains(parserProblems, problem) {
			line++
		}
	}
	last := bytes.Count(bytes.TrimRight(data, "\n"), []byte("\n")) + 1
	return &syntaxError{msg: fmt.Sprintf("yaml: line %d: %s", min(line, last), problem), err: err}
}

// yamlSyntax matches a yaml.v3 syntax error that names its line.
var yamlSyntax = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the problems yaml.v3's parser reports (parserc.go),
// which it places at lines counted from 0; its scanner's are all others.
var parserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"found undefined tag handle", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document", "found duplicate %TAG directive",
}

// composerProblems begin the problems yaml.v3 finds once the text is
// read (an alias to no anchor), which it places nowhere: not on the first
// line.
var composerProblems = []string{"unknown anchor", "anchor '", "document contains excessive aliasing", "attempted to go past the end of stream"}

// syntaxError is a yaml.v3 syntax error said with its line counted from 1.
type syntaxError struct {
	msg string
	err error
}

func (e *syntaxError) Error() string { return e.msg }
func (e *syntaxError) Unwrap() error { return e.err }

// refuseAmbiguous walks the tree in document order and reports the first
// anchor, alias, merge key or repeated key.
func refuseAmbiguous(n *yaml.Node) *YAMLError {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return &YAMLError{Line: n.Line, Msg: "YAML anchors and aliases are not allowed"}
	}
	var seen map[string]bool
	if n.Kind == yaml.MappingNode {
		seen = make(map[string]bool, len(n.Content)/2)
	}
	for i, c := range n.Content {
		if seen != nil && i%2 == 0 {
			// A merge key is refused however it is spelled: a quoted "<<"
			// is a plain key to some readers and a merge to others.
			if c.Kind == yaml.ScalarNode && (c.Value == "<<" || c.ShortTag() == "!!merge") {
				return &YAMLError{Line: c.Line, Msg: "YAML merge keys (<<) are not allowed"}
			}
			if seen[c.Value] {
				return &YAMLError{Line: c.Line, Msg: fmt.Sprintf("key %q appears twice; which one wins would be a guess", clip(c.Value))}
			}
			seen[c.Value] = true
		}
		if err := refuseAmbiguous(c); err != nil {
			return err
		}
	}
	return nil
}

func yamlErrorLine(err error) int {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n + 1
	}
	return 1
}

// yamlProblem is cleanYAMLError's message, and, when a line of the
// frontmatter text is indented with a tab (YAML indents with spaces only,
// and says "found character that cannot start any token"), which line
// that is: the commonest mistake of a hand-written frontmatter.
func yamlProblem(text string, err error) string {
	msg := cleanYAMLError(err)
	if !strings.Contains(msg, "tab") && !strings.Contains(msg, "cannot start any token") {
		return msg
	}
	// The frontmatter's line i is the file's i+2 (after "---"). The error
	// names the tab's line, or, for a tab that breaks the indentation, the
	// line before it: only these two are looked at, as a tab inside a
	// block scalar's text is no error.
	lines := strings.Split(text, "\n")
	for i := max(0, yamlErrorLine(err)-2); i < min(len(lines), yamlErrorLine(err)); i++ {
		line := lines[i]
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if strings.Contains(indent, "\t") && strings.TrimSpace(line) != "" {
			return fmt.Sprintf("%s (line %d is indented with a tab: YAML indents with spaces)", msg, i+2)
		}
	}
	return msg
}

// cleanYAMLError is the YAML library's message without its prefix, nor the
// line it counts within the frontmatter: the diagnostic names the file's
// line (yamlErrorLine), and two numbers for one place read as two places.
func cleanYAMLError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if loc := yamlLine.FindStringIndex(msg); loc != nil && loc[0] == 0 {
		msg = strings.TrimPrefix(msg[loc[1]:], ": ")
	}
	return msg
}

// scanBody collects headings and links, skipping fenced code. It works on
// the bytes of body and copies only what it keeps (headings, and the lead
// once), since it runs over every line of every skill a load reads.
func scanBody(body []byte, firstLine int, p *Parsed) {
	p.Links = scanLinks(body, firstLine)
	inFence := false
	// The lead is built on the stack: no more than leadLimit+1 bytes are
	// ever appended, which is all the cut to leadLimit on a character
	// boundary looks at.
	var leadBuf [leadLimit + 1]byte
	lead := leadBuf[:0]
	for len(body) > 0 {
		raw, rest, _ := bytes.Cut(body, []byte("\n"))
		text := bytes.TrimRight(raw, "\r")
		trimmed := bytes.TrimSpace(text)
		switch {
		case bytes.HasPrefix(trimmed, []byte("```")) || bytes.HasPrefix(trimmed, []byte("~~~")):
			inFence = !inFence
		case inFence:
		default:
			if h, ok := heading(text); ok {
				p.Headings = append(p.Headings, string(h))
			} else if len(trimmed) > 0 && len(lead) < leadLimit {
				if len(lead) > 0 {
					lead = append(lead, ' ')
				}
				lead = append(lead, trimmed[:min(len(trimmed), cap(lead)-len(lead))]...)
				if len(lead) > leadLimit {
					lead = lead[:truncatedLen(lead, leadLimit)]
				}
			}
		}
		body = rest
	}
	p.Lead = string(lead)
}

// heading returns the text of an ATX heading line, as the regular
// expression ^#{1,6}\s+(.+?)\s*#*\s*$ (with RE2's ASCII \s) captures it:
// one to six hashes, at least one space, then the shortest text of at
// least one character after which only spaces, hashes and spaces remain.
// TestHeadingMatchesRegexp holds it to that expression.
func heading(line []byte) ([]byte, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(line) || !reSpace(line[n]) {
		return nil, false
	}
	p := n
	for p < len(line) && reSpace(line[p]) {
		p++
	}
	if p == len(line) {
		// Only spaces follow: \s+ gives its last one back to (.+?).
		if p-n < 2 {
			return nil, false
		}
		return line[p-1:], true
	}
	// s is where the longest tail of spaces, hashes and spaces begins;
	// the capture ends there, but holds at least one character.
	s := len(line)
	for s > p && reSpace(line[s-1]) {
		s--
	}
	for s > p && line[s-1] == '#' {
		s--
	}
	for s > p && reSpace(line[s-1]) {
		s--
	}
	if _, size := utf8.DecodeRune(line[p:]); s < p+size {
		s = p + size
	}
	return line[p:s], true
}

// reSpace is RE2's \s: ASCII space, tab, newline, form feed, carriage return.
func reSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// truncatedLen is the length of b cut to at most n bytes on a rune
// boundary; b is longer than n.
func truncatedLen(b []byte, n int) int {
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

func lineAt(content []byte, offset int) int {
	if offset > len(content) {
		offset = len(content)
	}
	return bytes.Count(content[:offset], []byte("\n")) + 1
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
