package rlm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/rlm"
)

// WithSkills wraps a planner call: the planner receives the skill block in
// its context before the call, and nothing else about the request changes.
func ExampleWithSkills() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "tdd"), 0o755)
	os.WriteFile(filepath.Join(root, "tdd", "SKILL.md"), []byte("---\nname: tdd\ndescription: Test-driven development.\n---\nWrite the failing test first.\n"), 0o644)

	c, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
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

// OnCompile tells the host what each compile decided. On an ambiguous task
// the host stops the call and asks its user, then plans again with the
// skill the user chose as a trusted selection.
func ExampleOnCompile() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	for name, desc := range map[string]string{"polish-prose": "Improve the quality of text.", "tighten-prose": "Improve the clarity of text."} {
		os.MkdirAll(filepath.Join(root, name), 0o755)
		os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: "+desc+"\n"+
			"metadata:\n  prolog-rlm: '{\"schema\": 1, \"triggers\": [{\"kind\": \"object\", \"value\": \"text\"}]}'\n---\nBody.\n"), 0o644)
	}
	c, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
	if err != nil {
		panic(err)
	}
	errAskUser := errors.New("ask the user which skill to use")
	llm := rlm.PlannerFunc(func(_ context.Context, req *rlm.Request) (*rlm.Response, error) {
		fmt.Println("planner called")
		return &rlm.Response{}, nil
	})
	planner := rlm.WithSkills(llm, c, rlm.OnCompile(func(_ context.Context, res *compiler.Result) error {
		fmt.Println(res.Decision, res.Names(), res.Ambiguous)
		if res.Decision == compiler.DecisionAmbiguous {
			return errAskUser
		}
		return nil
	}))
	task := "improve my text quality and clarity"
	_, err = planner.Plan(context.Background(), &rlm.Request{Task: task})
	fmt.Println(errors.Is(err, errAskUser))
	// The user picked polish-prose.
	planner.Plan(context.Background(), &rlm.Request{Task: task, Skills: []string{"polish-prose"}})
	// Output:
	// ambiguous [] [polish-prose tighten-prose]
	// true
	// route [polish-prose] []
	// planner called
}
