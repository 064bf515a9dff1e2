package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README is the front page: what rlmc is, how to try it, and links to
// docs/, which holds everything else (issue 27).
const readmeMaxLines = 200

// readmeCommands are the README's two commands, in order. .ci/run and CI
// run the test command the README gives, so it must stay exactly this.
var readmeCommands = []string{
	`go run ./cmd/rlmc compile "add an adversarial case for a fuzz crasher"`,
	`go test ./...`,
}

func TestReadmeIsShort(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines; at most %d (move the detail to docs/)", n, readmeMaxLines)
	}
}

// TestReadmeCommands checks that the README's "Try it" section shows
// exactly the two commands, each in its own code block.
func TestReadmeCommands(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Try it\n")
	if !ok {
		t.Fatal(`README.md has no "## Try it" section`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var got []string
	for _, m := range regexp.MustCompile("(?s)```[a-z]*\n(.*?)```\n").FindAllStringSubmatch(section, -1) {
		got = append(got, strings.TrimSuffix(m[1], "\n"))
	}
	if strings.Join(got, "\n") != strings.Join(readmeCommands, "\n") {
		t.Errorf("README.md's Try it commands are %q; want %q", got, readmeCommands)
	}
}

var (
	fenceRE   = regexp.MustCompile("(?ms)^```.*?^```[ \t]*$")
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`(?m)^#{1,6} +(.+?)\s*$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors returns the heading anchors GitHub makes for a Markdown file.
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	for _, m := range headingRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(text, ""), -1) {
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			set[slug+"-"+strconv.Itoa(n)] = true
		} else {
			set[slug] = true
		}
		seen[slug]++
	}
	return set
}

// TestDocLinks checks that every relative link in README.md, CHANGELOG.md
// and docs/*.md names a file or folder of the repository, and that an
// anchor into a Markdown file names one of its headings.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../../README.md", "../../CHANGELOG.md"}, files...)
	texts := map[string]string{}
	read := func(path string) (string, error) {
		if s, ok := texts[path]; ok {
			return s, nil
		}
		data, err := os.ReadFile(path)
		texts[path] = string(data)
		return string(data), err
	}
	links := 0
	for _, file := range files {
		text, err := read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(text, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			full := file
			if path != "" {
				full = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(full); err != nil {
					t.Errorf("%s: link %s: %v", filepath.Base(file), target, err)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(full, ".md") {
				continue
			}
			body, err := read(full)
			if err != nil {
				t.Errorf("%s: link %s: %v", filepath.Base(file), target, err)
				continue
			}
			if !anchors(body)[anchor] {
				t.Errorf("%s: link %s: no heading makes anchor #%s", filepath.Base(file), target, anchor)
			}
		}
	}
	if links == 0 {
		t.Error("found no relative links; the link pattern is broken")
	}
}
