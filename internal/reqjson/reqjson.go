// Package reqjson is a compile request in JSON, as `rlmc serve` takes it
// and an `rlmc test` case holds it: one type, one check and one
// conversion to compiler.Request for both.
package reqjson

import (
	"errors"
	"fmt"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/strictjson"
)

// Request is a compile request in JSON: the body of `rlmc serve`'s POST
// /v1/compile and each request of an `rlmc test` case, the fields of
// compiler.Request, each spelt exactly and given once.
type Request struct {
	// Task is a pointer so that a request without one ({}, or "task":
	// null, a client that lost its field) is refused (Check) rather than
	// read as an empty task and answered no_route; "" is a task, for a
	// selection.
	Task *string `json:"task"`
	// Select, Deny and Why refuse a null element, which encoding/json
	// would read as the name "".
	Select strictjson.Strings `json:"select,omitempty"`
	Deny   strictjson.Strings `json:"deny,omitempty"`
	// Budget is a pointer so that a budget written as 0 is refused
	// rather than read as the default; it may be written 100.0 or 1e2.
	Budget    *strictjson.Int `json:"budget,omitempty"`
	Tokenizer string          `json:"tokenizer,omitempty"`
	// Why and AllRejected list more of the rejected units in the result
	// (compiler.Request's); they change no decision.
	Why         strictjson.Strings `json:"why,omitempty"`
	AllRejected bool               `json:"all_rejected,omitempty"`
	// Carried holds what the conversation already holds (the prompts
	// earlier answers gave, or the messages the host put them in): a
	// selected unit whose block one of them holds is given
	// (compiler.CarriedIn).
	Carried strictjson.Strings `json:"carried,omitempty"`
}

// TaskText returns the request's task, "" when it has none.
func (req Request) TaskText() string {
	if req.Task == nil {
		return ""
	}
	return *req.Task
}

// BudgetTokens returns the request's budget, 0 (the policy's) when it has none.
func (req Request) BudgetTokens() int {
	if req.Budget == nil {
		return 0
	}
	return int(*req.Budget)
}

// Check refuses what `rlmc serve` and `rlmc test` both refuse in a request
// that decoded: no task, and a budget that is not a positive number.
func (req Request) Check() error {
	if req.Task == nil {
		return errors.New(`has no "task" (a string; "" with a "select" for none)`)
	}
	if req.Budget != nil && *req.Budget <= 0 {
		return fmt.Errorf("budget must be a positive number of tokens, not %d", *req.Budget)
	}
	return nil
}

// CompileRequest returns the compiler's request for req.
func (req Request) CompileRequest() compiler.Request {
	return compiler.Request{Task: req.TaskText(), Select: req.Select, Deny: req.Deny, Budget: req.BudgetTokens(), Tokenizer: req.Tokenizer,
		Why: req.Why, AllRejected: req.AllRejected, Carried: compiler.CarriedIn(req.Carried...)}
}
