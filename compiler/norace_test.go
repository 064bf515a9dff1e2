//go:build !race

package compiler

// raceEnabled says the race detector is on: allocation counts differ.
const raceEnabled = false
