package server

import "github.com/rlmc-dev/rlmc/compiler"

// StatusOf returns the HTTP status the server answers a compile error
// with: 400, 422, 503, 504 or 500. err is the error ce came from (it tells
// a deadline from a cancellation). `rlmc proxy` answers alike.
func StatusOf(ce *compiler.Error, err error) int { return statusOf(ce, err) }
