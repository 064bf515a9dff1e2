package loader

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

func codes(ds ir.Diagnostics) []ir.Code {
	var out []ir.Code
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

func TestParseSkill(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		want     ir.Code // expected diagnostic; "" for none
		wantNil  bool
		refused  bool // Refused: read as far as its name
		wantName string
		wantDesc string
		wantLine int
	}{
		{name: "minimal", content: "---\nname: a\ndescription: d\n---\nbody\n", wantName: "a", wantDesc: "d"},
		{name: "bom and crlf", content: "\xef\xbb\xbf---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n", wantName: "a", wantDesc: "d"},
		// "..." ends a YAML document, not the frontmatter: clients read
		// on to "---", and keys after "..." are a second document.
		{name: "dots close no frontmatter", content: "---\nname: a\ndescription: d\n...\nbody\n", want: ir.CodeInvalidYAML, wantNil: true},
		{name: "keys after dots are a second document", content: "---\nname: a\ndescription: d\n...\ndisable-model-invocation: true\n---\nbody\n", want: ir.CodeInvalidYAML, refused: true, wantName: "a"},
		{name: "dots just before the close", content: "---\nname: a\ndescription: d\n...\n---\nbody\n", wantName: "a"},
		{name: "no frontmatter", content: "# just markdown\n", want: ir.CodeMissingFrontmatter, wantNil: true},
		{name: "unterminated", content: "---\nname: a\n", want: ir.CodeInvalidYAML, wantNil: true},
		{name: "bad yaml", content: "---\nname: [a\ndescription: d\n---\n", want: ir.CodeInvalidYAML, wantNil: true},
		{name: "duplicate key", content: "---\nname: a\nname: b\ndescription: d\n---\n", want: ir.CodeInvalidYAML, wantNil: true},
		{name: "alias bomb", content: "---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\nname: a\ndescription: d\n---\n", want: ir.CodeInvalidYAML, refused: true, wantName: "a", wantLine: 2},
		{name: "not a mapping", content: "---\n- a\n- b\n---\n", want: ir.CodeInvalidYAML, wantNil: true},
		{name: "nul byte", content: "---\nname: a\x00\n---\n", want: ir.CodeNULByte, wantNil: true, wantLine: 2},
		{name: "invalid utf8", content: "---\nname: a\ndescription: \xff\n---\n", want: ir.CodeInvalidUTF8, wantNil: true, wantLine: 3},
		{name: "too large", content: "---\nname: a\n---\n" + strings.Repeat("x", 200<<10), want: ir.CodeFileTooLarge, wantNil: true},
		{name: "frontmatter too large", content: "---\ndescription: " + strings.Repeat("x", 70<<10) + "\n---\n", want: ir.CodeFrontmatterTooLarge, wantNil: true},
		{name: "unknown key is info", content: "---\nname: a\ndescription: d\nflavour: x\n---\n", want: ir.CodeUnknownField, wantName: "a", wantLine: 4},
		{name: "wrong type", content: "---\nname: {x: 1}\ndescription: d\n---\n", want: ir.CodeInvalidField, refused: true, wantLine: 2},
		{name: "wrong type keeps the name", content: "---\nname: bar\ndescription: d\nlicense: [1]\n---\n", want: ir.CodeInvalidField, refused: true, wantName: "bar", wantLine: 4},
		// A plain value ends at " #": the words after are a comment.
		{name: "comment cuts a description", content: "---\nname: a\ndescription: Format C# code #formatting #csharp\n---\n", want: ir.CodeLenientYAML, wantName: "a", wantDesc: "Format C# code", wantLine: 3},
		{name: "quoted description keeps its hash", content: "---\nname: a\ndescription: \"Format C# code #formatting\"\n---\n", wantName: "a", wantDesc: "Format C# code #formatting"},
		{name: "colon in plain value", content: "---\nname: a\ndescription: Audit code: find bugs\n---\n", want: ir.CodeLenientYAML, wantName: "a", wantDesc: "Audit code: find bugs", wantLine: 3},
		{name: "colon in a plain value wrapped onto two lines", content: "---\nname: a\ndescription: Update the spec: regenerate\n  the client.\nlicense: MIT\n---\n", want: ir.CodeLenientYAML, wantName: "a", wantDesc: "Update the spec: regenerate the client.", wantLine: 3},
		{name: "a comment below a value with a colon is no part of it", content: "---\nname: a\ndescription: Audit code: find bugs\n  # the team's\n---\n", want: ir.CodeLenientYAML, wantName: "a", wantDesc: "Audit code: find bugs", wantLine: 3},
		{name: "colon on a wrapped value's second line", content: "---\nname: a\ndescription: Update the spec and\n  regenerate: the client.\n---\n", want: ir.CodeLenientYAML, wantName: "a", wantDesc: "Update the spec and regenerate: the client.", wantLine: 3},
		// The repair quotes the line that needs it, not a comment on
		// another: "true # only for users" quoted was an invalid flag.
		{name: "lenient repair keeps another line's comment", content: "---\nname: a # the a skill\ndescription: Audit code: find bugs\ndisable-model-invocation: true # only for users\n---\n", want: ir.CodeLenientYAML, wantName: "a", wantDesc: "Audit code: find bugs", wantLine: 3},
		// The YAML library names no line for the first one: the
		// diagnostic named the --- line.
		{name: "colon in the first value", content: "---\ndescription: Take notes. Flags: --quick (short).\nname: a\n---\n", want: ir.CodeLenientYAML, wantName: "a", wantDesc: "Take notes. Flags: --quick (short).", wantLine: 2},
		{name: "claude fields recorded", content: "---\nname: a\ndescription: d\nmodel: opus\nhooks: {pre: x}\nallowed-tools: Read, Bash\n---\n", wantName: "a"},
		{name: "numeric description is text", content: "---\nname: a\ndescription: 42\n---\n", wantName: "a", wantDesc: "42"},
		// Published collections write mappings under metadata for other
		// clients: left out with a warning, the skill usable (it was
		// refused, so 30 of 231 skills of two npm collections were).
		{name: "metadata mapping is left out", content: "---\nname: a\ndescription: d\nmetadata: {openclaw: {requires: {bins: [curl]}}}\n---\n", want: ir.CodeInvalidField, wantName: "a", wantLine: 4},
		{name: "metadata list is left out", content: "---\nname: a\ndescription: d\nmetadata:\n  tags: [x, y]\n  author: me\n---\n", want: ir.CodeInvalidField, wantName: "a", wantLine: 5},
		{name: "metadata.prolog-rlm mapping is refused", content: "---\nname: a\ndescription: d\nmetadata:\n  prolog-rlm: {schema: 1}\n---\n", want: ir.CodeInvalidField, refused: true, wantName: "a", wantLine: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ds := ParseSkill("x/SKILL.md", []byte(tt.content), DefaultLimits)
			if (p == nil) != tt.wantNil {
				t.Fatalf("parsed = %v; want nil %v (diagnostics %v)", p != nil, tt.wantNil, ds)
			}
			if tt.want == "" && len(ds) > 0 {
				t.Errorf("got diagnostics %v; want none", codes(ds))
			}
			if tt.want != "" && !hasCode(ds, tt.want) {
				t.Errorf("got codes %v; want %s", codes(ds), tt.want)
			}
			if tt.wantLine > 0 && len(ds) > 0 && ds[0].Line != tt.wantLine {
				t.Errorf("got line %d; want %d", ds[0].Line, tt.wantLine)
			}
			if p == nil {
				return
			}
			if p.Refused != tt.refused {
				t.Errorf("got refused %v; want %v", p.Refused, tt.refused)
			}
			if tt.wantName != "" && p.Name != tt.wantName {
				t.Errorf("got name %q; want %q", p.Name, tt.wantName)
			}
			if tt.wantDesc != "" && p.Description != tt.wantDesc {
				t.Errorf("got description %q; want %q", p.Description, tt.wantDesc)
			}
		})
	}
}

// TestUnknownKeys: a frontmatter key rlmc does not read is an info,
// but a key declaring dependencies (no client reads one: the dependency
// was dropped with an info only) and a key rlmc reads misspelt beyond
// case and "_" ("descripton": the skill then lacks what it meant) are
// warnings that say what to write.
func TestUnknownKeys(t *testing.T) {
	for _, tc := range []struct {
		name, key, value string
		code             ir.Code
		sev              ir.Severity
		says             string
	}{
		{"another client's key", "flavour", "x", ir.CodeUnknownField, ir.SeverityInfo, `unknown frontmatter key "flavour" ignored`},
		{"requires", "requires", "[b]", ir.CodeUnknownField, ir.SeverityWarning, "metadata.prolog-rlm"},
		{"dependencies", "dependencies", "b", ir.CodeUnknownField, ir.SeverityWarning, "metadata.prolog-rlm"},
		{"depends_on", "depends_on", "[b, c]", ir.CodeUnknownField, ir.SeverityWarning, "metadata.prolog-rlm"},
		// A published collection's skills say "Dependencies: none".
		{"dependencies none", "Dependencies", "none", ir.CodeUnknownField, ir.SeverityInfo, "ignored"},
		{"requires empty", "requires", "[]", ir.CodeUnknownField, ir.SeverityInfo, "ignored"},
		// Packages, not skills (a reviewer's finding).
		{"dependencies on packages", "dependencies", "python>=3.8, pandas>=1.5.0", ir.CodeUnknownField, ir.SeverityInfo, "ignored"},
		{"descripton", "descripton", "d", ir.CodeMisspelledField, ir.SeverityWarning, `did you mean "description"?`},
		{"licence", "licence", "MIT", ir.CodeMisspelledField, ir.SeverityWarning, `did you mean "license"?`},
		{"allowed-tool", "allowed-tool", "Bash", ir.CodeMisspelledField, ir.SeverityWarning, `did you mean "allowed-tools"?`},
		{"author", "author", "me", ir.CodeUnknownField, ir.SeverityInfo, "ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := ParseSkill("x/SKILL.md", []byte("---\nname: a\ndescription: d\n"+tc.key+": "+tc.value+"\n---\n"), DefaultLimits)
			if len(ds) != 1 || ds[0].Code != tc.code || ds[0].Severity != tc.sev || ds[0].Line != 4 || !strings.Contains(ds[0].Message, tc.says) {
				t.Errorf("got %v; want one %s %s at line 4 saying %q", ds, tc.sev, tc.code, tc.says)
			}
		})
	}
}

func TestTabIndentSaid(t *testing.T) {
	for _, content := range []string{
		"---\nname: a\ndescription: d\nmetadata:\n\tauthor: me\n---\n",
		"---\nname: a\ndescription: d\n\tauthor: me\n---\n",
	} {
		_, ds := ParseSkill("x/SKILL.md", []byte(content), DefaultLimits)
		want := fmt.Sprintf("line %d is indented with a tab", strings.Count(content[:strings.Index(content, "\t")], "\n")+1)
		if !hasCode(ds, ir.CodeInvalidYAML) || !strings.Contains(ds[0].Message, want) {
			t.Errorf("%q: got %v; want invalid_yaml saying %q", content, ds, want)
		}
	}
}

// TestTabInABlockScalar: a tab in a block scalar's text is no error; the
// hint names the line that is (it named the first tab-indented line).
func TestTabInABlockScalar(t *testing.T) {
	content := "---\nname: a\ndescription: |\n  Example:\n  \tcode\nmetadata:\n\tauthor: me\n---\n"
	_, ds := ParseSkill("x/SKILL.md", []byte(content), DefaultLimits)
	if !hasCode(ds, ir.CodeInvalidYAML) || !strings.Contains(ds[0].Message, "line 7 is indented with a tab") {
		t.Errorf("got %v; want invalid_yaml naming line 7", ds)
	}
	content = "---\nname: a\ndescription: |\n  Example:\n  \tcode\nwhen_to_use: `x` y\n---\n"
	_, ds = ParseSkill("x/SKILL.md", []byte(content), DefaultLimits)
	if !hasCode(ds, ir.CodeInvalidYAML) || strings.Contains(ds[0].Message, "tab") {
		t.Errorf("got %v; want invalid_yaml without a tab hint (the backtick is the error)", ds)
	}
}

func TestParseSkillBody(t *testing.T) {
	content := "---\nname: a\ndescription: d\n---\n# Title\n\nSee [ref](REF.md) and [web](https://x.y) and [up](../x.md).\n\n```\n# not a heading\n[no](code.md)\n```\n## Second ##\n"
	p, ds := ParseSkill("a/SKILL.md", []byte(content), DefaultLimits)
	if p == nil {
		t.Fatalf("parse failed: %v", ds)
	}
	if got, want := strings.Join(p.Headings, "|"), "Title|Second"; got != want {
		t.Errorf("got headings %q; want %q", got, want)
	}
	var links []string
	for _, l := range p.Links {
		links = append(links, l.Target)
	}
	if got, want := strings.Join(links, "|"), "REF.md|https://x.y|../x.md"; got != want {
		t.Errorf("got links %q; want %q", got, want)
	}
	if got := content[p.BodyOffset:]; !strings.HasPrefix(got, "# Title") {
		t.Errorf("body starts %q; want it to start at # Title", got[:10])
	}
}

func TestParsePrologRLM(t *testing.T) {
	tests := []struct {
		name        string
		json        string
		wantErr     bool
		unsupported bool
	}{
		{name: "full", json: `{"schema":1,"category":"c","aliases":["x"],"triggers":[{"kind":"phrase","value":"do x","weight":300}],"requires":[{"kind":"skill","name":"b"}],"suggests":[],"conflicts":[],"supersedes":[],"requires_capability":null,"priority":5,"activation":{"automatic":false}}`},
		{name: "schema only", json: `{"schema":1}`},
		{name: "missing schema", json: `{}`, wantErr: true},
		{name: "schema 2", json: `{"schema":2}`, wantErr: true, unsupported: true},
		{name: "bad json", json: `{"schema":1`, wantErr: true},
		{name: "trailing data", json: `{"schema":1} {}`, wantErr: true},
		{name: "unknown key", json: `{"schema":1,"mandatory":true}`, wantErr: true},
		{name: "activation mode always", json: `{"schema":1,"activation":{"mode":"always"}}`, wantErr: true},
		{name: "activation extra key", json: `{"schema":1,"activation":{"automatic":true,"mode":"always"}}`, wantErr: true},
		{name: "activation empty", json: `{"schema":1,"activation":{}}`, wantErr: true},
		{name: "capability", json: `{"schema":1,"requires_capability":"shell"}`, wantErr: true},
		{name: "requires a tool", json: `{"schema":1,"requires":[{"kind":"tool","name":"sandbox"}]}`, wantErr: true},
		{name: "requires a resource", json: `{"schema":1,"requires":[{"kind":"resource","name":"db"}]}`, wantErr: true},
		{name: "conflicts with a tool is recorded", json: `{"schema":1,"conflicts":[{"kind":"tool","name":"sandbox"}]}`},
		{name: "priority too high", json: `{"schema":1,"priority":100001}`, wantErr: true},
		{name: "priority float", json: `{"schema":1,"priority":1.5}`, wantErr: true},
		{name: "priority string", json: `{"schema":1,"priority":"9"}`, wantErr: true},
		{name: "weight negative", json: `{"schema":1,"triggers":[{"kind":"keyword","value":"x","weight":-1}]}`, wantErr: true},
		{name: "trigger kind", json: `{"schema":1,"triggers":[{"kind":"always","value":"x"}]}`, wantErr: true},
		{name: "trigger too long", json: `{"schema":1,"triggers":[{"kind":"keyword","value":"` + strings.Repeat("x", 129) + `"}]}`, wantErr: true},
		{name: "too many aliases", json: `{"schema":1,"aliases":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 33), ",") + `]}`, wantErr: true},
		{name: "ref kind", json: `{"schema":1,"requires":[{"kind":"capability","name":"x"}]}`, wantErr: true},
		{name: "duplicate key", json: `{"schema":1,"activation":{"automatic":false},"activation":{"automatic":true}}`, wantErr: true},
		{name: "nested duplicate", json: `{"schema":1,"triggers":[{"kind":"keyword","kind":"phrase","value":"x"}]}`, wantErr: true},
		{name: "not an object", json: `[1]`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePrologRLM(tt.json)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v; want error %v", err, tt.wantErr)
			}
			if tt.unsupported != (err != nil && strings.Contains(err.Error(), ErrUnsupportedSchema.Error())) {
				t.Errorf("got %v; want unsupported %v", err, tt.unsupported)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true}, {"tdd", true}, {"code-review", true}, {"x9", true},
		{"", false}, {"-a", false}, {"a-", false}, {"a--b", false}, {"A", false},
		{"a_b", false}, {"a b", false}, {strings.Repeat("a", 64), true}, {strings.Repeat("a", 65), false},
		{"foo'), halt, ('", false}, {":- halt.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidName(tt.name); got != tt.ok {
				t.Errorf("ValidName(%q) = %v; want %v", tt.name, got, tt.ok)
			}
		})
	}
}

// TestDisableModelInvocationSpellings: the flag's quoted spellings read as
// the words they quote ("true" was invalid while "yes" was read as true);
// a word that is no boolean is still invalid.
func TestDisableModelInvocationSpellings(t *testing.T) {
	for _, tt := range []struct {
		value   string
		want    bool
		invalid bool
	}{
		{"true", true, false}, {`"true"`, true, false}, {`'False'`, false, false},
		{"yes", true, false}, {"off", false, false}, {`"maybe"`, false, true}, {"", false, true},
	} {
		t.Run(tt.value, func(t *testing.T) {
			p, ds := ParseSkill("x/SKILL.md", []byte("---\nname: a\ndescription: d\ndisable-model-invocation: "+tt.value+"\n---\nbody\n"), DefaultLimits)
			if got := hasCode(ds, ir.CodeInvalidField); got != tt.invalid {
				t.Fatalf("got invalid %v (%v); want %v", got, codes(ds), tt.invalid)
			}
			if !tt.invalid && p.DisableModelInvocation != tt.want {
				t.Errorf("got %v; want %v", p.DisableModelInvocation, tt.want)
			}
		})
	}
}

// TestParseSkillNamesTheFix: a file saved in a form editors still produce
// says what to change, not only what the parser met: UTF-16 text was "a
// NUL byte", and CR-only line endings "must start with a --- block",
// though it does.
func TestParseSkillNamesTheFix(t *testing.T) {
	skill := "---\nname: a\ndescription: d\n---\nbody\n"
	utf16 := func(bigEndian, mark bool) []byte {
		var out []byte
		if mark {
			out = append(out, 0xff, 0xfe)
			if bigEndian {
				out = []byte{0xfe, 0xff}
			}
		}
		for _, r := range []byte(skill) {
			if bigEndian {
				out = append(out, 0, r)
			} else {
				out = append(out, r, 0)
			}
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		content []byte
		code    ir.Code
		fix     string
	}{
		{"UTF-16 with a byte order mark", utf16(false, true), ir.CodeNULByte, "save it as UTF-8"},
		{"UTF-16 big-endian without one", utf16(true, false), ir.CodeNULByte, "save it as UTF-8"},
		{"CR-only line endings", []byte(strings.ReplaceAll(skill, "\n", "\r")), ir.CodeMissingFrontmatter, "LF or CRLF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := ParseSkill("a/SKILL.md", tt.content, DefaultLimits)
			if len(ds) != 1 || ds[0].Code != tt.code || !strings.Contains(ds[0].Message, tt.fix) {
				t.Errorf("got %v; want one %s saying %q", ds, tt.code, tt.fix)
			}
		})
	}
}

// TestParsePrologRLMEmpty: metadata.prolog-rlm written with no value (or
// null) says it is empty; it said the JSON ended before its value did.
func TestParsePrologRLMEmpty(t *testing.T) {
	for _, text := range []string{"", "  \n"} {
		if _, err := ParsePrologRLM(text); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("ParsePrologRLM(%q): got %v; want it to say the value is empty", text, err)
		}
	}
}
