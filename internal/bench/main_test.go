package bench

import (
	"os"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestMain says, in one line, which tests ../shared's absence skipped.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m, "bench")) }
