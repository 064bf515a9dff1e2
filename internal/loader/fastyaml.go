package loader

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// This file reads the frontmatter most skills write (one line per key, a
// plain or quoted string per value, and a mapping of such lines under a key
// such as metadata) without yaml.v3, which costs about twenty allocations a
// line. It builds the very node tree DecodeYAML would return for that text,
// or says it cannot, and then DecodeYAML reads it: anything it is not sure
// of (comments, blank lines, block scalars, lists, flow collections,
// anchors, tags, escapes, a value that resolves to other than a string,
// repeated keys, a key that is not a plain word) falls to yaml.v3, so every
// refusal and every error still comes from DecodeYAML. TestFastYAML and
// FuzzFastYAML hold the two to the same tree.

// maxFastKey bounds a key the fast path reads; YAML refuses implicit keys
// over 1,024 characters, and frontmatter keys are short words.
const maxFastKey = 128

// fastLine is one "key: value" line of the frontmatter.
type fastLine struct {
	indent     int    // spaces before the key
	key        string // the key, a plain word
	value      string // the value's text, unquoted; empty when none
	style      yaml.Style
	valueCol   int // 1-based column of the value
	hasValue   bool
	lineNumber int // 1-based
}

// decodeFrontmatterFast returns the node tree DecodeYAML returns for text,
// when text is in the simple form this file reads; ok is false otherwise,
// and the caller uses DecodeYAML.
func decodeFrontmatterFast(text string) (doc *yaml.Node, ok bool) {
	if text == "" || text[len(text)-1] != '\n' {
		return nil, false
	}
	var lines [24]fastLine
	ls := lines[:0]
	for pos, n := 0, 1; pos < len(text); n++ {
		end := pos
		for text[end] != '\n' {
			end++
		}
		l, ok := fastParseLine(text[pos:end], n)
		if !ok {
			return nil, false
		}
		ls = append(ls, l)
		pos = end + 1
	}
	// Count the nodes first, so that they are one allocation.
	count, top := 2, 0 // document and mapping; top-level keys
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		if l.indent != 0 {
			return nil, false // indented without a key above that opens a mapping
		}
		count += 2
		top++
		if l.hasValue {
			continue
		}
		// A key without a value opens a mapping of the lines indented
		// below it, all by the same amount; a key with nothing below it is
		// null, which yaml.v3 reads.
		j := i + 1
		for j < len(ls) && ls[j].indent != 0 {
			if ls[j].indent != ls[i+1].indent || !ls[j].hasValue {
				return nil, false
			}
			j++
		}
		if j == i+1 {
			return nil, false
		}
		count += 2 * (j - i - 1)
		i = j - 1
	}
	nodes := make([]yaml.Node, count)
	next := 0
	node := func() *yaml.Node { n := &nodes[next]; next++; return n }
	doc = node()
	root := node()
	*doc = yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}
	*root = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1, Content: make([]*yaml.Node, 0, 2*top)}
	topKeys := newKeySet(top)
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		k := node()
		*k = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: l.key, Line: l.lineNumber, Column: 1}
		v := node()
		if topKeys.repeats(root.Content, l.key) {
			return nil, false // repeated: DecodeYAML refuses it
		}
		root.Content = append(root.Content, k, v)
		if l.hasValue {
			*v = l.scalar()
			continue
		}
		j := i + 1
		for j < len(ls) && ls[j].indent != 0 {
			j++
		}
		*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: ls[i+1].lineNumber, Column: ls[i+1].indent + 1, Content: make([]*yaml.Node, 0, 2*(j-i-1))}
		keys := newKeySet(j - i - 1)
		for _, m := range ls[i+1 : j] {
			mk, mv := node(), node()
			*mk = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: m.key, Line: m.lineNumber, Column: m.indent + 1}
			*mv = m.scalar()
			if keys.repeats(v.Content, m.key) {
				return nil, false
			}
			v.Content = append(v.Content, mk, mv)
		}
		i = j - 1
	}
	return doc, true
}

// keySet finds a key repeated in one mapping of n keys: by scanning the
// pairs read so far while n is small (nearly every frontmatter, and
// faster than a map), by a map past scanKeys (a frontmatter of 5,800
// metadata keys took 60 ms scanning).
type keySet map[string]bool

// scanKeys is the most keys a mapping's repeats are found by scanning.
const scanKeys = 32

func newKeySet(n int) keySet {
	if n <= scanKeys {
		return nil
	}
	return make(keySet, n)
}

// repeats reports whether key is one of the mapping's keys read so far
// (pairs, its content), and records it.
func (s keySet) repeats(pairs []*yaml.Node, key string) bool {
	if s == nil {
		return fastHasKey(pairs, key)
	}
	if s[key] {
		return true
	}
	s[key] = true
	return false
}

// fastHasKey reports whether the mapping content pairs hold key.
func fastHasKey(pairs []*yaml.Node, key string) bool {
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i].Value == key {
			return true
		}
	}
	return false
}

func (l fastLine) scalar() yaml.Node {
	return yaml.Node{Kind: yaml.ScalarNode, Style: l.style, Tag: "!!str", Value: l.value, Line: l.lineNumber, Column: l.valueCol}
}

// fastParseLine reads one line: spaces, a plain word as key, a colon, and
// either nothing or spaces and a value.
func fastParseLine(line string, n int) (fastLine, bool) {
	l := fastLine{lineNumber: n}
	for l.indent < len(line) && line[l.indent] == ' ' {
		l.indent++
	}
	i := l.indent
	if i >= len(line) || !fastLetter(line[i]) && line[i] != '_' {
		return l, false
	}
	for i < len(line) && (fastLetter(line[i]) || line[i] >= '0' && line[i] <= '9' || line[i] == '_' || line[i] == '-') {
		i++
	}
	if i == len(line) || line[i] != ':' || i-l.indent > maxFastKey {
		return l, false
	}
	l.key = line[l.indent:i]
	if !fastPlainString(l.key) {
		return l, false
	}
	i++
	if i == len(line) {
		return l, true // a key that opens a mapping (or is null)
	}
	if line[i] != ' ' {
		return l, false
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i == len(line) {
		return l, false // trailing spaces: leave it to yaml.v3
	}
	l.hasValue, l.valueCol = true, i+1
	v := line[i:]
	if !fastSafeText(v) {
		return l, false
	}
	switch c := v[0]; {
	case c == '\'':
		return l, fastSingleQuoted(v, &l)
	case c == '"':
		// Only without escapes: the closing quote ends the line.
		for k := 1; k < len(v); k++ {
			switch v[k] {
			case '\\':
				return l, false
			case '"':
				if k != len(v)-1 {
					return l, false
				}
				l.value, l.style = v[1:k], yaml.DoubleQuotedStyle
				return l, true
			}
		}
		return l, false
	case fastLetter(c):
		// A plain scalar: no ": " or " #" inside, no ":" or space at the
		// end, and text that does not resolve to a bool or null.
		for k := 0; k < len(v); k++ {
			switch v[k] {
			case ':':
				if k == len(v)-1 || v[k+1] == ' ' {
					return l, false
				}
			case '#':
				if v[k-1] == ' ' {
					return l, false
				}
			}
		}
		if v[len(v)-1] == ' ' || !fastPlainString(v) {
			return l, false
		}
		l.value = v
		return l, true
	case fastVersion(v):
		// A version number (1.2.0) is text to YAML: neither an int nor
		// a float nor a date.
		l.value = v
		return l, true
	}
	return l, false
}

// fastVersion reports whether v is digits in three groups or more joined
// by single dots, a number with no leading zero in each: "1.2.0", which
// no YAML resolver reads as other than a string.
func fastVersion(v string) bool {
	groups := 0
	for _, g := range strings.Split(v, ".") {
		if g == "" || len(g) > 9 || (len(g) > 1 && g[0] == '0') || strings.Trim(g, "0123456789") != "" {
			return false
		}
		groups++
	}
	return groups >= 3
}

// fastSingleQuoted reads a single-quoted value that ends the line; a
// doubled quote inside stands for one.
func fastSingleQuoted(v string, l *fastLine) bool {
	var buf []byte
	start := 1
	for k := 1; k < len(v); k++ {
		if v[k] != '\'' {
			continue
		}
		if k+1 < len(v) && v[k+1] == '\'' {
			buf = append(buf, v[start:k+1]...)
			k++
			start = k + 1
			continue
		}
		if k != len(v)-1 {
			return false
		}
		if buf == nil {
			l.value = v[start:k]
		} else {
			l.value = string(append(buf, v[start:k]...))
		}
		l.style = yaml.SingleQuotedStyle
		return true
	}
	return false
}

func fastLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// fastPlainString reports whether a plain scalar that starts with a letter
// resolves to a string: in yaml.v3 only the bools and null do not.
func fastPlainString(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return false
	}
	return true
}

// fastSafeText reports whether s holds only characters that YAML reads as
// text and never as a break, a tab or a byte order mark: printable ASCII
// and non-control characters outside U+2028, U+2029, U+FEFF and the
// noncharacters U+FFFE and U+FFFF.
func fastSafeText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff, r == 0xfffe, r == 0xffff:
			return false
		}
		i += size
	}
	return true
}
