package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"bankbench/bank-go/metrics"
	"bankbench/bank-go/server"
	"bankbench/bank-go/store"
)

// blockingStore holds every balance lookup until release is closed or the
// request's context ends, as a request waiting for a pooled connection.
type blockingStore struct {
	fakeStore
	entered chan struct{}
	release chan struct{}
}

func newBlockingStore() *blockingStore {
	return &blockingStore{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (b *blockingStore) Balance(ctx context.Context, _ int64) (int64, error) {
	b.entered <- struct{}{}
	select {
	case <-b.release:
		return 42, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("%w: %w", store.ErrUnavailable, ctx.Err())
	}
}

// serve answers one request of h, as the recorder saw it.
func serve(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, http.NoBody))
	return rec
}

// metricsPage returns GET /metrics of h.
func metricsPage(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := serve(h, "GET", "/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", rec.Code)
	}
	return rec.Body.String()
}

func TestAdmission(t *testing.T) {
	const limit = 2
	st := newBlockingStore()
	h := server.NewServer(slog.New(slog.DiscardHandler), st, metrics.New(), limit)
	var held sync.WaitGroup
	for range limit {
		held.Go(func() {
			if rec := serve(h, "GET", "/client/1/balance"); rec.Code != http.StatusOK {
				t.Errorf("a request within the limit: %d %s", rec.Code, rec.Body)
			}
		})
		<-st.entered
	}

	rec := serve(h, "GET", "/client/1/balance")
	if got, want := rec.Code, http.StatusServiceUnavailable; got != want {
		t.Errorf("past the limit: status = %d, want %d", got, want)
	}
	if got, want := rec.Body.String(), `{"status":"Error","message":"service overloaded"}`; got != want {
		t.Errorf("past the limit: body = %s, want %s", got, want)
	}
	if got, want := rec.Header().Get("Retry-After"), "1"; got != want {
		t.Errorf("Retry-After = %q, want %q", got, want)
	}
	if rec := serve(h, "GET", "/"); rec.Code != http.StatusOK {
		t.Errorf("GET / past the limit: %d, want 200: liveness is not counted", rec.Code)
	}
	page := metricsPage(t, h) // answered past the limit too
	for _, want := range []string{
		"http_server_requests_concurrent 2",
		"http_server_requests_concurrent_max 2",
		`http_server_requests_seconds_count{method="GET",status="503",uri="UNKNOWN"} 1`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	close(st.release)
	held.Wait()
	if rec := serve(h, "GET", "/client/1/balance"); rec.Code != http.StatusOK {
		t.Errorf("once the held requests are answered: %d, want 200", rec.Code)
	}
	if page := metricsPage(t, h); !strings.Contains(page, "http_server_requests_concurrent 0") {
		t.Errorf("/metrics lacks http_server_requests_concurrent 0")
	}
}

// TestClientGoneCounts499 closes the connection of a request waiting for
// the store: the answer it gets is counted as 499, not as the 503 the
// cancelled wait turns into.
func TestClientGoneCounts499(t *testing.T) {
	st := newBlockingStore()
	srv := httptest.NewServer(server.NewServer(slog.New(slog.DiscardHandler), st, metrics.New(), maxConcurrent))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "GET /client/1/balance HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-st.entered
	conn.Close()

	const want = `http_server_requests_seconds_count{method="GET",status="499",uri="/client/{id}/balance"} 1`
	var page string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if page = string(body); strings.Contains(page, want) {
			break
		}
	}
	if !strings.Contains(page, want) {
		t.Errorf("/metrics lacks %s", want)
	}
	if strings.Contains(page, `status="503"`) {
		t.Errorf("the abandoned request is counted as a 503")
	}
}
