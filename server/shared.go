package server

import (
	"net"

	"github.com/rlmc-dev/rlmc/compiler"
)

// The functions below share the server's safe defaults with `rlmc proxy`,
// which answers a different protocol under the same rules.

// CheckAddr refuses an address that is not loopback unless hasToken: see
// Config.Token. Its error is a *ConfigError.
func CheckAddr(addr string, hasToken bool) error { return checkAddr(addr, hasToken) }

// ListenOn opens a listener as Server.Listen does: a unix socket at socket
// (created 0600, removed on close) when it is set, else TCP on addr. Its
// errors are *ConfigError.
func ListenOn(addr, socket string) (net.Listener, error) {
	if socket != "" {
		return listenUnix(socket)
	}
	return (&Server{cfg: Config{Addr: addr}}).Listen()
}

// StatusOf returns the HTTP status the server answers a compile error
// with: 400, 422, 503, 504 or 500. err is the error ce came from (it tells
// a deadline from a cancellation).
func StatusOf(ce *compiler.Error, err error) int { return statusOf(ce, err) }
