package compiler

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/rlmc-dev/rlmc/rules"
)

// TestPolicyReasonsAreGoConstants ties every reason atom rules/policy.pl
// can decide to a Go reason code, so that a rule added to the policy
// cannot reach the JSON contract with a code README.md does not document.
func TestPolicyReasonsAreGoConstants(t *testing.T) {
	src, err := os.ReadFile("../rules/policy.pl")
	if err != nil {
		t.Fatal(err)
	}
	known := []string{
		ReasonExplicit, ReasonMandatory, ReasonLexical, ReasonDependency,
		ReasonBelowThreshold, ReasonExplicitOnly, ReasonNegated, ReasonDenied,
		ReasonMissingDependency, ReasonDependencyCycle, ReasonDependencyRejected,
		ReasonConflict, ReasonSuperseded, ReasonOverBudget, ReasonShadowed,
		ReasonInvalid, ReasonAmbiguous, ReasonCovered, ReasonHeldBack,
	}
	// Origins are selection reasons too: select(N, O, S) admits a candidate
	// with its origin.
	for _, o := range []rules.Origin{rules.OriginMandatory, rules.OriginExplicit, rules.OriginLexical} {
		if !slices.Contains(known, string(o)) {
			t.Errorf("origin %q is no Go reason code", o)
		}
	}
	atoms := regexp.MustCompile(`(?:reject|select)\([A-Za-z_]+, ([a-z][a-z_]*)`).FindAllSubmatch(src, -1)
	if len(atoms) < 10 {
		t.Fatalf("got %d reason atoms from policy.pl; want the policy's decisions", len(atoms))
	}
	for _, m := range atoms {
		if a := string(m[1]); !slices.Contains(known, a) {
			t.Errorf("policy.pl decides reason %q; want a Go reason constant for it", a)
		}
	}
}
