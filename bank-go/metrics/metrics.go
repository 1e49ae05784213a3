// Package metrics publishes the service's metrics on GET /metrics in the
// Prometheus text format, under the names the Java service's Micrometer
// meters have (api/metrics.md lists them): requests per route and status,
// the pool, and the Go runtime.
package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// requestBuckets are the request histogram's bounds in seconds, those of
// management.metrics.distribution.slo in the Java service's application.yaml.
var requestBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Metrics is the registry of one service and its request histogram.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.HistogramVec
}

// New returns a registry with the request histogram and the Go runtime and
// process collectors; add the pool with Register(Pool(...)).
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_server_requests_seconds",
			Help:    "Time spent answering HTTP requests, per route pattern and status.",
			Buckets: requestBuckets,
		}, []string{"method", "uri", "status"}),
	}
	m.registry.MustRegister(m.requests, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Register adds collectors to the registry; it panics on a name already
// taken, a programming error.
func (m *Metrics) Register(cs ...prometheus.Collector) {
	m.registry.MustRegister(cs...)
}

// Handler answers GET /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// StatusClientGone labels a request whose client went away before its
// answer was sent (the connection closed while the handler ran, say while
// it waited for a pooled connection): nginx's 499. Whatever the handler
// wrote, nobody read it, so it is not counted as that status.
const StatusClientGone = 499

// Instrument times every request next answers, labelled with the pattern
// of the route that served it. next must hand the request to a ServeMux
// as it is: ServeMux sets r.Pattern on the request it is given, so it is
// known once next is done.
func (m *Metrics) Instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		status := rec.status
		// net/http cancels the request's context when the connection
		// closes, and only after the handler returns otherwise.
		if r.Context().Err() != nil {
			status = StatusClientGone
		}
		m.requests.WithLabelValues(r.Method, uri(r.Pattern, rec.status), strconv.Itoa(status)).
			Observe(time.Since(start).Seconds())
	})
}

// Admission returns the gauges of the admission limit under the names
// the Java service's filter gives them: the requests it holds now, read
// from held at each scrape, and the limit.
func Admission(held func() int, limit int) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "http_server_requests_concurrent",
			Help: "Requests held now under the admission limit: running or waiting for a pooled connection.",
		}, func() float64 { return float64(held()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "http_server_requests_concurrent_max",
			Help: "The admission limit: past it, a request is answered 503 at once.",
		}, func() float64 { return float64(limit) }),
	}
}

// uri is the route label of a request served by pattern ("GET /health"),
// with Micrometer's names for a request no route serves.
func uri(pattern string, status int) string {
	_, path, _ := strings.Cut(pattern, " ")
	switch {
	case path != "" && path != "/":
		return strings.TrimSuffix(path, "{$}")
	case status == http.StatusNotFound:
		return "NOT_FOUND"
	default:
		return "UNKNOWN"
	}
}

// statusRecorder remembers the status a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter {
	return r.ResponseWriter
}
