package rules

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ichiban/prolog"
)

// TestListHelpers checks the Go-native list plumbing the policy relies on,
// each against the answer its Prolog definition would give.
func TestListHelpers(t *testing.T) {
	e, err := New(catalog(map[string]UnitFacts{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, goal, want string
	}{
		{"names", "names([cand(a, lexical, 1), cand(b, explicit, 2)], X)", "[a b]"},
		{"names of nothing", "names([], X)", "[]"},
		{"names refuses other terms", "names([cand(a, lexical, 1), x], X)", "fail"},
		{"lexical scores", "lexical_scores([cand(a, explicit, 5), cand(b, lexical, 3), cand(c, lexical, 2)], X)", "[3 2]"},
		{"values", "values([k(1)-a, k(2)-b], X)", "[a b]"},
		{"append lists", "append([[a], [], [b, c]], X)", "[a b c]"},
		{"append nothing", "append([], X)", "[]"},
		{"memberchk", "memberchk(b, [a, b]), X = yes", "yes"},
		{"subtract keeps order", "subtract([c, a, b], [a], X)", "[c b]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sol := e.interp.QuerySolution(tt.goal + ".")
			got := "fail"
			var out struct{ X any }
			switch err := sol.Err(); {
			case errors.Is(err, prolog.ErrNoSolutions):
			case err != nil:
				t.Fatalf("%s: %v", tt.goal, err)
			default:
				if err := sol.Scan(&out); err != nil {
					t.Fatal(err)
				}
				got = fmt.Sprint(out.X)
			}
			if got != tt.want {
				t.Errorf("%s: got %s; want %s", tt.goal, got, tt.want)
			}
		})
	}
}
