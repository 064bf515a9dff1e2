package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// CodexPolicyFile is the Codex per-skill settings file, relative to the
// skill folder.
const CodexPolicyFile = "agents/openai.yaml"

// ManifestFile is the Skill-Router routing manifest beside SKILL.md.
const ManifestFile = "manifest.json"

// CodexPolicy is the part of agents/openai.yaml that rlmc acts on.
type CodexPolicy struct {
	// AllowImplicit is false when the file forbids implicit invocation.
	AllowImplicit bool
}

// ParseCodexPolicy reads agents/openai.yaml. Only policy.allow_implicit_invocation
// is interpreted; the display fields are for the client.
func ParseCodexPolicy(data []byte) (CodexPolicy, error) {
	var doc struct {
		Policy struct {
			AllowImplicitInvocation *bool `yaml:"allow_implicit_invocation"`
		} `yaml:"policy"`
	}
	var probe yaml.Node
	if err := yaml.Unmarshal(data, &probe); err != nil {
		return CodexPolicy{}, fmt.Errorf("not valid YAML: %v", err)
	}
	if _, alias := findAlias(&probe); alias {
		return CodexPolicy{}, fmt.Errorf("YAML anchors and aliases are not allowed")
	}
	if key, _, dup := findDuplicateKey(&probe); dup {
		return CodexPolicy{}, fmt.Errorf("key %q appears twice", key)
	}
	if err := probe.Decode(&doc); err != nil && probe.Kind != 0 {
		return CodexPolicy{}, fmt.Errorf("unexpected shape: %v", err)
	}
	p := CodexPolicy{AllowImplicit: true}
	if v := doc.Policy.AllowImplicitInvocation; v != nil {
		p.AllowImplicit = *v
	}
	return p, nil
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

// ParseManifest reads a Skill-Router manifest strictly: unknown keys and
// wrong types are errors, because the manifest decides conflicts.
func ParseManifest(data []byte) (*Manifest, error) {
	if err := checkDuplicateKeys(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	return &m, nil
}
