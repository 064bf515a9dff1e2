package fakeapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAnswersHaveIDsOfTheirOwn: each answer's id is its own, as the APIs'
// are: Claude Code takes assistant messages of one id for one message, and
// with every answer "msg_1" found too few messages to compact.
func TestAnswersHaveIDsOfTheirOwn(t *testing.T) {
	s := &Server{}
	for _, path := range []string{"/v1/messages", "/v1/chat/completions", "/v1/responses"} {
		seen := map[string]bool{}
		for range 2 {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`)))
			var answer struct{ ID string }
			if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil || answer.ID == "" {
				t.Fatalf("%s: got %q (%v); want an answer with an id", path, w.Body.String(), err)
			}
			if seen[answer.ID] {
				t.Errorf("%s: got id %s twice; want each answer's own", path, answer.ID)
			}
			seen[answer.ID] = true
		}
	}
}
