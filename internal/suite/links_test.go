package suite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseCase writes data as a case file and parses it.
func parseCase(t *testing.T, data string) *Case {
	t.Helper()
	file := filepath.Join(t.TempDir(), "case.txtar")
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHasCatalogParsesSymlinksLikeMaterialize pins that HasCatalog reads the
// symlinks file with the parser materialize uses: "skills->x" without
// spaces brings a catalog as "skills -> x" does.
func TestHasCatalogParsesSymlinksLikeMaterialize(t *testing.T) {
	tests := []struct {
		name  string
		links string
		want  bool
	}{
		{"spaces", "skills -> /dir", true},
		{"no spaces", "skills->/dir", true},
		{"many spaces", "skills   ->   /dir", true},
		{"tab", "skills\t->\t/dir", true},
		{"dot prefix", "./skills -> /dir", true},
		{"trailing slash", "skills/ -> /dir", true},
		{"under skills", "skills/a->/dir", true},
		{"another name", "skillsx -> /dir", false},
		{"comment", "# skills -> /dir", false},
		{"malformed", "skills /dir", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseCase(t, "Links.\n-- request.json --\n{\"task\": \"x\"}\n-- want.json --\n{}\n-- symlinks --\n"+tt.links+"\n")
			if got := c.HasCatalog(); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

// TestMalformedSymlinksLineFailsTheCase pins that a symlinks line the parser
// refuses fails the case with a message naming the line.
func TestMalformedSymlinksLineFailsTheCase(t *testing.T) {
	tests := []struct {
		name  string
		links string
	}{
		{"no arrow", "skills /dir"},
		{"empty target", "skills ->"},
		{"empty link", "-> /dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseCase(t, "Links.\n-- request.json --\n{\"task\": \"x\"}\n-- want.json --\n{}\n-- symlinks --\n"+tt.links+"\n")
			out := (&Runner{}).Run(context.Background(), c)
			if out.Passed() || !strings.Contains(strings.Join(out.Failures, "\n"), "symlinks: ") {
				t.Errorf("got failures %q; want one naming the symlinks line", out.Failures)
			}
		})
	}
}

// TestParseRefusesEmptyChecks: a case whose expectations would check
// nothing is refused, saying why, rather than passing.
func TestParseRefusesEmptyChecks(t *testing.T) {
	skill := "---\nname: a\ndescription: Set up analytics tracking.\n---\nb\n"
	tests := []struct {
		name, data, want string
	}{
		{"skills-b without skills", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{\"catalog_fingerprints\": \"equal\"}\n-- skills-b/a/SKILL.md --\n" + skill, "no skills/"},
		{"a misspelt comparison", "x\n-- request.json --\n[{\"task\": \"t\"}, {\"task\": \"u\"}]\n-- want.json --\n{\"fingerprints\": \"equl\"}\n", `"equl"`},
		{"fingerprints of one request", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{\"fingerprints\": \"differ\"}\n", "one request"},
		{"a section given twice", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{\"includes\": [\"a\"]}\n-- want.json --\n{}\n", "more than once"},
		// Any other file is written into the case folder: misspelt, the
		// policy was never applied, the catalog never loaded.
		{"a misspelt policy", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{}\n-- polcy.yaml --\ndeny: [a]\n", "did you mean policy.yaml"},
		{"a misspelt catalog", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{}\n-- skils/a/SKILL.md --\n" + skill, "did you mean skills"},
		{"a policy as ./policy.yaml", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{}\n-- ./policy.yaml --\ndeny: [a]\n", "write its name as policy.yaml"},
		{"a policy as skills/../policy.yaml", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{}\n-- skills/../policy.yaml --\ndeny: [a]\n", "write its name as policy.yaml"},
		{"a policy in capitals", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{}\n-- Policy.yaml --\ndeny: [a]\n", "did you mean policy.yaml"},
		// A budget of 0 read as the policy's would pin a compile the case
		// never asked for; `rlmc serve` refuses it too.
		{"a budget of 0", "x\n-- request.json --\n{\"task\": \"t\", \"budget\": 0}\n-- want.json --\n{}\n", "positive"},
		{"a negative budget in a list", "x\n-- request.json --\n[{\"task\": \"t\"}, {\"task\": \"t\", \"budget\": -5}]\n-- want.json --\n{}\n", "entry 2: budget must be a positive"},
		{"no task", "x\n-- request.json --\n{\"select\": [\"a\"]}\n-- want.json --\n{}\n", `has no "task"`},
		{"a null task in a list", "x\n-- request.json --\n[{\"task\": \"t\"}, {\"task\": null}]\n-- want.json --\n{}\n", `entry 2: has no "task"`},
		{"a budget with a fraction", "x\n-- request.json --\n{\"task\": \"t\", \"budget\": 10.5}\n-- want.json --\n{}\n", "budget: a number (10.5) where a whole number goes"},
		// What a red team found passing whatever the compile did.
		{"a decision no compile reaches", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{\"decision\": \"routed\"}\n", `decision is "routed"`},
		{"a decision beside an error", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{\"error\": \"unknown_unit\", \"decision\": \"route\"}\n", "has no decision to check"},
		{"fingerprints given two ways", "x\n-- request.json --\n[{\"task\": \"t\"}, {\"task\": \"t\"}]\n-- want.json --\n[{\"fingerprints\": \"equal\"}, {\"fingerprints\": \"differ\"}]\n", `both "equal" and "differ"`},
		{"catalog fingerprints given two ways", "x\n-- request.json --\n[{\"task\": \"t\"}, {\"task\": \"t\"}]\n-- want.json --\n[{\"catalog_fingerprints\": \"equal\"}, {\"catalog_fingerprints\": \"differ\"}]\n-- skills/a/SKILL.md --\n" + skill + "-- skills-b/a/SKILL.md --\n" + skill, "catalog_fingerprints compares the whole case"},
		{"a null selection", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{\"selected\": null}\n", "selected is null, which checks nothing"},
		{"an empty prompt substring", "x\n-- request.json --\n{\"task\": \"t\"}\n-- want.json --\n{\"prompt_contains\": [\"\"]}\n", "prompt_contains holds an empty string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "case.txtar")
			if err := os.WriteFile(file, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(file); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v; want an error saying %s", err, tt.want)
			}
		})
	}
}

// TestSkillsBFromSymlinks pins that a skills-b/ made by the symlinks file
// is the case's second catalog, as one made of files is: it was ignored,
// and a case comparing it with skills/ failed for having none.
func TestSkillsBFromSymlinks(t *testing.T) {
	const skill = "---\nname: a\ndescription: Set up analytics tracking.\n---\nb\n"
	const other = "---\nname: a\ndescription: Set up analytics tracking for a store.\n---\nb\n"
	tests := []struct {
		name, links, want string
	}{
		{"same catalog", "skills-b -> skills", "equal"},
		{"another catalog", "skills-b -> other", "differ"},
		{"a skill under it", "skills-b/a -> other/a", "differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseCase(t, "Links.\n-- request.json --\n{\"task\": \"set up analytics tracking\"}\n"+
				"-- want.json --\n{\"catalog_fingerprints\": \""+tt.want+"\"}\n"+
				"-- symlinks --\n"+tt.links+"\n-- skills/a/SKILL.md --\n"+skill+"-- other/a/SKILL.md --\n"+other)
			if out := (&Runner{}).Run(context.Background(), c); !out.Passed() {
				t.Errorf("got failures %q; want none", out.Failures)
			}
		})
	}
}
