package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxBodyBytes bounds a request body: a transfer takes well under 200 bytes.
// errTooLarge states it.
const maxBodyBytes = 64 << 10

// statusBody is the body of GET /, GET /health and every error.
type statusBody struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// balanceBody is the body of GET /client/{id}/balance.
type balanceBody struct {
	Balance int64 `json:"balance"`
}

// writeJSON answers with status and v as JSON, without the trailing newline
// json.Encoder would add: the Java service's Jackson writes none.
func writeJSON(w http.ResponseWriter, status int, v any) {
	// v is always one of the plain structs of this service: Marshal cannot
	// fail on it.
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// transferRequest is the body of POST /transaction.
type transferRequest struct {
	From, To, Amount int64
}

// decodeTransfer reads and checks a transfer request in the contract's
// order: a JSON object, then each field an integer, then their values.
func decodeTransfer(w http.ResponseWriter, r *http.Request) (transferRequest, *apiError) {
	body, apiErr := readJSON(w, r)
	if apiErr != nil {
		return transferRequest{}, apiErr
	}
	// A map rather than a struct: encoding/json matches struct fields
	// regardless of case, where the Java service's Jackson does not.
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || fields == nil {
		return transferRequest{}, errNotObject
	}
	var req transferRequest
	for _, f := range [...]struct {
		name string
		dst  *int64
	}{{"from_client_id", &req.From}, {"to_client_id", &req.To}, {"amount", &req.Amount}} {
		n, ok := jsonInt(fields[f.name])
		if !ok {
			return transferRequest{}, errNotInteger(f.name)
		}
		*f.dst = n
	}
	switch {
	case req.Amount < 1 || req.Amount > maxMoney:
		return transferRequest{}, errAmount
	case req.From == req.To:
		return transferRequest{}, errSameClient
	}
	return req, nil
}

// readJSON reads a request body meant to be JSON. A Content-Type other than
// application/json (parameters aside) is 415; none at all is taken as JSON.
// A body over maxBodyBytes is 413, told by its Content-Length before reading
// or, when chunked, as soon as it passes the limit: never read whole.
func readJSON(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSON(ct) {
		return nil, errMediaType
	}
	if r.ContentLength > maxBodyBytes {
		return nil, errTooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errTooLarge
	case err != nil: // the client broke off or stalled past the read timeout
		return nil, errNotObject
	}
	return body, nil
}

// isJSON reports whether a Content-Type names application/json. Only the
// media type counts, ASCII case aside, as in the Java service: a parameter
// such as charset=utf-8 changes nothing (JSON is UTF-8), a malformed one
// neither. The equal length keeps EqualFold from matching non-ASCII letters
// (such as "ſ" for "s"), which Tomcat reads as other characters.
func isJSON(contentType string) bool {
	const jsonType = "application/json"
	mediaType, _, _ := strings.Cut(contentType, ";")
	mediaType = strings.Trim(mediaType, " \t")
	return len(mediaType) == len(jsonType) && strings.EqualFold(mediaType, jsonType)
}

// jsonInt returns the value of a JSON integer that fits in 64 bits. The
// contract refuses numbers with a fraction or exponent, even 1.0 or 1e2;
// null, strings and a missing value (nil) fail to parse.
func jsonInt(raw json.RawMessage) (int64, bool) {
	if bytes.ContainsAny(raw, ".eE") {
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}
