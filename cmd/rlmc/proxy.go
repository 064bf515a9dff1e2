package main

import (
	"errors"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/httpsafe"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/proxy"
)

func newProxyCmd(stderr io.Writer) *cobra.Command {
	var (
		cfg        proxy.Config
		upstream   string
		tokenFile  string
		trajectory string
		placement  string
	)
	cmd := &cobra.Command{
		Use:   "proxy --upstream URL",
		Short: "Put skills into OpenAI and Anthropic completions on their way to the API",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if upstream == "" {
				return usageError("proxy needs --upstream URL, such as https://api.openai.com")
			}
			if !strings.Contains(upstream, "://") {
				return usageError("--upstream needs its scheme, as in https://api.openai.com or http://127.0.0.1:9000")
			}
			u, err := url.Parse(upstream)
			if err != nil {
				// Nothing of the URL is repeated: any part of it, even
				// the port the parser names, may hold a key.
				return usageError("--upstream is not a URL (check its host, port and escapes)")
			}
			cfg.Upstream = u
			cfg.Placement = proxy.Placement(placement)
			if cmd.Flags().Changed("addr") && cfg.Socket != "" {
				return usageError("give --addr or --socket, not both")
			}
			if err := checkSettings(cmd, positive("timeout", int64(cfg.Timeout)), positive("max-body", cfg.MaxBodyBytes),
				positive("drain-timeout", int64(cfg.DrainTimeout)), notNegative("debounce", int64(cfg.Debounce))); err != nil {
				return err
			}
			if !cmd.Flags().Changed("addr") {
				cfg.Addr = ""
			}
			if cfg.Token, err = readToken(tokenFile); err != nil {
				return err
			}
			if trajectory != "" {
				f, err := openTrajectory(trajectory)
				if err != nil {
					return err
				}
				defer f.Close()
				cfg.Audit = compiler.NewAudit(f)
			}
			cfg.Logger = slog.New(slog.NewJSONHandler(stderr, nil))
			if root := rootHolding(cfg.Roots, trajectory); root != "" {
				cfg.Logger.Warn("--trajectory lies under a root: every line it writes reloads the catalog; write it elsewhere", "trajectory", trajectory, "root", root)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			cfg.Reload = hup
			err = proxy.Run(ctx, cfg)
			var ce *httpsafe.ConfigError
			var re *loader.RootError
			if errors.As(err, &ce) || errors.As(err, &re) {
				return usageError("%v", err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&upstream, "upstream", "", "the API to forward to, such as https://api.openai.com or https://api.anthropic.com; a final /v1 is dropped, since request paths start with it (`URL`)")
	fl.StringVar(&cfg.Addr, "addr", proxy.DefaultAddr, "listen on `HOST:PORT`; an address that is not loopback needs a token")
	fl.StringVar(&cfg.Socket, "socket", "", "listen on a unix socket at `PATH` (created 0600) instead")
	fl.StringArrayVar(&cfg.Roots, "root", nil, rootFlagHelp)
	fl.StringVar(&placement, "placement", string(proxy.PlacementTurn), "where the skill block goes: turn (attached to the user turn it was compiled from, which keeps the provider's prompt cache) or system (in front of the system prompt)")
	fl.StringVar(&cfg.PolicyFile, "policy", "", "host policy YAML `FILE`, watched and reloaded with the skills")
	fl.StringVar(&trajectory, "trajectory", "", "append one JSON audit line per compile to `FILE`")
	fl.StringVar(&tokenFile, "token-file", "", "require the token in `FILE` in the X-Rlmc-Token header of every request (else $"+envToken+" if set)")
	fl.DurationVar(&cfg.Timeout, "timeout", proxy.DefaultTimeout, "deadline of one compile (never of the upstream call)")
	intVar(fl, &cfg.MaxBodyBytes, "max-body", proxy.DefaultMaxBodyBytes, "largest completion body read, in bytes")
	fl.DurationVar(&cfg.DrainTimeout, "drain-timeout", proxy.DefaultDrainTimeout, "how long shutdown waits for calls in flight")
	fl.DurationVar(&cfg.Debounce, "debounce", 50*time.Millisecond, "quiet time after a change before the catalog reloads")
	return cmd
}

// rootHolding returns the first of roots that file lies under, or "".
func rootHolding(roots []string, file string) string {
	if file == "" {
		return ""
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return ""
	}
	for _, r := range roots {
		ar, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(ar, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}
