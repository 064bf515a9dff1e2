package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// loadArchive materializes a catalog fixture and loads it with the roots
// named on its "roots:" comment line, in that precedence order.
func loadArchive(t *testing.T, file string) (*ir.Catalog, string) {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testkit.WriteArchive(t, dir, ar)
	var roots []string
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "roots:"); ok {
			for _, r := range strings.Fields(rest) {
				roots = append(roots, filepath.Join(dir, r))
			}
		}
	}
	cat, err := Load(context.Background(), Options{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	return cat, dir
}

// portable renders a catalog as JSON with the temporary folder removed.
func portable(t *testing.T, cat *ir.Catalog, dir string) []byte {
	t.Helper()
	data, err := json.MarshalIndent(cat, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(bytes.ReplaceAll(data, []byte(dir), []byte("$DIR")), '\n')
}

func TestLoadGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/catalogs/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			cat, dir := loadArchive(t, f)
			testkit.Golden(t, strings.TrimSuffix(f, ".txtar")+".golden.json", portable(t, cat, dir))
		})
	}
}

func unitNamed(cat *ir.Catalog, name string, status ir.Status) *ir.Unit {
	for _, u := range cat.Units {
		if u.Name == name && u.Status == status {
			return u
		}
	}
	return nil
}

func TestVariants(t *testing.T) {
	cat, _ := loadArchive(t, "testdata/catalogs/variants.txtar")
	tests := []struct {
		name       string
		status     ir.Status
		variant    ir.Variant
		invocation ir.Invocation
	}{
		{"plain", ir.StatusOK, ir.VariantAgentSkills, ir.InvocationAutomatic},
		{"plain", ir.StatusShadowed, ir.VariantAgentSkills, ir.InvocationAutomatic},
		{"claude", ir.StatusOK, ir.VariantClaudeCode, ir.InvocationExplicitUser},
		{"codex", ir.StatusOK, ir.VariantCodex, ir.InvocationExplicitUser},
		{"codex-implicit", ir.StatusOK, ir.VariantCodex, ir.InvocationAutomatic},
		{"router", ir.StatusOK, ir.VariantSkillRouter, ir.InvocationAutomatic},
		{"prolog", ir.StatusOK, ir.VariantPrologRLM, ir.InvocationExplicitUser},
		{"deep", ir.StatusOK, ir.VariantAgentSkills, ir.InvocationAutomatic},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+string(tt.status), func(t *testing.T) {
			u := unitNamed(cat, tt.name, tt.status)
			if u == nil {
				t.Fatalf("no unit %s with status %s", tt.name, tt.status)
			}
			if u.Variant != tt.variant || u.Invocation != tt.invocation {
				t.Errorf("got %s/%s; want %s/%s", u.Variant, u.Invocation, tt.variant, tt.invocation)
			}
		})
	}
	if unitNamed(cat, "ghost", ir.StatusOK) != nil || unitNamed(cat, "dep", ir.StatusOK) != nil {
		t.Error("hidden folders and node_modules must not be scanned")
	}
	plain := unitNamed(cat, "plain", ir.StatusOK)
	if got := strings.Join(plain.Resources, ","); got != "REFERENCE.md" {
		t.Errorf("got resources %q; want REFERENCE.md", got)
	}
	if got := strings.Join(plain.AllowedTools, ","); got != "Read,Grep" {
		t.Errorf("got allowed tools %q; want Read,Grep", got)
	}
	claude := unitNamed(cat, "claude", ir.StatusOK)
	if claude.WhenToUse == "" || claude.HostFields["model"] != "opus" || len(claude.HostFields) != 10 {
		t.Errorf("claude fields not recorded: %+v", claude.HostFields)
	}
	prolog := unitNamed(cat, "prolog", ir.StatusOK)
	if prolog.Priority != 300 || len(prolog.Requires) != 1 || prolog.Category != "dev" {
		t.Errorf("prolog-rlm not applied: %+v", prolog)
	}
	router := unitNamed(cat, "router", ir.StatusOK)
	if len(router.NegativeTriggers) != 1 || len(router.Conflicts) != 1 || len(router.Aliases) != 1 {
		t.Errorf("manifest not applied: %+v", router)
	}
}

func TestEveryDiagnosticCodeHasAFixture(t *testing.T) {
	seen := map[ir.Code]bool{}
	for _, f := range []string{"testdata/catalogs/variants.txtar", "testdata/catalogs/diagnostics.txtar", "testdata/catalogs/hidden.txtar"} {
		cat, _ := loadArchive(t, f)
		for _, d := range cat.Diagnostics {
			seen[d.Code] = true
		}
	}
	for _, d := range symlinkCatalog(t).Diagnostics {
		seen[d.Code] = true
	}
	for _, d := range limitedCatalog(t).Diagnostics {
		seen[d.Code] = true
	}
	_, ds := ParseSkill("x", []byte(strings.Repeat("x", 200<<10)), DefaultLimits)
	_, ds2 := ParseSkill("x", []byte("a\xffb"), DefaultLimits)
	_, ds3 := ParseSkill("x", []byte("a\x00b"), DefaultLimits)
	for _, d := range append(append(ds, ds2...), ds3...) {
		seen[d.Code] = true
	}
	for _, c := range []ir.Code{
		ir.CodeInvalidYAML, ir.CodeInvalidName, ir.CodeNameMismatch, ir.CodeMissingDescription,
		ir.CodeDescriptionTooLong, ir.CodeFileTooLarge, ir.CodeInvalidUTF8, ir.CodeInvalidPrologRLM,
		ir.CodeUnsupportedPrologRLM, ir.CodePathEscape, ir.CodeShadowed, ir.CodeScanLimit,
		ir.CodeMissingFrontmatter, ir.CodeCompatibilityTooLong, ir.CodeInvalidManifest,
		ir.CodeInvalidCodexPolicy, ir.CodeResourceEscape, ir.CodeUnknownField, ir.CodeNULByte,
		ir.CodeSymlinkLoop, ir.CodeMissingResource, ir.CodeHiddenSkills,
	} {
		if !seen[c] {
			t.Errorf("no fixture produces %s", c)
		}
	}
}

func TestDiagnosticsKeepGoodSkills(t *testing.T) {
	cat, _ := loadArchive(t, "testdata/catalogs/diagnostics.txtar")
	if u := unitNamed(cat, "good", ir.StatusOK); u == nil {
		t.Fatal("a bad sibling hid the good skill")
	}
	if u := unitNamed(cat, "other-name", ir.StatusOK); u == nil {
		t.Error("a name mismatch is a warning and must keep the unit")
	}
	for _, name := range []string{"no-description", "bad-prolog", "future-prolog", "bad-manifest", "bad-codex"} {
		if u := unitNamed(cat, name, ir.StatusInvalid); u == nil {
			t.Errorf("%s: want status invalid", name)
		}
	}
	sorted := sort.SliceIsSorted(cat.Diagnostics, func(i, j int) bool {
		a, b := cat.Diagnostics[i], cat.Diagnostics[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Code < b.Code
	})
	if !sorted {
		t.Error("diagnostics are not sorted by path, line, code")
	}
}

func symlinkCatalog(t *testing.T) *ir.Catalog {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	outside := filepath.Join(dir, "outside")
	testkit.WriteFile(t, filepath.Join(outside, "evil", "SKILL.md"), "---\nname: evil\ndescription: Lives outside the root.\n---\n")
	testkit.WriteFile(t, filepath.Join(outside, "file", "SKILL.md"), "---\nname: file\ndescription: Outside.\n---\n")
	testkit.WriteFile(t, filepath.Join(root, "ok", "SKILL.md"), "---\nname: ok\ndescription: Inside.\n---\n")
	mustSymlink(t, filepath.Join(outside, "evil"), filepath.Join(root, "evil"))
	os.MkdirAll(filepath.Join(root, "linked-file"), 0o755)
	mustSymlink(t, filepath.Join(outside, "file", "SKILL.md"), filepath.Join(root, "linked-file", "SKILL.md"))
	mustSymlink(t, filepath.Join(root, "loop"), filepath.Join(root, "loop"))
	mustSymlink(t, filepath.Join(root, "ok"), filepath.Join(root, "alias-of-ok"))
	mustSymlink(t, root, filepath.Join(root, "back-to-root"))
	rootLink := filepath.Join(dir, "root-link")
	mustSymlink(t, root, rootLink)
	cat, err := Load(context.Background(), Options{Roots: []string{rootLink}})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestSymlinkConfinement(t *testing.T) {
	cat := symlinkCatalog(t)
	var names []string
	for _, u := range cat.Units {
		names = append(names, fmt.Sprintf("%s:%s", u.Name, u.Status))
	}
	if got, want := strings.Join(names, " "), "ok:ok"; got != want {
		t.Errorf("got units %q; want %q", got, want)
	}
	want := map[string]ir.Code{"evil": ir.CodePathEscape, "linked-file/SKILL.md": ir.CodePathEscape, "loop": ir.CodeSymlinkLoop}
	for path, code := range want {
		found := false
		for _, d := range cat.Diagnostics {
			if d.Path == path && d.Code == code {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s diagnostic at %s; got %v", code, path, cat.Diagnostics)
		}
	}
}

func limitedCatalog(t *testing.T) *ir.Catalog {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a", "b", "c", "SKILL.md"), "---\nname: c\ndescription: Too deep.\n---\n")
	testkit.WriteFile(t, filepath.Join(dir, "x", "SKILL.md"), "---\nname: x\ndescription: Shallow.\n---\n")
	for i := 0; i < 5; i++ {
		os.MkdirAll(filepath.Join(dir, "y", fmt.Sprint(i)), 0o755)
	}
	cat, err := Load(context.Background(), Options{Roots: []string{dir}, Limits: Limits{MaxFileBytes: 1 << 20, MaxFrontmatterBytes: 1 << 16, MaxDepth: 2, MaxFolders: 6}})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestScanLimitsAreDiagnosed(t *testing.T) {
	cat := limitedCatalog(t)
	n := 0
	for _, d := range cat.Diagnostics {
		if d.Code == ir.CodeScanLimit {
			n++
		}
	}
	if n != 2 {
		t.Errorf("got %d scan_limit diagnostics; want 2 (depth and folder count): %v", n, cat.Diagnostics)
	}
}

// A catalog of more skills than an old default bound (2,000 folders) in
// one folder, as a collection or a generated catalog is laid out, loads
// whole under the default limits.
func TestDefaultLimitsTakeALargeRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2,500 skills")
	}
	dir := t.TempDir()
	const n = 2500
	for i := range n {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("s%04d", i), "SKILL.md"), fmt.Sprintf("---\nname: s%04d\ndescription: Skill %d.\n---\n", i, i))
	}
	cat, err := Load(context.Background(), Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(cat.Units); got != n {
		t.Errorf("got %d units; want %d", got, n)
	}
	for _, d := range cat.Diagnostics {
		t.Errorf("got diagnostic %s %s; want none", d.Code, d.Message)
	}
}

func TestShadowingAcrossAndWithinRoots(t *testing.T) {
	dir := t.TempDir()
	skill := func(root, folder, desc string) {
		testkit.WriteFile(t, filepath.Join(dir, root, folder, "SKILL.md"), "---\nname: same\ndescription: "+desc+"\n---\n")
	}
	skill("user", "same", "user")
	skill("project", "b/same", "project b")
	skill("project", "a/same", "project a")
	cat, err := Load(context.Background(), Options{Roots: []string{filepath.Join(dir, "project"), filepath.Join(dir, "user")}})
	if err != nil {
		t.Fatal(err)
	}
	u, ok := cat.Lookup("same")
	if !ok || u.Description != "project a" {
		t.Fatalf("got winner %+v; want project a (higher precedence, first path in byte order)", u)
	}
	shadowed := 0
	for _, d := range cat.Diagnostics {
		if d.Code == ir.CodeShadowed {
			shadowed++
			if !strings.Contains(d.Message, "a/same/SKILL.md") {
				t.Errorf("diagnostic %q does not name the winner", d.Message)
			}
		}
	}
	if shadowed != 2 {
		t.Errorf("got %d shadowed diagnostics; want 2", shadowed)
	}
}

// TestShadowingPrefersOwnFolder: within a root, the skill in a folder of
// its name keeps the name; a folder "a-evil" whose SKILL.md says "name:
// deploy" sorted first and took deploy's name and tasks.
func TestShadowingPrefersOwnFolder(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: real\n---\n")
	testkit.WriteFile(t, filepath.Join(dir, "a-evil", "SKILL.md"), "---\nname: deploy\ndescription: evil\n---\n")
	cat, err := Load(context.Background(), Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := cat.Lookup("deploy"); !ok || u.Description != "real" {
		t.Fatalf("got winner %+v; want the one in deploy/", u)
	}
}

func TestLoadIsIndependentOfCreationOrderAndLocation(t *testing.T) {
	build := func(reverse bool) ([]byte, string) {
		dir := t.TempDir()
		names := []string{"zeta", "alpha", "mid/beta", "mid/gamma", "delta"}
		if reverse {
			for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
				names[i], names[j] = names[j], names[i]
			}
		}
		for _, n := range names {
			base := filepath.Base(n)
			testkit.WriteFile(t, filepath.Join(dir, n, "SKILL.md"), "---\nname: "+base+"\ndescription: Skill "+base+".\n---\nBody of "+base+".\n")
		}
		testkit.WriteFile(t, filepath.Join(dir, "dup", "alpha", "SKILL.md"), "---\nname: alpha\ndescription: Duplicate.\n---\n")
		cat, err := Load(context.Background(), Options{Roots: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		return portable(t, cat, dir), dir
	}
	a, _ := build(false)
	b, _ := build(true)
	if !bytes.Equal(a, b) {
		t.Errorf("catalog depends on creation order or location:\n%s\n---\n%s", a, b)
	}
}

func TestReadBody(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s", "SKILL.md")
	testkit.WriteFile(t, file, "---\r\nname: s\r\ndescription: d\r\n---\r\nLine one.\r\nLine two.\r\n")
	cat, err := Load(context.Background(), Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := cat.Lookup("s")
	body, err := ReadBody(u)
	if err != nil || body != "Line one.\nLine two.\n" {
		t.Fatalf("got %q, %v; want the body with LF endings", body, err)
	}
	testkit.WriteFile(t, file, "---\r\nname: s\r\ndescription: d\r\n---\r\nLine one.\r\nLine 2!!\r\n")
	if _, err := ReadBody(u); !errors.Is(err, ErrChanged) {
		t.Errorf("got %v; want ErrChanged after the file changed", err)
	}
	// A file that grew is changed, and said to have grown, not to be
	// too large for a reader.
	testkit.WriteFile(t, file, "---\r\nname: s\r\ndescription: d\r\n---\r\nLine one.\r\nLine two, longer.\r\n")
	if _, err := ReadBody(u); !errors.Is(err, ErrChanged) || strings.Contains(err.Error(), "too large") {
		t.Errorf("got %v; want ErrChanged saying the file grew", err)
	}
}

// TestNamedRootMustExist pins that a root the caller names, as the Go API
// example of README.md and docs/go-api.md names one, is an error from Load
// when it is missing or a file, and that only the built-in default roots may be absent quietly.
func TestNamedRootMustExist(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope")
	file := filepath.Join(dir, "file")
	testkit.WriteFile(t, file, "x")
	testkit.WriteFile(t, filepath.Join(dir, "ok", "s", "SKILL.md"), "---\nname: s\ndescription: d\n---\n")
	tests := []struct {
		name  string
		roots []string
		env   string
		cause error // nil: no error
	}{
		{name: "missing", roots: []string{missing}, cause: fs.ErrNotExist},
		{name: "file", roots: []string{file}, cause: ErrNotFolder},
		{name: "missing after a good one", roots: []string{filepath.Join(dir, "ok"), missing}, cause: fs.ErrNotExist},
		{name: "missing environment root", env: missing, cause: fs.ErrNotExist},
		{name: "defaults may be absent", env: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			t.Setenv("HOME", t.TempDir())
			t.Setenv(EnvSkillsRoot, tt.env)
			cat, err := Load(context.Background(), Options{Roots: tt.roots})
			if tt.cause == nil {
				if err != nil || len(cat.Diagnostics) != 0 {
					t.Fatalf("got %v, %v; want no error and no diagnostic", err, cat.Diagnostics)
				}
				return
			}
			var re *RootError
			if !errors.As(err, &re) || !errors.Is(err, tt.cause) {
				t.Fatalf("got %v; want a *RootError wrapping %v", err, tt.cause)
			}
			if !strings.Contains(err.Error(), re.Root) || re.Root == "" {
				t.Errorf("got %q; want the message to name the root", err)
			}
			if (tt.env != "") != (re.Env == EnvSkillsRoot) {
				t.Errorf("got Env %q; want it set only for a root from the environment", re.Env)
			}
		})
	}
}

// TestUnmatchedExclude pins that an exclude entry leaving out no skill
// folder is a warning naming it, as when the policy of a collection is
// used against the checkout above its skills/ folder.
func TestUnmatchedExclude(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "skills", "deprecated", "old", "SKILL.md"), "---\nname: old\ndescription: Old.\n---\n")
	cat, err := Load(context.Background(), Options{Roots: []string{dir}, Exclude: []string{"deprecated", "skills/deprecated"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range cat.Diagnostics {
		if d.Code == ir.CodeUnmatchedExclude {
			got = append(got, d.Message)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `"deprecated"`) {
		t.Errorf("got %q; want one unmatched_exclude naming \"deprecated\"", got)
	}
}

// TestMisnamedSkillFile pins that a skill.md in another case is reported,
// not passed over in silence.
func TestMisnamedSkillFile(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"skill.md", "Skill.md", "SKILL.MD"} {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprint("s", i), name), "---\nname: x\ndescription: d\n---\n")
	}
	cat, err := Load(context.Background(), Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range cat.Diagnostics {
		if d.Code == ir.CodeMisnamedSkillFile && d.Severity == ir.SeverityWarning {
			n++
		}
	}
	if n != 3 || len(cat.Units) != 0 {
		t.Errorf("got %d misnamed_skill_file warnings and %d units; want 3 and 0: %v", n, len(cat.Units), cat.Diagnostics)
	}
}

// TestSkillFileFolder: a folder named SKILL.md is a read_error at its
// path, as a FIFO there is; the skill did not vanish in silence.
func TestSkillFileFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "s", "SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	cat, err := Load(context.Background(), Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Diagnostics) != 1 || cat.Diagnostics[0].Code != ir.CodeReadError || cat.Diagnostics[0].Path != "s/SKILL.md" {
		t.Errorf("got %v; want one read_error at s/SKILL.md", cat.Diagnostics)
	}
}

// TestMisnamedCodexPolicy: a Codex settings file named otherwise than
// agents/openai.yaml is reported, not passed over in silence; the skill
// stays as it is.
func TestMisnamedCodexPolicy(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"OpenAI.yaml", "openai.yml", "openai.yaml"} {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprint("s", i), "SKILL.md"), fmt.Sprintf("---\nname: s%d\ndescription: d\n---\n", i))
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprint("s", i), "agents", name), "policy:\n  allow_implicit_invocation: false\n")
	}
	cat, err := Load(context.Background(), Options{Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range cat.Diagnostics {
		got = append(got, string(d.Code)+" "+d.Path)
	}
	if want := []string{"misnamed_skill_file s0/agents/OpenAI.yaml", "misnamed_skill_file s1/agents/openai.yml"}; !slices.Equal(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
	if u := unitNamed(cat, "s2", ir.StatusOK); u == nil || u.Invocation != ir.InvocationExplicitUser {
		t.Errorf("got %+v; want s2 explicit-user-only", u)
	}
}

func TestExclude(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "deprecated", "old", "SKILL.md"), "---\nname: old\ndescription: Old.\n---\n")
	testkit.WriteFile(t, filepath.Join(dir, "current", "new", "SKILL.md"), "---\nname: new\ndescription: New.\n---\n")
	cat, _ := Load(context.Background(), Options{Roots: []string{dir}, Exclude: []string{"deprecated/"}})
	if len(cat.Units) != 1 || cat.Units[0].Name != "new" {
		t.Errorf("got %d units; want only new", len(cat.Units))
	}
	if len(cat.Diagnostics) != 1 || cat.Diagnostics[0].Code != ir.CodeExcluded {
		t.Errorf("got %v; want one excluded info", cat.Diagnostics)
	}
}

func TestDefaultRoots(t *testing.T) {
	env := func(v string) func(string) string {
		return func(string) string { return v }
	}
	got := DefaultRoots("/p", "/h", env(""))
	want := []string{"/p/.agents/skills", "/p/.claude/skills", "/p/.opencode/skills", "/p/.opencode/skill", "/p/.codex/skills", "/p/.github/skills", "/p/.cursor/skills",
		"/h/.agents/skills", "/h/.claude/skills", "/h/.config/opencode/skills", "/h/.codex/skills"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v; want %v", got, want)
	}
	got = DefaultRoots("/p", "/h", env("/custom"))
	if len(got) != 8 || got[7] != "/custom" {
		t.Errorf("got %v; want project roots then /custom", got)
	}
}

// TestMisspelledKeysRead: a key rlmc reads, spelled with other case or
// "_" for "-", is read as that key with a misspelled_field warning (an
// explicit-only skill stays explicit-only), and an activation key left
// empty is an error, never an automatic skill.
func TestMisspelledKeysRead(t *testing.T) {
	cat, _ := loadArchive(t, "testdata/catalogs/diagnostics.txtar")
	for _, name := range []string{"misspelled-key", "misspelled-metadata"} {
		u := unitNamed(cat, name, ir.StatusOK)
		if u == nil {
			t.Fatalf("%s: not loaded", name)
		}
		if u.Invocation != ir.InvocationExplicitUser {
			t.Errorf("%s: got invocation %q; want %q", name, u.Invocation, ir.InvocationExplicitUser)
		}
		if !hasDiag(cat, name+"/SKILL.md", ir.CodeMisspelledField) {
			t.Errorf("%s: got no %s diagnostic; want one", name, ir.CodeMisspelledField)
		}
	}
	// Two spellings of one key are two YAML keys, read as one: the last
	// one won, and made an explicit-only skill automatic.
	for _, name := range []string{"two-spellings-key", "two-spellings-metadata", "two-spellings-when"} {
		if u := unitNamed(cat, name, ir.StatusInvalid); u == nil {
			t.Errorf("%s: want status invalid", name)
		}
		if !hasDiag(cat, name+"/SKILL.md", ir.CodeInvalidField) {
			t.Errorf("%s: got no %s diagnostic; want one", name, ir.CodeInvalidField)
		}
	}
	// Beside the key itself, a misspelling is not read, as Claude Code
	// reads it, but it is a warning: its value, stricter here, was
	// dropped as an unknown key, an info.
	if u := unitNamed(cat, "spelled-beside-key", ir.StatusOK); u == nil || u.Invocation != ir.InvocationAutomatic {
		t.Errorf("spelled-beside-key: got %+v; want an automatic unit", u)
	}
	if !hasDiag(cat, "spelled-beside-key/SKILL.md", ir.CodeMisspelledField) || hasDiag(cat, "spelled-beside-key/SKILL.md", ir.CodeUnknownField) {
		t.Errorf("spelled-beside-key: want a %s diagnostic and no %s", ir.CodeMisspelledField, ir.CodeUnknownField)
	}
	if u := unitNamed(cat, "empty-activation", ir.StatusInvalid); u == nil {
		t.Error("empty-activation: want status invalid")
	}
	if !hasDiag(cat, "empty-activation/SKILL.md", ir.CodeInvalidField) {
		t.Errorf("empty-activation: got no %s diagnostic; want one", ir.CodeInvalidField)
	}
}

func hasDiag(cat *ir.Catalog, path string, code ir.Code) bool {
	for _, d := range cat.Diagnostics {
		if d.Path == path && d.Code == code {
			return true
		}
	}
	return false
}

// TestInvalidYAMLKeepsAPlainName: frontmatter that is not YAML (a key
// repeated) still names its invalid unit by its one plain name line: named
// after its folder, it shadowed the valid skill of that name in a root
// ranked below.
func TestInvalidYAMLKeepsAPlainName(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(first, "bar", "SKILL.md"), "---\nname: foo\ndescription: d\nlicense: MIT\nlicense: MIT\n---\nx\n")
	testkit.WriteFile(t, filepath.Join(second, "bar", "SKILL.md"), "---\nname: bar\ndescription: The bar skill.\n---\nx\n")
	cat, err := Load(context.Background(), Options{Roots: []string{first, second}})
	if err != nil {
		t.Fatal(err)
	}
	if unitNamed(cat, "foo", ir.StatusInvalid) == nil || unitNamed(cat, "bar", ir.StatusOK) == nil {
		t.Errorf("got units %v; want foo invalid and bar ok", unitNames(cat))
	}
}

// TestRefusedFieldKeepsTheName: a skill with a field of the wrong kind is
// invalid under the name it declares. Named after its folder instead, the
// invalid skill in foo/ shadowed the valid skill named foo.
func TestRefusedFieldKeepsTheName(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "foo", "SKILL.md"), "---\nname: bar\ndescription: d\nlicense: [1]\n---\nBAR\n")
	testkit.WriteFile(t, filepath.Join(root, "other", "SKILL.md"), "---\nname: foo\ndescription: Format the yaml config files.\n---\nFOO\n")
	cat, err := Load(context.Background(), Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if u := unitNamed(cat, "bar", ir.StatusInvalid); u == nil {
		t.Errorf("got no invalid unit bar; want foo/SKILL.md invalid under its name")
	}
	if u := unitNamed(cat, "foo", ir.StatusOK); u == nil {
		t.Errorf("got no valid unit foo; want other/SKILL.md unshadowed")
	}
}

// TestNestedSkill: a SKILL.md one folder down in a skill's folder is not
// read (a skill's subfolders are its resources), and says so: a SKILL.md
// put at the top of a catalog hid every skill under it without a word. A
// root that is itself a skill says so of every SKILL.md below it, at any
// depth: a catalog grouped by category under an index SKILL.md lost its
// skills two levels down without a word.
func TestNestedSkill(t *testing.T) {
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nBody.\n"
	}
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "SKILL.md"), skill("top"))
	testkit.WriteFile(t, filepath.Join(root, "tdd", "SKILL.md"), skill("tdd"))
	testkit.WriteFile(t, filepath.Join(root, "notes", "README.md"), "not a skill")
	testkit.WriteFile(t, filepath.Join(root, ".hidden", "SKILL.md"), skill("hidden"))
	testkit.WriteFile(t, filepath.Join(root, "devops", "deploy", "SKILL.md"), skill("deploy"))
	testkit.WriteFile(t, filepath.Join(root, "devops", "deploy", "more", "SKILL.md"), skill("more"))
	other := t.TempDir()
	testkit.WriteFile(t, filepath.Join(other, "parent", "SKILL.md"), skill("parent"))
	testkit.WriteFile(t, filepath.Join(other, "parent", "child", "SKILL.md"), skill("child"))
	testkit.WriteFile(t, filepath.Join(other, "parent", "child", "deeper", "SKILL.md"), skill("deeper"))
	cat, err := Load(context.Background(), Options{Roots: []string{root, other}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range cat.Diagnostics {
		if d.Code == ir.CodeNestedSkill && d.Severity == ir.SeverityWarning {
			got = append(got, d.Path)
		}
	}
	want := []string{"devops/deploy/SKILL.md", "parent/child/SKILL.md", "tdd/SKILL.md"}
	if !slices.Equal(got, want) {
		t.Errorf("got nested_skill warnings at %v; want %v", got, want)
	}
}

func unitNames(cat *ir.Catalog) []string {
	var out []string
	for _, u := range cat.Units {
		out = append(out, u.Name+":"+string(u.Status))
	}
	return out
}

// TestLinkAfterRealFolder: a folder reached by its own path and through a
// symlink beside it sorting first ("alias" -> "target") is read from its
// own path, and the link is the one said to lead where the walk has been
// (the unit was read as alias/SKILL.md, with a name_mismatch, and the
// real folder called a symlink loop).
func TestLinkAfterRealFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges here")
	}
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "target", "SKILL.md"), "---\nname: target\ndescription: The target skill.\n---\nBody.\n")
	if err := os.Symlink("target", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	cat, err := Load(context.Background(), Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Units) != 1 || cat.Units[0].Path != "target/SKILL.md" {
		t.Fatalf("got units %v; want target read from target/SKILL.md", unitNames(cat))
	}
	var got []string
	for _, d := range cat.Diagnostics {
		got = append(got, fmt.Sprintf("%s %s", d.Path, d.Code))
	}
	if want := []string{"alias symlink_loop"}; !slices.Equal(got, want) {
		t.Errorf("got diagnostics %v; want %v", got, want)
	}
}

// TestHiddenSkillsSaidOnce: a root named twice says its hidden skills
// once, a hidden folder that is a root of the load already says nothing,
// and neither does a default root (a place skills may be: Codex keeps its
// own under ~/.codex/skills/.system).
func TestHiddenSkillsSaidOnce(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pkg")
	for _, f := range []string{filepath.Join(pkg, ".agents", "skills", "fmt", SkillFile), filepath.Join(dir, "home", ".codex", "skills", ".agents", "skills", "x", SkillFile)} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("---\nname: "+filepath.Base(filepath.Dir(f))+"\ndescription: d\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		roots []string // none: the default roots of a project with none, and the home above
		want  int
	}{
		{name: "named once", roots: []string{pkg}, want: 1},
		{name: "named twice", roots: []string{pkg, pkg}, want: 1},
		{name: "the hidden folder a root too", roots: []string{pkg, filepath.Join(pkg, ".agents", "skills")}, want: 0},
		{name: "a default root", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Resolve(Options{Roots: tt.roots}, Policy{}, Env{Cwd: filepath.Join(dir, "project"), Home: filepath.Join(dir, "home"), Getenv: func(string) string { return "" }})
			cat, _, err := LoadResolved(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, d := range cat.Diagnostics {
				if d.Code == ir.CodeHiddenSkills {
					n++
				}
			}
			if n != tt.want {
				t.Errorf("got %d hidden_skills warnings; want %d", n, tt.want)
			}
		})
	}
}

// TestLinkIntoAnotherRoot: a skill folder linked from one root into
// another root of the load (.claude/skills/tdd -> ../../.agents/skills/tdd,
// as skills CLIs install them) is that root's skill, loaded once from
// there, and an info; a link out of every root stays an error.
func TestLinkIntoAnotherRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	dir := t.TempDir()
	agents, claude, outside := filepath.Join(dir, "agents"), filepath.Join(dir, "claude"), filepath.Join(dir, "outside")
	testkit.WriteFile(t, filepath.Join(agents, "tdd", "SKILL.md"), "---\nname: tdd\ndescription: Test-driven development.\n---\nBody.\n")
	testkit.WriteFile(t, filepath.Join(outside, "evil", "SKILL.md"), "---\nname: evil\ndescription: Out of every root.\n---\nBody.\n")
	// Inside the other root, where its walk does not go: loaded by no
	// root, it stays an escape.
	testkit.WriteFile(t, filepath.Join(agents, ".hidden", "secret", "SKILL.md"), "---\nname: secret\ndescription: In a hidden folder.\n---\nBody.\n")
	os.MkdirAll(claude, 0o755)
	for name, target := range map[string]string{"tdd": filepath.Join(agents, "tdd"), "evil": filepath.Join(outside, "evil"), "hid": filepath.Join(agents, ".hidden", "secret")} {
		if err := os.Symlink(target, filepath.Join(claude, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, roots := range [][]string{{claude, agents}, {agents, claude}} {
		cat, err := Load(context.Background(), Options{Roots: roots})
		if err != nil {
			t.Fatal(err)
		}
		if len(cat.Units) != 1 || cat.Units[0].Name != "tdd" || cat.Units[0].Root != agents {
			t.Errorf("roots %v: got %d units; want tdd alone, from %s", roots, len(cat.Units), agents)
		}
		got := map[string]ir.Severity{}
		for _, d := range cat.Diagnostics {
			if d.Code == ir.CodePathEscape {
				got[d.Path] = d.Severity
			}
		}
		if want := map[string]ir.Severity{"tdd": ir.SeverityInfo, "evil": ir.SeverityError, "hid": ir.SeverityError}; !maps.Equal(got, want) {
			t.Errorf("roots %v: path_escape severities %v; want %v", roots, got, want)
		}
	}
}
