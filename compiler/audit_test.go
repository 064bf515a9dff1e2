package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// TestAuditMisuse: an audit trail a host made wrong, or given no source,
// answers with errors, and still records what it can; each case panicked.
func TestAuditMisuse(t *testing.T) {
	c := build(t, map[string]string{"a/SKILL.md": skill("a", "Write a Dockerfile.", "", "Body.")}, Policy{})
	req := Request{Task: "write a dockerfile"}
	var ae *AuditError
	t.Run("no writer", func(t *testing.T) {
		res, err := NewAudit(nil).Compile(context.Background(), c, req)
		if res == nil || !errors.As(err, &ae) || !errors.Is(err, errNoWriter) {
			t.Errorf("got %v, %v; want the result and an *AuditError", res, err)
		}
	})
	t.Run("nil audit", func(t *testing.T) {
		var a *Audit
		if res, err := a.Compile(context.Background(), c, req); res == nil || !errors.As(err, &ae) {
			t.Errorf("got %v, %v; want the result and an *AuditError", res, err)
		}
	})
	t.Run("zero audit", func(t *testing.T) {
		if res, err := (&Audit{}).Compile(context.Background(), c, req); res == nil || !errors.As(err, &ae) {
			t.Errorf("got %v, %v; want the result and an *AuditError", res, err)
		}
	})
	t.Run("no source", func(t *testing.T) {
		var trail bytes.Buffer
		_, err := NewAudit(&trail).Compile(context.Background(), nil, req)
		var ce *Error
		if !errors.As(err, &ce) || ce.Code != ErrInvalidRequest {
			t.Errorf("got %v; want invalid_request", err)
		}
		var rec AuditRecord
		if err := json.Unmarshal(trail.Bytes(), &rec); err != nil || rec.Decision != DecisionError {
			t.Errorf("record %q (%v); want one error record", trail.String(), err)
		}
	})
}
