package compiler

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes v the way every JSON output of rlmc is written (the
// compile contract above all): indented by two spaces, HTML characters
// left as they are, one value per line. `rlmc compile --format json` and
// `rlmc serve` share it, so both print the same bytes for the same result.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// ErrorDocument is the JSON document of a failed compile:
// {"schema": 1, "error": {...}}.
func ErrorDocument(e *Error) any {
	return map[string]any{"schema": Schema, "error": e}
}
