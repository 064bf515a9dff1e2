package bench

// Every test binary accepts -update, so `go test ./... -update` refreshes
// golden files wherever they are.
import _ "github.com/rlmc-dev/rlmc/internal/testkit"
