package loader

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolve: one row per source of roots, in the order Resolve tries
// them (flag, policy, environment, default), with the exclusions and the
// limits each load gets.
func TestResolve(t *testing.T) {
	getenv := func(root string) func(string) string {
		return func(k string) string {
			if k == EnvSkillsRoot {
				return root
			}
			return ""
		}
	}
	env := Env{Cwd: "/p", Home: "/h", Getenv: getenv("")}
	envSet := Env{Cwd: "/p", Home: "/h", Getenv: getenv("/custom")}
	project := func() []Root {
		var roots []Root
		for _, d := range ProjectRootDirs {
			roots = append(roots, Root{Dir: "/p/" + d, Origin: FromDefault})
		}
		return roots
	}
	user := []Root{
		{Dir: "/h/.agents/skills", Origin: FromDefault},
		{Dir: "/h/.claude/skills", Origin: FromDefault},
		{Dir: "/h/.config/opencode/skills", Origin: FromDefault},
		{Dir: "/h/.codex/skills", Origin: FromDefault},
	}
	depth2 := DefaultLimits
	depth2.MaxDepth = 2
	own := Limits{MaxFileBytes: 10, MaxFrontmatterBytes: 5, MaxDepth: 1, MaxFolders: 3}
	ownDepth2 := own
	ownDepth2.MaxDepth = 2
	tests := []struct {
		name     string
		opts     Options
		policy   Policy
		env      Env
		want     Resolved
		origin   RootOrigin
		envRoot  string
		required int // how many roots must be folders
	}{
		{
			name:   "flag: Options.Roots win over the policy's and the environment",
			opts:   Options{Roots: []string{"/a", "/b"}, Exclude: []string{"x"}},
			policy: Policy{Roots: []string{"/pol"}, Exclude: []string{"y"}},
			env:    envSet,
			want: Resolved{Roots: []Root{{"/a", FromFlag}, {"/b", FromFlag}},
				Exclude: []string{"x", "y"}, Limits: DefaultLimits},
			origin: FromFlag, required: 2,
		},
		{
			name:   "policy: its roots when Options names none, its limits over the defaults",
			policy: Policy{Roots: []string{"/pol"}, Exclude: []string{"y"}, Limits: Limits{MaxDepth: 2}},
			env:    envSet,
			want:   Resolved{Roots: []Root{{"/pol", FromPolicy}}, Exclude: []string{"y"}, Limits: depth2},
			origin: FromPolicy, required: 1,
		},
		{
			name: "environment: $RLMC_SKILLS_ROOT replaces the user roots and must exist",
			opts: Options{Limits: own},
			env:  envSet,
			want: Resolved{Roots: append(project(), Root{"/custom", FromEnv}), Limits: own},
			// Only the environment's root is required.
			origin: FromDefault, envRoot: "/custom", required: 1,
		},
		{
			name:   "default: the project roots, then the user roots, none required",
			opts:   Options{Limits: own},
			policy: Policy{Limits: Limits{MaxDepth: 2}},
			env:    env,
			want:   Resolved{Roots: append(project(), user...), Limits: ownDepth2},
			origin: FromDefault,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(tt.opts, tt.policy, tt.env)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
			if got.Origin() != tt.origin {
				t.Errorf("Origin: got %v; want %v", got.Origin(), tt.origin)
			}
			if got.EnvRoot() != tt.envRoot {
				t.Errorf("EnvRoot: got %q; want %q", got.EnvRoot(), tt.envRoot)
			}
			required := 0
			for _, r := range got.Roots {
				if r.Required() {
					required++
				}
			}
			if required != tt.required {
				t.Errorf("required roots: got %d; want %d", required, tt.required)
			}
			if diff := cmp.Diff(DefaultRoots(tt.env.Cwd, tt.env.Home, tt.env.Getenv), got.Dirs()); tt.origin == FromDefault && diff != "" {
				t.Errorf("Dirs differ from DefaultRoots (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolveLeavesOptionsAlone: the exclusions Resolve returns never
// share an array with the caller's, so a load cannot change its options.
func TestResolveLeavesOptionsAlone(t *testing.T) {
	exclude := make([]string, 1, 4)
	exclude[0] = "x"
	r := Resolve(Options{Roots: []string{"/a"}, Exclude: exclude}, Policy{Exclude: []string{"y"}}, Env{})
	r.Exclude[0] = "changed"
	if got := exclude[:2]; got[0] != "x" || got[1] != "" {
		t.Errorf("Resolve shares the caller's exclusions: %q", got)
	}
}

// TestResolveProcessEnv: the zero Env is this process's working folder,
// home folder and environment.
func TestResolveProcessEnv(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	t.Setenv("HOME", home)
	t.Setenv(EnvSkillsRoot, "")
	cwd, _ = os.Getwd() // as the process names it
	got := Resolve(Options{}, Policy{}, Env{}).Dirs()
	if want := DefaultRoots(cwd, home, os.Getenv); !cmp.Equal(want, got) {
		t.Errorf("got %v; want %v", got, want)
	}
	t.Setenv(EnvSkillsRoot, "/custom")
	if got := Resolve(Options{}, Policy{}, Env{}).EnvRoot(); got != "/custom" {
		t.Errorf("EnvRoot: got %q; want /custom", got)
	}
}

// TestDefaultRootsOnlyThroughResolve: roots, exclusions and limits are
// decided in one place, Resolve. No other package computes the built-in
// roots, reads $RLMC_SKILLS_ROOT or fills in the default limits itself
// (tests may still build options from DefaultLimits).
func TestDefaultRootsOnlyThroughResolve(t *testing.T) {
	// Anywhere outside this package, tests included.
	forbidden := map[string]bool{"DefaultRoots": true, "DefaultRootsFromEnv": true, "ProjectRootDirs": true, "UserRootDirs": true}
	// Outside this package's code: tests may name them.
	forbiddenInCode := map[string]bool{"DefaultLimits": true, "EnvSkillsRoot": true}
	const self = "internal/loader"
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == self) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		test := strings.HasSuffix(path, "_test.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		// The name this file imports the loader under, if it does.
		name := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/rlmc-dev/rlmc/internal/loader" {
				name = "loader"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && name != "" && x.Name == name &&
					(forbidden[n.Sel.Name] || (!test && forbiddenInCode[n.Sel.Name])) {
					t.Errorf("%s: %s.%s; use loader.Resolve (compiler.Resolve), which decides the roots, exclusions and limits for every caller", rel, x.Name, n.Sel.Name)
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); !test && err == nil && s == EnvSkillsRoot {
					t.Errorf("%s: reads %s by name; use loader.Resolve, whose roots say which one the environment named", rel, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("scanned %d Go files under %s; want the whole repository", files, repo)
	}
}
