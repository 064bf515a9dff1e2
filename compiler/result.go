package compiler

import (
	"fmt"

	"github.com/rlmc-dev/rlmc/ir"
)

// Schema is the version of the JSON result contract.
const Schema = 1

// Decisions a compile can reach.
const (
	DecisionRoute     = "route"
	DecisionNoRoute   = "no_route"
	DecisionAmbiguous = "ambiguous"
)

// Reason codes. They are a public contract, documented in README.md.
const (
	// Why a unit was selected.
	ReasonExplicit   = "explicit"
	ReasonMandatory  = "mandatory"
	ReasonLexical    = "lexical"
	ReasonDependency = "dependency"

	// Why a unit was rejected.
	ReasonNoEvidence         = "no_evidence"
	ReasonBelowThreshold     = "below_threshold"
	ReasonExplicitOnly       = "explicit_only"
	ReasonNegated            = "negated"
	ReasonDenied             = "denied"
	ReasonMissingDependency  = "missing_dependency"
	ReasonDependencyCycle    = "dependency_cycle"
	ReasonDependencyRejected = "dependency_rejected"
	ReasonConflict           = "conflict"
	ReasonSuperseded         = "superseded"
	ReasonOverBudget         = "over_budget"
	ReasonShadowed           = "shadowed"
	ReasonInvalid            = "invalid"
	ReasonAmbiguous          = "ambiguous"
	ReasonCovered            = "covered"
	ReasonHeldBack           = "held_back"
)

// Reason is one code with a human-readable detail.
type Reason struct {
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
}

// Selected is a unit that entered the prompt.
type Selected struct {
	Name     string   `json:"name"`
	Root     string   `json:"root"`
	Path     string   `json:"path"`
	Tokens   int      `json:"tokens"`
	Priority int      `json:"priority"`
	Score    float64  `json:"score"`
	Reasons  []Reason `json:"reasons"`
}

// Rejected is a unit that did not enter the prompt. Root and Path tell
// same-named units apart.
type Rejected struct {
	Name    string   `json:"name"`
	Root    string   `json:"root"`
	Path    string   `json:"path"`
	Score   float64  `json:"score,omitempty"`
	Reasons []Reason `json:"reasons"`
}

// Budget reports the token ceiling and what the selection used of it.
type Budget struct {
	Limit     int    `json:"limit"`
	Used      int    `json:"used"`
	Tokenizer string `json:"tokenizer"`
}

// Result is one compile's outcome. It marshals to the documented JSON
// contract; Events is the explanation, rendered separately.
type Result struct {
	Schema             int            `json:"schema"`
	Decision           string         `json:"decision"`
	Fingerprint        string         `json:"fingerprint"`
	CatalogFingerprint string         `json:"catalog_fingerprint"`
	Budget             Budget         `json:"budget"`
	Selected           []Selected     `json:"selected"`
	Rejected           []Rejected     `json:"rejected"`
	Ambiguous          []string       `json:"ambiguous,omitempty"`
	Diagnostics        ir.Diagnostics `json:"diagnostics"`
	Prompt             string         `json:"prompt"`
	// Ranking lists the units with the most evidence, best first, whether
	// or not they were selected; benchmarks measure recall@k on it.
	Ranking []Ranked `json:"-"`
	Events  []Event  `json:"-"`
}

// Names returns the selected unit names in prompt order.
func (r *Result) Names() []string {
	out := make([]string, len(r.Selected))
	for i, s := range r.Selected {
		out[i] = s.Name
	}
	return out
}

// RejectedCounts counts rejected units by their first reason code.
func (r *Result) RejectedCounts() map[string]int {
	out := map[string]int{}
	for _, rj := range r.Rejected {
		if len(rj.Reasons) > 0 {
			out[rj.Reasons[0].Code]++
		}
	}
	return out
}

// Error codes of a failed compile.
const (
	ErrUnknownUnit       = "unknown_unit"
	ErrSelectionRejected = "selection_rejected"
	ErrMandatoryRejected = "mandatory_rejected"
	ErrInvalidRequest    = "invalid_request"
	ErrBodyChanged       = "body_changed"
	ErrCanceled          = "canceled"
	ErrPolicy            = "policy_error"
)

// Error is a compile that could not be honored. Stage names the pipeline
// stage that failed; Code is stable, Message is for people.
type Error struct {
	Stage   Stage  `json:"stage"`
	Code    string `json:"code"`
	Unit    string `json:"unit,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
	cause   error  // what the error wraps, e.g. context.DeadlineExceeded
}

// Error renders "stage: code: message" on one line: the message can quote
// paths that come from folder names, so its unprintable characters are
// escaped.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Stage, e.Code, ir.EscapeText(e.Message))
}

// Unwrap returns the error's cause: for ErrCanceled, the context's error,
// so that errors.Is(err, context.DeadlineExceeded) or context.Canceled
// holds.
func (e *Error) Unwrap() error { return e.cause }
