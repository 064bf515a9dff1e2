package compiler

import "github.com/rlmc-dev/rlmc/internal/retrieval"

// Policy parameters on the evidence scale retrieval computes. They are
// generic (no rule names a skill or a phrase), documented in docs/how-a-compile-decides.md, and
// were calibrated on the even-hash half of the benchmark cases only. The
// policy reads them as request facts (threshold/2, support_floor/2,
// tie_ratio/2, margin_ratio/2, threshold_margin/2, min_breadth/2, intent_confidence/2,
// tie_task_share/2; explains_more/3 compares with TieExplained; crowd/2
// is the score of the unit ranked CrowdRank, crowd_bar/2 CrowdRatio times
// it).
const (
	// Threshold is the evidence a unit needs to be selected from the task
	// alone (rule 10).
	Threshold = 4.5
	// CandidateFloor is the evidence a unit needs to be put before the
	// policy at all: between it and Threshold a unit can only make a task
	// ambiguous, never be selected.
	CandidateFloor = retrieval.CandidateFloor
	// SupportFloor is the evidence a candidate below Threshold needs to be
	// selected anyway: as the best candidate with a margin over the runner-up
	// (MarginRatio, ThresholdMargin)
	// (a clear margin), or beside a stronger selected candidate (a task
	// that asks for two things).
	SupportFloor = 2.0
	// MarginRatio: the best candidate at SupportFloor is clear of its
	// runner-up when it scores at least this many times as much (rule 10,
	// margin_ratio/2); above it the margin needed slides down to
	// ThresholdMargin just below Threshold, so that a candidate's
	// strength and its margin trade off without a step at Threshold.
	MarginRatio = 2
	// ThresholdMargin: the margin the best candidate just below
	// Threshold needs (threshold_margin/2, in percent). Chosen on four
	// fresh task sets and realskills: 1.6 added two wrong skills on
	// realskills and 3% false routes on MetaTool's general questions,
	// 1.75 one and 1%, for four and five more right answers.
	ThresholdMargin = 1.75
	// MinBreadth: how many distinct task words a candidate's evidence must
	// rest on to be grounded without a margin (rule 9, rule 10's sole and
	// own_words clauses; min_breadth/2).
	MinBreadth = 2
	// TieRatio: a competing candidate scoring at least this percentage of
	// the best one makes the task ambiguous (rule 9).
	TieRatio = 75
	// TieExplained: a rival within TieRatio is no tie when the best
	// candidate explains at least this many times as much of the task's
	// informative weight, each share scaled by how much of the unit's
	// name the task states, plus how much of the task the name states,
	// when it states part of both
	// (retrieval.Problem.ExplainsMore; explains_more/3, rule 9). Chosen
	// on the even halves.
	TieExplained = 1.05
	// TieTaskShare: rivals within TieRatio make the task ambiguous only
	// when one of them explains at least this share of the task's
	// informative weight (rule 9, tie_task_share/2 and explained/3):
	// two units sharing one word of a task about something else ("write
	// a thank-you note" for two writing skills) are no question to ask;
	// the task simply asks for neither. A tie whose best reaches Threshold
	// is asked about however little it explains. Chosen on the even
	// halves: at 0.5 a Skill Router case labelled ambiguous, whose tie
	// explains 0.419 of it, was lost.
	TieTaskShare = 0.4
	// IntentConfidence is the confidence each part of a task that asks
	// for several things needs (intent_confidence/2, rule 10's intents clause). Chosen on the even halves.
	IntentConfidence = 0.7
	// CrowdRank and CrowdRatio: a candidate kept beside a stronger one
	// (rule 10) must score at least CrowdRatio times the crowd, the score
	// of the unit ranked CrowdRank on the task (crowd/2, crowd_bar/2),
	// eligible or not, unless a clause of the task is its own. A long
	// task or a pasted log shares words with many skills: the crowd is
	// what a skill scores on this task, in this catalog, without being
	// asked for, and a second skill has to stand out of it. Where fewer
	// units have evidence, the crowd is 0 and the check keeps everything.
	// Chosen on the even halves.
	CrowdRank  = 5
	CrowdRatio = 1.8
	// MaterialFloor: a best candidate below Threshold without a margin
	// over its runner-up is kept when its evidence found only in pasted
	// material reaches this score, is at least MarginRatio times every
	// other candidate's, and the instruction gives it evidence too: the
	// pasted log or code confirms the skill the instruction points to
	// (rule 10, clause confirmed; material_floor/2).
	MaterialFloor = 1.0
	// CandidateCap bounds the lexical candidates put before the policy; the
	// interpreter's cost grows with them.
	CandidateCap = retrieval.CandidateCap
	// NearMisses is how many units a result lists, beyond those the policy
	// judged and those the request named, of the units left out for too
	// little evidence: the best-scoring ones, whose reasons answer "why did
	// X not load" for the units that came close. Every other such unit is
	// only counted (Result.Unlisted).
	NearMisses = 5
)

// Evidence is one reason a unit scored; see retrieval.Evidence.
type Evidence = retrieval.Evidence

// Ranked is a unit and its evidence score; see retrieval.Ranked.
type Ranked = retrieval.Ranked
