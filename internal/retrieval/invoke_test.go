package retrieval

import (
	"strings"
	"testing"
)

func TestInvoked(t *testing.T) {
	tests := []struct {
		name, task, want string // want: the names, space-separated
	}{
		{name: "first", task: "/cut-release-branch 5.4", want: "cut-release-branch"},
		{name: "alone", task: "/deploy", want: "deploy"},
		{name: "mid-sentence", task: "apply /sql-migration to the users table", want: "sql-migration"},
		{name: "sentence end", task: "then run /deploy.", want: "deploy"},
		{name: "bracketed and quoted", task: `run it (/deploy) or "/tdd"`, want: "deploy tdd"},
		{name: "upper case folded", task: "/Deploy now", want: "deploy"},
		{name: "two", task: "/cut-release-branch 2.9 then /release-notes", want: "cut-release-branch release-notes"},
		{name: "path", task: "/api/orders/recent takes 4s", want: ""},
		// Names no unit has: a name matches only the unit it spells.
		{name: "file", task: "run /deploy.sh on the box", want: "deploy.sh"},
		{name: "plugin namespace", task: "/superpowers:brainstorming a new feature", want: "superpowers:brainstorming"},
		{name: "inside a word", task: "and/or deploy", want: ""},
		{name: "url", task: "see https://example.com/deploy now", want: ""},
		{name: "one letter", task: "/a is the root", want: ""},
		{name: "dollar", task: "$deploy to prod", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, n := range Invoked(tt.task) {
				got = append(got, n.Name())
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("Invoked(%q): got %q; want %q", tt.task, g, tt.want)
			}
		})
	}
}
