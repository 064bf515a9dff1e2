package server

import (
	"runtime/debug"
	"testing"
)

func TestGCPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name           string
		live, headroom uint64
		want           int
	}{
		{"no estimate yet", 0, 64 * mib, 100},
		{"small catalog: live + headroom", 16 * mib, 64 * mib, 400},
		{"large catalog: Go's default", 512 * mib, 64 * mib, 100},
		{"tiny estimate: capped", 1 * mib, 64 * mib, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := gcPercent(tt.live, tt.headroom); got != tt.want {
				t.Errorf("got %d; want %d", got, tt.want)
			}
		})
	}
}

// TestTuneGC checks that a zero headroom leaves the collector alone and
// that any other sets a target no lower than Go's default.
func TestTuneGC(t *testing.T) {
	old := debug.SetGCPercent(123)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	tuneGC(0)
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("got GOGC %d after a zero headroom; want 123 untouched", got)
	}
	tuneGC(DefaultGCHeadroom)
	if got := debug.SetGCPercent(123); got < 100 || got > 1000 {
		t.Errorf("got GOGC %d; want 100-1000", got)
	}
}
