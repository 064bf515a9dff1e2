package compiler

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestCompileJSONIdentity pins, by digest, the compile JSON (and the
// explanation) of a spread of requests over a generated catalog with
// shadowed and invalid units: every route, rejection kind and reason the
// result can carry. Any change to how a result is assembled or encoded
// must leave them as they are; go test -update rewrites them only for a
// deliberate change of the contract.
//
// identity.golden holds the default results (schema 2). identity-all.golden
// holds the digests schema 1 results had, taken before the rejected list
// was built from a per-catalog table, and the same requests with
// AllRejected must still give those bytes once the version reads 1 and
// the empty "unlisted" is taken out: listing every unit is schema 1's list,
// entry for entry, explanation included.
func TestCompileJSONIdentity(t *testing.T) {
	t.Run("default", func(t *testing.T) { checkIdentity(t, false, "identity.golden") })
	t.Run("all rejected", func(t *testing.T) { checkIdentity(t, true, "identity-all.golden") })
}

func checkIdentity(t *testing.T, all bool, golden string) {
	dir := t.TempDir()
	roots := testkit.GenerateCatalog(t, filepath.Join(dir, "gen"), 300, 7)
	// A second root shadows two generated names; one skill is invalid.
	extra := filepath.Join(dir, "extra")
	first, err := loader.Load(context.Background(), loader.Options{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range first.Units[:2] {
		testkit.WriteFile(t, filepath.Join(extra, u.Name, "SKILL.md"), "---\nname: "+u.Name+"\ndescription: a namesake that loses to the first root, about billing audits.\n---\nbody\n")
	}
	testkit.WriteFile(t, filepath.Join(extra, "broken", "SKILL.md"), "---\nname: broken\ndescription: render chart audit\nmetadata:\n  prolog-rlm: '{\"schema\": 1, \"mode\": \"x\"}'\n---\nbody\n")
	roots = append(roots, extra)
	names := func(c *Compiler, k ...int) []string {
		var out []string
		for _, i := range k {
			out = append(out, c.Catalog().Units[i].Name)
		}
		return out
	}
	var lines []string
	for _, p := range []Policy{{}, {Ambiguity: AmbiguityTop}, {Ambiguity: AmbiguityAll, Budget: 300}} {
		c, err := Load(context.Background(), loader.Options{Roots: roots}, p)
		if err != nil {
			t.Fatal(err)
		}
		reqs := []Request{
			{Task: benchTask},
			{Task: "render the chart"},
			{Task: "please audit the billing schema"},
			{Task: "kappa lambda sigma report, not " + c.Catalog().Units[5].Name},
			{Task: "deploy the docker kubernetes terraform stack", Tokenizer: "cl100k_base"},
			{Task: "invoice ledger payroll", Select: names(c, 3, 9), Deny: names(c, 10)},
			{Task: "translate and summarize the audio caption", Budget: 50},
			{Task: ""},
			{Task: "zzz unrelated words only"},
		}
		for i, req := range reqs {
			req.AllRejected = all
			res, err := c.Compile(context.Background(), req)
			var out bytes.Buffer
			if err != nil {
				fmt.Fprintf(&out, "error %v", err)
			} else {
				if err := WriteJSON(&out, res); err != nil {
					t.Fatal(err)
				}
				if err := WriteExplanation(&out, res); err != nil {
					t.Fatal(err)
				}
			}
			// Roots are temporary folders: the digest covers the rest.
			text := strings.ReplaceAll(out.String(), dir, "DIR")
			if all {
				before := text
				text = strings.Replace(text, "{\n  \"schema\": 2,", "{\n  \"schema\": 1,", 1)
				text = strings.Replace(text, "\n  \"unlisted\": {},", "", 1)
				if err == nil && len(text) != len(before)-len("\n  \"unlisted\": {},") {
					t.Fatalf("request %d: got no schema 2 and empty unlisted to take out of the JSON", i)
				}
			}
			sum := sha256.Sum256([]byte(text))
			if testing.Verbose() && res != nil {
				t.Logf("%s/%d %d: %s sel=%d codes=%v", p.Ambiguity, p.Budget, i, res.Decision, len(res.Selected), res.RejectedCounts())
			}
			lines = append(lines, fmt.Sprintf("policy %s/%d request %d: %s", p.Ambiguity, p.Budget, i, hex.EncodeToString(sum[:])))
		}
	}
	testkit.Golden(t, filepath.Join("testdata", golden), []byte(strings.Join(lines, "\n")+"\n"))
}
