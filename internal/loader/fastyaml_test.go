package loader

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// checkFastYAML fails when the fast path reads text differently from
// DecodeYAML, and reports whether it read it.
func checkFastYAML(t *testing.T, text string) bool {
	t.Helper()
	fast, ok := decodeFrontmatterFast(text)
	if !ok {
		return false
	}
	want, err := DecodeYAML([]byte(text))
	if err != nil {
		t.Errorf("fast path read %q; DecodeYAML refuses it: %v", text, err)
		return true
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("fast path read %q as\n%#v\nwant\n%#v", text, fast, want)
	}
	return true
}

// TestFastYAML holds the fast path to DecodeYAML's tree on the forms it
// reads and on the corners where it must give up.
func TestFastYAML(t *testing.T) {
	tests := []struct {
		name string
		text string
		fast bool // whether the fast path should read it
	}{
		{"plain", "name: a-b\ndescription: Hello world, [x] {y} it's.\n", true},
		{"metadata mapping", "name: a\nmetadata:\n  prolog-rlm: '{\"a\": ''b''}'\n  k2: \"dq\"\ndescription: d\n", true},
		{"quoted with colon", "description: 'a: b # c'\n", true},
		{"url in plain", "description: See http://x.y/z for more\n", true},
		{"unicode", "description: Vital élan — déjà vu\n", true},
		{"astral and private use", "description: Ship it 😀 \U00010000 \ue000 \ufffd a\u00a0b\n", true},
		{"astral quoted", "description: 'Ship it 😀'\n", true},
		{"empty quotes", "description: ''\nname: \"\"\n", true},
		{"doubled quote at end", "description: 'it''s'\n", true},
		{"colon space", "description: Audit code: find bugs\n", false},
		{"comment", "description: a # b\n", false},
		{"trailing colon", "description: a:\n", false},
		{"bool", "disable-model-invocation: true\n", false},
		{"null word", "description: null\n", false},
		{"number", "description: 42\n", false},
		{"version", "metadata:\n  version: 1.0.0\n  v4: 10.20.3.4\n", true},
		{"two groups", "version: 1.0\n", false},
		{"leading zero", "version: 1.02.0\n", false},
		{"empty group", "version: 1..0\n", false},
		{"date-like", "version: 2024.01.02\n", false},
		{"signed", "version: -1.0.0\n", false},
		{"null value", "metadata:\nname: a\n", false},
		{"repeated key", "name: a\nname: b\n", false},
		{"repeated nested key", "metadata:\n  a: x\n  a: y\n", false},
		{"merge key", "<<: {a: b}\n", false},
		{"anchor", "a: &x b\n", false},
		{"alias", "a: *x\n", false},
		{"tag", "a: !!str b\n", false},
		{"continuation", "description: a\n  b\n", false},
		{"uneven nesting", "metadata:\n  a: x\n   b: y\n", false},
		{"deeper nesting", "metadata:\n  a:\n    b: c\n", false},
		{"indented first line", "  name: a\n", false},
		{"blank line", "name: a\n\ndescription: d\n", false},
		{"tab", "description: a\tb\n", false},
		{"trailing space", "description: a \n", false},
		{"escape", "description: \"a\\nb\"\n", false},
		{"text after quote", "description: 'a' b\n", false},
		{"unclosed quote", "description: 'a\n", false},
		{"line separator", "description: a\u2028b\n", false},
		{"next line", "description: a\u0085b\n", false},
		{"bom", "description: a\ufeffb\n", false},
		{"block scalar", "description: >\n  a\n", false},
		{"list", "allowed-tools:\n  - Read\n", false},
		{"flow", "hooks: {pre: x}\n", false},
		{"no newline", "name: a", false},
		{"empty", "", false},
		{"key with space", "my key: a\n", false},
		{"document marker", "name: a\n---\nname: b\n", false},
	}
	// A mapping of many keys finds its repeats by a map: a frontmatter of
	// 5,800 metadata keys took 60 ms, scanning the keys read so far.
	var many, manyRepeated strings.Builder
	many.WriteString("metadata:\n")
	for i := range scanKeys * 3 {
		fmt.Fprintf(&many, "  k%d: v\n", i)
	}
	manyRepeated.WriteString(many.String() + "  k7: again\n")
	tests = append(tests, []struct {
		name string
		text string
		fast bool
	}{
		{"many keys", many.String(), true},
		{"many keys, one repeated", manyRepeated.String(), false},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkFastYAML(t, tt.text); got != tt.fast {
				t.Errorf("fast path read it: %v; want %v", got, tt.fast)
			}
		})
	}
}

// TestFastYAMLCorpus holds the fast path to DecodeYAML on the frontmatter
// of the adversarial corpus, generated skills and, when present, every
// SKILL.md in ../shared.
func TestFastYAMLCorpus(t *testing.T) {
	files := corpusSkills(t)
	roots := testkit.GenerateCatalog(t, t.TempDir(), 50, 3)
	if shared, ok, _ := testkit.SharedPath(); ok {
		roots = append(roots, shared)
	}
	for _, r := range roots {
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && d.Name() == SkillFile {
				if data, err := os.ReadFile(p); err == nil {
					files = append(files, data)
				}
			}
			return nil
		})
	}
	read := 0
	for _, data := range files {
		start := 0
		if len(data) >= 3 && string(data[:3]) == "\xef\xbb\xbf" {
			start = 3
		}
		if fm, _, ok := splitFrontmatter(data, start); ok && checkFastYAML(t, fm) {
			read++
		}
	}
	t.Logf("fast path read %d of %d frontmatters", read, len(files))
	if read == 0 {
		t.Error("the fast path read no frontmatter at all")
	}
}

// FuzzFastYAML checks that whatever the fast path reads, DecodeYAML reads
// to the same tree.
func FuzzFastYAML(f *testing.F) {
	for _, s := range []string{"name: a\n", "a: 'b''c'\nm:\n  k: v\n", "d: x: y\n", "a: \"b\"\n", "m:\n  a: b\n  c: d\nz: y\n", "d: Ship 😀 it\n", "d: 'a # b: c'\n", "Null: x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFastYAML(t, text)
	})
}
