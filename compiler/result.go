package compiler

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/ir"
)

// Schema is the version of the JSON result contract. Version 2 lists, by
// default, only the rejected units a compile has something to say about,
// and counts the others in Result.Unlisted (see Request.AllRejected).
const Schema = 2

// Decision is a compile's outcome.
type Decision string

// Decisions a compile can reach.
const (
	DecisionRoute     Decision = "route"
	DecisionNoRoute   Decision = "no_route"
	DecisionAmbiguous Decision = "ambiguous"
	// DecisionError is no compile's decision: audit records and benchmark
	// outcomes use it for a compile that failed.
	DecisionError Decision = "error"
)

// ReasonCode says why a unit was selected or rejected; the vocabulary is
// package rules', which checks policy.pl against it when it loads.
type ReasonCode = rules.ReasonCode

// Reason codes. They are a public contract, documented in docs/how-a-compile-decides.md.
const (
	// Why a unit was selected.
	ReasonExplicit   = rules.ReasonExplicit
	ReasonInvoked    = rules.ReasonInvoked
	ReasonMandatory  = rules.ReasonMandatory
	ReasonLexical    = rules.ReasonLexical
	ReasonDependency = rules.ReasonDependency

	// Why a unit was rejected.
	ReasonNoEvidence         = rules.ReasonNoEvidence
	ReasonBelowThreshold     = rules.ReasonBelowThreshold
	ReasonExplicitOnly       = rules.ReasonExplicitOnly
	ReasonNegated            = rules.ReasonNegated
	ReasonDenied             = rules.ReasonDenied
	ReasonMissingDependency  = rules.ReasonMissingDependency
	ReasonDependencyCycle    = rules.ReasonDependencyCycle
	ReasonDependencyRejected = rules.ReasonDependencyRejected
	ReasonConflict           = rules.ReasonConflict
	ReasonSuperseded         = rules.ReasonSuperseded
	ReasonOverBudget         = rules.ReasonOverBudget
	ReasonShadowed           = rules.ReasonShadowed
	ReasonInvalid            = rules.ReasonInvalid
	ReasonAmbiguous          = rules.ReasonAmbiguous
	ReasonCovered            = rules.ReasonCovered
	ReasonHeldBack           = rules.ReasonHeldBack
)

// Reason is one code with the rule that decided it, a human-readable
// detail and the facts the rule used. A result owns its reasons: changing
// one changes no other result and no later compile (but for results a
// memo shares, which no host may change: LiveOptions.Memo). Within one result,
// rejected entries with the same rule 1 reason share it (and its Facts),
// so that a large catalog pays for three reasons per compile, not one per
// unit.
type Reason struct {
	Code   ReasonCode `json:"code"`
	Rule   Rule       `json:"rule"`
	Detail string     `json:"detail,omitempty"`
	Facts  *Facts     `json:"facts,omitempty"`
}

// Rule names the rule of docs/how-a-compile-decides.md that made a
// decision, and the clause of it when it has several (rule 10's margin,
// secondary, ...).
type Rule struct {
	Number int      `json:"number"`
	Name   RuleName `json:"name"`
	Clause Clause   `json:"clause,omitempty"`
}

// String renders the rule as "rule 10 strength" or, with a clause, "rule 10
// strength: margin".
func (r Rule) String() string {
	s := fmt.Sprintf("rule %d %s", r.Number, r.Name)
	if r.Clause != "" {
		s += ": " + string(r.Clause)
	}
	return s
}

// Facts are what a decision's rule compared, each present only when the
// rule used it. Scores and thresholds are evidence scores, like
// Selected.Score.
type Facts struct {
	Score          float64 `json:"score,omitempty"`           // the unit's score
	Threshold      float64 `json:"threshold,omitempty"`       // rule 10: selected alone from here
	SupportFloor   float64 `json:"support_floor,omitempty"`   // rule 10: with a margin or beside a kept unit
	CandidateFloor float64 `json:"candidate_floor,omitempty"` // rule 1: put before the policy from here
	Candidates     int     `json:"candidates,omitempty"`      // rule 1: how many candidates the policy judges
	Margin         float64 `json:"margin,omitempty"`          // rule 10: times the runner-up's score the best needs
	// RunnerUp is rule 10's runner-up: the next lexical candidate, or the
	// best unit with evidence that can never be selected, whichever scores
	// higher; empty with RunnerUpScore 0 when no other unit has evidence.
	RunnerUp      string   `json:"runner_up,omitempty"`
	RunnerUpScore *float64 `json:"runner_up_score,omitempty"`
	Breadth       *int     `json:"breadth,omitempty"` // rule 10: distinct task words the evidence rests on
	// Material is the score of the unit's evidence found only in material
	// the user pasted (rule 10, clause confirmed).
	Material float64 `json:"material,omitempty"`
	// Kept is the stronger candidate rule 10 kept before a secondary one.
	Kept      string  `json:"kept,omitempty"`
	KeptScore float64 `json:"kept_score,omitempty"`
	// OwnPart is, for clause no_own_part, the score of the unit's
	// evidence outside Kept's, when that is a part of the task of its own
	// at all; nil when its own evidence rests on one word at most, or on
	// one pair of words its text pairs, said as one thing.
	OwnPart *float64 `json:"own_part,omitempty"`
	// Crowd is the score of CrowdUnit, the unit ranked CrowdRank on the
	// task, and CrowdBar (CrowdRatio times it) the score a candidate
	// beside a kept one needs to stand out of it (rule 10, clause
	// in_crowd).
	Crowd     float64 `json:"crowd,omitempty"`
	CrowdUnit string  `json:"crowd_unit,omitempty"`
	CrowdBar  float64 `json:"crowd_bar,omitempty"`
	// By is the unit the decision names: the superseder (rule 7), the best
	// of a tie (9), the explicit-user-only unit whose words the task's
	// are (10, explicit_only_words: RunnerUp names it too, with its score),
	// the coverer (11), the unit conflicted with (12), the dependent a
	// dependency was selected for (6).
	By         string `json:"by,omitempty"`
	Tokens     *int   `json:"tokens,omitempty"`      // rule 12: tokens the unit and its closure add (over_budget: the least they would, inline or as references)
	BudgetLeft *int   `json:"budget_left,omitempty"` // rule 12: budget left before it was packed
	// Dependency and DependencyReason: the unit of the closure that blocks
	// it, and why (rule 6).
	Dependency       string     `json:"dependency,omitempty"`
	DependencyReason ReasonCode `json:"dependency_reason,omitempty"`
	Missing          string     `json:"missing,omitempty"` // rule 6: the required unit that does not exist
	Cycle            []string   `json:"cycle,omitempty"`   // rule 6: the loop
	// InlineTokens and InlineLeft: rule 12 rendered the unit as a
	// reference, since its group's bodies' InlineTokens did not fit in
	// the InlineLeft left of the budget.
	InlineTokens *int `json:"inline_tokens,omitempty"`
	InlineLeft   *int `json:"inline_left,omitempty"`
	// Confidence and MinConfidence: rule 10 (below_min_confidence) found
	// the confidence of the best lexical candidate (By) below the host's
	// min_confidence.
	Confidence    *float64 `json:"confidence,omitempty"`
	MinConfidence float64  `json:"min_confidence,omitempty"`
	// Invoked: the task invoked the unit as written here ("/name"):
	// reason invoked when it was selected, else what kept it out.
	Invoked string `json:"invoked,omitempty"`
}

// Selected is a unit that entered the prompt.
type Selected struct {
	Name   string `json:"name"`
	Root   string `json:"root"`
	Path   string `json:"path"`
	Tokens int    `json:"tokens"`
	// Rendering is how the unit is in the prompt: inline (its body) or
	// reference (rule 12: its body did not fit the budget, so its name,
	// description and the path of its SKILL.md stand for it, with a line
	// telling the model to read it; Tokens counts that).
	Rendering Rendering `json:"rendering,omitempty"`
	Priority  int       `json:"priority"`
	Score     float64   `json:"score"`
	// Confidence is how plainly the task asks for the unit, in [0, 1]:
	// the square root of the share of the task's informative weight (the
	// idf of its words the catalog knows) the unit's evidence explains,
	// times its margin over its strongest competing rival as a ratio (1 -
	// rival/score). Present for every unit with evidence.
	Confidence *float64 `json:"confidence,omitempty"`
	Reasons    []Reason `json:"reasons"`
	// Evidence is what the task said for the unit, largest first; present
	// when the unit has any and the compile computed it (see Rejected).
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Rendering is how a selected unit is rendered in the prompt.
type Rendering string

const (
	// RenderingInline: the unit's body is in the prompt.
	RenderingInline Rendering = "inline"
	// RenderingReference: the body did not fit the budget; a reference
	// to its SKILL.md stands for it.
	RenderingReference Rendering = "reference"
	// RenderingGiven: the conversation carries the unit's block from an
	// earlier prompt (Request.Carried); a short block points to it.
	RenderingGiven Rendering = "given"
)

// Rejected is a unit that did not enter the prompt. Root and Path tell
// same-named units apart. An entry is the same whether a result lists it
// by default or because the request asked (Request.Why, AllRejected).
type Rejected struct {
	Name  string  `json:"name"`
	Root  string  `json:"root"`
	Path  string  `json:"path"`
	Score float64 `json:"score"`
	// Confidence is as Selected's, present for the lexical candidates and
	// the best-ranked units (Ranking).
	Confidence *float64 `json:"confidence,omitempty"`
	Reasons    []Reason `json:"reasons"`
	// Evidence is what the task said for the unit, largest first: present
	// for the units the policy was shown and for the best-ranked units
	// with some evidence (those --explain shows), omitted otherwise.
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Where is the unit's path as an explanation shows it: within its root,
// or, for a shadowed unit, with its root, since its path within its root
// is the path of the unit that shadows it, within another.
func (rj Rejected) Where() string {
	if rj.Root == "" || len(rj.Reasons) == 0 || rj.Reasons[0].Code != ReasonShadowed {
		return rj.Path
	}
	return filepath.ToSlash(filepath.Join(rj.Root, filepath.FromSlash(rj.Path)))
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
	Schema             int        `json:"schema"`
	Decision           Decision   `json:"decision"`
	Fingerprint        string     `json:"fingerprint"`
	CatalogFingerprint string     `json:"catalog_fingerprint"`
	Budget             Budget     `json:"budget"`
	Selected           []Selected `json:"selected"`
	// Rejected lists, in catalog order, every rejected unit the policy
	// judged, every unit the request named (denied, negated, Why), and
	// the NearMisses best-scoring units left out for too little evidence;
	// with Request.AllRejected, every rejected unit.
	Rejected []Rejected `json:"rejected"`
	// Unlisted counts the rejected units Rejected leaves out, by their
	// reason code (no_evidence, below_threshold, shadowed, invalid): a
	// catalog of thousands of skills would otherwise make every result
	// thousands of entries long. Selected, Rejected and Unlisted account
	// for every unit of the catalog once.
	Unlisted    map[ReasonCode]int `json:"unlisted"`
	Ambiguous   []string           `json:"ambiguous,omitempty"`
	Diagnostics ir.Diagnostics     `json:"diagnostics"`
	Prompt      string             `json:"prompt"`
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

// RejectedCounts counts rejected units by their first reason code, the
// listed ones and the unlisted alike.
func (r *Result) RejectedCounts() map[ReasonCode]int {
	out := make(map[ReasonCode]int, len(r.Unlisted)+4)
	for code, n := range r.Unlisted {
		out[code] += n
	}
	for _, rj := range r.Rejected {
		if len(rj.Reasons) > 0 {
			out[rj.Reasons[0].Code]++
		}
	}
	return out
}

// ErrorCode is the stable code of a failed compile.
type ErrorCode string

// Error codes of a failed compile.
const (
	ErrUnknownUnit       ErrorCode = "unknown_unit"
	ErrSelectionRejected ErrorCode = "selection_rejected"
	ErrMandatoryRejected ErrorCode = "mandatory_rejected"
	ErrInvalidRequest    ErrorCode = "invalid_request"
	ErrBodyChanged       ErrorCode = "body_changed"
	ErrCanceled          ErrorCode = "canceled"
	ErrPolicy            ErrorCode = "policy_error"
)

// Error is a compile that could not be honored. Stage names the pipeline
// stage that failed; Code is stable, Message is for people.
type Error struct {
	Stage   Stage      `json:"stage"`
	Code    ErrorCode  `json:"code"`
	Unit    string     `json:"unit,omitempty"`
	Reason  ReasonCode `json:"reason,omitempty"`
	Message string     `json:"message"`
	cause   error      // what the error wraps, e.g. context.DeadlineExceeded
}

// Error renders "stage: code: message" on one line: the message can quote
// paths that come from folder names, so its unprintable characters are
// escaped.
func (e *Error) Error() string {
	if e.Stage == "" {
		// A load's error: no compile stage ran (it printed ": canceled").
		return fmt.Sprintf("%s: %s", e.Code, ir.EscapeText(e.Message))
	}
	return fmt.Sprintf("%s: %s: %s", e.Stage, e.Code, ir.EscapeText(e.Message))
}

// Unwrap returns the error's cause: for ErrCanceled, the context's error,
// so that errors.Is(err, context.DeadlineExceeded) or context.Canceled
// holds.
func (e *Error) Unwrap() error { return e.cause }

// withCause returns a copy of e that wraps cause beside its own.
func (e *Error) withCause(cause error) *Error {
	c := *e
	c.cause = errors.Join(e.cause, cause)
	return &c
}
