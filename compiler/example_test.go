package compiler_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
)

// writeSkill is a tiny helper for the examples.
func writeSkill(root, name, desc, body string) {
	dir := filepath.Join(root, name)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n"+body), 0o644)
}

// Load a catalog once, then compile a task into the planner's skill block.
func ExampleCompiler_Compile() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	writeSkill(root, "tdd", "Test-driven development: write a failing test first.", "Write the test first.\n")
	writeSkill(root, "deploy", "Deploy the service to production.", "Run the pipeline.\n")

	c, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
	if err != nil {
		panic(err)
	}
	res, err := c.Compile(context.Background(), compiler.Request{Task: "add a feature with test-driven development"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Decision, res.Names())
	fmt.Print(res.Prompt)
	// Output:
	// route [tdd]
	// <skills>
	// <skill name="tdd">
	// Write the test first.
	// </skill>
	// </skills>
}

// An explicit selection the catalog cannot honor fails the compile with a
// stable error code instead of being dropped silently.
func ExampleCompiler_Compile_error() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	writeSkill(root, "tdd", "Test-driven development.", "Write the test first.\n")

	c, _ := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
	_, err := c.Compile(context.Background(), compiler.Request{Task: "anything", Select: []string{"tdd"}, Deny: []string{"tdd"}})
	if ce, ok := err.(*compiler.Error); ok {
		fmt.Println(ce.Stage, ce.Code, ce.Reason)
	}
	// Output:
	// decide selection_rejected denied
}

// WriteExplanation renders why every unit was selected or rejected.
func ExampleWriteExplanation() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	writeSkill(root, "tdd", "Test-driven development.", "Write the test first.\n")
	writeSkill(root, "deploy", "Deploy the service to production.", "Run the pipeline.\n")

	c, _ := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
	res, _ := c.Compile(context.Background(), compiler.Request{Task: "deploy, but do not use tdd"})
	compiler.WriteExplanation(os.Stdout, res)
	// Output:
	// decision: route (1 selected, 1 rejected); budget 4/8000 tokens (o200k_base)
	// negation: task says "do not use tdd", which rules out tdd
	// selected deploy: score 8.019, priority 100, 4 tokens
	//   because lexical [rule 10 strength: above_threshold] (score 8.019 reaches the threshold 4.5; name phrase "deploy" +6.00; name+description "deploy" +2.02)
	//   evidence: name phrase "deploy" +6.000
	//   evidence: name+description "deploy" +2.019
	// rejected tdd (tdd/SKILL.md): negated [rule 5 negation] (task says "do not use tdd")
}

// A host that keeps what it compiled keeps it across a reload that
// changed nothing a compile reads: a file written under a root that is no
// skill's loads an equivalent catalog.
func ExampleCompiler_Equivalent() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	writeSkill(root, "deploy", "Deploy the service to production.", "Run the pipeline.\n")
	load := func(p compiler.Policy) *compiler.Compiler {
		c, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, p)
		if err != nil {
			panic(err)
		}
		return c
	}
	before := load(compiler.Policy{})
	os.WriteFile(filepath.Join(root, "compiles.log"), []byte("a log line\n"), 0o644)
	fmt.Println(before.Equivalent(load(compiler.Policy{})))
	fmt.Println(before.Equivalent(load(compiler.Policy{Deny: []string{"deploy"}})))
	writeSkill(root, "deploy", "Deploy the service to staging.", "Run the pipeline.\n")
	fmt.Println(before.Equivalent(load(compiler.Policy{})))
	// Output:
	// true
	// false
	// false
}

// Validate finds what Load accepts but no compile can honor: here a host
// policy whose dependency names a unit the catalog lacks, so tdd is never
// selected, and a deny list with a typo that denies nothing.
func ExampleCompiler_Validate() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	writeSkill(root, "tdd", "Test-driven development.", "Write the test first.\n")
	writeSkill(root, "go-testing", "Go testing.", "Use table tests.\n")

	p := compiler.Policy{Requires: map[string][]string{"tdd": {"go-testin"}}}
	c, err := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, p)
	if err != nil {
		panic(err)
	}
	ds, err := c.Validate(context.Background(), compiler.ValidateOptions{Deny: []string{"go-test"}})
	if err != nil {
		panic(err)
	}
	for _, d := range ds {
		fmt.Println(d.Path, d.Severity, d.Code)
	}
	// Output:
	// deny warning unknown_policy_unit
	// policy error missing_dependency
	// policy warning unknown_policy_unit
}

// A host that gives a conversation's prompts one at a time (a per-prompt
// hook) remembers the blocks it gave in full; a later prompt of the
// conversation gets a short block for each of those instead.
func ExampleRequest_carried() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	writeSkill(root, "tdd", "Test-driven development: write a failing test first.", strings.Repeat("Write the test first, watch it fail, then make it pass.\n", 12))

	c, _ := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
	given := map[string]bool{}
	for _, task := range []string{"add a feature with test-driven development", "now the parser, test-driven development again"} {
		res, _ := c.Compile(context.Background(), compiler.Request{Task: task, Carried: func(block string) bool { return given[block] }})
		for _, b := range compiler.InlineBlocks(res) {
			given[b] = true
		}
		fmt.Println(res.Selected[0].Name, res.Selected[0].Rendering)
	}
	// Output:
	// tdd inline
	// tdd given
}

func ExampleCarriedIn() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	writeSkill(root, "tdd", "Test-driven development: write a failing test first.", strings.Repeat("Write the test first, watch it fail, then make it pass.\n", 12))

	c, _ := compiler.Load(context.Background(), compiler.Options{Roots: []string{root}}, compiler.Policy{})
	first, _ := c.Compile(context.Background(), compiler.Request{Task: "add a feature with test-driven development"})
	// The host put first.Prompt in the conversation; a later turn says so.
	next, _ := c.Compile(context.Background(), compiler.Request{Task: "now the parser, test-driven development again", Carried: compiler.CarriedIn(first.Prompt)})
	fmt.Println(first.Selected[0].Rendering, next.Selected[0].Rendering)
	// Output:
	// inline given
}
