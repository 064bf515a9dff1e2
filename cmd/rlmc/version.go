package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rlmc's version, VCS revision and Go version on one line",
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
			return err
		},
	}
}

// setVersion gives the root command a --version flag printing the same
// line as `rlmc version`.
func setVersion(root *cobra.Command) {
	root.Version = versionLine(debug.ReadBuildInfo())
	root.SetVersionTemplate("{{.Version}}\n")
}

// versionLine renders the build information as one line: "rlmc VERSION
// (revision REV[, modified], TIME) GOVERSION". VERSION is the module
// version ("(devel)" for a build from a checkout, "unknown" without build
// information); the VCS part appears only when the build recorded it.
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "rlmc unknown"
	}
	version := info.Main.Version
	if version == "" {
		version = "unknown"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		r := "revision " + rev
		if settings["vcs.modified"] == "true" {
			r += ", modified"
		}
		vcs = append(vcs, r)
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	line := "rlmc " + version
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	if info.GoVersion != "" {
		line += " " + info.GoVersion
	}
	return line
}
