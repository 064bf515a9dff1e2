//go:build race

package loader

// raceEnabled says the race detector is on: allocation counts differ.
const raceEnabled = true
