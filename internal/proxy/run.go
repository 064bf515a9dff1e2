package proxy

import (
	"context"
	"net/http"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/httpsafe"
	"github.com/rlmc-dev/rlmc/internal/loader"
)

// Run listens, loads and watches the catalog, and proxies until ctx ends;
// then it stops accepting and lets the calls in flight finish (at most
// DrainTimeout: a stream still running then is cut). Calls arriving while
// the first catalog loads are forwarded without skills. Configuration
// errors are *httpsafe.ConfigError; a catalog that fails its first load
// returns the load's error.
func Run(ctx context.Context, cfg Config) error {
	p, err := New(cfg)
	if err != nil {
		return err
	}
	if cfg.PolicyFile != "" {
		if _, err := compiler.LoadPolicy(cfg.PolicyFile); err != nil {
			return &httpsafe.ConfigError{Msg: err.Error()}
		}
	}
	// A root named that is not a folder is said before anything
	// listens, as rlmc serve does; the first load would refuse it anyway,
	// after a "listening" line a supervisor takes for a start.
	for _, r := range cfg.Roots {
		if err := loader.CheckRoot(r); err != nil {
			return err
		}
	}
	ln, err := httpsafe.Listen(p.cfg.Addr, p.cfg.Socket)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 5 * time.Second,
		// No read or write timeout: a completion streams for minutes.
		IdleTimeout: 2 * time.Minute,
	}
	defer p.Close()
	life := httpsafe.Life{Log: p.log, Watch: p.Watch, Live: p.Live, Reload: cfg.Reload,
		DrainTimeout: p.cfg.DrainTimeout, Cut: "calls still running after the drain timeout were cut"}
	return life.Run(ctx, srv, ln, func() {
		p.log.Info("listening", "addr", ln.Addr().String(), "network", ln.Addr().Network(), "upstream", Redact(p.cfg.Upstream), "token", p.token.Set())
		if cfg.Listening != nil {
			cfg.Listening(ln.Addr())
		}
	})
}
