package httpsafe

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
)

// Life is what rlmc serve and rlmc proxy do once they listen, the same
// for both: serve, load and watch the catalog, reload it on a signal,
// and drain when asked to stop.
type Life struct {
	Log *slog.Logger
	// Watch loads the catalog and keeps it current until its context
	// ends. It returns the first load's error, or nil.
	Watch func(context.Context) error
	// Live is the watched catalog, nil until the first load.
	Live func() *compiler.Live
	// Reload forces a reload at each value.
	Reload <-chan os.Signal
	// DrainTimeout bounds how long stopping waits for what is in flight;
	// Cut is the warning logged when it runs out ("calls still running
	// after the drain timeout were cut").
	DrainTimeout time.Duration
	Cut          string
}

// Run serves srv on ln until ctx ends, calling listening once srv
// accepts. When ctx ends it stops accepting, lets what is in flight
// finish (at most DrainTimeout), waits for the first load to stop and
// returns nil. A first load that fails, or a server that stops serving,
// ends Run with that error.
func (l Life) Run(ctx context.Context, srv *http.Server, ln net.Listener, listening func()) error {
	srv.ErrorLog = slog.NewLogLogger(l.Log.Handler(), slog.LevelWarn)
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	listening()
	loaded := make(chan error, 1)
	go func() { loaded <- l.Watch(ctx) }()
	for {
		select {
		case err := <-loaded:
			loaded = nil
			if err != nil {
				l.drain(srv)
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		case <-l.Reload:
			if lv := l.Live(); lv != nil {
				l.Log.Info("reload requested")
				lv.Reload()
			}
		case err := <-served:
			return fmt.Errorf("serving: %w", err)
		case <-ctx.Done():
			l.Log.Info("shutting down", "drain_timeout", l.DrainTimeout.String())
			l.drain(srv)
			if loaded != nil {
				<-loaded // the first load stops with ctx
			}
			return nil
		}
	}
}

// drain stops accepting and waits for what is in flight, at most
// DrainTimeout; past it, the remaining connections are closed.
func (l Life) drain(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), l.DrainTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		l.Log.Warn(l.Cut, "error", err.Error())
		srv.Close()
	}
}
