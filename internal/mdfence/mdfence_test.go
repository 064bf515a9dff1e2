package mdfence

import "testing"

func TestFences(t *testing.T) {
	tests := []struct {
		name, opened, line string
		opens, closes      bool
	}{
		{name: "backticks", line: "```", opens: true},
		{name: "with an info string", line: "```go", opens: true},
		{name: "inline code", line: "```ls``` works"},
		{name: "tildes", line: "~~~", opens: true},
		{name: "two backticks", line: "``"},
		{name: "closes its own", opened: "```", line: "```", opens: true, closes: true},
		{name: "a longer one closes", opened: "```", line: "`````", opens: true, closes: true},
		{name: "a shorter one does not", opened: "````", line: "```", opens: true},
		{name: "another mark does not", opened: "```", line: "~~~", opens: true},
		{name: "text after it does not", opened: "```", line: "``` not a fence", opens: true},
		{name: "indented three spaces", opened: "```", line: "   ```", opens: true, closes: true},
		// A line indented four spaces is code: tsc and Python underline
		// the code they quote with tildes.
		{name: "indented as code", opened: "~~~", line: "                     ~~~~~~~"},
		{name: "after a tab", opened: "```", line: "\t```"},
		{name: "with its line ending", opened: "```", line: "```\r\n", opens: true, closes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Opens(tt.line); got != tt.opens {
				t.Errorf("Opens(%q): got %v; want %v", tt.line, got, tt.opens)
			}
			if got := Closes(tt.opened, tt.line); got != tt.closes {
				t.Errorf("Closes(%q, %q): got %v; want %v", tt.opened, tt.line, got, tt.closes)
			}
		})
	}
}
