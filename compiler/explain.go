package compiler

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/ir"
)

// EventKind classifies an explanation event.
type EventKind string

// Event kinds.
const (
	EventNegation EventKind = "negation" // the task negated a unit
	// EventInvocation: the task opened by invoking a unit as a command
	// ("/name"), which asks for it as a host selection does, ranked
	// below the host's; Detail holds the invocation as the task writes it.
	EventInvocation EventKind = "invocation"
	// EventNegationOverridden: a negated unit was selected anyway, by the
	// host or as a dependency of a host selection or mandatory unit.
	EventNegationOverridden EventKind = "negation_overridden"
	// EventQuotedValue: the task put a value between double quotation
	// marks (a title, a name, an id), whose words are evidence for no
	// unit; Detail holds it as the task writes it.
	EventQuotedValue EventKind = "quoted_value"
	// EventRefusal: a clause of the task says what not to do ("don't
	// deploy to production"), so its words are evidence for no unit;
	// Detail holds it as the task writes it.
	EventRefusal EventKind = "refusal"
	// EventCandidate: a unit scored at least the candidate floor and was
	// put before the policy as one of the best CandidateCap lexical
	// candidates (rule 1); its evidence comes with it.
	EventCandidate EventKind = "candidate"
	EventSelected  EventKind = "selected"
	EventRejected  EventKind = "rejected"
)

// Event is one step of the explanation, in pipeline order.
type Event struct {
	Stage    Stage      `json:"stage"`
	Kind     EventKind  `json:"kind"`
	Unit     string     `json:"unit"`
	Code     ReasonCode `json:"code,omitempty"`
	Detail   string     `json:"detail,omitempty"`
	Score    float64    `json:"score,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// Args: EventInvocation's arguments, as the task writes them.
	Args string `json:"args,omitempty"`
}

// WriteExplanation renders a result's decisions for people: the outcome,
// then every selected unit with its reasons and evidence, then every
// rejected unit the result lists with its reason, and how many it only
// counts (Result.Unlisted), by reason; each reason names the rule (and
// clause) that decided it, and its detail the facts that rule compared.
// Listed units rejected for lack of evidence are named together on one
// line so that a long list stays readable. It is pure: the same result
// always renders the same text. Names and paths come from folder names, so they are written through
// ir.Printable and details through ir.EscapeText: each event stays on its
// line whatever a catalog holds.
func WriteExplanation(w io.Writer, r *Result) error {
	if r == nil {
		return errors.New("compiler.WriteExplanation: no result (nil)")
	}
	var b strings.Builder
	rejected := len(r.Rejected)
	for _, n := range r.Unlisted {
		rejected += n
	}
	fmt.Fprintf(&b, "decision: %s (%d selected, %d rejected); budget %d/%d tokens (%s)\n",
		r.Decision, len(r.Selected), rejected, r.Budget.Used, r.Budget.Limit, r.Budget.Tokenizer)
	if len(r.Ambiguous) > 0 {
		fmt.Fprintf(&b, "ambiguous between: %s\n", printableList(r.Ambiguous))
	}
	evidence := map[string][]Evidence{}
	for _, e := range r.Events {
		switch e.Kind {
		case EventNegation:
			fmt.Fprintf(&b, "negation: task says %s, which rules out %s\n", ir.Quote(e.Detail), ir.Printable(e.Unit))
		case EventInvocation:
			fmt.Fprintf(&b, "invocation: task opens with %s, which asks for %s", ir.Quote(e.Detail), ir.Printable(e.Unit))
			if e.Args != "" {
				fmt.Fprintf(&b, "; its arguments %s are evidence for no unit", ir.Quote(e.Args))
			}
			b.WriteByte('\n')
		case EventQuotedValue:
			fmt.Fprintf(&b, "quoted value: task quotes %s, a value it passes: its words are evidence for no unit\n", ir.Quote(e.Detail))
		case EventRefusal:
			fmt.Fprintf(&b, "refusal: task says %s, what not to do: its words are evidence for no unit\n", ir.Quote(e.Detail))
		case EventNegationOverridden:
			fmt.Fprintf(&b, "negation overridden: task says %s, but %s stays selected (%s): host selections, mandatory units and their dependencies are not the task's to undo\n", ir.Quote(e.Detail), ir.Printable(e.Unit), e.Code)
		case EventCandidate, EventRejected:
			if e.Evidence != nil {
				evidence[e.Unit] = e.Evidence
			}
		}
	}
	for _, s := range r.Selected {
		rendering := ""
		switch s.Rendering {
		case RenderingReference:
			rendering = ", rendered as reference"
		case RenderingGiven:
			rendering = ", given with an earlier prompt"
		}
		fmt.Fprintf(&b, "selected %s: score %.3f, priority %d, %d tokens%s\n", ir.Printable(s.Name), s.Score, s.Priority, s.Tokens, rendering)
		for _, rs := range s.Reasons {
			fmt.Fprintf(&b, "  because %s\n", ir.EscapeText(describe(rs)))
		}
		writeEvidence(&b, firstOf(s.Evidence, evidence[s.Name]))
	}
	grouped := map[ReasonCode][]string{}
	var order []ReasonCode
	for _, rj := range r.Rejected {
		var code ReasonCode
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
		fmt.Fprintf(&b, "rejected %s (%s):", ir.Printable(rj.Name), ir.Printable(rj.Where()))
		if rj.Score != 0 {
			fmt.Fprintf(&b, " score %.3f,", rj.Score)
		}
		for _, rs := range rj.Reasons {
			fmt.Fprintf(&b, " %s", ir.EscapeText(describe(rs)))
		}
		b.WriteByte('\n')
		// The entry's evidence, with the task's words; a unit asked
		// about (Request.Why) outside the candidates has it there alone.
		writeEvidence(&b, firstOf(rj.Evidence, evidence[rj.Name]))
	}
	for _, code := range order {
		fmt.Fprintf(&b, "rejected for %s: %s\n", code, printableList(grouped[code]))
	}
	// The units the result only counts: how many, by reason, so that the
	// header's total adds up.
	if len(r.Unlisted) > 0 {
		var counts []string
		for _, code := range slices.Sorted(maps.Keys(r.Unlisted)) {
			counts = append(counts, fmt.Sprintf("%d %s", r.Unlisted[code], code))
		}
		fmt.Fprintf(&b, "rejected and not listed: %s\n", strings.Join(counts, ", "))
	}
	// An invalid unit's reason points here: the loader's findings, each
	// with its place, so that --explain says why without a second command.
	// Info findings (a key no client defines, a leniency) are counted, not
	// listed: over a large collection they were most of every explanation,
	// about skills the task never touched; rlmc validate lists them.
	info := 0
	for _, d := range r.Diagnostics {
		if d.Severity == ir.SeverityInfo {
			info++
			continue
		}
		fmt.Fprintf(&b, "diagnostic: %s\n", d.String())
	}
	if info > 0 {
		fmt.Fprintf(&b, "diagnostics: %d more at info level (rlmc validate lists them)\n", info)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// firstOf returns a unless it is empty, else b.
func firstOf(a, b []Evidence) []Evidence {
	if len(a) > 0 {
		return a
	}
	return b
}

func writeEvidence(b *strings.Builder, ev []Evidence) {
	for i, e := range ev {
		if i == 5 {
			fmt.Fprintf(b, "  evidence: ... %d more\n", len(ev)-5)
			break
		}
		fmt.Fprintf(b, "  evidence: %s %s %+.3f", e.Field, ir.Quote(e.Said()), e.Weight)
		if s := e.From(); s != "" {
			fmt.Fprintf(b, " (%s)", s)
		}
		b.WriteString("\n")
	}
}

// printableList joins names for one line of text, each through
// ir.Printable.
func printableList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ir.Printable(n)
	}
	return strings.Join(out, ", ")
}
