package suggest

import (
	"math/rand/v2"
	"testing"
)

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

// TestWithin: the bounded distance Closest uses agrees with Distance on
// every pair, within the limit or not, short or long.
func TestWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc-"[r.IntN(4)]
		}
		return string(b)
	}
	for range 20000 {
		a, b := word(r.IntN(8)), word(r.IntN(8))
		if r.IntN(50) == 0 {
			a, b = word(60+r.IntN(10)), word(60+r.IntN(10))
		}
		limit := r.IntN(4)
		want := Distance(a, b)
		got, ok := within(a, b, limit)
		if ok != (want <= limit) || ok && got != want {
			t.Fatalf("within(%q, %q, %d): got %d, %v; want %d", a, b, limit, got, ok, want)
		}
	}
}
