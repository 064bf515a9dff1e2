package loader

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

func TestParseCodexPolicy(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantErr  bool
		implicit bool
		miss     []Misspelling
	}{
		{name: "empty", yaml: "", implicit: true},
		{name: "display only", yaml: "interface:\n  display_name: X\n", implicit: true},
		{name: "forbids implicit", yaml: "policy:\n  allow_implicit_invocation: false\n", implicit: false},
		{name: "second document", yaml: "interface:\n  display_name: X\n---\npolicy:\n  allow_implicit_invocation: false\n", wantErr: true},
		{name: "empty second document", yaml: "policy:\n  allow_implicit_invocation: true\n---\n", wantErr: true},
		{name: "merge key", yaml: "policy:\n  <<: {allow_implicit_invocation: true}\n", wantErr: true},
		{name: "explicit merge tag", yaml: "policy:\n  !!merge x: {allow_implicit_invocation: true}\n", wantErr: true},
		{name: "anchor", yaml: "a: &x 1\n", wantErr: true},
		{name: "duplicate key", yaml: "policy: {}\npolicy: {}\n", wantErr: true},
		{name: "yaml 1.1 no reads as false", yaml: "policy:\n  allow_implicit_invocation: no\n", implicit: false},
		{name: "not a bool", yaml: "policy:\n  allow_implicit_invocation: [x]\n", wantErr: true},
		{name: "not a bool word", yaml: "policy:\n  allow_implicit_invocation: maybe\n", wantErr: true},
		{name: "policy not a mapping", yaml: "policy: off\n", wantErr: true},
		// Misspelt keys are read as meant, and reported (a red team).
		{name: "policy in capitals", yaml: "Policy:\n  allow_implicit_invocation: false\n", implicit: false, miss: []Misspelling{{1, "Policy", "policy"}}},
		{name: "hyphens for underscores", yaml: "policy:\n  allow-implicit-invocation: false\n", implicit: false, miss: []Misspelling{{2, "allow-implicit-invocation", "allow_implicit_invocation"}}},
		{name: "the key itself wins", yaml: "policy:\n  Allow_Implicit_Invocation: true\n  allow_implicit_invocation: false\n", implicit: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, miss, err := ParseCodexPolicy([]byte(tt.yaml))
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v; want error %v", err, tt.wantErr)
			}
			if err == nil && p.AllowImplicit != tt.implicit {
				t.Errorf("got AllowImplicit %v; want %v", p.AllowImplicit, tt.implicit)
			}
			if !slices.Equal(miss, tt.miss) {
				t.Errorf("got misspellings %v; want %v", miss, tt.miss)
			}
		})
	}
}

func TestDecodeYAML(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr bool
	}{
		{name: "empty", yaml: ""},
		{name: "comment only", yaml: "# nothing\n"},
		{name: "one document", yaml: "a: 1\nb: [x, y]\n"},
		{name: "explicit start", yaml: "---\na: 1\n"},
		{name: "explicit end", yaml: "a: 1\n...\n"},
		{name: "two documents", yaml: "a: 1\n---\nb: 2\n", wantErr: true},
		{name: "document after end", yaml: "a: 1\n...\n---\nb: 2\n", wantErr: true},
		{name: "merge key", yaml: "a: 1\n<<: {b: 2}\n", wantErr: true},
		{name: "nested merge key", yaml: "a:\n  - x: 1\n    <<: {b: 2}\n", wantErr: true},
		{name: "quoted merge key", yaml: "'<<': {b: 2}\n", wantErr: true},
		{name: "anchor", yaml: "a: &x 1\n", wantErr: true},
		{name: "alias", yaml: "a: *x\n", wantErr: true},
		{name: "duplicate key", yaml: "a: 1\na: 2\n", wantErr: true},
		{name: "syntax", yaml: "a: [1\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeYAML([]byte(tt.yaml))
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v; want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestParseSkillRefusesMergeAndSecondDocument(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantLine int
	}{
		{name: "merge key", content: "---\nname: a\ndescription: d\n<<: {disable-model-invocation: true}\n---\nbody\n", wantLine: 4},
		{name: "merge key in metadata", content: "---\nname: a\ndescription: d\nmetadata:\n  <<: {prolog-rlm: '{\"schema\":1}'}\n---\nbody\n", wantLine: 5},
		{name: "second document", content: "---\nname: a\ndescription: d\n--- {disable-model-invocation: true}\n---\nbody\n", wantLine: 4},
		{name: "merge key after lenient repair", content: "---\nname: a\ndescription: Audit code: find bugs\n<<: {disable-model-invocation: true}\n---\nbody\n", wantLine: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ds := ParseSkill("x/SKILL.md", []byte(tt.content), DefaultLimits)
			// Nothing of it is read but its plain name line.
			if p != nil && (!p.Refused || p.Description != "" || p.DisableModelInvocation) {
				t.Fatalf("got a parsed skill %+v (diagnostics %v); want none, or only its name", p, codes(ds))
			}
			if line := invalidYAMLLine(ds); line != tt.wantLine {
				t.Errorf("got invalid_yaml at line %d (diagnostics %v); want line %d", line, ds, tt.wantLine)
			}
		})
	}
}

// TestParseSkillSyntaxErrorLine places a YAML syntax error at the file's
// line a reader counts, whichever part of the YAML library found it: its
// parser's were one line above ("foo: [x" on line 5 said line 4).
func TestParseSkillSyntaxErrorLine(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantLine int
	}{
		{name: "unclosed list", content: "---\nname: a\ndescription: d\nlicense: MIT\nfoo: [x\n---\nbody\n", wantLine: 5},
		{name: "unclosed map", content: "---\nname: a\ndescription: d\nlicense: MIT\nfoo: {x\n---\nbody\n", wantLine: 5},
		{name: "scanner", content: "---\nname: a\ndescription: d\nfoo: `x`\n---\nbody\n", wantLine: 4},
		{name: "a quote left open", content: "---\nname: a\ndescription: \"d\nlicense: x\n---\nbody\n", wantLine: 3}, // where it opened
		{name: "on the first line", content: "---\n@name: a\ndescription: d\n---\nbody\n", wantLine: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := ParseSkill("x/SKILL.md", []byte(tt.content), DefaultLimits)
			if line := invalidYAMLLine(ds); line != tt.wantLine {
				t.Errorf("got invalid_yaml at line %d (diagnostics %v); want line %d", line, ds, tt.wantLine)
			}
		})
	}
}

// TestCheckJSONShape compares keys as encoding/json matches them and bounds
// entries.
func TestCheckJSONShape(t *testing.T) {
	many := func(n int, open, entry, close string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = strings.ReplaceAll(entry, "N", strconv.Itoa(i))
		}
		return open + strings.Join(items, ",") + close
	}
	tests := []struct {
		name    string
		json    string
		wantErr bool
	}{
		{name: "distinct", json: `{"a":1,"b":2}`},
		{name: "exact", json: `{"a":1,"a":2}`, wantErr: true},
		{name: "ascii case", json: `{"automatic":false,"Automatic":true}`, wantErr: true},
		{name: "escaped", json: `{"automatic":false,"\u0041utomatic":true}`, wantErr: true},
		{name: "kelvin sign", json: `{"kind":"skill","\u212Aind":"tool"}`, wantErr: true},
		{name: "long s", json: `{"schema":1,"\u017Fchema":2}`, wantErr: true},
		{name: "nested", json: `{"x":[{"kind":1,"KIND":2}]}`, wantErr: true},
		{name: "same key in sibling objects", json: `{"x":{"a":1},"y":{"a":1}}`},
		{name: "different letters", json: `{"kind":1,"kin":2}`},
		{name: "array at the bound", json: many(maxJSONEntries, "[", "N", "]")},
		{name: "array over the bound", json: many(maxJSONEntries+1, "[", "N", "]"), wantErr: true},
		{name: "nested arrays at the bound", json: many(maxJSONEntries, "[", many(maxJSONEntries, "[", "1", "]"), "]")},
		{name: "object at the bound", json: many(maxJSONEntries, "{", `"kN":1`, "}")},
		{name: "object over the bound", json: many(maxJSONEntries+1, "{", `"kN":1`, "}"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkJSONShape([]byte(tt.json))
			if (err != nil) != tt.wantErr {
				t.Errorf("got error %v; want error %v", err, tt.wantErr)
			}
		})
	}
	// A syntax error says where, as strictjson places it.
	if err := checkJSONShape([]byte("{\"schema\": 1,\n \"requires\": [\"a\",]}")); err == nil || !strings.Contains(err.Error(), "not JSON at line 2, column 19") {
		t.Errorf("a trailing comma: got %v; want it placed at line 2, column 19", err)
	}
}

// TestPrologRLMErrorIsDeterministic parses metadata with an error in each
// relation list many times: the error reported must not depend on map order.
func TestPrologRLMErrorIsDeterministic(t *testing.T) {
	bad := `[{"kind":"capability","name":"x"}]`
	text := `{"schema":1,"requires":` + bad + `,"suggests":` + bad + `,"conflicts":` + bad + `,"supersedes":` + bad + `}`
	_, first := ParsePrologRLM(text)
	if first == nil {
		t.Fatal("got no error; want one")
	}
	for i := 0; i < 50; i++ {
		if _, err := ParsePrologRLM(text); err == nil || err.Error() != first.Error() {
			t.Fatalf("run %d: got %v; want %v", i, err, first)
		}
	}
}

func TestParseManifestLimits(t *testing.T) {
	list := func(n, size int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `"` + strings.Repeat("x", size) + `"`
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	tests := []struct {
		name    string
		json    string
		wantErr bool
	}{
		{name: "small", json: `{"keywords":` + list(10, 10) + `}`},
		{name: "at the list limit", json: `{"keywords":` + list(maxManifestList, 10) + `}`},
		{name: "keywords over", json: `{"keywords":` + list(maxManifestList+1, 10) + `}`, wantErr: true},
		{name: "conflicts over", json: `{"conflicts_with":` + list(maxRefs+1, 10) + `}`, wantErr: true},
		{name: "aliases over", json: `{"aliases":` + list(maxAliases+1, 10) + `}`, wantErr: true},
		{name: "value too long", json: `{"use_when":` + list(1, maxManifestValueLen+1) + `}`, wantErr: true},
		{name: "empty value", json: `{"conflicts_with":[""]}`, wantErr: true},
		{name: "intent list over", json: `{"intents":{"a":` + list(maxManifestList+1, 10) + `}}`, wantErr: true},
		{name: "too many triggers in total", json: `{"keywords":` + list(60, 10) + `,"use_when":` + list(60, 10) + `,"objects":` + list(60, 10) + `,"actions":` + list(60, 10) + `,"capabilities":` + list(60, 10) + `}`, wantErr: true},
		{name: "routing text at the limit", json: `{"keywords":` + list(maxManifestText/maxManifestValueLen, maxManifestValueLen) + `}`},
		{name: "routing text over", json: `{"keywords":` + list(maxManifestList, 255) + `,"use_when":` + list(maxManifestList, 255) + `,"not_when":` + list(maxManifestList, 255) + `,"objects":` + list(maxManifestList, 255) + `}`, wantErr: true},
		{name: "command keywords count", json: `{"commands":[{"name":"a","keywords":` + list(maxManifestList+1, 3) + `}]}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(tt.json))
			if (err != nil) != tt.wantErr {
				t.Errorf("got error %v; want error %v", err, tt.wantErr)
			}
		})
	}
}

// TestParseManifestSaysJSON: a manifest of the wrong shape is said in the
// JSON's terms, as the host policy and bench cases are; it read "json:
// cannot unmarshal string into Go struct field Manifest.keywords of type
// []string".
func TestParseManifestSaysJSON(t *testing.T) {
	_, err := ParseManifest([]byte(`{"keywords":"abc"}`))
	if err == nil || !strings.Contains(err.Error(), "keywords: a string where an array goes") || strings.Contains(err.Error(), "Go struct") {
		t.Errorf("got %v; want it said in the JSON's terms", err)
	}
}

// TestParseManifestBOM: a manifest that opens with a byte order mark is
// read as the same manifest without one; it made the skill invalid.
func TestParseManifestBOM(t *testing.T) {
	m, err := ParseManifest([]byte("\xef\xbb\xbf{\"keywords\":[\"tls\"]}"))
	if err != nil || len(m.Keywords) != 1 || m.Keywords[0] != "tls" {
		t.Errorf("got %+v, %v; want keywords [tls]", m, err)
	}
}

// TestParseManifestNotAnObject: a manifest that is not a JSON object is
// refused; null decoded into an empty manifest and was accepted.
func TestParseManifestNotAnObject(t *testing.T) {
	for _, data := range []string{"null", " null\n", "[]", "1", `"x"`, "true"} {
		if _, err := ParseManifest([]byte(data)); err == nil {
			t.Errorf("ParseManifest(%q): got no error; want one", data)
		}
	}
}

// invalidYAMLLine is the line of the last invalid_yaml diagnostic of ds,
// or 0.
func invalidYAMLLine(ds ir.Diagnostics) int {
	line := 0
	for _, d := range ds {
		if d.Code == ir.CodeInvalidYAML {
			line = d.Line
		}
	}
	return line
}
