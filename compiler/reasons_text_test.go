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
