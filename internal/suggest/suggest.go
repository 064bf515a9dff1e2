// Package suggest finds the name a mistyped one most likely meant, for the
// "did you mean" of flags, policy keys and unit names.
package suggest

import "strings"

// Closest returns the name within maxDist edits of word (compared in
// lower case), the nearest first and ties by name; "" when none is that
// close. It is called with every unit name of a catalog of thousands, on
// a request's names: a name whose length differs by more than maxDist
// costs nothing, and no other allocates.
func Closest(word string, names []string, maxDist int) string {
	word = strings.ToLower(word)
	best, bestD := "", maxDist+1
	for _, name := range names {
		if d, ok := within(word, name, bestD); ok && (d < bestD || best != "" && name < best) {
			best, bestD = name, d
		}
	}
	return best
}

// within returns the distance between a and b when it is at most limit.
func within(a, b string, limit int) (int, bool) {
	if abs(len(a)-len(b)) > limit {
		return 0, false
	}
	if len(b) >= shortName {
		d := Distance(a, b)
		return d, d <= limit
	}
	// Two rows on the stack; a row whose every cell is past limit ends it.
	var prev, cur [shortName]int
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low > limit {
			return 0, false
		}
		prev, cur = cur, prev
	}
	return prev[len(b)], prev[len(b)] <= limit
}

// shortName bounds the names within compares without allocating; longer
// ones are rare, and compared by Distance.
const shortName = 64

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Distance is the Levenshtein distance between a and b, in bytes: the
// names it compares (flags, keys) are ASCII.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
