package catcache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/binenc"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// TestFormatVersionPinned: what a cache file holds of a fixed catalog (its
// units, its index and its bags, as encoded) has one digest per
// formatVersion, recorded in testdata/format.txt. A file's key names the
// executable that wrote it too (putBuild), but that cannot tell apart two
// builds installed with the same path, size, time and inode, nor any
// build when the executable cannot be found; then only the version keeps
// a new binary from reading an old file as its own. So a change of what
// a file holds fails here until formatVersion changes. -update records
// the digest of a new version, never a second one for a recorded version.
func TestFormatVersionPinned(t *testing.T) {
	review := &ir.Unit{Name: "code-review", Description: "Review a pull request. Use when the user asks to \"check my diff\".", Status: ir.StatusOK, Invocation: ir.InvocationAutomatic,
		Headings: []string{"Steps"}, Lead: "Read the diff, then the tests.", Aliases: []string{"review"},
		Triggers: []ir.Trigger{{Kind: ir.TriggerKeyword, Value: "lint", Weight: ir.DefaultTriggerWeight}, {Kind: ir.TriggerObject, Value: "pull request", Weight: ir.DefaultTriggerWeight}}}
	deploy := &ir.Unit{Name: "deploy", Description: "Deploy the service to staging. 把服务部署到预发环境。ステージングへデプロイ。", Status: ir.StatusOK, Invocation: ir.InvocationExplicitUser}
	cat := ir.NewCatalog(nil, []*ir.Unit{review, deploy}, nil)
	w := binenc.NewWriter()
	for _, u := range cat.Units {
		encodeUnit(w, u)
	}
	ix, bags := retrieval.BuildWith(cat, nil, nil)
	ix.Encode(w)
	for _, bg := range bags {
		bg.Encode(w)
	}
	sum := sha256.Sum256(w.Bytes())
	got := hex.EncodeToString(sum[:])

	file := filepath.Join("testdata", "format.txt")
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	recorded := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		v, digest, ok := strings.Cut(line, " ")
		if n, err := strconv.Atoi(v); ok && err == nil {
			recorded[n] = digest
		}
	}
	want, ok := recorded[formatVersion]
	switch {
	case ok && want != got:
		t.Fatalf("got digest %s for format %d; want %s: the encoding changed, so formatVersion must change too", got, formatVersion, want)
	case !ok && *testkit.Update:
		line := fmt.Sprintf("%d %s\n", formatVersion, got)
		if err := os.WriteFile(file, append(data, line...), 0o644); err != nil {
			t.Fatal(err)
		}
	case !ok:
		t.Fatalf("format %d has no recorded digest (go test -update records %s)", formatVersion, got)
	}
}
