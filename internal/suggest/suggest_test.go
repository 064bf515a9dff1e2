package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		want int
	}{
		{"same", "deny", "deny", 0},
		{"one added", "denny", "deny", 1},
		{"one swapped", "budegt", "budget", 2},
		{"empty", "", "root", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Distance(tt.a, tt.b); got != tt.want {
				t.Errorf("Distance(%q, %q): got %d; want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	names := []string{"budget", "deny", "roots", "root"}
	for _, tt := range []struct {
		name, word string
		max        int
		want       string
	}{
		{"typo", "denny", 2, "deny"},
		{"upper case", "DENY", 1, "deny"},
		{"nearest wins", "roots", 2, "roots"},
		{"tie by name", "rootz", 1, "root"},
		{"too far", "zzz", 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.word, names, tt.max); got != tt.want {
				t.Errorf("Closest(%q): got %q; want %q", tt.word, got, tt.want)
			}
		})
	}
}
