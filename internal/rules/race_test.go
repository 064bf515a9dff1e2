//go:build race

package rules

// raceEnabled says the race detector is on: allocation counts differ.
const raceEnabled = true
