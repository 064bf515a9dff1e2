package compiler

import (
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/suggest"
	"github.com/rlmc-dev/rlmc/ir"
)

// PolicyKeyError is a policy key the Policy type does not know: most often
// a typo ("denny"), which yaml.v3 reports as "field denny not found in type
// compiler.Policy", naming a Go type the user never wrote. This names the
// line and, when a known key is close, the key meant.
type PolicyKeyError struct {
	File       string // set by LoadPolicy; "" for ParsePolicy
	Line       int
	Key        string
	Suggestion string // the known key closest to Key, or ""
}

func (e *PolicyKeyError) Error() string {
	msg := fmt.Sprintf("unknown key %q", e.Key)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	if e.File == "" {
		return fmt.Sprintf("invalid policy: line %d: %s", e.Line, msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
}

// checkPolicyKeys reports the first unknown key of a policy document, in
// document order, at the top level and in the mappings of struct fields
// (limits). The maps whose keys are unit names (priority, requires) are not
// checked: any name is a key there.
func checkPolicyKeys(doc *yaml.Node) error {
	if doc == nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	return checkKeys(doc.Content[0], reflect.TypeFor[Policy]())
}

func checkKeys(n *yaml.Node, t reflect.Type) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil // "~" or a lone "---": an empty policy, as an empty file is
	}
	if n.Kind != yaml.MappingNode {
		return &PolicyValueError{Line: n.Line, Key: "the policy", Want: "a mapping of keys", Got: loader.NodeShape(n)}
	}
	return checkFields(n, t, "")
}

// checkFields checks the keys of the mapping n, the fields of struct t
// (under the dotted prefix of the mappings around it), and their values'
// shapes.
func checkFields(n *yaml.Node, t reflect.Type, prefix string) error {
	known := yamlKeys(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := known[k.Value]
		if !ok {
			names := make([]string, 0, len(known))
			for name := range known {
				names = append(names, name)
			}
			return &PolicyKeyError{Line: k.Line, Key: k.Value, Suggestion: closestKey(k.Value, names)}
		}
		if err := checkShape(v, f.Type, prefix+k.Value); err != nil {
			return err
		}
	}
	return nil
}

// checkShape checks that the value n has the shape Go type t needs (a
// list for a slice, a mapping for a map or struct, a number for a
// number), so that a mistake reads as the key and what it wants, not as
// yaml.v3's "cannot unmarshal !!str into []string". An empty value is an
// empty list or mapping, and no number or string; any scalar reads as a
// string.
func checkShape(n *yaml.Node, t reflect.Type, key string) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		switch t.Kind() {
		case reflect.Int, reflect.Int64, reflect.Float64, reflect.String:
			// "budget:" with its value left out, or "~", read as the
			// default without a word, as 0 would be.
			return &PolicyValueError{Line: n.Line, Key: key, Want: shapeOf(t), Got: "null"}
		}
		return nil // an empty list or mapping: "deny:" with its entries commented out
	}
	var ok bool
	switch t.Kind() {
	case reflect.Slice:
		ok = n.Kind == yaml.SequenceNode
	case reflect.Map, reflect.Struct:
		ok = n.Kind == yaml.MappingNode
	case reflect.Int, reflect.Int64:
		ok = n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int"
	case reflect.Float64:
		ok = n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float")
	case reflect.String:
		ok = n.Kind == yaml.ScalarNode
	default:
		return nil // no such field; yaml.v3 reports what it cannot decode
	}
	if !ok {
		return &PolicyValueError{Line: n.Line, Key: key, Want: shapeOf(t), Got: loader.NodeShape(n)}
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" && !decimal.MatchString(n.Value) {
		// yaml.v3 reads 010 as 8, 0x10 as 16 and 1_000 as 1000: a
		// budget nobody typing 010 meant.
		return &PolicyValueError{Line: n.Line, Key: key, Want: "a whole number written in decimal", Got: n.Value}
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkFields(n, t, key+".")
	case reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return &PolicyValueError{Line: k.Line, Key: "each key of " + key, Want: "a unit name", Got: loader.NodeShape(k)}
			}
			if err := checkShape(n.Content[i+1], t.Elem(), key+"."+k.Value); err != nil {
				return err
			}
		}
	case reflect.Slice:
		for _, e := range n.Content {
			if e.Kind == yaml.ScalarNode && e.ShortTag() == "!!null" {
				return &PolicyValueError{Line: e.Line, Key: "each entry of " + key, Want: shapeOf(t.Elem()), Got: "null"}
			}
			if err := checkShape(e, t.Elem(), "each entry of "+key); err != nil {
				return err
			}
		}
	}
	return nil
}

// decimal matches a whole number as a person writes one: digits, with
// no leading zero, after an optional sign.
var decimal = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)

// PolicyValueError is a policy value of the wrong shape for its key: a
// string where a list of names goes (deny: tdd), a word where a number
// goes (budget: lots).
type PolicyValueError struct {
	File string // set by LoadPolicy; "" for ParsePolicy
	Line int    // 0 for a Policy built in Go (Policy.Validate)
	Key  string // dotted for a nested key: limits.max_depth, priority.tdd
	Want string
	Got  string
}

func (e *PolicyValueError) Error() string {
	msg := fmt.Sprintf("%s must be %s, not %s", e.Key, e.Want, e.Got)
	if e.File == "" && e.Line == 0 {
		return "invalid policy: " + msg
	}
	if e.File == "" {
		return fmt.Sprintf("invalid policy: line %d: %s", e.Line, msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
}

// yamlKeys maps the yaml key of every field of the struct t to its field.
func yamlKeys(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

// closest returns the known key within a small edit distance of key (at
// most a third of its length, and at most 2), or "".
func closest(key string, names []string) string {
	return suggest.Closest(key, names, min(2, max(1, len(key)/3)))
}

// closestKey is closest for a policy key, or else the known key that
// shares with it all but at most the last letter of the shorter one, four
// letters or more: a plural ("priorities", three edits from "priority")
// or a key cut short.
func closestKey(key string, names []string) string {
	if c := closest(key, names); c != "" {
		return c
	}
	slices.Sort(names)
	for _, n := range names {
		common := 0
		for common < min(len(key), len(n)) && key[common] == n[common] {
			common++
		}
		if common >= 4 && common >= min(len(key), len(n))-1 {
			return n
		}
	}
	return ""
}

// namer tells the unit meant by a name no unit answers to: a unit whose
// folder has that name (the name a user sees in the file tree, where the
// SKILL.md names its unit otherwise), else a unit named within a small
// edit distance of it (closest): a select, deny or mandatory entry one
// typo from a unit most likely meant that unit.
type namer struct {
	names   []string            // the units' names, each once, sorted
	folders map[string][]string // a folder's name -> the units in such a folder named otherwise
	// unloaded holds, by its folder's name, the error that kept a
	// SKILL.md the loader found from being a unit at all (a FIFO, a
	// file it cannot read): the name is no typo, its skill did not load.
	unloaded map[string]ir.Diagnostic
}

func newNamer(cat *ir.Catalog) *namer {
	n := &namer{names: unitNames(cat), folders: map[string][]string{}}
	held := map[[2]string]bool{}
	for _, u := range cat.Units {
		held[[2]string{u.Root, u.Path}] = true
	}
	for _, d := range cat.Diagnostics {
		if d.Severity != ir.SeverityError || path.Base(d.Path) != loader.SkillFile || held[[2]string{d.Root, d.Path}] {
			continue
		}
		if f := path.Base(path.Dir(d.Path)); f != "." {
			if n.unloaded == nil {
				n.unloaded = map[string]ir.Diagnostic{}
			}
			if _, ok := n.unloaded[f]; !ok {
				n.unloaded[f] = d
			}
		}
	}
	for _, u := range cat.Units {
		if f := folderName(u); f != u.Name && f != "." && f != "/" && !slices.Contains(n.folders[f], u.Name) {
			n.folders[f] = append(n.folders[f], u.Name)
		}
	}
	return n
}

// folderName is the name of u's skill folder, as a user sees it in the
// file tree: a root that is itself the skill's folder names it.
func folderName(u *ir.Unit) string {
	dir := path.Dir(u.Path)
	if dir == "." {
		dir = filepath.ToSlash(filepath.Clean(u.Root))
	}
	return path.Base(dir)
}

// spellings indexes a catalog's units by their names and their folders'
// names folded (foldName), for a deny that names a unit otherwise than
// exactly (Compiler.denyTargets): "Deploy", "code_review", "Code Review"
// for code-review, "ops/" or "Ops" for the skill in folder ops. A deny
// list is a safety control: a typo of case in it loaded the skill it
// meant to keep out, with a warning. Built once per Compiler, at the
// first deny no unit answers to.
type spellings struct {
	byName   map[string][]string // folded name -> the units so named
	byFolder map[string][]string // folded folder name -> the units in such a folder
}

func newSpellings(cat *ir.Catalog) *spellings {
	sp := &spellings{byName: map[string][]string{}, byFolder: map[string][]string{}}
	for _, u := range cat.Units {
		f := foldName(u.Name)
		if !slices.Contains(sp.byName[f], u.Name) {
			sp.byName[f] = append(sp.byName[f], u.Name)
		}
		if d := foldName(folderName(u)); d != "." && d != "/" && !slices.Contains(sp.byFolder[d], u.Name) {
			sp.byFolder[d] = append(sp.byFolder[d], u.Name)
		}
	}
	for _, m := range []map[string][]string{sp.byName, sp.byFolder} {
		for _, names := range m {
			slices.Sort(names)
		}
	}
	return sp
}

// trimDeny is a deny's name without the blanks around it and the
// slashes after it (a folder completed by a shell: "deploy/").
func trimDeny(name string) string { return strings.TrimRight(strings.TrimSpace(name), "/") }

// denyTargets returns the units a deny of name denies: the unit so named,
// else, failing closed, those whose name or folder it spells otherwise
// (spellings), each once, sorted; nil for none.
func (c *Compiler) denyTargets(name string) []string { return denyTargets(c.cat, c.spell, name) }

// denyTargets is Compiler.denyTargets over cat, whose spellings spell
// gives.
func denyTargets(cat *ir.Catalog, spell func() *spellings, name string) []string {
	if _, ok := cat.Lookup(name); ok {
		return []string{name}
	}
	byName, byFolder := spelledAs(spell, name)
	out := slices.Concat(byName, byFolder)
	slices.Sort(out)
	return slices.Compact(out)
}

// spelledAs returns, for a name no unit answers to, the units whose name
// it spells otherwise and those in a folder it names.
func spelledAs(spell func() *spellings, name string) (byName, byFolder []string) {
	f := foldName(trimDeny(name))
	if f == "" {
		return nil, nil
	}
	sp := spell()
	return sp.byName[f], sp.byFolder[f]
}

// spelledHint says what a deny of name, which no unit answers to, denies
// all the same (spelledAs); "" when nothing.
func (c *Compiler) spelledHint(name string) string {
	byName, byFolder := spelledAs(c.spell, name)
	// A unit both spelled and in a folder so named ("deploy/" for
	// deploy/SKILL.md) is said once, as spelled.
	byFolder = slices.DeleteFunc(slices.Clone(byFolder), func(u string) bool { return slices.Contains(byName, u) })
	var parts []string
	if len(byName) > 0 {
		parts = append(parts, quoteAll(byName)+", whose name it spells otherwise")
	}
	if len(byFolder) > 0 {
		parts = append(parts, quoteAll(byFolder)+", in the folder it names")
	}
	if len(parts) == 0 {
		return ""
	}
	return "; it denies " + strings.Join(parts, ", and ") + ", all the same"
}

// quoteAll quotes names and joins them with "and".
func quoteAll(names []string) string {
	quoted := make([]string, len(names))
	for i, u := range names {
		quoted[i] = ir.Quote(u)
	}
	return strings.Join(quoted, " and ")
}

// foldName is a name in lower case with '_', '.' and blanks as '-'.
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '.', ' ':
			return '-'
		}
		return unicode.ToLower(r)
	}, name)
}

// hint is "; the skill in folder NAME is named UNIT" or "; did you mean
// UNIT?", else "".
func (n *namer) hint(name string) string {
	if units := n.folders[name]; len(units) > 0 {
		quoted := make([]string, len(units))
		for i, u := range units {
			quoted[i] = ir.Quote(u)
		}
		what := "the skill in folder " + ir.Quote(name) + " is named "
		if len(units) > 1 {
			what = "the skills in folders " + ir.Quote(name) + " are named "
		}
		return "; " + what + strings.Join(quoted, " or ")
	}
	if d, ok := n.unloaded[name]; ok {
		return fmt.Sprintf("; the skill folder %s was found but not loaded: %s: %s", ir.Quote(name), d.Code, d.Message)
	}
	if c := closest(name, n.names); c != "" {
		return "; did you mean " + ir.Quote(c) + "?"
	}
	return ""
}

// unitNames returns the names of cat's units, each once, sorted.
func unitNames(cat *ir.Catalog) []string {
	names := make([]string, 0, len(cat.Units))
	for _, u := range cat.Units {
		if n := len(names); n == 0 || names[n-1] != u.Name { // sorted by name
			names = append(names, u.Name)
		}
	}
	return names
}

// shapeOf names what a value of Go type t must be, as checkShape says it.
func shapeOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	}
	return "a string"
}

// valueLine returns the line of the value at the path of mapping keys in
// a policy document, or 0 when it is not there.
func valueLine(doc *yaml.Node, path ...string) int {
	if n := valueNode(doc, path...); n != nil {
		return n.Line
	}
	return 0
}

// valueNode returns the value at path in doc, or nil.
func valueNode(doc *yaml.Node, path ...string) *yaml.Node {
	if doc == nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	n := doc.Content[0]
	for _, key := range path {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}
