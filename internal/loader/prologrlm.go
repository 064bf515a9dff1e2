package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/rlmc-dev/rlmc/internal/strictjson"
	"github.com/rlmc-dev/rlmc/ir"
)

// PrologRLMKey is the metadata key holding prolog-rlm routing data as JSON.
const PrologRLMKey = "prolog-rlm"

// PrologRLM is the schema-1 routing contract carried in metadata.prolog-rlm.
// Anything outside it is refused: a skill cannot promote itself.
type PrologRLM struct {
	Schema             int               `json:"schema"`
	Category           string            `json:"category,omitempty"`
	Aliases            []string          `json:"aliases,omitempty"`
	Triggers           []PrologTrigger   `json:"triggers,omitempty"`
	Requires           []PrologRef       `json:"requires,omitempty"`
	Suggests           []PrologRef       `json:"suggests,omitempty"`
	Conflicts          []PrologRef       `json:"conflicts,omitempty"`
	Supersedes         []PrologRef       `json:"supersedes,omitempty"`
	RequiresCapability json.RawMessage   `json:"requires_capability,omitempty"`
	Priority           *int              `json:"priority,omitempty"`
	Activation         *PrologActivation `json:"activation,omitempty"`
}

// PrologTrigger is one piece of evidence in the prolog-rlm contract.
type PrologTrigger struct {
	Kind   ir.TriggerKind `json:"kind"`
	Value  string         `json:"value"`
	Weight *int           `json:"weight,omitempty"`
}

// PrologRef is a relation target in the prolog-rlm contract.
type PrologRef struct {
	Kind ir.RefKind `json:"kind"`
	Name string     `json:"name"`
}

// PrologActivation is exactly {"automatic": bool}.
type PrologActivation struct {
	Automatic *bool `json:"automatic"`
}

// Limits of the prolog-rlm contract.
const (
	maxAliases    = 32
	maxAliasLen   = 128
	maxTriggers   = 32
	maxTriggerLen = 128
	maxTriggerWt  = 100000
	maxRefs       = 64
	maxRefNameLen = 128
	maxPriority   = 100000
)

// ErrUnsupportedSchema marks prolog-rlm metadata of a schema this version
// does not know; it is reported as unsupported_prolog_rlm_metadata.
var ErrUnsupportedSchema = errors.New("unsupported prolog-rlm schema")

// ParsePrologRLM parses and validates metadata.prolog-rlm. It rejects bad
// JSON, duplicate or unknown keys, wrong types, exceeded limits and any
// attempt at self-promotion.
func ParsePrologRLM(text string) (*PrologRLM, error) {
	if strings.TrimSpace(text) == "" {
		// A key written with no value (or null) reads as "", which the
		// JSON decoder called cut short.
		return nil, errors.New(`empty: its value is the JSON object as a string, '{"schema": 1, ...}'`)
	}
	if err := checkJSONShape([]byte(text)); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	var m PrologRLM
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a schema-1 object: %w", strictjson.Explain([]byte(text), err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	if m.Schema != 1 {
		if m.Schema == 0 {
			return nil, errors.New(`"schema" is required and must be 1`)
		}
		return nil, fmt.Errorf("%w %d (this rlmc reads schema 1)", ErrUnsupportedSchema, m.Schema)
	}
	if len(m.RequiresCapability) > 0 && string(bytes.TrimSpace(m.RequiresCapability)) != "null" {
		return nil, errors.New(`"requires_capability" must be null: capabilities are granted by the host, never by a skill`)
	}
	if m.Activation != nil && m.Activation.Automatic == nil {
		return nil, errors.New(`"activation" must be exactly {"automatic": true|false}`)
	}
	if m.Priority != nil && (*m.Priority < 0 || *m.Priority > maxPriority) {
		return nil, fmt.Errorf(`"priority" must be 0..%d`, maxPriority)
	}
	if len(m.Aliases) > maxAliases {
		return nil, fmt.Errorf(`"aliases" holds %d entries; the limit is %d`, len(m.Aliases), maxAliases)
	}
	for _, a := range m.Aliases {
		if len(a) == 0 || len(a) > maxAliasLen {
			return nil, fmt.Errorf(`each alias must be 1..%d characters`, maxAliasLen)
		}
	}
	if len(m.Triggers) > maxTriggers {
		return nil, fmt.Errorf(`"triggers" holds %d entries; the limit is %d`, len(m.Triggers), maxTriggers)
	}
	for _, t := range m.Triggers {
		switch t.Kind {
		case ir.TriggerPhrase, ir.TriggerKeyword, ir.TriggerVerb, ir.TriggerObject, ir.TriggerNeed, ir.TriggerSignal:
		default:
			return nil, fmt.Errorf("trigger kind %q is not one of phrase, keyword, verb, object, need, signal", t.Kind)
		}
		if len(t.Value) == 0 || len(t.Value) > maxTriggerLen {
			return nil, fmt.Errorf("each trigger value must be 1..%d characters", maxTriggerLen)
		}
		if t.Weight != nil && (*t.Weight < 0 || *t.Weight > maxTriggerWt) {
			return nil, fmt.Errorf("trigger weight must be 0..%d", maxTriggerWt)
		}
	}
	// A fixed order, never a map: with errors in several lists the one
	// reported must be the same on every run.
	for _, rel := range []struct {
		field string
		refs  []PrologRef
	}{{"requires", m.Requires}, {"suggests", m.Suggests}, {"conflicts", m.Conflicts}, {"supersedes", m.Supersedes}} {
		field, refs := rel.field, rel.refs
		if len(refs) > maxRefs {
			return nil, fmt.Errorf("%q holds %d entries; the limit is %d", field, len(refs), maxRefs)
		}
		for _, r := range refs {
			switch r.Kind {
			case ir.RefSkill, ir.RefTool, ir.RefResource:
			default:
				return nil, fmt.Errorf("%s kind %q is not one of skill, tool, resource", field, r.Kind)
			}
			if len(r.Name) == 0 || len(r.Name) > maxRefNameLen {
				return nil, fmt.Errorf("%s names must be 1..%d characters", field, maxRefNameLen)
			}
			if field == "requires" && r.Kind != ir.RefSkill {
				// Dependencies fail closed, and rlmc cannot tell whether a
				// host gives the model a tool or a resource: a unit that
				// needs one would load whatever the host has.
				return nil, fmt.Errorf("requires %s %q, which rlmc cannot check a host provides: a unit may require skills only (its body can say what else it needs)", r.Kind, r.Name)
			}
		}
	}
	return &m, nil
}

// maxJSONEntries bounds the entries of any one JSON array and the keys of
// any one object in metadata.prolog-rlm and manifest.json. It is at least
// every list limit of both schemas, which then check their own, smaller
// limits; its purpose is to stop reading a flooded file early instead of
// decoding all of it.
const maxJSONEntries = 64

// checkJSONShape refuses objects that repeat a key: encoding/json would
// silently keep the last one, which lets a skill hide a second activation.
// Keys are compared as encoding/json matches them to fields, ignoring case
// (see foldKey), so "Automatic" repeats "automatic". It also refuses any
// array or object with more than maxJSONEntries entries.
func checkJSONShape(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]string // folded key -> key as first written
		expect bool              // next token in an object is a key
		n      int               // entries so far
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("invalid JSON: %w", strictjson.Explain(data, err))
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && (!top.object && tok != json.Delim(']') || top.object && top.expect && tok != json.Delim('}')) {
			if top.n++; top.n > maxJSONEntries {
				return fmt.Errorf("an array or object holds more than %d entries", maxJSONEntries)
			}
		}
		if top != nil && top.object && top.expect {
			if key, ok := tok.(string); ok {
				folded := foldKey(key)
				if prev, dup := top.keys[folded]; dup {
					if prev == key {
						return fmt.Errorf("duplicate key %q", key)
					}
					return fmt.Errorf("duplicate key %q (JSON readers take it for %q)", key, prev)
				}
				top.keys[folded] = key
				top.expect = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]string{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expect = true
		}
	}
}

// foldKey maps every key that encoding/json would match to the same struct
// field onto one string: encoding/json matches names with bytes.EqualFold,
// that is ASCII case plus Unicode simple case folding (so the Kelvin sign
// U+212A matches "k" and U+017F matches "s"). Each rune becomes the smallest
// rune of its folding orbit, so foldKey(a) == foldKey(b) exactly when
// strings.EqualFold(a, b).
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		for {
			next := unicode.SimpleFold(r)
			if next <= r {
				r = next
				break
			}
			r = next
		}
		b.WriteRune(r)
	}
	return b.String()
}
