package retrieval

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestDiagnosticsLocated: an ignored alias or trigger is reported where
// it is declared, the metadata.prolog-rlm line of SKILL.md or the
// manifest.json beside it; it was reported at SKILL.md with no line.
func TestDiagnosticsLocated(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "charts", "SKILL.md"), "---\nname: charts\ndescription: Draw sales charts.\nmetadata:\n  prolog-rlm: '{\"schema\": 1, \"aliases\": [\"the\"]}'\n---\nBody.\n")
	testkit.WriteFile(t, filepath.Join(root, "router", "SKILL.md"), "---\nname: router\ndescription: Route the requests.\n---\nBody.\n")
	testkit.WriteFile(t, filepath.Join(root, "router", "manifest.json"), `{"name": "router", "aliases": ["charts"]}`)
	cat, err := loader.Load(context.Background(), loader.Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[ir.Code]string{}
	for _, d := range Build(cat, nil).Diagnostics() {
		got[d.Code] = d.Position()
	}
	want := map[ir.Code]string{ir.CodeNoContentWord: "charts/SKILL.md:5", ir.CodeAliasCollision: "router/manifest.json"}
	for code, pos := range want {
		if got[code] != pos {
			t.Errorf("%s: got %q; want %q (all: %v)", code, got[code], pos, got)
		}
	}
}
