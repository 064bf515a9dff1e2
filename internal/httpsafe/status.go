package httpsafe

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/rlmc-dev/rlmc/compiler"
)

// Codes of the errors `rlmc serve` and `rlmc proxy` raise themselves,
// beside the compiler's, with the status each is answered with.
const (
	CodeNotReady     compiler.ErrorCode = "not_ready"      // 503: the first catalog is not loaded yet
	CodeOverloaded   compiler.ErrorCode = "overloaded"     // 429 (serve's compile slots) or 503 (the body budget)
	CodeUnauthorized compiler.ErrorCode = "unauthorized"   // 401: a token is configured and the request lacks it
	CodeInternal     compiler.ErrorCode = "internal_error" // 500: a compile failed inside rlmc (a bug)
)

// Codes are every code the front-ends answer beside the compiler's: the
// published error schema lists them too (schema's tests hold it to this).
var Codes = []compiler.ErrorCode{CodeNotReady, CodeOverloaded, CodeUnauthorized, CodeForbiddenHost, CodeCrossOrigin, CodeInternal}

// StatusOf returns the HTTP status both front-ends answer a compile error
// with: 400, 422, 503, 504 or 500. err is the error ce came from (it
// tells a deadline from a cancellation).
func StatusOf(ce *compiler.Error, err error) int {
	switch ce.Code {
	case compiler.ErrInvalidRequest:
		return http.StatusBadRequest
	case compiler.ErrUnknownUnit, compiler.ErrSelectionRejected, compiler.ErrMandatoryRejected:
		return http.StatusUnprocessableEntity
	case compiler.ErrCanceled:
		if errors.Is(err, context.DeadlineExceeded) {
			return http.StatusGatewayTimeout
		}
		return http.StatusServiceUnavailable
	case compiler.ErrBodyChanged:
		// The files changed twice in a row under this compile: the
		// next try meets a settled catalog.
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// Encoding returns the Content-Encoding a request body was sent with, ""
// for none: identity, in any case, is none (it means the body is as is).
func Encoding(h http.Header) string {
	enc := strings.TrimSpace(h.Get("Content-Encoding"))
	if strings.EqualFold(enc, "identity") {
		return ""
	}
	return enc
}
