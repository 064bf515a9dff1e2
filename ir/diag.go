package ir

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Severity ranks a diagnostic. Only errors make `rlmc validate` fail.
type Severity string

// Severities, from most to least serious.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Code is a stable, snake_case identifier of a diagnostic. Tests and hosts
// match on codes; messages are free to change.
type Code string

// Diagnostic codes. Each is documented in docs/skills-and-catalog.md ("Diagnostics") and produced by at least
// one fixture under testdata/.
const (
	CodeInvalidYAML          Code = "invalid_yaml"
	CodeLenientYAML          Code = "lenient_yaml"
	CodeMissingFrontmatter   Code = "missing_frontmatter"
	CodeInvalidName          Code = "invalid_name"
	CodeNameMismatch         Code = "name_mismatch"
	CodeMissingDescription   Code = "missing_description"
	CodeDescriptionTooLong   Code = "description_too_long"
	CodeCompatibilityTooLong Code = "compatibility_too_long"
	CodeInvalidField         Code = "invalid_field"
	CodeUnknownField         Code = "unknown_field"
	CodeMisspelledField      Code = "misspelled_field"
	CodeFileTooLarge         Code = "file_too_large"
	CodeFrontmatterTooLarge  Code = "frontmatter_too_large"
	CodeInvalidUTF8          Code = "invalid_utf8"
	CodeNULByte              Code = "nul_byte"
	CodeInvalidPrologRLM     Code = "invalid_prolog_rlm_metadata"
	CodeUnsupportedPrologRLM Code = "unsupported_prolog_rlm_metadata"
	CodeInvalidManifest      Code = "invalid_manifest"
	CodeInvalidCodexPolicy   Code = "invalid_codex_policy"
	CodePathEscape           Code = "path_escape"
	CodeResourceEscape       Code = "resource_escape"
	CodeMissingResource      Code = "missing_resource"
	CodeShadowed             Code = "shadowed"
	CodeScanLimit            Code = "scan_limit"
	CodeRootNotFound         Code = "root_not_found" // the code of a *loader.RootError, never a diagnostic
	CodeRootUnreadable       Code = "root_unreadable"
	CodeUntrustedRoot        Code = "untrusted_root"
	CodeReadError            Code = "read_error"
	CodeSymlinkLoop          Code = "symlink_loop"
	CodeUnknownPolicyUnit    Code = "unknown_policy_unit"
	CodeExcluded             Code = "excluded"
	CodeNoContentWord        Code = "no_content_word"
	CodeAliasCollision       Code = "alias_collision"
	CodeMisnamedSkillFile    Code = "misnamed_skill_file"
	CodeNestedSkill          Code = "nested_skill"
	CodeUnmatchedExclude     Code = "unmatched_exclude"
	CodeDeprecatedSkill      Code = "deprecated_skill"
	CodeHiddenSkills         Code = "hidden_skills"

	// Dependency-graph errors (compiler.GraphProblems): each makes a unit
	// impossible to select in any compile, so a catalog holding one does
	// not validate.
	CodeMissingDependency  Code = "missing_dependency"
	CodeDependencyCycle    Code = "dependency_cycle"
	CodeUnusableDependency Code = "unusable_dependency" // invalid, or explicit-user-only
	CodeUnusableMandatory  Code = "unusable_mandatory"  // no compile can honor it
	CodeSelectionDenied    Code = "selection_denied"    // validate --select of a denied unit

	// Reference warnings (compiler.GraphProblems): a suggests, conflicts
	// or supersedes edge the policy reads as nothing.
	CodeUnknownReference Code = "unknown_reference"
	CodeSelfReference    Code = "self_reference"
)

// Diagnostic is one finding about the catalog, located at Path:Line.
// Path is relative to the root it was found under, with slashes; Root names
// that root so that two roots holding the same relative path stay apart.
type Diagnostic struct {
	Root     string   `json:"root,omitempty"`
	Path     string   `json:"path"`
	Line     int      `json:"line,omitempty"`
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// Position renders "path:line", or just the path when the line is unknown.
// A path holding anything unprintable (it comes from folder names) is
// quoted, so that it cannot break or forge a line.
func (d Diagnostic) Position() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d", Printable(d.Path), d.Line)
	}
	return Printable(d.Path)
}

// String renders the diagnostic the way compilers do:
// "path:line: severity: code: message", always on one line: unprintable
// characters of the message are escaped.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s: %s", d.Position(), d.Severity, d.Code, EscapeText(d.Message))
}

// Diagnostics is a list of findings. Sort puts it in the canonical order
// (path, line, code) so that output never depends on discovery order.
type Diagnostics []Diagnostic

// Add appends a diagnostic.
func (l *Diagnostics) Add(d Diagnostic) { *l = append(*l, d) }

// Sort orders the list by path, line, code, then root and message so that
// equal positions still have one order.
func (l Diagnostics) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		if a.Root != b.Root {
			return a.Root < b.Root
		}
		return a.Message < b.Message
	})
}

// HasErrors reports whether any diagnostic is an error.
func (l Diagnostics) HasErrors() bool {
	for _, d := range l {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Count returns how many diagnostics have the given severity.
func (l Diagnostics) Count(s Severity) int {
	n := 0
	for _, d := range l {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// Rooted renders d as String does, at its path joined to its root: what
// a server's log shows of a catalog's problem, where no `rlmc validate`
// is at hand.
func (d Diagnostic) Rooted() string {
	if d.Root != "" && !path.IsAbs(d.Path) {
		d.Path = path.Join(d.Root, d.Path)
	}
	return d.String()
}

// Error implements error so that a list of errors can be returned as one,
// in the manner of go/scanner.ErrorList.
func (l Diagnostics) Error() string {
	var b strings.Builder
	for i, d := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}
