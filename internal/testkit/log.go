package testkit

import (
	"context"
	"log/slog"
)

// OnLog returns a logger that calls check whenever a record with message
// msg is logged, before the logging call returns, and drops every record:
// check sees what a client that waits for that line would find at once.
func OnLog(msg string, check func()) *slog.Logger {
	return OnLogRecord(msg, func(slog.Record) { check() })
}

// OnLogRecord is OnLog for a check that reads the record's attributes.
func OnLogRecord(msg string, check func(slog.Record)) *slog.Logger {
	return slog.New(onLog{msg: msg, check: check})
}

type onLog struct {
	msg   string
	check func(slog.Record)
}

func (h onLog) Enabled(context.Context, slog.Level) bool { return true }

func (h onLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.check(r)
	}
	return nil
}

func (h onLog) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h onLog) WithGroup(string) slog.Handler { return h }
