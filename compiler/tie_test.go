package compiler

import (
	"context"
	"testing"
)

// TestTieRelativeToTask: a rival whose score is within the tie ratio is no
// tie when the best explains clearly more of the task's words (the
// Seal-Tools floor in package bench measures that); two units that explain
// the task alike still make it ambiguous, and a best that explains more
// routes.
func TestTieRelativeToTask(t *testing.T) {
	c := build(t, map[string]string{
		"skills/sales-export/SKILL.md": skill("sales-export", "Export quarterly sales tables to CSV files for the finance team, with totals, headers and currency formats.", "", "# sales-export"),
		"skills/table-export/SKILL.md": skill("table-export", "Export sales tables to CSV.", "", "# table-export"),
		"skills/csv-writer/SKILL.md":   skill("csv-writer", "Write tables to CSV files.", "", "# csv-writer"),
		"skills/csv-dumper/SKILL.md":   skill("csv-dumper", "Write tables to CSV files.", "", "# csv-dumper"),
		"skills/deploy/SKILL.md":       skill("deploy", "Deploy the service to production.", "", "# deploy"),
	}, Policy{})
	tests := []struct {
		name, task string
		decision   Decision
		first      string
	}{
		{name: "best explains more", task: "export the quarterly sales tables to CSV", decision: DecisionRoute, first: "sales-export"},
		{name: "twins explain alike", task: "write the tables to CSV files", decision: DecisionAmbiguous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Compile(context.Background(), Request{Task: tt.task})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tt.decision {
				t.Fatalf("decision for %q: got %s; want %s (selected %v, ranking %v)", tt.task, res.Decision, tt.decision, res.Names(), res.Ranking)
			}
			if tt.first != "" && res.Names()[0] != tt.first {
				t.Errorf("first selected for %q: got %s; want %s", tt.task, res.Names()[0], tt.first)
			}
		})
	}
}
