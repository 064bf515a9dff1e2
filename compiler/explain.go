package compiler

import (
	"fmt"
	"io"
	"strings"
)

// EventKind classifies an explanation event.
type EventKind string

// Event kinds.
const (
	EventNegation EventKind = "negation" // the task negated a unit
	// EventNegationOverridden: a negated unit was selected anyway, by the
	// host or as a dependency of a host selection or mandatory unit.
	EventNegationOverridden EventKind = "negation_overridden"
	EventCandidate          EventKind = "candidate" // a unit passed the evidence threshold
	EventSelected           EventKind = "selected"
	EventRejected           EventKind = "rejected"
)

// Event is one step of the explanation, in pipeline order.
type Event struct {
	Stage    Stage      `json:"stage"`
	Kind     EventKind  `json:"kind"`
	Unit     string     `json:"unit"`
	Code     string     `json:"code,omitempty"`
	Detail   string     `json:"detail,omitempty"`
	Score    float64    `json:"score,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// WriteExplanation renders a result's decisions for people: the outcome,
// then every selected unit with its reasons and evidence, then every
// rejected unit with its reason. Units rejected for lack of evidence are
// listed together on one line each per reason so that large catalogs stay
// readable. It is pure: the same result always renders the same text.
func WriteExplanation(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "decision: %s (%d selected, %d rejected); budget %d/%d tokens (%s)\n",
		r.Decision, len(r.Selected), len(r.Rejected), r.Budget.Used, r.Budget.Limit, r.Budget.Tokenizer)
	if len(r.Ambiguous) > 0 {
		fmt.Fprintf(&b, "ambiguous between: %s\n", strings.Join(r.Ambiguous, ", "))
	}
	evidence := map[string][]Evidence{}
	for _, e := range r.Events {
		switch e.Kind {
		case EventNegation:
			fmt.Fprintf(&b, "negation: task says %q, which rules out %s\n", e.Detail, e.Unit)
		case EventNegationOverridden:
			fmt.Fprintf(&b, "negation overridden: task says %q, but %s stays selected (%s): host selections, mandatory units and their dependencies are not the task's to undo\n", e.Detail, e.Unit, e.Code)
		case EventCandidate, EventRejected:
			if e.Evidence != nil {
				evidence[e.Unit] = e.Evidence
			}
		}
	}
	for _, s := range r.Selected {
		fmt.Fprintf(&b, "selected %s: score %.3f, priority %d, %d tokens\n", s.Name, s.Score, s.Priority, s.Tokens)
		for _, rs := range s.Reasons {
			fmt.Fprintf(&b, "  because %s\n", describe(rs))
		}
		writeEvidence(&b, evidence[s.Name])
	}
	grouped := map[string][]string{}
	var order []string
	for _, rj := range r.Rejected {
		code := ""
		if len(rj.Reasons) > 0 {
			code = rj.Reasons[0].Code
		}
		if code == ReasonNoEvidence {
			if _, seen := grouped[code]; !seen {
				order = append(order, code)
			}
			grouped[code] = append(grouped[code], rj.Name)
			continue
		}
		fmt.Fprintf(&b, "rejected %s (%s):", rj.Name, rj.Path)
		if rj.Score != 0 {
			fmt.Fprintf(&b, " score %.3f,", rj.Score)
		}
		for _, rs := range rj.Reasons {
			fmt.Fprintf(&b, " %s", describe(rs))
		}
		b.WriteByte('\n')
		writeEvidence(&b, evidence[rj.Name])
	}
	for _, code := range order {
		fmt.Fprintf(&b, "rejected for %s: %s\n", code, strings.Join(grouped[code], ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeEvidence(b *strings.Builder, ev []Evidence) {
	for i, e := range ev {
		if i == 5 {
			fmt.Fprintf(b, "  evidence: ... %d more\n", len(ev)-5)
			break
		}
		fmt.Fprintf(b, "  evidence: %s %q %+.3f\n", e.Field, e.Match, e.Score)
	}
}
