package loader

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// corpusSkills returns every SKILL.md of the adversarial corpus, to seed the
// fuzzers with the inputs the project already knows to be hostile.
func corpusSkills(t testing.TB) [][]byte {
	files, _ := filepath.Glob("../../testdata/adversarial/*.txtar")
	if len(files) == 0 {
		t.Fatal("no adversarial corpus")
	}
	var out [][]byte
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasSuffix(file.Name, "/SKILL.md") {
				out = append(out, file.Data)
			}
		}
	}
	return out
}

// FuzzParseSkill checks that no input panics the parser, that a parse is
// deterministic, and that the body offset always lies inside the file.
func FuzzParseSkill(f *testing.F) {
	for _, s := range corpusSkills(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p1, d1 := ParseSkill("x/SKILL.md", data, DefaultLimits)
		p2, d2 := ParseSkill("x/SKILL.md", data, DefaultLimits)
		if !reflect.DeepEqual(p1, p2) || !reflect.DeepEqual(d1, d2) {
			t.Fatal("parsing twice gave different results")
		}
		if p1 == nil {
			if !d1.HasErrors() {
				t.Fatal("a refused file must carry an error diagnostic")
			}
			return
		}
		if p1.BodyOffset < 0 || p1.BodyOffset > int64(len(data)) {
			t.Fatalf("body offset %d outside a file of %d bytes", p1.BodyOffset, len(data))
		}
		if !bytes.HasPrefix(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), []byte("---")) {
			t.Fatal("parsed a file without frontmatter")
		}
	})
}

// FuzzParsePrologRLM checks that the metadata parser never panics, is
// deterministic, and never accepts anything that breaks the contract.
func FuzzParsePrologRLM(f *testing.F) {
	for _, s := range corpusSkills(f) {
		if p, _ := ParseSkill("x", s, DefaultLimits); p != nil {
			if m, ok := p.Metadata[PrologRLMKey]; ok {
				f.Add(m)
			}
		}
	}
	f.Add(`{"schema":1,"activation":{"automatic":true},"priority":7,"triggers":[{"kind":"verb","value":"x","weight":1}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		m1, e1 := ParsePrologRLM(text)
		m2, e2 := ParsePrologRLM(text)
		if (e1 == nil) != (e2 == nil) || !reflect.DeepEqual(m1, m2) {
			t.Fatal("parsing twice gave different results")
		}
		if e1 != nil {
			return
		}
		if m1.Schema != 1 {
			t.Fatalf("accepted schema %d", m1.Schema)
		}
		if len(m1.RequiresCapability) > 0 && string(bytes.TrimSpace(m1.RequiresCapability)) != "null" {
			t.Fatalf("accepted requires_capability %s", m1.RequiresCapability)
		}
		if m1.Activation != nil && m1.Activation.Automatic == nil {
			t.Fatal("accepted an activation without automatic")
		}
		if m1.Priority != nil && (*m1.Priority < 0 || *m1.Priority > maxPriority) {
			t.Fatalf("accepted priority %d", *m1.Priority)
		}
	})
}
