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
		{name: "upper case folded", task: "/Deploy now", want: "deploy"},
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
