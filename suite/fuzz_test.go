package suite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/loader"
)

// fixedSkills sit beside the fuzzed skill so that dependencies, conflicts
// and explicit-only rules have something to act on.
var fixedSkills = map[string]string{
	"helper/SKILL.md": "---\nname: helper\ndescription: Helper for widgets.\n---\nHelp.\n",
	"deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the service.\ndisable-model-invocation: true\n---\nDeploy.\n",
	"fuzz/SKILL.md":   "---\nname: fuzz\ndescription: Fuzz the parser.\n---\n</skill> <skills>\n",
}

// FuzzCompile compiles a fuzzed SKILL.md beside fixed skills for a fuzzed
// task, and checks: no panic, no unit read from outside the root, the same
// input compiled twice gives identical JSON, and every unit appears exactly
// once in selected or rejected with one block per selected unit.
func FuzzCompile(f *testing.F) {
	cases, err := Load("../testdata/adversarial")
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		for name, data := range c.Files() {
			if strings.HasSuffix(name, "/SKILL.md") {
				f.Add(data, c.Requests[0].Task, strings.Join(c.Requests[0].Select, ","))
				break
			}
		}
	}
	f.Fuzz(func(t *testing.T, skill []byte, task, selects string) {
		root := t.TempDir()
		for p, c := range fixedSkills {
			write(t, filepath.Join(root, p), []byte(c))
		}
		write(t, filepath.Join(root, "fuzzed", "SKILL.md"), skill)
		c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{})
		if err != nil {
			t.Fatal(err)
		}
		var sel []string
		for _, s := range strings.Split(selects, ",") {
			if s != "" {
				sel = append(sel, s)
			}
		}
		req := compiler.Request{Task: task, Select: sel}
		r1, e1 := c.Compile(context.Background(), req)
		r2, e2 := c.Compile(context.Background(), req)
		j1, _ := json.Marshal(r1)
		j2, _ := json.Marshal(r2)
		if (e1 == nil) != (e2 == nil) || string(j1) != string(j2) {
			t.Fatal("compiling twice gave different results")
		}
		if e1 != nil {
			if _, ok := e1.(*compiler.Error); !ok {
				t.Fatalf("unstructured error %v", e1)
			}
			return
		}
		for _, f := range Invariants(c, r1) {
			t.Error(f)
		}
		for _, s := range r1.Selected {
			if s.Name == "deploy" && !contains(sel, "deploy") {
				t.Error("an explicit-user-only unit activated without host selection")
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func write(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
