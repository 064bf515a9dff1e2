//go:build race

package main

// raceEnabled says the race detector is on: it makes a program several
// times slower, so a hook's default one-second deadline measures the
// detector, not the hook (see raceHookArgs).
const raceEnabled = true
