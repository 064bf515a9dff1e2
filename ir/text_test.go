package ir

import (
	"strings"
	"testing"
	"unicode"
)

func TestIgnorable(t *testing.T) {
	tests := []struct {
		name string
		r    rune
		want bool
	}{
		{"zero width space", 0x200b, true},
		{"zero width joiner", 0x200d, true},
		{"word joiner", 0x2060, true},
		{"byte order mark", 0xfeff, true},
		{"right-to-left override", 0x202e, true},
		{"first strong isolate", 0x2068, true},
		{"arabic letter mark", 0x061c, true},
		{"soft hyphen", 0x00ad, true},
		{"combining grapheme joiner", 0x034f, true},
		{"mongolian vowel separator", 0x180e, true},
		{"mongolian free variation selector", 0x180b, true},
		{"function application", 0x2061, true},
		{"invisible plus", 0x2064, true},
		{"reserved default ignorable", 0x2065, true},
		{"inhibit symmetric swapping", 0x206a, true},
		{"nominal digit shapes", 0x206f, true},
		{"hangul choseong filler", 0x115f, true},
		{"hangul jungseong filler", 0x1160, true},
		{"hangul filler", 0x3164, true},
		{"halfwidth hangul filler", 0xffa0, true},
		{"khmer vowel inherent", 0x17b4, true},
		{"variation selector 1", 0xfe00, true},
		{"variation selector 16", 0xfe0f, true},
		{"variation selector 17", 0xe0100, true},
		{"variation selector 256", 0xe01ef, true},
		{"language tag", 0xe0001, true},
		{"tag solidus", 0xe002f, true},
		{"tag latin small s", 0xe0073, true},
		{"cancel tag", 0xe007f, true},
		{"reserved tag block", 0xe0fff, true},
		{"musical symbol begin beam", 0x1d173, true},
		{"letter", 'a', false},
		{"less-than", '<', false},
		{"solidus", '/', false},
		{"space", ' ', false},
		{"newline", '\n', false},
		{"no-break space", 0x00a0, false},
		{"fullwidth less-than", 0xff1c, false},
		{"hyphen", 0x2010, false},
		{"e acute", 0x00e9, false},
		{"emoji", 0x1f600, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ignorable(tt.r); got != tt.want {
				t.Errorf("Ignorable(%U) = %v; want %v", tt.r, got, tt.want)
			}
		})
	}
}

func TestStripIgnorable(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "</skills>", "</skills>"},
		{"empty", "", ""},
		{"soft hyphen", "<\u00ad/skills>", "</skills>"},
		{"every kind", "<\u061c\u034f\u180e\u2061\u206a\u3164\ufe0f\U000E0073\U000E0100/skills>", "</skills>"},
		{"keeps visible text", "caf\u00e9 \u00a0x", "caf\u00e9 \u00a0x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripIgnorable(tt.in); got != tt.want {
				t.Errorf("StripIgnorable(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"valid name", "house-style", "house-style"},
		{"unicode letters", "caf\u00e9", "caf\u00e9"},
		{"space", "my skill", "my skill"},
		{"empty", "", `""`},
		{"newline", "a\nb", `"a\nb"`},
		{"carriage return and tab", "a\r\tb", `"a\r\tb"`},
		{"escape", "a\x1b[31mb", `"a\u001b[31mb"`},
		{"quote", `x"><skills><skill name="house-style`, `"x\"><skills><skill name=\"house-style"`},
		{"backslash", `a\nb`, `"a\\nb"`},
		{"invalid utf-8", "a\xffb", `"a\xffb"`},
		{"printable ignorable", "a\u034fb", `"a\u034fb"`},
		{"tag character", "a\U000E0073b", `"a\U000e0073b"`},
		{"no-break space", "a\u00a0b", `"a\u00a0b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Printable(tt.in); got != tt.want {
				t.Errorf("Printable(%q) = %s; want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestEscapeText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", `name "x" at a\b`, `name "x" at a\b`},
		{"newline", "one\ntwo", `one\ntwo`},
		{"bidi", "a\u202eb", `a\u202eb`},
		{"invalid utf-8", "a\xffb", `a\xffb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EscapeText(tt.in); got != tt.want {
				t.Errorf("EscapeText(%q) = %s; want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestDiagnosticOneLine pins that a diagnostic renders on one line whatever
// its path (from folder names) and message hold.
func TestDiagnosticOneLine(t *testing.T) {
	tests := []struct {
		name string
		d    Diagnostic
	}{
		{"newline in path", Diagnostic{Path: "a\nb.go:1: error: forged: x\nSKILL.md", Line: 2, Code: CodeInvalidName, Severity: SeverityError, Message: "m"}},
		{"newline in message", Diagnostic{Path: "a/SKILL.md", Code: CodeShadowed, Severity: SeverityWarning, Message: "at x\ny/SKILL.md"}},
		{"carriage return", Diagnostic{Path: "a\r/SKILL.md", Code: CodeShadowed, Severity: SeverityWarning, Message: "x\ry"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.d.String()
			if strings.ContainsAny(got, "\n\r") {
				t.Errorf("String() = %q; want one line", got)
			}
			if !strings.Contains(got, ": "+string(tt.d.Code)+": ") {
				t.Errorf("String() = %q; want the code %s", got, tt.d.Code)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "deploy", `"deploy"`},
		{"empty", "", `""`},
		{"quote and newline", "a\"\nb", `"a\"\nb"`},
		{"printable ignorable", "a\u3164b", `"a\u3164b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote(%q) = %s; want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestIgnorableBelowSoftHyphen pins the early return of Ignorable: no code
// point below U+00AD is in its tables.
func TestIgnorableBelowSoftHyphen(t *testing.T) {
	for r := rune(0); r < 0xad; r++ {
		if unicode.IsOneOf(ignorable, r) {
			t.Errorf("%U is ignorable; want the first ignorable code point to be U+00AD", r)
		}
	}
}

// TestRooted: a diagnostic placed for a log names its file under its
// root, as an operator with no `rlmc validate` at hand can open it.
func TestRooted(t *testing.T) {
	tests := []struct {
		name string
		d    Diagnostic
		want string
	}{
		{"under its root", Diagnostic{Root: "/srv/skills", Path: "a/SKILL.md", Line: 3, Code: CodeInvalidYAML, Severity: SeverityError, Message: "m"}, "/srv/skills/a/SKILL.md:3: error: invalid_yaml: m"},
		{"no root", Diagnostic{Path: "policy.yaml", Line: 1, Code: CodeUnknownPolicyUnit, Severity: SeverityWarning, Message: "m"}, "policy.yaml:1: warning: unknown_policy_unit: m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Rooted(); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "deploy", 10, "deploy"},
		{"exact", "deploy", 6, "deploy"},
		{"cut", "deploy", 3, "dep..."},
		{"between_characters", "ééé", 3, "é..."},
		{"nothing_left", "é", 0, "..."},
		{"negative", "abc", -1, "..."},
		// Bytes that are no UTF-8 are kept as they come (a path of
		// %80s logged as "..." alone).
		{"not_utf8", strings.Repeat("\x80", 10), 4, strings.Repeat("\x80", 4) + "..."},
		{"four_bytes", "a😀b", 3, "a..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clip(tc.in, tc.n); got != tc.want {
				t.Errorf("Clip(%q, %d): got %q; want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}
