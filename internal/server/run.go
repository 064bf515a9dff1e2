package server

import (
	"context"
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
	}
	defer s.Close()
	life := httpsafe.Life{Log: s.log, Watch: s.Watch, Live: s.Live, Reload: cfg.Reload,
		DrainTimeout: s.cfg.DrainTimeout, Cut: "requests still running after the drain timeout were cut"}
	return life.Run(ctx, srv, ln, func() {
		s.log.Info("listening", "addr", ln.Addr().String(), "network", ln.Addr().Network(), "token", s.token.Set())
		if cfg.Listening != nil {
			cfg.Listening(ln.Addr())
		}
	})
}

// Listen opens the server's listener: TCP on Addr, or a unix socket at
// Socket that only the owner can connect to.
func (s *Server) Listen() (net.Listener, error) { return httpsafe.Listen(s.cfg.Addr, s.cfg.Socket) }
