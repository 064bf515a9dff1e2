package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/safefs"
)

func TestLoadPolicyBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("deny: [x]\n# "+strings.Repeat("x", maxPolicyBytes)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file string
		want error
	}{
		{"larger than the limit", big, safefs.ErrTooLarge},
		{"a folder", dir, safefs.ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := LoadPolicy(tt.file); !errors.Is(err, tt.want) {
				t.Errorf("got %v; want %v", err, tt.want)
			}
		})
	}
}

// TestLoadPolicyIntegerOutOfRange: a whole number past 2^63 is placed at
// its line like any other bad value; it was yaml.v3's own "unmarshal
// errors" text with no file:line.
func TestLoadPolicyIntegerOutOfRange(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte("deny: [x]\nbudget: 9223372036854775808\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadPolicy(file)
	if err == nil || !strings.HasPrefix(err.Error(), file+":2: ") || strings.Contains(err.Error(), "unmarshal") {
		t.Errorf("got %v; want it placed at %s:2 in rlmc's words", err, file)
	}
}
