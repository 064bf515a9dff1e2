package retrieval

import "testing"

// TestWholeTask: a candidate is the whole task when its evidence rests on
// every content word of it, known to the catalog or not.
func TestWholeTask(t *testing.T) {
	ix := testIndex(unit("docker-dev", "Write a Dockerfile for the service."), unit("soil", "Analyze soil composition."))
	tests := []struct {
		name, task, unit string
		want             bool
	}{
		{name: "one word that is all the task says", task: "make a dockerfile", unit: "docker-dev", want: true},
		{name: "a word among others the catalog does not know", task: "what's the composition of species in my garden?", unit: "soil", want: false},
		{name: "a word among others the unit does not match", task: "write a dockerfile and a helm chart", unit: "docker-dev", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			ev := map[string][]Evidence{tt.unit: ix.evidence(q, ix.ids[tt.unit], never)}
			got := wholeTask(q, []Candidate{{Name: tt.unit, Origin: OriginLexical}}, ev)[tt.unit]
			if got != tt.want {
				t.Errorf("wholeTask(%q) for %s: got %v; want %v", tt.task, tt.unit, got, tt.want)
			}
		})
	}
}
