package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefuses: configurations the server must not start with are
// usage errors (exit 2), said before anything listens where they would.
func TestServeRefuses(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{name: "addr and socket", args: []string{"serve", "--addr", "127.0.0.1:0", "--socket", "s.sock"}, want: "not both"},
		{name: "a timeout of 0", args: []string{"serve", "--addr", "127.0.0.1:0", "--timeout", "0"}, want: "--timeout must be positive, not 0s"},
		{name: "no compile in flight", args: []string{"serve", "--addr", "127.0.0.1:0", "--max-inflight", "0"}, want: "--max-inflight must be positive, not 0"},
		{name: "a negative drain", args: []string{"serve", "--addr", "127.0.0.1:0", "--drain-timeout", "-1s"}, want: "--drain-timeout must be positive"},
		{name: "a negative debounce", args: []string{"serve", "--addr", "127.0.0.1:0", "--debounce", "-1s"}, want: "--debounce must be zero or more"},
		{name: "all interfaces without a token", args: []string{"serve", "--addr", "0.0.0.0:0"}, want: "not a loopback address"},
		{name: "a host name without a token", args: []string{"serve", "--addr", "example.com:0"}, want: "not a loopback address"},
		{name: "an empty token file", args: []string{"serve", "--addr", "0.0.0.0:0", "--token-file", empty}, want: "is empty"},
		{name: "a root that does not exist", args: []string{"serve", "--addr", "127.0.0.1:0", "--root", filepath.Join(t.TempDir(), "nope")}, want: "does not exist"},
		{name: "a policy that does not parse", args: []string{"serve", "--addr", "127.0.0.1:0", "--policy", writePolicy(t, "budget: [\n")}, want: "invalid policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envToken, tc.env)
			var stdout, stderr bytes.Buffer
			if code := Main(tc.args, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
				t.Fatalf("exit: got %d; want %d (%s)", code, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("stderr: got %q; want it to say %q", stderr.String(), tc.want)
			}
		})
	}
}

func writePolicy(t *testing.T, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadToken: a token of blanks leaves the server open while its
// operator believes it closed, so it is refused, from a file or from the
// environment; an unset or empty variable means no token.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank")
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(blank, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, env string
		want            string
		wantErr         bool
	}{
		{name: "no token", want: ""},
		{name: "from the environment", env: " s3cret ", want: "s3cret"},
		{name: "blanks in the environment", env: "   ", wantErr: true},
		{name: "from a file", file: good, want: "s3cret-token"},
		{name: "a blank file", file: blank, wantErr: true},
		{name: "two lines in the environment", env: "abc\ndef", wantErr: true},
		{name: "a blank inside", env: "abc def", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envToken, tt.env)
			got, err := readToken(tt.file)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
