package retrieval

import "testing"

func TestInvoked(t *testing.T) {
	tests := []struct {
		name, task, want string // want: the name, or "" for none
	}{
		{name: "command", task: "/cut-release-branch 5.4", want: "cut-release-branch"},
		{name: "alone", task: "/deploy", want: "deploy"},
		{name: "after blanks", task: "  \n/deploy now", want: "deploy"},
		{name: "tab", task: "/deploy\tnow", want: "deploy"},
		// As a client reads a command, the name ends at a blank.
		{name: "sentence end", task: "/deploy.", want: "deploy."}, // a name no unit has
		{name: "question", task: "/deploy? what does it do", want: ""},
		{name: "colon", task: "/tmp: No space left on device", want: ""},
		{name: "possessive", task: "/deploy's config is broken", want: ""},
		{name: "upper case as written", task: "/Deploy now", want: "Deploy"}, // no unit's name: names are lower case
		{name: "file", task: "/deploy.sh on the box", want: "deploy.sh"},
		{name: "only the opening", task: "/cut-release-branch 2.9 then /release-notes", want: "cut-release-branch"},
		{name: "mid-sentence", task: "apply /sql-migration to the users table", want: ""},
		{name: "mention", task: "what does /deploy do?", want: ""},
		{name: "path", task: "/api/orders/recent takes 4s", want: ""},
		{name: "namespace", task: "/superpowers:brainstorming a feature", want: ""},
		{name: "quoted", task: "`/deploy` is a command", want: ""},
		{name: "one letter", task: "/a is the root", want: ""},
		{name: "dollar", task: "$deploy to prod", want: "deploy"},
		{name: "price", task: "$20 for the domain?", want: "20"}, // a name no unit has
		{name: "dollar path", task: "$HOME/bin is missing", want: ""},
		{name: "empty", task: "", want: ""},
		{name: "slash alone", task: "/ deploy", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := Invoked(tt.task)
			got := n.Name()
			if !ok {
				got = ""
			}
			if got != tt.want {
				t.Errorf("Invoked(%q): got %q; want %q", tt.task, got, tt.want)
			}
		})
	}
}

// TestInvocationArgs checks where a command's arguments end: the words
// the command takes (its name and arguments) are masked, and Args holds
// the arguments as the task writes them.
func TestInvocationArgs(t *testing.T) {
	ix := testIndex(unit("deploy", "Deploy the service."), unit("build-then-ship", "Build and ship."), unit("tdd", "Test-driven development."), unit("home", "The home page."))
	tests := []struct {
		name, task, unit, args string
	}{
		{name: "to the end", task: "/deploy the tdd fixes and the parser", unit: "deploy", args: "the tdd fixes and the parser"},
		{name: "then", task: "/deploy staging then write tdd tests", unit: "deploy", args: "staging"},
		{name: "a comma's and", task: "/deploy staging, and write tdd tests", unit: "deploy", args: "staging"},
		{name: "sentence", task: "/deploy staging. Write tdd tests", unit: "deploy", args: "staging"},
		{name: "line", task: "/deploy\nwrite tdd tests", unit: "deploy", args: ""},
		{name: "a name holding then", task: "/build-then-ship the app", unit: "build-then-ship", args: "the app"},
		{name: "refused", task: "/deploy staging, but no deploy to prod", unit: "deploy", args: "staging"},
		{name: "no unit", task: "/ship it", unit: "", args: ""},
		{name: "another command", task: "/deploy staging and /tdd the parser", unit: "deploy", args: "staging"},
		{name: "and a verb", task: "/deploy staging and review the tdd tests", unit: "deploy", args: "staging"},
		{name: "and a noun", task: "/deploy the fixes and the tdd tests", unit: "deploy", args: "the fixes and the tdd tests"},
		{name: "paragraph separator", task: "/deploy staging\u2029write tdd tests", unit: "deploy", args: "staging"},
		{name: "a shell variable", task: "$HOME is not set", unit: "", args: ""},
		{name: "upper case", task: "/Deploy staging", unit: "", args: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.AnalyzeWith(tt.task, AnalyzeOptions{Commands: true}, nil)
			v, _ := q.Command()
			if v.Unit != tt.unit || v.Args != tt.args {
				t.Errorf("got %q with %q; want %q with %q", v.Unit, v.Args, tt.unit, tt.args)
			}
			if q.Negated(tt.unit) != "" {
				t.Errorf("%s: got it negated; want the command to stand", tt.unit)
			}
		})
	}
}
