package main

import (
	"testing"
	"time"
)

// TestHookTimeout: a hook timeout from the settings is seconds, bounded.
func TestHookTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		seconds float64
		want    time.Duration
	}{
		{"unset", 0, claudeDefaultTimeout},
		{"negative", -5, claudeDefaultTimeout},
		{"seconds", 30, 30 * time.Second},
		{"a fraction", 1.5, 1500 * time.Millisecond},
		{"past a Duration", 9.3e9, maxHookTimeout},
		{"huge", 1e300, maxHookTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hookTimeout(tc.seconds); got != tc.want {
				t.Errorf("hookTimeout(%v) = %v; want %v", tc.seconds, got, tc.want)
			}
		})
	}
}
