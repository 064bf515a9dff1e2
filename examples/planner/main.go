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
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/rlm"
)

// printer is a fake planner: it prints the request it would send.
type printer struct{}

func (printer) Plan(_ context.Context, req *rlm.Request) (*rlm.Response, error) {
	fmt.Printf("planner received task %q\n", req.Task)
	fmt.Printf("  tools: %d, options: %v\n", len(req.Tools), req.Options)
	for _, line := range strings.Split(strings.TrimRight(req.System, "\n"), "\n") {
		if len(line) > 72 {
			line = line[:72] + "..."
		}
		fmt.Println("  | " + line)
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
