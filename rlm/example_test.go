package rlm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/loader"
	"github.com/rlmc-dev/rlmc/rlm"
)

// WithSkills wraps a planner call: the planner receives the skill block in
// its context before the call, and nothing else about the request changes.
func ExampleWithSkills() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "tdd"), 0o755)
	os.WriteFile(filepath.Join(root, "tdd", "SKILL.md"), []byte("---\nname: tdd\ndescription: Test-driven development.\n---\nWrite the failing test first.\n"), 0o644)

	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{root}}, compiler.Policy{})
	if err != nil {
		panic(err)
	}
	llm := rlm.PlannerFunc(func(_ context.Context, req *rlm.Request) (*rlm.Response, error) {
		fmt.Print(req.System)
		return &rlm.Response{}, nil
	})
	planner := rlm.WithSkills(llm, c)
	planner.Plan(context.Background(), &rlm.Request{System: "Plan the work.\n", Task: "add a feature, test-driven development"})
	// Output:
	// <skills>
	// <skill name="tdd">
	// Write the failing test first.
	// </skill>
	// </skills>
	//
	// Plan the work.
}
