package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/loader"
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
			return &ConfigError{err.Error()}
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
		// a client that sends slower holds a connection, not a compile.
		ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.log.Info("listening", "addr", ln.Addr().String(), "network", ln.Addr().Network(), "token", s.hasToken)
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
func (s *Server) Listen() (net.Listener, error) {
	if s.cfg.Socket != "" {
		return listenUnix(s.cfg.Socket)
	}
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return nil, &ConfigError{fmt.Sprintf("--addr %s: %v", s.cfg.Addr, err)}
	}
	return ln, nil
}

// listenUnix listens on a unix socket at path, mode 0600 from the moment
// it is reachable there: it is created in a private folder beside path,
// made 0600, then renamed into place, so no other user can connect in
// between. A stale socket at path (nothing answers on it) is replaced; any
// other file there is an error. The socket is removed when the listener
// closes.
func listenUnix(path string) (net.Listener, error) {
	if info, err := os.Lstat(path); err == nil {
		if info.Mode()&os.ModeSocket == 0 {
			return nil, &ConfigError{fmt.Sprintf("--socket %s exists and is not a socket", path)}
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, &ConfigError{fmt.Sprintf("--socket %s: another server is listening there", path)}
		}
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), ".rlmc-socket-")
	if err != nil {
		return nil, &ConfigError{fmt.Sprintf("--socket %s: %v", path, err)}
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, &ConfigError{fmt.Sprintf("--socket %s: %v", path, err)}
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // it is renamed; unixListener removes path itself
	if err := os.Chmod(tmp, 0o600); err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		ul.Close()
		return nil, &ConfigError{fmt.Sprintf("--socket %s: %v", path, err)}
	}
	return &unixListener{UnixListener: ul, path: path}, nil
}

// unixListener removes its socket file when closed.
type unixListener struct {
	*net.UnixListener
	path string
}

func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}
