// Package ir defines rlmc's intermediate representation: the prompt unit that
// every skill layout normalizes into, and the diagnostics found on the way.
// It imports nothing else from rlmc, so every stage can depend on it.
package ir

import "path"

// Variant names the skill layout a unit was read from. It is informational:
// every variant normalizes into the same fields.
type Variant string

// Variants rlmc recognizes.
const (
	VariantAgentSkills Variant = "agent_skills"
	VariantClaudeCode  Variant = "claude_code"
	VariantOpenCode    Variant = "opencode"
	VariantCodex       Variant = "codex"
	VariantSkillRouter Variant = "skill_router"
	VariantPrologRLM   Variant = "prolog_rlm"
)

// ManifestFile is the Skill Router manifest a unit of that variant is
// read from, beside its SKILL.md.
const ManifestFile = "manifest.json"

// Invocation says who may activate a unit.
type Invocation string

// Invocations. ExplicitUser units activate only through trusted host
// selection, never from task text and never as a dependency.
const (
	InvocationAutomatic    Invocation = "automatic"
	InvocationExplicitUser Invocation = "explicit_user"
)

// Status is a unit's standing in the catalog.
type Status string

// Statuses. Invalid and shadowed units stay in the catalog so that they can
// be listed and explained, but they never activate.
const (
	StatusOK       Status = "ok"
	StatusInvalid  Status = "invalid"
	StatusShadowed Status = "shadowed"
)

// TriggerKind classifies a piece of routing evidence.
type TriggerKind string

// Trigger kinds accepted in metadata.prolog-rlm and produced from
// Skill-Router manifests.
const (
	TriggerPhrase  TriggerKind = "phrase"
	TriggerKeyword TriggerKind = "keyword"
	TriggerVerb    TriggerKind = "verb"
	TriggerObject  TriggerKind = "object"
	TriggerNeed    TriggerKind = "need"
	TriggerSignal  TriggerKind = "signal"
)

// DefaultTriggerWeight is the weight of triggers that do not state one.
const DefaultTriggerWeight = 100

// Trigger is evidence that a task wants the unit.
type Trigger struct {
	Kind   TriggerKind `json:"kind"`
	Value  string      `json:"value"`
	Weight int         `json:"weight"`
}

// RefKind is what a relation points at.
type RefKind string

// Reference kinds. Only skill references take part in dependency closure;
// tools and resources are recorded, never granted.
const (
	RefSkill    RefKind = "skill"
	RefTool     RefKind = "tool"
	RefResource RefKind = "resource"
)

// Ref names the target of a relation such as requires or conflicts.
type Ref struct {
	Kind RefKind `json:"kind"`
	Name string  `json:"name"`
}

// Summary is a unit as a listing of the catalog shows it: one row of
// `rlmc list --format json` (which adds its body's tokens) and of serve's
// GET /v1/catalog.
type Summary struct {
	Name string `json:"name"`
	// Description is what a client that lists skills shows the model,
	// and what routing reads first.
	Description string     `json:"description"`
	Root        string     `json:"root"`
	Path        string     `json:"path"`
	Variant     Variant    `json:"variant"`
	Invocation  Invocation `json:"invocation"`
	Status      Status     `json:"status"`
	Priority    int        `json:"priority"`
	ShadowedBy  string     `json:"shadowed_by,omitempty"`
}

// Summary returns u as a listing shows it.
func (u *Unit) Summary() Summary {
	return Summary{Name: u.Name, Description: u.Description, Root: u.Root, Path: u.Path, Variant: u.Variant,
		Invocation: u.Invocation, Status: u.Status, Priority: u.Priority, ShadowedBy: u.ShadowedBy}
}

// DefaultPriority is the priority of units that do not state one.
const DefaultPriority = 100

// Unit is one skill, normalized. It carries everything the compiler needs to
// decide about the skill except its body, which is read lazily and verified
// against SHA256.
type Unit struct {
	Name       string     `json:"name"`
	Root       string     `json:"root"`
	Precedence int        `json:"precedence"` // index of Root in precedence order; 0 wins
	Path       string     `json:"path"`       // SKILL.md, relative to Root, slash-separated
	Variant    Variant    `json:"variant"`
	Invocation Invocation `json:"invocation"`
	Status     Status     `json:"status"`
	ShadowedBy string     `json:"shadowed_by,omitempty"`

	Description   string            `json:"description"`
	WhenToUse     string            `json:"when_to_use,omitempty"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	// AllowedTools is inert data: activating a unit never grants a tool.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// HostFields records client-specific frontmatter (Claude Code's model,
	// hooks, arguments...) without interpreting it.
	HostFields map[string]any `json:"host_fields,omitempty"`

	Category         string    `json:"category,omitempty"`
	Aliases          []string  `json:"aliases,omitempty"`
	Triggers         []Trigger `json:"triggers,omitempty"`
	NegativeTriggers []string  `json:"negative_triggers,omitempty"`
	Headings         []string  `json:"headings,omitempty"`
	Lead             string    `json:"lead,omitempty"` // opening prose of the body, routing evidence only
	Requires         []Ref     `json:"requires,omitempty"`
	// RequiresLine is the line of SKILL.md that declares Requires (its
	// metadata.prolog-rlm, which declares aliases and triggers too), for
	// diagnostics; it locates, never decides.
	RequiresLine int   `json:"-"`
	Suggests     []Ref `json:"suggests,omitempty"`
	Conflicts    []Ref `json:"conflicts,omitempty"`
	Supersedes   []Ref `json:"supersedes,omitempty"`
	Priority     int   `json:"priority"`

	Resources []string `json:"resources,omitempty"` // files the body links to, relative to the skill folder

	SHA256     string `json:"sha256"`      // hex digest of the whole SKILL.md
	Size       int64  `json:"size"`        // bytes of SKILL.md
	BodyOffset int64  `json:"body_offset"` // where the body starts, after the frontmatter
	File       string `json:"-"`           // absolute, symlink-resolved path of SKILL.md
	// RootDir is the absolute, symlink-resolved root the unit was loaded
	// from. The body is re-read through it, Path relative to it, so the
	// read is confined to the root at open time.
	RootDir string `json:"-"`
}

// SkillRefs returns the names of the skill-kind references in refs.
func SkillRefs(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		if r.Kind == RefSkill {
			out = append(out, r.Name)
		}
	}
	return out
}

// DeclaredAt returns a diagnostic about u located where its routing
// metadata is declared (aliases, triggers, requires, suggests, conflicts,
// supersedes): the metadata.prolog-rlm line of its SKILL.md, or the
// manifest.json beside it; else its SKILL.md.
func (u *Unit) DeclaredAt(code Code, sev Severity, msg string) Diagnostic {
	d := Diagnostic{Root: u.Root, Path: u.Path, Code: code, Severity: sev, Message: msg}
	switch u.Variant {
	case VariantPrologRLM:
		d.Line = u.RequiresLine
	case VariantSkillRouter:
		d.Path = path.Join(path.Dir(u.Path), ManifestFile)
	}
	return d
}
