package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"bankbench/bank-go/store"
)

// apiError is an error answer of the contract: its status and message go
// to the client as they are.
type apiError struct {
	status  int
	message string
}

// The error answers of api/openapi.yaml, with their exact messages.
var (
	errNoRoute        = &apiError{http.StatusNotFound, "not found"}
	errMethod         = &apiError{http.StatusMethodNotAllowed, "method not allowed"}
	errNotObject      = &apiError{http.StatusBadRequest, "request body must be a JSON object"}
	errBalance        = &apiError{http.StatusBadRequest, fmt.Sprint("balance must be a whole number from 0 to ", maxMoney)}
	errID             = &apiError{http.StatusBadRequest, "id must be an integer"}
	errAmount         = &apiError{http.StatusBadRequest, fmt.Sprint("amount must be from 1 to ", maxMoney)}
	errSameClient     = &apiError{http.StatusBadRequest, "from_client_id and to_client_id must differ"}
	errMediaType      = &apiError{http.StatusUnsupportedMediaType, "Content-Type must be application/json"}
	errTooLarge       = &apiError{http.StatusRequestEntityTooLarge, "request body must be at most 65536 bytes"}
	errClientNotFound = &apiError{http.StatusNotFound, "client not found"}
	errNoFunds        = &apiError{http.StatusUnprocessableEntity, "insufficient funds"}
	errInternal       = &apiError{http.StatusInternalServerError, "internal error"}
	errMalformed      = &apiError{http.StatusBadRequest, "malformed request"}
	errUnavailable    = &apiError{http.StatusServiceUnavailable, "database unavailable"}
	errOverloaded     = &apiError{http.StatusServiceUnavailable, "service overloaded"}
)

// errNotInteger is the answer to a body field that is not a 64-bit integer.
func errNotInteger(field string) *apiError {
	return &apiError{http.StatusBadRequest, field + " must be an integer"}
}

// maxMoney is the largest amount or opening balance, 10^15 (api/openapi.yaml);
// the messages above name it.
const maxMoney = 1_000_000_000_000_000

// answer returns the contract's answer to an error of the store, or nil
// when it has none.
func answer(err error) *apiError {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errClientNotFound
	case errors.Is(err, store.ErrInsufficientFunds):
		return errNoFunds
	case errors.Is(err, store.ErrUnavailable):
		return errUnavailable
	}
	return nil
}

// writeError answers r with the contract's answer to an error of the store.
// An error the contract does not name is logged and answered 500 internal
// error: its text may hold details that are not the client's business.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	e := answer(err)
	if e == nil {
		logger.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		e = errInternal
	}
	writeAnswer(w, e)
}

// statusAnswer returns the answer of a status that comes without detail,
// from net/http rather than a handler; the Java service's ApiErrors has the
// same rule: 400 is a malformed request, 5xx an internal error, others say
// their reason phrase.
func statusAnswer(status int) *apiError {
	switch {
	case status == http.StatusBadRequest:
		return errMalformed
	case status >= 500:
		return &apiError{status, errInternal.message}
	}
	if text := http.StatusText(status); text != "" {
		return &apiError{status, strings.ToLower(text)}
	}
	return &apiError{status, "error"}
}

// writeAnswer answers with e's status and message.
func writeAnswer(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, statusBody{Status: "Error", Message: e.message})
}

// errorBody returns the JSON body of e.
func errorBody(e *apiError) []byte {
	body, _ := json.Marshal(statusBody{Status: "Error", Message: e.message})
	return body
}
