//go:build !unix

package catcache

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs") }
