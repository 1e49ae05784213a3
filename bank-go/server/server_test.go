package server_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"bankbench/bank-go/internal/dbtest"
	"bankbench/bank-go/metrics"
	"bankbench/bank-go/server"
	"bankbench/bank-go/store"
)

func TestMain(m *testing.M) {
	dbtest.Main(m)
}

// maxConcurrent is the admission limit of the servers under test: above
// what any test sends at once, except TestAdmission's own.
const maxConcurrent = 100

// fakeStore answers every call with err and fixed values, and counts calls.
type fakeStore struct {
	err   error
	calls int
}

func (f *fakeStore) Health(context.Context) error {
	f.calls++
	return f.err
}

func (f *fakeStore) CreateClient(_ context.Context, balance int64) (store.Client, error) {
	f.calls++
	return store.Client{ID: 7, Balance: balance}, f.err
}

func (f *fakeStore) Balance(context.Context, int64) (int64, error) {
	f.calls++
	return 42, f.err
}

func (f *fakeStore) Transfer(_ context.Context, from, to, amount int64) (store.Transfer, error) {
	f.calls++
	return store.Transfer{ID: 9, From: from, To: to, Amount: amount}, f.err
}

// Errors of the store, as it classifies them.
var (
	errUnavailable = fmt.Errorf("%w: dial tcp: connection refused", store.ErrUnavailable)
	errServer      = &pgconn.PgError{Code: "23514", Message: "secret detail"}
)

// request is a request to the server and the answer it must give.
type request struct {
	name       string
	method     string
	path       string
	body       string
	storeErr   error
	wantStatus int
	wantBody   string
	wantCalls  int // calls to the store
}

// check serves req with a fakeStore and fails tb unless the answer is the
// expected one, as JSON, with nothing internal in it. It returns the log.
func check(tb testing.TB, req request) string {
	tb.Helper()
	var log bytes.Buffer
	st := &fakeStore{err: req.storeErr}
	h := server.NewServer(slog.New(slog.NewTextHandler(&log, nil)), st, metrics.New(), maxConcurrent)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(req.method, req.path, strings.NewReader(req.body)))

	if got, want := rec.Code, req.wantStatus; got != want {
		tb.Errorf("status = %d, want %d", got, want)
	}
	if got, want := rec.Body.String(), req.wantBody; got != want {
		tb.Errorf("body = %s, want %s", got, want)
	}
	if got, want := rec.Header().Get("Content-Type"), "application/json"; got != want {
		tb.Errorf("Content-Type = %q, want %q", got, want)
	}
	if got, want := st.calls, req.wantCalls; got != want {
		tb.Errorf("store calls = %d, want %d", got, want)
	}
	return log.String()
}

// checkAll checks each request, sent with method, in a subtest of its name.
func checkAll(t *testing.T, method string, reqs []request) {
	t.Helper()
	for _, req := range reqs {
		req.method = method
		t.Run(req.name, func(t *testing.T) { check(t, req) })
	}
}

// storeFailures are the answers to a valid request when the store fails:
// 503 when it is unavailable, else 500.
func storeFailures(path, body string) []request {
	return []request{
		{name: "unavailable", path: path, body: body, storeErr: errUnavailable, wantStatus: 503, wantBody: unavailable, wantCalls: 1},
		{name: "server error", path: path, body: body, storeErr: errServer, wantStatus: 500, wantBody: internal, wantCalls: 1},
	}
}

// Error bodies.
const (
	notFound       = `{"status":"Error","message":"not found"}`
	notAllowed     = `{"status":"Error","message":"method not allowed"}`
	clientNotFound = `{"status":"Error","message":"client not found"}`
	noFunds        = `{"status":"Error","message":"insufficient funds"}`
	unavailable    = `{"status":"Error","message":"database unavailable"}`
	internal       = `{"status":"Error","message":"internal error"}`
	badBalance     = `{"status":"Error","message":"balance must be a whole number from 0 to 1000000000000000"}`
	badID          = `{"status":"Error","message":"id must be an integer"}`
	statusOk       = `{"status":"Ok"}`
)

func TestRoutes(t *testing.T) {
	for _, req := range []request{
		{name: "liveness", method: "GET", path: "/", wantStatus: 200, wantBody: statusOk},
		{name: "liveness without database", method: "GET", path: "/", storeErr: errUnavailable, wantStatus: 200, wantBody: statusOk},
		{name: "health", method: "GET", path: "/health", wantStatus: 200, wantBody: statusOk, wantCalls: 1},
		{name: "health unavailable", method: "GET", path: "/health", storeErr: errUnavailable, wantStatus: 503, wantBody: unavailable, wantCalls: 1},
		{name: "health server error", method: "GET", path: "/health", storeErr: errServer, wantStatus: 503, wantBody: unavailable, wantCalls: 1},
		{name: "unknown path", method: "GET", path: "/nope", wantStatus: 404, wantBody: notFound},
		{name: "trailing slash", method: "GET", path: "/client/1/balance/", wantStatus: 404, wantBody: notFound},
		{name: "below health", method: "GET", path: "/health/x", wantStatus: 404, wantBody: notFound},
		{name: "POST liveness", method: "POST", path: "/", wantStatus: 405, wantBody: notAllowed},
		{name: "DELETE health", method: "DELETE", path: "/health", wantStatus: 405, wantBody: notAllowed},
		{name: "GET transaction", method: "GET", path: "/transaction", wantStatus: 405, wantBody: notAllowed},
		{name: "PUT balance", method: "PUT", path: "/client/1/balance", wantStatus: 405, wantBody: notAllowed},
		{name: "GET new client", method: "GET", path: "/client/new/5", wantStatus: 405, wantBody: notAllowed},
		{name: "OPTIONS health", method: "OPTIONS", path: "/health", wantStatus: 405, wantBody: notAllowed},
	} {
		t.Run(req.name, func(t *testing.T) { check(t, req) })
	}
}

func TestCreateClient(t *testing.T) {
	client := func(balance string) string {
		return `{"id":7,"name":"","email":"","phone":"","balance":` + balance + `}`
	}
	reqs := []request{
		{name: "ok", path: "/client/new/100", wantStatus: 200, wantBody: client("100"), wantCalls: 1},
		{name: "zero", path: "/client/new/0", wantStatus: 200, wantBody: client("0"), wantCalls: 1},
		{name: "plus sign", path: "/client/new/+5", wantStatus: 200, wantBody: client("5"), wantCalls: 1},
		{name: "minus zero", path: "/client/new/-0", wantStatus: 200, wantBody: client("0"), wantCalls: 1},
		{name: "maximum", path: "/client/new/1000000000000000", wantStatus: 200, wantBody: client("1000000000000000"), wantCalls: 1},
		{name: "above maximum", path: "/client/new/1000000000000001", wantStatus: 400, wantBody: badBalance},
		{name: "beyond int64", path: "/client/new/99999999999999999999", wantStatus: 400, wantBody: badBalance},
		{name: "negative", path: "/client/new/-1", wantStatus: 400, wantBody: badBalance},
		{name: "letters", path: "/client/new/abc", wantStatus: 400, wantBody: badBalance},
		{name: "fraction", path: "/client/new/1.0", wantStatus: 400, wantBody: badBalance},
		{name: "exponent", path: "/client/new/1e3", wantStatus: 400, wantBody: badBalance},
		{name: "non-ASCII digit", path: "/client/new/%D9%A3", wantStatus: 400, wantBody: badBalance},
		{name: "space", path: "/client/new/%205", wantStatus: 400, wantBody: badBalance},
	}
	checkAll(t, "POST", append(reqs, storeFailures("/client/new/1", "")...))
}

func TestBalance(t *testing.T) {
	reqs := []request{
		{name: "ok", path: "/client/1/balance", wantStatus: 200, wantBody: `{"balance":42}`, wantCalls: 1},
		{name: "plus sign", path: "/client/+1/balance", wantStatus: 200, wantBody: `{"balance":42}`, wantCalls: 1},
		{name: "ErrNotFound", path: "/client/1/balance", storeErr: store.ErrNotFound, wantStatus: 404, wantBody: clientNotFound, wantCalls: 1},
		{name: "negative looked up", path: "/client/-5/balance", storeErr: store.ErrNotFound, wantStatus: 404, wantBody: clientNotFound, wantCalls: 1},
		{name: "letters", path: "/client/abc/balance", wantStatus: 400, wantBody: badID},
		{name: "fraction", path: "/client/1.0/balance", wantStatus: 400, wantBody: badID},
		{name: "beyond int64", path: "/client/9223372036854775808/balance", wantStatus: 400, wantBody: badID},
	}
	checkAll(t, "GET", append(reqs, storeFailures("/client/1/balance", "")...))
}

func TestInternalErrorLogged(t *testing.T) {
	log := check(t, request{method: "POST", path: "/client/new/1", storeErr: errServer,
		wantStatus: 500, wantBody: internal, wantCalls: 1})
	if !strings.Contains(log, "secret detail") {
		t.Errorf("log = %q, want the error", log)
	}
}

func TestNoRouteAllow(t *testing.T) {
	rec := httptest.NewRecorder()
	server.NewServer(slog.New(slog.DiscardHandler), &fakeStore{}, metrics.New(), maxConcurrent).
		ServeHTTP(rec, httptest.NewRequest("DELETE", "/client/1/balance", http.NoBody))
	if got, want := rec.Header().Get("Allow"), "GET, HEAD"; got != want {
		t.Errorf("Allow = %q, want %q", got, want)
	}
}
