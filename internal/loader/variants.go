package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rlmc-dev/rlmc/internal/strictjson"
	"github.com/rlmc-dev/rlmc/ir"
)

// CodexPolicyFile is the Codex per-skill settings file, relative to the
// skill folder.
const CodexPolicyFile = "agents/openai.yaml"

// ManifestFile is the Skill-Router routing manifest beside SKILL.md.
const ManifestFile = ir.ManifestFile

// CodexPolicy is the part of agents/openai.yaml that rlmc acts on.
type CodexPolicy struct {
	// AllowImplicit is false when the file forbids implicit invocation.
	AllowImplicit bool
}

// Misspelling is a key written with other case or "-" for "_" than the
// one rlmc reads it as (Key is read as Want), on Line.
type Misspelling struct {
	Line      int
	Key, Want string
}

// ParseCodexPolicy reads agents/openai.yaml. Only policy.allow_implicit_invocation
// is interpreted; the display fields are for the client. A key written
// with other case or "-" for "_" ("Policy", "allow-implicit-invocation")
// is read as that key and returned among the misspellings, as the
// frontmatter's are: ignored, "allow-implicit-invocation: false" would
// leave a skill meant to be explicit-only automatic.
func ParseCodexPolicy(data []byte) (CodexPolicy, []Misspelling, error) {
	probe, err := DecodeYAML(data)
	if err != nil {
		return CodexPolicy{}, nil, fmt.Errorf("not valid YAML: %w", err)
	}
	p := CodexPolicy{AllowImplicit: true}
	if probe.Kind == 0 || len(probe.Content) == 0 {
		return p, nil, nil
	}
	var miss []Misspelling
	root := probe.Content[0]
	if root.Kind != yaml.MappingNode {
		return CodexPolicy{}, nil, fmt.Errorf("unexpected shape: the file is %s, not a mapping", NodeShape(root))
	}
	policy := keyed(root, "policy", &miss)
	if policy == nil {
		return p, miss, nil
	}
	if policy.Kind != yaml.MappingNode {
		return CodexPolicy{}, nil, fmt.Errorf("unexpected shape: policy is %s, not a mapping", NodeShape(policy))
	}
	if v := keyed(policy, "allow_implicit_invocation", &miss); v != nil {
		var allow bool
		if v.Kind != yaml.ScalarNode || v.Decode(&allow) != nil {
			return CodexPolicy{}, nil, fmt.Errorf("unexpected shape: policy.allow_implicit_invocation is %s, not true or false", NodeShape(v))
		}
		p.AllowImplicit = allow
	}
	return p, miss, nil
}

// keyed returns the value of key in the mapping m, or of the one key
// written as key with other case or "-" for "_" when key itself is not
// there, recording that one in miss; nil when there is neither.
func keyed(m *yaml.Node, key string, miss *[]Misspelling) *yaml.Node {
	near := -1 // the index of the key written otherwise
	folded := spellingOf(key)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		switch {
		case k.Value == key:
			return m.Content[i+1]
		case near < 0 && spellingOf(k.Value) == folded:
			near = i
		}
	}
	if near < 0 {
		return nil
	}
	k := m.Content[near]
	*miss = append(*miss, Misspelling{Line: k.Line, Key: k.Value, Want: key})
	return m.Content[near+1]
}

// Manifest is a Skill-Router manifest.json.
type Manifest struct {
	Name          string              `json:"name"`
	Description   string              `json:"description"`
	Keywords      []string            `json:"keywords"`
	Aliases       []string            `json:"aliases"`
	Intents       map[string][]string `json:"intents"`
	UseWhen       []string            `json:"use_when"`
	NotWhen       []string            `json:"not_when"`
	Objects       []string            `json:"objects"`
	Actions       []string            `json:"actions"`
	Capabilities  []string            `json:"capabilities"`
	ConflictsWith []string            `json:"conflicts_with"`
	Commands      []struct {
		Name        string   `json:"name"`
		Syntax      string   `json:"syntax"`
		Description string   `json:"description"`
		Keywords    []string `json:"keywords"`
	} `json:"commands"`
	Bootstrap json.RawMessage `json:"_bootstrap"`
}

// Limits of a Skill-Router manifest. A manifest over any of them makes the
// unit invalid rather than being cut short: dropping conflicts_with entries
// would make the unit more permissive, and a manifest's size must not decide
// how much routing evidence the index holds.
const (
	maxManifestList     = 64  // entries in any one list
	maxManifestMap      = 32  // intents, commands
	maxManifestValueLen = 256 // bytes of any one value
	maxManifestTriggers = 256 // triggers from the whole manifest
	// maxManifestText bounds the bytes of every value the index reads
	// (every list but conflicts_with) together: the other bounds allow
	// about 80 KiB of routing text, and indexing costs a few hundred bytes
	// and a few map operations per word of it, so 200 such manifests cost
	// a gigabyte and many seconds. Real manifests hold a few KiB at most.
	maxManifestText = 16 << 10
)

// ParseManifest reads a Skill-Router manifest strictly: unknown keys, wrong
// types and exceeded limits are errors, because the manifest decides
// conflicts.
func ParseManifest(data []byte) (*Manifest, error) {
	// A byte order mark (PowerShell 5's Out-File writes one) is read
	// past, as it is in SKILL.md: it made the whole skill invalid.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkJSONShape(data); err != nil {
		return nil, err
	}
	// null decodes into an empty Manifest without an error, and made a
	// skill_router unit of nothing.
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("a manifest is a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, strictjson.Explain(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	if err := m.checkLimits(); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkLimits bounds every list of the manifest, in a fixed order so that
// the error reported never depends on map order.
func (m *Manifest) checkLimits() error {
	type list struct {
		field  string
		values []string
		limit  int
		named  bool // entries name units: an empty one is an error
	}
	lists := []list{
		{"keywords", m.Keywords, maxManifestList, false},
		{"aliases", m.Aliases, maxAliases, true},
		{"use_when", m.UseWhen, maxManifestList, false},
		{"not_when", m.NotWhen, maxManifestList, false},
		{"objects", m.Objects, maxManifestList, false},
		{"actions", m.Actions, maxManifestList, false},
		{"capabilities", m.Capabilities, maxManifestList, false},
		{"conflicts_with", m.ConflictsWith, maxRefs, true},
	}
	if len(m.Intents) > maxManifestMap {
		return fmt.Errorf(`"intents" holds %d entries; the limit is %d`, len(m.Intents), maxManifestMap)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Intents)) {
		if len(k) > maxManifestValueLen {
			return fmt.Errorf(`each "intents" key must be at most %d bytes`, maxManifestValueLen)
		}
		lists = append(lists, list{"intents." + clip(k), m.Intents[k], maxManifestList, false})
	}
	if len(m.Commands) > maxManifestMap {
		return fmt.Errorf(`"commands" holds %d entries; the limit is %d`, len(m.Commands), maxManifestMap)
	}
	for i, c := range m.Commands {
		for _, v := range []string{c.Name, c.Syntax, c.Description} {
			if len(v) > maxManifestValueLen*4 {
				return fmt.Errorf(`"commands"[%d] has a value over %d bytes`, i, maxManifestValueLen*4)
			}
		}
		lists = append(lists, list{fmt.Sprintf("commands[%d].keywords", i), c.Keywords, maxManifestList, false})
	}
	triggers, text := 0, 0
	for _, l := range lists {
		if len(l.values) > l.limit {
			return fmt.Errorf("%q holds %d entries; the limit is %d", l.field, len(l.values), l.limit)
		}
		for _, v := range l.values {
			if len(v) > maxManifestValueLen || (l.named && strings.TrimSpace(v) == "") {
				return fmt.Errorf("each %q entry must be 1..%d bytes", l.field, maxManifestValueLen)
			}
		}
		if l.field != "aliases" && l.field != "not_when" && l.field != "conflicts_with" {
			triggers += len(l.values)
		}
		if l.field != "conflicts_with" {
			for _, v := range l.values {
				text += len(v)
			}
		}
	}
	if text > maxManifestText {
		return fmt.Errorf("the manifest gives %d bytes of routing text; the limit is %d", text, maxManifestText)
	}
	if triggers > maxManifestTriggers {
		return fmt.Errorf("the manifest gives %d triggers; the limit is %d", triggers, maxManifestTriggers)
	}
	return nil
}
