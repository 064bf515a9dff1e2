package proxy

import (
	"net/http"
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
)

// The proxy's own refusals are written in the error shape of the API the
// client called, so that its SDK raises its usual API error with a
// readable message instead of a parse failure or raw JSON: Anthropic's
// {"type":"error","error":{"type","message"}} on /v1/messages, OpenAI's
// {"error":{"message","type","param","code"}} elsewhere. rlmc's own code
// and stage travel inside the error object as extra members (rlmc_code,
// stage, unit), which both SDKs keep and ignore; OpenAI's "code" is
// rlmc's code too, since that is the member its SDKs expose for branching.

// flavor is the error vocabulary of the API a path belongs to.
type flavor int

const (
	flavorOpenAI flavor = iota
	flavorAnthropic
)

// flavorOf returns the error vocabulary of the API at path: Anthropic's
// for its Messages paths (count_tokens and batches included), OpenAI's for
// every other, as OpenAI-compatible servers are the common case.
func flavorOf(path string) flavor {
	if path == "/v1/messages" || strings.HasPrefix(path, "/v1/messages/") || path == "/v1/complete" {
		return flavorAnthropic
	}
	return flavorOpenAI
}

// errorType returns the provider's error type for an HTTP status.
func errorType(f flavor, status int) string {
	if f == flavorAnthropic {
		switch status {
		case http.StatusUnauthorized:
			return "authentication_error"
		case http.StatusForbidden:
			return "permission_error"
		case http.StatusNotFound:
			return "not_found_error"
		case http.StatusRequestEntityTooLarge:
			return "request_too_large"
		case http.StatusTooManyRequests:
			return "rate_limit_error"
		case http.StatusServiceUnavailable:
			return "overloaded_error"
		}
		if status < 500 {
			return "invalid_request_error"
		}
		return "api_error"
	}
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status < 500:
		return "invalid_request_error"
	}
	return "server_error"
}

// providerError is the error member of both shapes.
type providerError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	// Param and Code are OpenAI's; Param is always there (null), as the
	// OpenAI API writes it.
	Param    *string `json:"param"`
	Code     string  `json:"code,omitempty"`
	RlmcCode string  `json:"rlmc_code"`
	Stage    string  `json:"stage"`
	Unit     string  `json:"unit,omitempty"`
}

// errorBody returns the error document of ce in flavor f.
func errorBody(f flavor, status int, ce *compiler.Error) any {
	e := providerError{
		// The stage and code lead the message, as the compile error's
		// own rendering does, so that a log of the SDK's error says
		// which of rlmc's refusals it was.
		Message:  "rlmc " + string(ce.Stage) + ": " + string(ce.Code) + ": " + ce.Message,
		Type:     errorType(f, status),
		RlmcCode: string(ce.Code),
		Stage:    string(ce.Stage),
		Unit:     ce.Unit,
	}
	switch f {
	case flavorAnthropic:
		return struct {
			Type  string        `json:"type"`
			Error providerError `json:"error"`
		}{"error", e}
	}
	e.Code = string(ce.Code)
	return struct {
		Error providerError `json:"error"`
	}{e}
}
