package compiler

import (
	"context"
	"testing"
)

// TestMinConfidence: every unit with evidence carries its confidence in
// [0, 1], and the host's min_confidence is the operating point of routing
// from the task: below it nothing is selected from the task; host
// selections still are.
func TestMinConfidence(t *testing.T) {
	files := map[string]string{
		"skills/weather/SKILL.md": skill("weather", "Weather forecasts for a city.", "", "# weather"),
		"skills/notes/SKILL.md":   skill("notes", "Take meeting notes for the council.", "", "# notes"),
		"skills/deploy/SKILL.md":  skill("deploy", "Deploy the service to production.", "", "# deploy"),
	}
	const task = "weather forecasts for the council"
	tests := []struct {
		name     string
		min      float64
		sel      []string
		decision Decision
	}{
		{name: "no floor", min: 0, decision: DecisionRoute},
		{name: "floor below", min: 0.1, decision: DecisionRoute},
		{name: "floor above", min: 0.99, decision: DecisionNoRoute},
		{name: "floor above, host selection kept", min: 0.99, sel: []string{"deploy"}, decision: DecisionRoute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := build(t, files, Policy{MinConfidence: tt.min})
			res, err := c.Compile(context.Background(), Request{Task: task, Select: tt.sel})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tt.decision {
				t.Fatalf("decision: got %s; want %s (%v)", res.Decision, tt.decision, res.Names())
			}
			for _, s := range res.Selected {
				if s.Score > 0 && (s.Confidence == nil || *s.Confidence < 0 || *s.Confidence > 1) {
					t.Errorf("selected %s confidence: got %v; want a value in [0, 1]", s.Name, s.Confidence)
				}
			}
			var rated bool
			for _, r := range res.Rejected {
				if r.Name != "weather" {
					continue
				}
				rated = r.Confidence != nil
				// The rejection says what it compared (an audit found
				// neither number in it).
				if f := r.Reasons[0].Facts; r.Reasons[0].Rule.Clause == "below_min_confidence" &&
					(f.Confidence == nil || *f.Confidence != *r.Confidence || f.MinConfidence != tt.min) {
					t.Errorf("facts: got confidence %v, min_confidence %v; want %v and %v", f.Confidence, f.MinConfidence, *r.Confidence, tt.min)
				}
			}
			if tt.decision == DecisionNoRoute && !rated {
				t.Errorf("rejected weather: got no confidence; want one")
			}
		})
	}
}
