package loader

import (
	"context"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

func TestScanLinksForms(t *testing.T) {
	tests := []struct {
		name, body string
		want       string // targets joined by |, each with @line, and ~ when loose
	}{
		{"inline", "See [a](REF.md).", "REF.md@1"},
		{"inline with title", `See [a](REF.md "the ref").`, "REF.md@1"},
		{"image", "![diagram](img/d.png)", "img/d.png@1"},
		{"angle brackets with spaces", "[a](<../x y.md>)", "../x y.md@1"},
		{"destination on the next line", "[a](\n  ../x.md)", "../x.md@2"},
		{"balanced parentheses", "[a](x_(1).md)", "x_(1).md@1"},
		{"reference definition", "Read [a][r].\n\n[r]: ../../x \"t\"", "../../x@3"},
		{"reference definition in a list", "- [r]: <../y z.md>", "../y z.md@1"},
		{"reference definition in a quote", "> [r]:\n>   ../q.md", "../q.md@2"},
		{"footnote is no definition", "[^1]: Some text.", ""},
		{"autolink", "See <file:///etc/passwd>.", "file:///etc/passwd@1"},
		{"http autolink", "See <https://x.y/z>.", "https://x.y/z@1"},
		{"email is no autolink", "Mail <a@b.c>.", ""},
		{"html href", `<a href="../x.md">x</a>`, "../x.md@1"},
		{"html src unquoted", "<img alt=x src=../x.png>", "../x.png@1"},
		{"html single quotes and upper case", "<IMG SRC='../x.png'>", "../x.png@1"},
		{"html slash between attributes", `<a/href="../x">`, "../x@1"},
		{"html tag across lines", "<a\n title=\"t\"\n href=\"../x\">", "../x@3"},
		{"html srcset", `<img srcset="a.png 1x, ../b.png 2x">`, "a.png@1|../b.png@1"},
		{"html non-URL attribute", `<a title="../x">`, ""},
		{"fenced code", "```\n[a](../x.md)\n<a href=../y>\n```\n[b](ok.md)", "ok.md@5"},
		{"tilde fence with backticks inside", "~~~\n```\n[a](../x.md)\n~~~\n[b](ok.md)", "ok.md@5"},
		{"longer fence needs a longer close", "````\n```\n[a](../x.md)\n````\n[b](ok.md)", "ok.md@5"},
		{"unclosed fence runs to the end", "```\n[a](../x.md)", ""},
		{"four-space indent is no fence", "    ```\n[a](../x.md)", "../x.md@2"},
		{"backticks in info string: no fence", "``` a`b\n[a](../x.md)", "../x.md@2"},
		{"inline code", "Use `[a](../x.md)` literally, then [b](ok.md).", "ok.md@1"},
		{"double-backtick code", "Use ``a ` [a](../x.md)`` and [b](ok.md).", "ok.md@1"},
		{"unclosed backtick is literal", "A ` then [a](../x.md).", "../x.md@1"},
		{"code span ends at a paragraph", "A `\n\n[a](../x.md)`", "../x.md@3"},
		{"escaped backtick opens nothing", "A \\` [a](../x.md) `", "../x.md@1"},
		{"html tag before a backtick wins", "<a title=\"`\" href=\"../x\"> and `", "../x@1"},
		{"space in a bare destination: loose", "[a](AREA[x]y AND z)", "AREA[x]y@1~"},
		{"title in parentheses", "[a](x.md (the x))", "x.md@1"},
		{"title across lines", "[a](x.md \"one\ntwo\")", "x.md@1"},
		{"title cut by a blank line: loose", "[a](x.md \"one\n\ntwo\")", "x.md@1~"},
		{"unclosed angle brackets: loose", "[a](<x.md", "x.md@1~"},
		{"reference definition with junk: loose", "[r]: x.md junk", "x.md@1~"},
		{"reference definition with a title", "[r]: x.md 'title'  ", "x.md@1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range scanLinks([]byte(tt.body), 1) {
				g := l.Target + "@" + strconv.Itoa(l.Line)
				if l.Loose {
					g += "~"
				}
				got = append(got, g)
			}
			if g := strings.Join(got, "|"); g != tt.want {
				t.Errorf("got %q; want %q", g, tt.want)
			}
		})
	}
}

func TestResolveLink(t *testing.T) {
	tests := []struct {
		name, raw string
		kind      linkKind
		rel       string
	}{
		{"plain", "REF.md", linkLocal, "REF.md"},
		{"dot slash", "./sub/REF.md", linkLocal, "sub/REF.md"},
		{"dot-dot inside", "sub/../REF.md", linkLocal, "REF.md"},
		{"fragment and query", "REF.md?x=1#part", linkLocal, "REF.md"},
		{"percent-encoded space", "my%20ref.md", linkLocal, "my ref.md"},
		{"markdown escape", `x\_y.md`, linkLocal, "x_y.md"},
		{"fragment only", "#section", linkNone, ""},
		{"the folder itself", "./", linkNone, ""},
		{"https", "https://x.y/../../z", linkExternal, ""},
		{"mailto", "mailto:a@b.c", linkExternal, ""},
		{"dot-dot", "../x.md", linkEscape, ""},
		{"dot-dot inside then out", "sub/../../x.md", linkEscape, ""},
		{"absolute", "/etc/passwd", linkEscape, ""},
		{"protocol-relative", "//host/share", linkEscape, ""},
		{"file URL", "file:///etc/passwd", linkEscape, ""},
		{"file URL upper case", "FILE:/etc/passwd", linkEscape, ""},
		{"file URL by character reference", "file&#58;///etc/passwd", linkEscape, ""},
		{"home", "~/.ssh/id_rsa", linkEscape, ""},
		{"other home", "~root/x", linkEscape, ""},
		{"percent-encoded dot-dot", "%2e%2e/%2E%2E/x", linkEscape, ""},
		{"percent-encoded slash", "..%2f..%2fx", linkEscape, ""},
		{"percent-encoded backslash", "..%5c..%5cx", linkEscape, ""},
		{"backslashes", `..\..\x`, linkEscape, ""},
		{"UNC path", `\\server\share\x`, linkEscape, ""},
		{"drive letter", `C:\Windows\win.ini`, linkEscape, ""},
		{"drive letter with slash", "c:/x", linkEscape, ""},
		{"percent-encoded drive letter", "C%3A/x", linkEscape, ""},
		{"character references", "&#46;&#46;/&period;&period;/x", linkEscape, ""},
		{"tab inside", "..\t/x", linkEscape, ""},
		{"leading space", "  ../x", linkEscape, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel, kind, _ := resolveLink(tt.raw)
			if kind != tt.kind || rel != tt.rel {
				t.Errorf("got %v %q; want %v %q", kind, rel, tt.kind, tt.rel)
			}
		})
	}
}

// TestLinkReportsBounded checks that a body of many bad links yields a
// bounded number of warnings, each target once, and says how many it left out.
func TestLinkReportsBounded(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for i := range 30 {
		n := strconv.Itoa(i)
		b.WriteString("[a](x" + n + ".md) [a](x" + n + ".md) [b](../y" + n + ".md)\n")
	}
	testkit.WriteFile(t, filepath.Join(root, "s", "SKILL.md"), "---\nname: s\ndescription: S.\n---\n"+b.String())
	cat, err := Load(context.Background(), Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	count := map[ir.Code]int{}
	summaries := 0
	for _, d := range cat.Diagnostics {
		count[d.Code]++
		if d.Line == 0 {
			summaries++
		}
	}
	if count[ir.CodeMissingResource] != maxLinkReports+1 || count[ir.CodeResourceEscape] != maxLinkReports+1 || summaries != 2 {
		t.Errorf("got %v with %d summaries; want %d of each code and 2 summaries", count, summaries, maxLinkReports+1)
	}
}

// TestLooseLinks checks that text CommonMark would not make a link is
// reported when it escapes, and is otherwise neither indexed nor missing.
func TestLooseLinks(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "s", "SKILL.md"), "---\nname: s\ndescription: S.\n---\n[a](NOPE.md and more) [b](REF.md and more) [c](../x and more)\n")
	testkit.WriteFile(t, filepath.Join(root, "s", "REF.md"), "ref")
	cat, err := Load(context.Background(), Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range cat.Diagnostics {
		got = append(got, string(d.Code))
	}
	if g, want := strings.Join(got, ","), "resource_escape"; g != want {
		t.Errorf("got diagnostics %s; want %s", g, want)
	}
	if u := unitNamed(cat, "s", ir.StatusOK); u == nil || len(u.Resources) != 0 {
		t.Errorf("got unit %+v; want status ok and no resources", u)
	}
}

// FuzzScanLinks checks that no body panics the link scan, that every target
// is text of the body on a line the body has, and that resolving it never
// panics and never calls a path inside the folder when it climbs out.
func FuzzScanLinks(f *testing.F) {
	for _, s := range []string{
		"[a](REF.md)", "[r]: <../x y.md> 'title'", "<a href=\"&#46;&#46;/x\">", "<file:///etc/passwd>",
		"```\n[a](x)\n```", "`[a](x)`", "[a](x \"t", "<img srcset=\"a 1x, ../b 2x\">", `[a](..\..\x)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		lines := strings.Count(body, "\n") + 1
		for _, l := range scanLinks([]byte(body), 1) {
			if !strings.Contains(body, l.Target) || l.Line < 1 || l.Line > lines {
				t.Fatalf("link %q at line %d is not text of a %d-line body", l.Target, l.Line, lines)
			}
			rel, kind, _ := resolveLink(l.Target)
			if kind == linkLocal && (rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/")) {
				t.Fatalf("%q resolved to %q inside the folder", l.Target, rel)
			}
		}
	})
}

func TestIsSiblingSkill(t *testing.T) {
	tests := []struct {
		name, link string
		want       bool
	}{
		{"sibling skill", "../react-testing/SKILL.md", true},
		{"sibling skill through dot slash", "./../react-testing/./SKILL.md", true},
		{"sibling resource", "../react-testing/REF.md", false},
		{"skill two folders up", "../../x/SKILL.md", false},
		{"skill below a sibling", "../x/y/SKILL.md", false},
		{"parent's SKILL.md", "../SKILL.md", false},
		{"own SKILL.md", "SKILL.md", false},
		{"case differs", "../x/skill.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isSiblingSkill(path.Clean(tt.link)); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}
