package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/internal/gctune"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/internal/server"
)

// envToken names the environment variable holding the bearer token.
const envToken = "RLMC_TOKEN"

func newServeCmd(stderr io.Writer) *cobra.Command {
	var (
		cfg       server.Config
		tokenFile string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Answer compiles over HTTP from a warm catalog that reloads itself",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("addr") && cfg.Socket != "" {
				return usageError("give --addr or --socket, not both")
			}
			if err := checkSettings(cmd, positive("timeout", int64(cfg.Timeout)), positive("max-inflight", int64(cfg.MaxInflight)),
				positive("drain-timeout", int64(cfg.DrainTimeout)), notNegative("debounce", int64(cfg.Debounce))); err != nil {
				return err
			}
			if !cmd.Flags().Changed("addr") {
				cfg.Addr = ""
			}
			token, err := readToken(tokenFile)
			if err != nil {
				return err
			}
			cfg.Token = token
			cfg.Logger = slog.New(slog.NewJSONHandler(stderr, nil))
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			cfg.Reload = hup
			defer gctune.Start(gctune.Serve)()
			err = server.Run(ctx, cfg)
			var ce *server.ConfigError
			var re *loader.RootError
			if errors.As(err, &ce) || errors.As(err, &re) {
				return usageError("%v", err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.Addr, "addr", server.DefaultAddr, "listen on `HOST:PORT`; an address that is not loopback needs a token")
	fl.StringVar(&cfg.Socket, "socket", "", "listen on a unix socket at `PATH` (created 0600) instead")
	fl.StringArrayVar(&cfg.Roots, "root", nil, rootFlagHelp)
	fl.StringVar(&cfg.PolicyFile, "policy", "", "host policy YAML `FILE`, watched and reloaded with the skills")
	fl.StringVar(&tokenFile, "token-file", "", "require the bearer token in `FILE` on every request (else $"+envToken+" if set)")
	fl.DurationVar(&cfg.Timeout, "timeout", server.DefaultTimeout, "deadline of one compile")
	intVar(fl, &cfg.MaxInflight, "max-inflight", server.DefaultMaxInflight, "concurrent compiles; more are answered 429")
	fl.DurationVar(&cfg.DrainTimeout, "drain-timeout", server.DefaultDrainTimeout, "how long shutdown waits for requests in flight")
	fl.BoolVar(&cfg.LogTasks, "log-tasks", false, "log the text of each task (never logged otherwise)")
	fl.DurationVar(&cfg.Debounce, "debounce", 50*time.Millisecond, "quiet time after a change before the catalog reloads")
	return cmd
}

// readToken returns the bearer token from file, else from $RLMC_TOKEN; ""
// means none (the variable unset or empty). A token file that is empty,
// or a variable of blanks, is an error: it would leave the server open
// while its operator believes it closed.
func readToken(file string) (string, error) {
	if file == "" {
		env := os.Getenv(envToken)
		token := strings.TrimSpace(env)
		if token == "" && env != "" {
			return "", usageError("$%s holds only blanks: the server would take every request; give a token, or unset it", envToken)
		}
		if err := sendable(token, "$"+envToken); err != nil {
			return "", err
		}
		return token, nil
	}
	data, err := safefs.ReadPath(file, 64<<10)
	if err != nil {
		return "", usageError("--token-file: %v", err)
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", usageError("--token-file %s is empty", file)
	}
	if err := sendable(token, "--token-file "+file); err != nil {
		return "", err
	}
	return token, nil
}

// sendable refuses a token that holds a blank or a control character (a
// file of two lines): no client can send it in one header, so every
// request would be refused without a word on why.
func sendable(token, from string) error {
	if i := strings.IndexFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return usageError("%s: the token holds a blank or a control character at byte %d, which no client can send in a header", from, i)
	}
	return nil
}
