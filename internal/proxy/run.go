package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"net"
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
		ErrorLog:    slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	p.log.Info("listening", "addr", ln.Addr().String(), "network", ln.Addr().Network(), "upstream", Redact(p.cfg.Upstream), "token", p.token.Set())
	if cfg.Listening != nil {
		cfg.Listening(ln.Addr())
	}
	loaded := make(chan error, 1)
	go func() { loaded <- p.Watch(ctx) }()
	defer p.Close()
	for {
		select {
		case err := <-loaded:
			loaded = nil
			if err != nil {
				p.drain(srv)
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		case <-cfg.Reload:
			if l := p.Live(); l != nil {
				p.log.Info("reload requested")
				l.Reload()
			}
		case err := <-served:
			return fmt.Errorf("serving: %w", err)
		case <-ctx.Done():
			p.log.Info("shutting down", "drain_timeout", p.cfg.DrainTimeout.String())
			p.drain(srv)
			if loaded != nil {
				<-loaded
			}
			return nil
		}
	}
}

// drain stops accepting and waits for the calls in flight, at most
// DrainTimeout; past it, the remaining connections are closed.
func (p *Proxy) drain(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.DrainTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		p.log.Warn("calls still running after the drain timeout were cut", "error", err.Error())
		srv.Close()
	}
}
