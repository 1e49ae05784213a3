package server_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"bankbench/bank-go/metrics"
	"bankbench/bank-go/server"
	"bankbench/bank-go/store"
)

// transfer returns a transfer body with the given JSON values.
func transfer(from, to, amount string) string {
	return `{"from_client_id":` + from + `,"to_client_id":` + to + `,"amount":` + amount + `}`
}

const tooLarge = `{"status":"Error","message":"request body must be at most 65536 bytes"}`

func TestTransfer(t *testing.T) {
	const (
		notObject  = `{"status":"Error","message":"request body must be a JSON object"}`
		badFrom    = `{"status":"Error","message":"from_client_id must be an integer"}`
		badTo      = `{"status":"Error","message":"to_client_id must be an integer"}`
		badAmount  = `{"status":"Error","message":"amount must be an integer"}`
		outOfRange = `{"status":"Error","message":"amount must be from 1 to 1000000000000000"}`
		same       = `{"status":"Error","message":"from_client_id and to_client_id must differ"}`
		ok         = `{"id":9,"from_client_id":1,"to_client_id":2,"amount":3}`
	)
	valid := transfer("1", "2", "3")
	reqs := []request{
		{name: "ok", body: valid, wantStatus: 200, wantBody: ok, wantCalls: 1},
		{name: "surrounding whitespace", body: " \n" + valid + "\t\n", wantStatus: 200, wantBody: ok, wantCalls: 1},
		{name: "unknown fields ignored", body: `{"id":5,"x":[1,{}],` + valid[1:], wantStatus: 200, wantBody: ok, wantCalls: 1},
		{name: "largest ids", body: transfer("9223372036854775807", "-9223372036854775808", "1"), wantStatus: 200,
			wantBody: `{"id":9,"from_client_id":9223372036854775807,"to_client_id":-9223372036854775808,"amount":1}`, wantCalls: 1},
		{name: "largest amount", body: transfer("1", "2", "1000000000000000"), wantStatus: 200,
			wantBody: `{"id":9,"from_client_id":1,"to_client_id":2,"amount":1000000000000000}`, wantCalls: 1},

		{name: "empty body", body: "", wantStatus: 400, wantBody: notObject},
		{name: "null", body: "null", wantStatus: 400, wantBody: notObject},
		{name: "array", body: "[" + valid + "]", wantStatus: 400, wantBody: notObject},
		{name: "number", body: "1", wantStatus: 400, wantBody: notObject},
		{name: "string", body: `"x"`, wantStatus: 400, wantBody: notObject},
		{name: "boolean", body: "true", wantStatus: 400, wantBody: notObject},
		{name: "trailing garbage", body: valid + " x", wantStatus: 400, wantBody: notObject},
		{name: "two objects", body: valid + "{}", wantStatus: 400, wantBody: notObject},
		{name: "truncated", body: valid[:10], wantStatus: 400, wantBody: notObject},
		{name: "trailing comma", body: `{"from_client_id":1,}`, wantStatus: 400, wantBody: notObject},
		{name: "leading zero", body: transfer("01", "2", "3"), wantStatus: 400, wantBody: notObject},
		{name: "over 64 KiB", body: strings.Repeat(" ", 64<<10) + valid, wantStatus: 413, wantBody: tooLarge},

		{name: "empty object", body: "{}", wantStatus: 400, wantBody: badFrom},
		{name: "from null", body: transfer("null", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from string", body: transfer(`"1"`, "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from 1.0", body: transfer("1.0", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from 1e2", body: transfer("1e2", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from 1E2", body: transfer("1E2", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from above int64", body: transfer("9223372036854775808", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from below int64", body: transfer("-9223372036854775809", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from huge", body: transfer(strings.Repeat("9", 400), "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from boolean", body: transfer("true", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from object", body: transfer("{}", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "from array", body: transfer("[1]", "2", "3"), wantStatus: 400, wantBody: badFrom},
		{name: "names are case-sensitive", body: `{"FROM_CLIENT_ID":1,"to_client_id":2,"amount":3}`, wantStatus: 400, wantBody: badFrom},
		{name: "to missing", body: `{"from_client_id":1,"amount":3}`, wantStatus: 400, wantBody: badTo},
		{name: "to fraction", body: transfer("1", "2.5", "3"), wantStatus: 400, wantBody: badTo},
		{name: "amount missing", body: `{"from_client_id":1,"to_client_id":2}`, wantStatus: 400, wantBody: badAmount},
		{name: "amount string", body: transfer("1", "2", `"3"`), wantStatus: 400, wantBody: badAmount},

		{name: "amount zero", body: transfer("1", "2", "0"), wantStatus: 400, wantBody: outOfRange},
		{name: "amount negative", body: transfer("1", "2", "-1"), wantStatus: 400, wantBody: outOfRange},
		{name: "amount above maximum", body: transfer("1", "2", "1000000000000001"), wantStatus: 400, wantBody: outOfRange},
		{name: "same client", body: transfer("1", "1", "3"), wantStatus: 400, wantBody: same},

		{name: "types before range", body: transfer("1", "1.5", "0"), wantStatus: 400, wantBody: badTo},
		{name: "range before same client", body: transfer("1", "1", "0"), wantStatus: 400, wantBody: outOfRange},

		{name: "ErrNotFound", body: valid, storeErr: store.ErrNotFound, wantStatus: 404, wantBody: clientNotFound, wantCalls: 1},
		{name: "ErrInsufficientFunds", body: valid, storeErr: store.ErrInsufficientFunds, wantStatus: 422, wantBody: noFunds, wantCalls: 1},
	}
	for i := range reqs {
		reqs[i].path = "/transaction"
	}
	checkAll(t, "POST", append(reqs, storeFailures("/transaction", valid)...))
}

func TestTransferContentTypeAndSize(t *testing.T) {
	const mediaType = `{"status":"Error","message":"Content-Type must be application/json"}`
	valid, huge := transfer("1", "2", "3"), strings.Repeat(" ", 64<<10)+transfer("1", "2", "3")
	for _, tc := range []struct {
		name, contentType, body string
		chunked                 bool
		wantStatus              int
		wantBody                string
	}{
		{"none", "", valid, false, 200, `{"id":9,"from_client_id":1,"to_client_id":2,"amount":3}`},
		{"JSON with charset", "application/json; charset=utf-8", valid, false, 200, `{"id":9,"from_client_id":1,"to_client_id":2,"amount":3}`},
		{"JSON in capitals", " Application/JSON ;x", valid, false, 200, `{"id":9,"from_client_id":1,"to_client_id":2,"amount":3}`},
		{"text", "text/plain", valid, false, 415, mediaType},
		{"form", "application/x-www-form-urlencoded", valid, false, 415, mediaType},
		{"multipart without boundary", "multipart/form-data", valid, false, 415, mediaType},
		{"non-ASCII look-alike", "application/j\u017fon", valid, false, 415, mediaType},
		{"type before size", "text/plain", huge, false, 415, mediaType},
		{"declared over 64 KiB", "application/json", huge, false, 413, tooLarge},
		{"chunked over 64 KiB", "application/json", huge, true, 413, tooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/transaction", strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.chunked {
				req.ContentLength = -1 // as for Transfer-Encoding: chunked
			}
			rec := httptest.NewRecorder()
			server.NewServer(slog.New(slog.DiscardHandler), &fakeStore{}, metrics.New(), maxConcurrent).ServeHTTP(rec, req)
			if got, want := rec.Code, tc.wantStatus; got != want {
				t.Errorf("status = %d, want %d", got, want)
			}
			if got, want := rec.Body.String(), tc.wantBody; got != want {
				t.Errorf("body = %s, want %s", got, want)
			}
		})
	}
}
