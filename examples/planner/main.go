// Command planner shows rlmc in front of a planner call: a fake planner
// prints what it receives, first for a task that needs a skill, then for one
// that does not. Run it from the repository root:
//
//	go run ./examples/planner
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/rlm"
)

// printer is a fake planner: it prints the request it would send, a long
// system prompt cut to its first and last lines.
type printer struct{}

func (printer) Plan(_ context.Context, req *rlm.Request) (*rlm.Response, error) {
	fmt.Printf("planner received task %q\n", req.Task)
	fmt.Printf("  tools: %d, options: %v\n", len(req.Tools), req.Options)
	lines := strings.Split(strings.TrimRight(req.System, "\n"), "\n")
	if len(lines) > 10 {
		// A skill's body is long: its first lines and the end of the
		// system prompt show where the block went.
		more := fmt.Sprintf("... (%d more lines)", len(lines)-8)
		lines = slices.Concat(lines[:3], []string{more}, lines[len(lines)-5:])
	}
	for _, line := range lines {
		if len(line) > 72 {
			line = line[:72] + "..."
		}
		fmt.Println(strings.TrimRight("  | "+line, " "))
	}
	return &rlm.Response{Text: "ok"}, nil
}

func main() {
	ctx := context.Background()
	c, err := compiler.Load(ctx, compiler.Options{Roots: []string{".agents/skills"}}, compiler.Policy{})
	if err != nil {
		log.Fatal(err)
	}
	planner := rlm.WithSkills(printer{}, c,
		rlm.WithAudit(compiler.NewAudit(os.Stderr)),
		// The host hears what each compile decided before the planner is
		// called; on a tie it would ask its user rather than plan without
		// a skill.
		rlm.OnCompile(func(_ context.Context, res *compiler.Result) error {
			fmt.Printf("rlmc decided %s, selected %v\n", res.Decision, res.Names())
			if res.Decision == compiler.DecisionAmbiguous {
				return fmt.Errorf("ask the user to choose among %v", res.Ambiguous)
			}
			return nil
		}))
	for _, task := range []string{
		"refresh the golden files after changing the explain output",
		"what is the capital of France?",
	} {
		req := &rlm.Request{
			System:  "You are a careful planner.",
			Task:    task,
			Tools:   []rlm.Tool{{Name: "read_file"}},
			Options: map[string]any{"model": "any"},
		}
		if _, err := planner.Plan(ctx, req); err != nil {
			log.Fatal(err)
		}
	}
}
