package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goDecls is what the repository's Go code declares, for checking the
// names documents cite.
type goDecls struct {
	pkgs    map[string]map[string]bool // package name -> its top-level names
	members map[string]map[string]bool // type name -> its methods and fields
	any     map[string]bool            // every declared name, members included
	files   map[string]bool            // the base names of its files
}

// readGoDecls parses every Go file of the repository at root, tests
// included, testdata excluded.
func readGoDecls(t testing.TB, root string) *goDecls {
	t.Helper()
	d := &goDecls{pkgs: map[string]map[string]bool{}, members: map[string]map[string]bool{}, any: map[string]bool{}, files: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		d.files[e.Name()] = true
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		top := d.pkgs[f.Name.Name]
		if top == nil {
			top = map[string]bool{}
			d.pkgs[f.Name.Name] = top
		}
		add := func(set map[string]bool, name string) {
			set[name] = true
			d.any[name] = true
		}
		member := func(typ, name string) {
			if d.members[typ] == nil {
				d.members[typ] = map[string]bool{}
			}
			add(d.members[typ], name)
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					add(top, decl.Name.Name)
					continue
				}
				typ := decl.Recv.List[0].Type
				for {
					switch x := typ.(type) {
					case *ast.StarExpr:
						typ = x.X
						continue
					case *ast.IndexExpr:
						typ = x.X
						continue
					case *ast.IndexListExpr:
						typ = x.X
						continue
					}
					break
				}
				if id, ok := typ.(*ast.Ident); ok {
					member(id.Name, decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							add(top, n.Name)
						}
					case *ast.TypeSpec:
						add(top, spec.Name.Name)
						var fields *ast.FieldList
						switch x := spec.Type.(type) {
						case *ast.StructType:
							fields = x.Fields
						case *ast.InterfaceType:
							fields = x.Methods
						}
						if fields == nil {
							continue
						}
						for _, fl := range fields.List {
							for _, n := range fl.Names {
								member(spec.Name.Name, n.Name)
							}
							if len(fl.Names) == 0 { // embedded: its type's name
								ft := fl.Type
								if s, ok := ft.(*ast.StarExpr); ok {
									ft = s.X
								}
								switch x := ft.(type) {
								case *ast.Ident:
									member(spec.Name.Name, x.Name)
								case *ast.SelectorExpr:
									member(spec.Name.Name, x.Sel.Name)
								}
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var (
	codeSpanRE   = regexp.MustCompile("`([^`]+)`")
	identRE      = regexp.MustCompile(`^\*?([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?(?:\(\))?$`)
	predicateRE  = regexp.MustCompile(`^([a-z][a-z0-9_]*)/[0-9]$`)
	testNameRE   = regexp.MustCompile(`^((?:Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)(?:/\S*)?$`)
	goLookingRE  = regexp.MustCompile(`^[A-Z][a-z0-9]|[a-z0-9][A-Z]`) // Exported or mixedCase
	pathTokenRE  = regexp.MustCompile(`^(?:\./)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.*-]*)+$`)
	fileSuffixes = []string{".go", ".pl"}
	dataFileRE   = regexp.MustCompile(`\.(json|yaml|yml|md|txt|txtar|golden|sh|py)$`) // a file of a case or a skill
)

// notGo are names in backticks that look like Go identifiers but name
// something else: an HTTP header, a Claude Code hook event.
var notGo = []string{"Authorization", "UserPromptSubmit"}

// checkCitation returns what is wrong with one code span of a document,
// or "": a repository path must exist; a Go name (pkg.Name, Type.Member,
// an exported or mixedCase name, a Test or Benchmark function) must be
// declared; a Prolog predicate name/N must be in the policy. Anything
// else (a command's words, a JSON key, an external package) is not
// checked, except the repository paths a command names.
func checkCitation(root string, d *goDecls, policy, span string) []string {
	span = strings.Join(strings.Fields(span), " ")
	var errs []string
	for _, tok := range strings.Fields(span) {
		tok = strings.Trim(tok, `'"(),;:`)
		if p := citedPath(root, tok); p != "" {
			if matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(p))); len(matches) == 0 {
				errs = append(errs, "no file or folder "+p)
			}
		}
	}
	if strings.Contains(span, " ") {
		return errs
	}
	if m := testNameRE.FindStringSubmatch(span); m != nil {
		if !d.any[m[1]] {
			errs = append(errs, "no Go function "+m[1])
		}
		return errs
	}
	if m := predicateRE.FindStringSubmatch(span); m != nil {
		if !strings.Contains(policy, m[1]+"(") {
			errs = append(errs, "internal/rules/policy.pl calls no "+span)
		}
		return errs
	}
	for _, suf := range fileSuffixes {
		if strings.HasSuffix(span, suf) && !strings.Contains(span, "/") {
			if !d.files[span] {
				errs = append(errs, "no file "+span+" in the repository")
			}
			return errs
		}
	}
	m := identRE.FindStringSubmatch(span)
	if m == nil || dataFileRE.MatchString(span) {
		return errs
	}
	first, second := m[1], m[2]
	switch {
	case second == "":
		if goLookingRE.MatchString(first) && !slices.Contains(notGo, first) && !d.any[first] {
			errs = append(errs, "no Go name "+first+" is declared")
		}
	case d.pkgs[first] != nil:
		if !d.pkgs[first][second] {
			errs = append(errs, "package "+first+" declares no "+second)
		}
	case d.members[first] != nil:
		if !d.members[first][second] {
			errs = append(errs, "type "+first+" has no method or field "+second)
		}
	}
	return errs
}

// citedPath returns tok as a repository path when it names one: a path
// starting with ./ or with a top-level entry of the repository; "" for
// anything else (a path inside a skill folder, a placeholder).
func citedPath(root, tok string) string {
	tok = strings.TrimSuffix(tok, "/...")
	if !pathTokenRE.MatchString(tok) || strings.Contains(tok, "..") && tok != "./..." {
		return ""
	}
	if tok == "./..." {
		return ""
	}
	rel := strings.TrimPrefix(tok, "./")
	top, _, _ := strings.Cut(rel, "/")
	if _, err := os.Stat(filepath.Join(root, top)); err != nil && !strings.HasPrefix(tok, "./") {
		return ""
	}
	return strings.TrimSuffix(rel, "/")
}

// TestSkillCitations checks that every file path and Go name the
// repository's own skills and ARCHITECTURE.md cite in backticks exists.
func TestSkillCitations(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, ".agents", "skills", "*", "SKILL.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no skills in .agents/skills (%v)", err)
	}
	files = append(files, filepath.Join(root, "ARCHITECTURE.md"))
	policy, err := os.ReadFile(filepath.Join(root, "internal", "rules", "policy.pl"))
	if err != nil {
		t.Fatal(err)
	}
	d := readGoDecls(t, root)
	spans := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		text := fenceRE.ReplaceAllString(string(data), "")
		for _, m := range codeSpanRE.FindAllStringSubmatch(text, -1) {
			spans++
			for _, e := range checkCitation(root, d, string(policy), m[1]) {
				t.Errorf("%s: `%s`: %s", filepath.ToSlash(rel), m[1], e)
			}
		}
	}
	if spans < 50 {
		t.Errorf("found %d code spans; the pattern is broken", spans)
	}
}

// TestCheckCitation pins what the citation check accepts and refuses.
func TestCheckCitation(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	d := readGoDecls(t, root)
	policy := "decide(A, B, C, D) :- eligible(A, B, C)."
	for _, tt := range []struct {
		span string
		ok   bool
	}{
		{"internal/rules/policy.pl", true},
		{"internal/rules/nope.pl", false},
		{"cmd/rlmc/testdata/script/*.txtar", true},
		{"cmd/rlmc/testdata/script/*.nope", false},
		{"go test ./internal/loader ./cmd/rlmc -update", true},
		{"go test ./internal/nope -run X", false},
		{"skills/<name>/SKILL.md", true},
		{"agents/openai.yaml", true},
		{"compiler.MaxTaskBytes", true},
		{"compiler.MaxTaskByte", false},
		{"*loader.RootError", true},
		{"Cache.Drop", true},
		{"Cache.Dropped", false},
		{"rejectReason", false},
		{"neverBlocksKey", true},
		{"TestScripts", true},
		{"BenchmarkLoad/skills=N", true},
		{"TestNoSuchThing", false},
		{"decide/4", true},
		{"undecide/4", false},
		{"graph.go", true},
		{"nope.go", false},
		{"os.Root", true},
		{"task", true},
		{"request.json", true},
	} {
		errs := checkCitation(root, d, policy, tt.span)
		if (len(errs) == 0) != tt.ok {
			t.Errorf("checkCitation(%q) = %q; want ok %v", tt.span, errs, tt.ok)
		}
	}
}
