package compiler

import (
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/rules"
)

// TestNoMarginAgainstAnUnselectable: a runner-up scoring more than "the
// best candidate" (a unit the task's words point to but that cannot be
// selected from it) is said so, not as a best scoring less than its
// runner-up, which read as a contradiction to a newcomer.
func TestNoMarginAgainstAnUnselectable(t *testing.T) {
	more, less := 6.999, 1.2
	tests := []struct {
		name, want string
		runner     float64
	}{
		{"runner-up scores more", "the best candidate that may be selected needs 2x its runner-up deploy (6.999), which the task's words point to more", more},
		{"runner-up scores less", "and the best candidate needs 2x its runner-up deploy (1.200)", less},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strength(rules.ClauseNoMargin, &Facts{Score: 2.89, Threshold: 4.5, Margin: 2, RunnerUp: "deploy", RunnerUpScore: &tt.runner})
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q; want it to hold %q", got, tt.want)
			}
		})
	}
}

// TestNoOwnPartSaysWhy: no_own_part says which way the unit failed to
// have a part of its own: a score of its own too low, or evidence of its
// own on one word or one pair of words. It said "its evidence outside
// that one's reaches neither the threshold" of a unit whose own evidence
// (4.611, above the threshold) rested on one word pair.
func TestNoOwnPartSaysWhy(t *testing.T) {
	low := 2.085
	tests := []struct {
		name, want string
		own        *float64
	}{
		{"too little of its own", "its evidence outside that one's (2.085) reaches neither the threshold", &low},
		{"one word or pair", "rests on one task word at most, or on one pair of words its text pairs", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strength(rules.ClauseNoOwnPart, &Facts{Score: 4.611, Threshold: 4.5, SupportFloor: 2, Kept: "python-format", KeptScore: 9.612, OwnPart: tt.own})
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q; want it to hold %q", got, tt.want)
			}
		})
	}
}
