package compiler

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
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
	if n.Kind != yaml.MappingNode {
		return nil // a type mismatch is yaml.v3's to report
	}
	known := yamlKeys(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := known[k.Value]
		if !ok {
			names := make([]string, 0, len(known))
			for name := range known {
				names = append(names, name)
			}
			return &PolicyKeyError{Line: k.Line, Key: k.Value, Suggestion: closest(k.Value, names)}
		}
		if f.Type.Kind() == reflect.Struct {
			if err := checkKeys(v, f.Type); err != nil {
				return err
			}
		}
	}
	return nil
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

// closest returns the name within a small edit distance of key (at most a
// third of its length, and at most 2), the nearest first and ties by name;
// "" when none is that close.
func closest(key string, names []string) string {
	best, bestD := "", min(2, max(1, len(key)/3))+1
	for _, name := range names {
		if d := editDistance(strings.ToLower(key), name); d < bestD || d == bestD && best != "" && name < best {
			best, bestD = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (policy keys are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
