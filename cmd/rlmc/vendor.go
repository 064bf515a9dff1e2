package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/internal/lockfile"
	"github.com/rlmc-dev/rlmc/ir"
)

func newVendorCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vendor",
		Short: "Pin and verify third-party skill distributions",
		Args:  noCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError("vendor needs a subcommand: verify or lock")
		},
	}
	cmd.AddCommand(newVendorVerifyCmd(stdout), newVendorLockCmd(stdout))
	return cmd
}

func newVendorVerifyCmd(stdout io.Writer) *cobra.Command {
	var lock, format string
	cmd := &cobra.Command{
		Use:   "verify DIR --lock FILE",
		Short: "Check a checkout against its lock file; exit 1 listing each missing, extra or changed file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if lock == "" {
				return usageError("vendor verify needs --lock FILE")
			}
			if format != "text" && format != "json" {
				return usageError("--format must be text or json, not %q", format)
			}
			return runVendorVerify(args[0], lock, format, stdout)
		},
	}
	cmd.Flags().StringVar(&lock, "lock", "", "lock `FILE`")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func runVendorVerify(dir, lockFile, format string, stdout io.Writer) error {
	l, err := lockfile.Read(lockFile)
	if err != nil {
		return usageError("%v", err)
	}
	r, err := lockfile.Verify(dir, l)
	if err != nil {
		return usageError("%v", err)
	}
	if format == "json" {
		if err := writeJSON(stdout, r); err != nil {
			return err
		}
	} else {
		// Paths are file names from the checkout and may hold anything
		// but "/" and NUL: escaped, none can forge an ok line.
		for _, p := range r.Missing {
			fmt.Fprintf(stdout, "missing %s\n", ir.Printable(p))
		}
		for _, p := range r.Extra {
			fmt.Fprintf(stdout, "extra %s\n", ir.Printable(p))
		}
		for _, p := range r.Changed {
			fmt.Fprintf(stdout, "changed %s\n", ir.Printable(p))
		}
		for _, p := range r.Uncovered {
			fmt.Fprintf(stdout, "uncovered %s\n", ir.Printable(p))
		}
		verdict := "ok"
		if !r.OK() {
			verdict = "MISMATCH"
		}
		fmt.Fprintf(stdout, "%s: %s: %d files checked, %d missing, %d extra, %d changed; covered: every file in %s, %s by include pattern; not covered: %s outside them\n",
			verdict, lockName(l.Name, l.Commit), r.Checked, len(r.Missing), len(r.Extra), len(r.Changed),
			plural(r.SkillFolders, "skill folder"), plural(r.ByPattern, "file"), plural(len(r.Uncovered), "file"))
	}
	if !r.OK() {
		return failed()
	}
	return nil
}

// plural renders "1 file" or "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func newVendorLockCmd(stdout io.Writer) *cobra.Command {
	var l lockfile.Lock
	cmd := &cobra.Command{
		Use:   "lock DIR --include PATTERN...",
		Short: "Write a lock file pinning every file of every skill folder, and the files --include matches, to standard output",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(l.Include) == 0 {
				return usageError("vendor lock needs at least one --include PATTERN")
			}
			if err := l.CheckMeta(); err != nil {
				return usageError("%v", err)
			}
			t, err := lockfile.Scan(args[0], l.Include)
			if err != nil {
				return usageError("%v", err)
			}
			if self := pinsItself(stdout, args[0], t.Files); self != "" {
				// Redirected into the checkout, the lock pinned its own
				// empty start, and never verified.
				return usageError("the lock is being written into the checkout it pins (%s): it would pin itself and never verify; remove it, and write the lock outside %s", ir.Printable(self), ir.Printable(args[0]))
			}
			l.Files = t.Files
			return l.Write(stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&l.Include, "include", nil, "slash-separated glob `PATTERN` of files in scope besides the skill folders, which are always pinned whole (** for any folders; repeatable; each must match a file)")
	fl.StringVar(&l.Name, "name", "", "distribution name")
	fl.StringVar(&l.Upstream, "upstream", "", "upstream repository URL")
	fl.StringVar(&l.Commit, "commit", "", "pinned commit")
	fl.StringVar(&l.Date, "date", "", "commit date")
	fl.StringVar(&l.License, "license", "", "SPDX license identifier")
	fl.StringVar(&l.Copyright, "copyright", "", "upstream copyright line")
	return cmd
}

// lockName names a lock's checkout as verify reports it: its name at its
// commit, either or both left out when the lock has none ("the checkout"
// for neither).
func lockName(name, commit string) string {
	switch {
	case name != "" && commit != "":
		return ir.EscapeText(name) + " at " + ir.EscapeText(short(commit))
	case name != "":
		return ir.EscapeText(name)
	case commit != "":
		return "the checkout at " + ir.EscapeText(short(commit))
	}
	return "the checkout"
}

// pinsItself returns the path, within dir, of the file among files that
// out writes to (standard output redirected into the checkout), else "".
func pinsItself(out io.Writer, dir string, files []lockfile.File) string {
	if t, ok := out.(*writeTracker); ok {
		out = t.w
	}
	f, ok := out.(*os.File)
	if !ok {
		return ""
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	for _, file := range files {
		if file.Link != "" {
			continue
		}
		if other, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(file.Path))); err == nil && os.SameFile(fi, other) {
			return file.Path
		}
	}
	return ""
}
