package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	setting := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "rlmc unknown"},
		{"release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			true, "rlmc v1.2.3 go1.26.8"},
		{"checkout with vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: setting("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-12-02T22:00:00Z", "vcs.modified", "true")},
			true, "rlmc (devel) (revision 0123456789ab, modified, 2026-12-02T22:00:00Z) go1.26.8"},
		{"clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: setting("vcs.revision", "abc", "vcs.modified", "false")},
			true, "rlmc (devel) (revision abc) go1.26.8"},
		{"empty version", &debug.BuildInfo{}, true, "rlmc unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.info, tt.ok); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestVersionCommandAndFlag checks that `rlmc version` and `rlmc
// --version` print the same single line, exit 0, and carry the Go version
// of the running binary.
func TestVersionCommandAndFlag(t *testing.T) {
	var outs []string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var stdout, stderr bytes.Buffer
		if code := Main(args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: got exit code %d; want 0 (stderr %s)", args, code, stderr.String())
		}
		out := stdout.String()
		if !strings.HasPrefix(out, "rlmc ") || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
			t.Errorf("%v: got %q; want one line starting with rlmc", args, out)
		}
		if info, ok := debug.ReadBuildInfo(); ok && !strings.Contains(out, info.GoVersion) {
			t.Errorf("%v: got %q; want it to name %s", args, out, info.GoVersion)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("version printed %q, --version %q; want the same", outs[0], outs[1])
	}
}
