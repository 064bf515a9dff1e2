package retrieval

import (
	"context"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/pulse"
)

// TestConfidence: confidence is relative to the task and the catalog. A
// unit that explains the task's informative words with no competing rival
// is confident; rivals on the same words take its margin away; a unit
// resting on one common word of a long task explains little of it; two
// units each resting on their own words ("debug and commit this") are no
// rivals of each other.
func TestConfidence(t *testing.T) {
	ix := testIndex(
		unit("python-debugging", "Debug Python programs: find the bug with a debugger."),
		unit("git-commit", "Commit staged changes to git with a good message."),
		unit("py-debug-twin", "Debug Python programs with a debugger."),
		unit("weather", "Forecasts for a city."),
		unit("notes", "Take notes about the city council meeting agenda budget."),
	)
	retrieve := func(task string) *Problem {
		t.Helper()
		pr, err := ix.Retrieve(context.Background(), ix.Analyze(task, nil), Request{}, &fakeJudge{}, pulse.New(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	tests := []struct {
		name, task, unit string
		lo, hi           float64 // want lo <= confidence <= hi
	}{
		{name: "plain and alone", task: "weather forecasts for Paris", unit: "weather", lo: 0.7, hi: 1},
		{name: "own words, no rival", task: "commit staged changes", unit: "git-commit", lo: 0.9, hi: 1},
		{name: "twin on the same words", task: "debug python programs", unit: "python-debugging", lo: 0, hi: 0.3},
		{name: "two intents are no rivals", task: "debug the python bug with the debugger and commit staged changes to git", unit: "git-commit", lo: 0.5, hi: 1},
		{name: "one common word of a long task", task: "draft the council agenda and the budget summary for the council meeting, about the weather", unit: "weather", lo: 0, hi: 0.5},
		{name: "no evidence", task: "book a table", unit: "weather", lo: 0, hi: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := retrieve(tt.task).Confidence(tt.unit)
			if got < tt.lo || got > tt.hi {
				t.Errorf("Confidence(%s) for %q: got %.3f; want in [%.2f, %.2f]", tt.unit, tt.task, got, tt.lo, tt.hi)
			}
		})
	}
}

// TestExplainsMore: near-duplicates compare by how much of each name the
// task states when it states part of both; a name the task never states
// (a brand) leaves them to compare on what they explain of the task.
func TestExplainsMore(t *testing.T) {
	ix := testIndex(
		unit("check-ssl", "Check the SSL certificate of a website."),
		unit("check-ssl-validity", "Check the validity of the SSL certificate of a website."),
		unit("cats", "Pictures of cats."),
		unit("cataas", "Cat as a service: pictures of cats."),
		unit("weather", "Forecasts for a city."),
		unit("create-campaign", "Create a marketing or promo campaign."),
		unit("create-marketing-campaign", "Create a marketing campaign for a launch."),
	)
	tests := []struct {
		name, task, a, b string
		want             bool
	}{
		{name: "name stated whole", task: "check the ssl certificate of example.org", a: "check-ssl", b: "check-ssl-validity", want: true},
		{name: "name with a word unsaid", task: "check the ssl certificate of example.org", a: "check-ssl-validity", b: "check-ssl"},
		{name: "brand name unsaid", task: "show me pictures of cats", a: "cats", b: "cataas"},
		// Both names stated whole: the one that states more of the task.
		{name: "name states more of the task", task: "create a marketing campaign named spring sale", a: "create-marketing-campaign", b: "create-campaign", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, err := ix.Retrieve(context.Background(), ix.Analyze(tt.task, nil), Request{}, &fakeJudge{}, pulse.New(context.Background()))
			if err != nil {
				t.Fatal(err)
			}
			if got := pr.ExplainsMore(tt.a, tt.b, 1.05); got != tt.want {
				t.Errorf("ExplainsMore(%s, %s): got %v; want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
