package compiler

import (
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
)

// TestLoadLimitsDocumented: LoadLimits's comment states the defaults,
// since go doc shows the alias without them.
func TestLoadLimitsDocumented(t *testing.T) {
	want := LoadLimits{MaxFileBytes: 100 << 10, MaxFrontmatterBytes: 64 << 10, MaxDepth: 6, MaxFolders: 50000}
	if got := loader.DefaultLimits; got != want {
		t.Errorf("loader.DefaultLimits = %+v; the LoadLimits comment says %+v", got, want)
	}
}
