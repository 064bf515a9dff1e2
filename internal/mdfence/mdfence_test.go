package mdfence

import (
	"slices"
	"strings"
	"testing"
)

func TestBlocks(t *testing.T) {
	tests := []struct {
		name, text string
		want       []int // each line's closer, or -1
	}{
		{name: "backticks", text: "```\nx\n```", want: []int{2, -1, -1}},
		{name: "with an info string", text: "```go\nx\n```", want: []int{2, -1, -1}},
		{name: "inline code", text: "```ls``` works\n```", want: []int{-1, -1}},
		{name: "tildes", text: "~~~\nx\n~~~", want: []int{2, -1, -1}},
		{name: "two backticks", text: "``\nx\n``", want: []int{-1, -1, -1}},
		{name: "a longer one closes", text: "```\nx\n`````", want: []int{2, -1, -1}},
		{name: "a shorter one does not", text: "````\n```go\nx\n```\n````", want: []int{4, -1, -1, -1, -1}},
		{name: "another mark does not", text: "```\n~~~\n```", want: []int{2, -1, -1}},
		{name: "text after it does not", text: "```\n``` not a fence\n```", want: []int{2, -1, -1}},
		{name: "with line endings", text: "```\r\nx\r\n```\r\n", want: []int{2, -1, -1, -1}},
		// tsc underlines the code it quotes with tildes: a run no later
		// line closes is no fence, and the request after it stays out.
		{name: "never closed", text: "3 describe('app', () => {\n  ~~~~~~~~\n\nwrite a changelog entry", want: []int{-1, -1, -1, -1}},
		{name: "a later block after one never closed", text: "~~~~~~~~\nx\n```\ny\n```", want: []int{-1, -1, 4, -1, -1}},
		{name: "in a list item", text: "- first I ran:\n  ```\n  kubectl apply\n      ```\n- then", want: []int{-1, 3, -1, -1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Blocks(strings.SplitAfter(tt.text, "\n")); !slices.Equal(got, tt.want) {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

// TestBlocksLinear: a flood of fences no line closes, or of long ones
// that short closers do not close, is read in one pass.
func TestBlocksLinear(t *testing.T) {
	lines := slices.Repeat([]string{"`````go", "```"}, 100_000)
	got := Blocks(lines)
	if got[0] != -1 || got[1] != 3 {
		t.Errorf("got %v; want -1, 3", got[:4])
	}
}

// blocksByScan is Blocks as the rule says it, line by line: each fence
// line outside a block looks ahead for its closer. It reads the lines
// again for every fence, which Blocks must not.
func blocksByScan(lines []string) []int {
	out := make([]int, len(lines))
	for i := range out {
		out[i] = -1
	}
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !opens(t) {
			continue
		}
		r := run(t)
		for k := i + 1; k < len(lines); k++ {
			c := strings.TrimSpace(lines[k])
			if closer(c) && run(c)[0] == r[0] && len(run(c)) >= len(r) {
				out[i] = k
				i = k
				break
			}
		}
	}
	return out
}

// FuzzBlocks: Blocks finds the blocks the rule says, whatever the lines.
func FuzzBlocks(f *testing.F) {
	for _, s := range []string{"```\nx\n```", "~~~~\n```\n~~~~~", "````go\n```\n````\n```", "  ~~~~\nx\n```js\ny\n   ```\n~~~", "```ls``` x\n```\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Split(text, "\n")
		if got, want := Blocks(lines), blocksByScan(lines); !slices.Equal(got, want) {
			t.Errorf("got %v; want %v", got, want)
		}
	})
}
