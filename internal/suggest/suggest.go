// Package suggest finds the name a mistyped one most likely meant, for the
// "did you mean" of flags and policy keys.
package suggest

import "strings"

// Closest returns the name within maxDist edits of word (compared in
// lower case), the nearest first and ties by name; "" when none is that
// close.
func Closest(word string, names []string, maxDist int) string {
	best, bestD := "", maxDist+1
	for _, name := range names {
		if d := Distance(strings.ToLower(word), name); d < bestD || d == bestD && best != "" && name < best {
			best, bestD = name, d
		}
	}
	return best
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
