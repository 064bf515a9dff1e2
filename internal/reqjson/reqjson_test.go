package reqjson

import (
	"testing"

	"github.com/rlmc-dev/rlmc/internal/strictjson"
)

func TestCheck(t *testing.T) {
	task, zero, hundred := "review the diff", strictjson.Int(0), strictjson.Int(100)
	empty := ""
	for _, tc := range []struct {
		name string
		req  Request
		ok   bool
	}{
		{"a task", Request{Task: &task}, true},
		{"an empty task", Request{Task: &empty, Select: strictjson.Strings{"tdd"}}, true},
		{"no task", Request{Select: strictjson.Strings{"tdd"}}, false},
		{"a budget", Request{Task: &task, Budget: &hundred}, true},
		{"a zero budget", Request{Task: &task, Budget: &zero}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.req.Check(); (err == nil) != tc.ok {
				t.Errorf("got %v; want ok %v", err, tc.ok)
			}
		})
	}
	cr := Request{Task: &task, Budget: &hundred, Carried: strictjson.Strings{"x"}}.CompileRequest()
	if cr.Task != task || cr.Budget != 100 || cr.Carried != nil {
		t.Errorf("got %+v; want the task, a budget of 100 and no carried block (\"x\" holds none)", cr)
	}
}
