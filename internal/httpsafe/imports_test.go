package httpsafe

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// TestFrontEndsDoNotLean: what `rlmc serve` and `rlmc proxy` share lives
// here, so neither front-end imports the other, and serve does not import
// the test-case runner for its request type.
func TestFrontEndsDoNotLean(t *testing.T) {
	for _, tc := range []struct{ dir, forbidden string }{
		{"../proxy", "github.com/rlmc-dev/rlmc/internal/server"},
		{"../server", "github.com/rlmc-dev/rlmc/internal/proxy"},
		{"../server", "github.com/rlmc-dev/rlmc/internal/suite"},
	} {
		files, err := filepath.Glob(filepath.Join(tc.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", tc.dir, err)
		}
		for _, f := range files {
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == tc.forbidden {
					t.Errorf("%s imports %s; want it through internal/httpsafe", f, path)
				}
			}
		}
	}
}
