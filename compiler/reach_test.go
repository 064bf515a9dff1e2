package compiler

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

func TestReach(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(a, "x", "SKILL.md"), "---\nname: x\ndescription: Write a Dockerfile.\n---\nBody.\n")
	testkit.WriteFile(t, filepath.Join(a, "y", "SKILL.md"), "---\nname: y\ndescription: [broken\n---\nBody.\n")
	testkit.WriteFile(t, filepath.Join(b, "x", "SKILL.md"), "---\nname: x\ndescription: Shadowed by the first root's x.\n---\nBody.\n")
	tests := []struct {
		name string
		deny []string
		want Reach
	}{
		{name: "none denied", want: Reach{Units: 3, Selectable: 1, Invalid: 1}},
		{name: "the valid one denied", deny: []string{"x"}, want: Reach{Units: 3, Invalid: 1, Denied: 1}},
		{name: "every name denied", deny: []string{"y", "x"}, want: Reach{Units: 3, Invalid: 1, Denied: 1, DeniedAll: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(context.Background(), Options{Roots: []string{a, b}}, Policy{Deny: tt.deny})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Reach(); got != tt.want {
				t.Errorf("got %+v; want %+v", got, tt.want)
			}
		})
	}
}
