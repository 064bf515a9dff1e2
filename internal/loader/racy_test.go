package loader

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRacyFutureFile: a file dated in the future is judged by its inode's
// change time, not kept within the racy window until that date; a file
// dated in the past by its modification time, as before.
func TestRacyFutureFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "SKILL.md")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	stat := func(mtime time.Time) os.FileInfo {
		t.Helper()
		if err := os.Chtimes(file, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	now := time.Now()
	future := stat(now.Add(24 * time.Hour))
	if _, ok := changeTime(future); !ok {
		t.Skip("the system does not say the change time")
	}
	tests := []struct {
		name string
		info os.FileInfo
		now  time.Time
		want bool
	}{
		{"dated in the future, just changed", future, now, true},
		{"dated in the future, changed before the window", future, now.Add(racyWindow + time.Second), false},
	}
	for _, tt := range tests {
		if got := racy(tt.info, tt.now); got != tt.want {
			t.Errorf("%s: got racy %v; want %v", tt.name, got, tt.want)
		}
	}
	past := stat(now.Add(-time.Hour))
	if racy(past, now) {
		t.Error("dated an hour ago: got racy; want not (its modification time decides, whatever its change time)")
	}
}
