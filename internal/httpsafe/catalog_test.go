package httpsafe

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestUnselectable: a catalog is unselectable when it has no skill, or
// when each is invalid, or denied by the host policy; one skill that may
// be selected (an explicit-only one included) is enough.
func TestUnselectable(t *testing.T) {
	good := "---\nname: %s\ndescription: Review Go code.\n---\nBody.\n"
	tests := []struct {
		name   string
		skills map[string]string
		policy compiler.Policy
		want   string
	}{
		{name: "empty", want: "the catalog has no skills"},
		{name: "one good", skills: map[string]string{"x": good}},
		{name: "explicit only", skills: map[string]string{"x": "---\nname: x\ndescription: Deploy.\ndisable-model-invocation: true\n---\nBody.\n"}},
		{name: "invalid", skills: map[string]string{"x": "---\nname: x\ndescription: [unclosed\n---\nBody.\n"}, want: "no skill of the catalog can be selected: 1 invalid, 0 denied by the host policy"},
		{name: "denied", skills: map[string]string{"x": good, "y": good}, policy: compiler.Policy{Deny: []string{"x", "y"}}, want: "no skill of the catalog can be selected: 0 invalid, 2 denied by the host policy"},
		{name: "one of two denied", skills: map[string]string{"x": good, "y": good}, policy: compiler.Policy{Deny: []string{"x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for n, text := range tt.skills {
				if strings.Contains(text, "%s") {
					text = strings.ReplaceAll(text, "%s", n)
				}
				testkit.WriteFile(t, filepath.Join(root, n, "SKILL.md"), text)
			}
			c, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			if got := Unselectable(c); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestClip: a value quoted in a log line is cut between characters.
func TestClip(t *testing.T) {
	if got := Clip("short"); got != "short" {
		t.Errorf("got %q; want it whole", got)
	}
	long := strings.Repeat("é", maxLoggedBytes) // two bytes each
	got := Clip(long)
	if len(got) > maxLoggedBytes+3 || !strings.HasSuffix(got, "...") || !utf8.ValidString(got) {
		t.Errorf("got %d bytes, valid UTF-8 %v; want at most %d, ending in ..., valid", len(got), utf8.ValidString(got), maxLoggedBytes+3)
	}
}
