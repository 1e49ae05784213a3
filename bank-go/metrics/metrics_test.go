package metrics_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"bankbench/bank-go/metrics"
	"bankbench/bank-go/store"
)

func TestInstrumentLabelsRoutes(t *testing.T) {
	m := metrics.New()
	m.Register(metrics.Pool(func() store.PoolStats {
		return store.PoolStats{Max: 5, Open: 5, Active: 2, Idle: 3, Pending: 1, Acquires: 7,
			AcquireTime: 1500 * time.Millisecond, Timeouts: 1, Created: 5}
	}))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /client/{id}/balance", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /{$}", func(http.ResponseWriter, *http.Request) {})
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	})
	srv := httptest.NewServer(m.Instrument(mux))
	defer srv.Close()
	for _, req := range []struct{ method, path string }{
		{"GET", "/client/7/balance"}, {"GET", "/"}, {"GET", "/nope"}, {"DELETE", "/health"},
	} {
		r, _ := http.NewRequest(req.method, srv.URL+req.path, nil)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`http_server_requests_seconds_count{method="GET",status="200",uri="/client/{id}/balance"} 1`,
		`http_server_requests_seconds_count{method="GET",status="200",uri="/"} 1`,
		`http_server_requests_seconds_count{method="GET",status="404",uri="NOT_FOUND"} 1`,
		`http_server_requests_seconds_count{method="DELETE",status="405",uri="UNKNOWN"} 1`,
		`http_server_requests_seconds_bucket{method="GET",status="404",uri="NOT_FOUND",le="0.0025"} 1`,
		`db_pool_connections_active{pool="bank"} 2`,
		`db_pool_connections_pending{pool="bank"} 1`,
		`db_pool_connections_acquire_seconds_sum{pool="bank"} 1.5`,
		`db_pool_connections_acquire_seconds_count{pool="bank"} 7`,
		`db_pool_connections_timeout_total{pool="bank"} 1`,
		`db_pool_connections_created_total{pool="bank"} 5`,
		"go_gc_duration_seconds_count",
		"go_goroutines",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
