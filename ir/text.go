package ir

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ignorable is the set of code points rlmc treats as invisible: every
// format character (Cf: zero-width and bidirectional controls, soft hyphen,
// invisible operators, tag characters, ...) and the rest of the Unicode
// default-ignorable code points (combining grapheme joiner, Hangul fillers,
// variation selectors, the reserved default-ignorable ranges). Go's tables
// follow the Unicode version of the standard library.
var ignorable = []*unicode.RangeTable{
	unicode.Cf,
	unicode.Other_Default_Ignorable_Code_Point,
	unicode.Variation_Selector,
}

// Ignorable reports whether r renders as nothing: a format character (Cf)
// or another default-ignorable code point. Such characters only serve to
// hide text from the people reading it, or to split a word a reader would
// still see whole.
func Ignorable(r rune) bool {
	// The first ignorable code point is U+00AD; most text never gets past
	// this test.
	return r >= 0xad && unicode.IsOneOf(ignorable, r)
}

// StripIgnorable returns s without its ignorable code points.
func StripIgnorable(s string) string {
	i := strings.IndexFunc(s, Ignorable)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if !Ignorable(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Printable returns s as it can be written into one line of text output:
// s itself when it is non-empty and every character is printable, visible
// and neither a quote nor a backslash; otherwise s double-quoted with Go
// escapes, where ignorable characters are escaped even when Go would print
// them. Names and paths come from folder names, which may hold anything
// but "/" and NUL; quoting keeps a newline from starting a forged line and
// keeps two different names from printing alike.
func Printable(s string) string {
	if s != "" && !needsEscape(s, true) {
		return s
	}
	return Quote(s)
}

// Clip returns s cut to at most n bytes (Cut), with "..." after it when
// cut: what a message or a log line quotes of a value a client or a folder
// chose, which may be megabytes long.
func Clip(s string, n int) string {
	if c, cut := Cut(s, n); cut {
		return c + "..."
	}
	return s
}

// Cut returns the first n bytes of s, fewer to end between two characters
// (bytes that are no UTF-8 are characters of their own), and whether it
// cut anything.
func Cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	end := max(n, 0)
	for back := 0; end > 0 && back < utf8.UTFMax-1 && !utf8.RuneStart(s[end]); back++ {
		end--
	}
	if !utf8.RuneStart(s[end]) {
		end = max(n, 0) // a run of continuation bytes: no character to keep whole
	}
	return s[:end], true
}

// Quote returns s double-quoted with Go escapes, as strconv.Quote does,
// except that ignorable characters are escaped too although Go would print
// them.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	escape(&b, s, true)
	b.WriteByte('"')
	return b.String()
}

// EscapeText returns s with every character that is not printable, or is
// ignorable, written as a Go escape (\n, \t, \u00ad, \xff for a byte that is
// not UTF-8), and everything else unchanged. It is for free text such as
// diagnostic messages, which must stay on one line whatever they quote.
func EscapeText(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	var b strings.Builder
	escape(&b, s, false)
	return b.String()
}

// needsEscape reports whether escape would change s; quoted adds the quote
// and the backslash to what must be escaped.
func needsEscape(s string, quoted bool) bool {
	for _, r := range s {
		if !plain(r) || quoted && (r == '"' || r == '\\') {
			return true
		}
	}
	return false
}

// plain reports whether r can be written as itself. An invalid byte decodes
// as utf8.RuneError, which is not plain, so it is escaped byte by byte.
func plain(r rune) bool {
	return r != utf8.RuneError && strconv.IsPrint(r) && !Ignorable(r)
}

func escape(b *strings.Builder, s string, quoted bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case quoted && (r == '"' || r == '\\'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case plain(r):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x10000:
			b.WriteString(`\u`)
			b.WriteString(pad(strconv.FormatInt(int64(r), 16), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(pad(strconv.FormatInt(int64(r), 16), 8))
		}
		i += n
	}
}

func hex2(c byte) string { return pad(strconv.FormatInt(int64(c), 16), 2) }

func pad(s string, n int) string {
	return strings.Repeat("0", n-len(s)) + s
}
