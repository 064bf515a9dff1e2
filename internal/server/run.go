package server

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

// Run serves until ctx ends: it listens, answers 503 while the first
// catalog loads, watches the catalog, forces a reload at each value of
// cfg.Reload, and when ctx ends stops accepting, lets the requests in
// flight finish (at most cfg.DrainTimeout) and returns nil. It returns a
// *ConfigError for a configuration it refuses, and the first load's error
// (a *loader.RootError for a root that is not a folder).
func Run(ctx context.Context, cfg Config) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	if cfg.PolicyFile != "" {
		// A policy that does not parse is a configuration error, said at
		// once; later, a broken policy only fails that reload.
		if _, err := compiler.LoadPolicy(cfg.PolicyFile); err != nil {
			return &ConfigError{Msg: err.Error()}
		}
	}
	// A root named that is not a folder is said before anything
	// listens; the first load would refuse it anyway.
	for _, r := range cfg.Roots {
		if err := loader.CheckRoot(r); err != nil {
			return err
		}
	}
	ln, err := s.Listen()
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		// A body of MaxBodyBytes arrives well within this on loopback;
		// a client that sends slower holds a connection, not a compile
		// (the body itself has bodyTimeout).
		ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.log.Info("listening", "addr", ln.Addr().String(), "network", ln.Addr().Network(), "token", s.token.Set())
	if cfg.Listening != nil {
		cfg.Listening(ln.Addr())
	}

	loaded := make(chan error, 1)
	go func() { loaded <- s.Watch(ctx) }()
	defer s.Close()
	for {
		select {
		case err := <-loaded:
			loaded = nil
			if err != nil {
				s.drain(srv)
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		case <-cfg.Reload:
			if l := s.Live(); l != nil {
				s.log.Info("reload requested")
				l.Reload()
			}
		case err := <-served:
			return fmt.Errorf("serving: %w", err)
		case <-ctx.Done():
			s.log.Info("shutting down", "drain_timeout", cfg.drain().String())
			s.drain(srv)
			if loaded != nil {
				<-loaded // the first load stops with ctx
			}
			return nil
		}
	}
}

func (cfg Config) drain() time.Duration {
	if cfg.DrainTimeout <= 0 {
		return DefaultDrainTimeout
	}
	return cfg.DrainTimeout
}

// drain stops accepting and waits for the requests in flight, at most
// DrainTimeout; past it, the remaining connections are closed.
func (s *Server) drain(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.DrainTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		s.log.Warn("requests still running after the drain timeout were cut", "error", err.Error())
		srv.Close()
	}
}

// Listen opens the server's listener: TCP on Addr, or a unix socket at
// Socket that only the owner can connect to.
func (s *Server) Listen() (net.Listener, error) { return httpsafe.Listen(s.cfg.Addr, s.cfg.Socket) }
