// Package loader discovers SKILL.md folders under a list of roots, parses
// every supported layout and normalizes each skill into an ir.Unit. It owns
// the discover, parse, normalize and validate stages of the pipeline.
package loader

import (
	"os"
	"path/filepath"
)

// ProjectRootDirs are the project-level skill folders, highest precedence
// first, relative to the working directory.
var ProjectRootDirs = []string{
	".agents/skills",
	".claude/skills",
	".opencode/skills",
	".opencode/skill",
	".codex/skills",
	".github/skills",
	".cursor/skills",
}

// UserRootDirs are the user-level skill folders, relative to the home
// directory, used when RLMC_SKILLS_ROOT is not set.
var UserRootDirs = []string{
	".agents/skills",
	".claude/skills",
	".config/opencode/skills",
	".codex/skills",
}

// EnvSkillsRoot names the environment variable that replaces the user roots.
const EnvSkillsRoot = "RLMC_SKILLS_ROOT"

// DefaultRoots returns the roots used when none is given: project roots
// under cwd, then the user roots. Project beats user. getenv is os.Getenv
// in production and a stub in tests.
func DefaultRoots(cwd, home string, getenv func(string) string) []string {
	var roots []string
	for _, d := range ProjectRootDirs {
		roots = append(roots, filepath.Join(cwd, filepath.FromSlash(d)))
	}
	if env := getenv(EnvSkillsRoot); env != "" {
		return append(roots, env)
	}
	if home == "" {
		return roots
	}
	for _, d := range UserRootDirs {
		roots = append(roots, filepath.Join(home, filepath.FromSlash(d)))
	}
	return roots
}

// DefaultRootsFromEnv is DefaultRoots for the running process.
func DefaultRootsFromEnv() []string {
	cwd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	return DefaultRoots(cwd, home, os.Getenv)
}
