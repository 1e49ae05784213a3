package server

import (
	"net/http"

	"bankbench/bank-go/metrics"
)

// retryAfter is the Retry-After header of a request refused by the
// admission limit, in seconds: the requests held drain well within it at
// the rates the service serves (docs/configuration.md).
const retryAfter = "1"

// admit hands next at most limit requests at once, running or waiting for
// a pooled connection; one more is answered 503 at once, with Retry-After,
// not queued. Without a bound, every request past capacity holds a
// goroutine and its buffers until the acquire timeout, so the memory held
// grows with the arrival rate. Requests to / and /metrics are not counted:
// they touch no database, and liveness and monitoring must answer when the
// service is busiest. The buffered channel is the semaphore: a send that
// would block means the limit is reached, and its length is the gauge of
// the requests held (metrics.Admission).
func admit(limit int, m *metrics.Metrics, next http.Handler) http.Handler {
	held := make(chan struct{}, limit)
	m.Register(metrics.Admission(func() int { return len(held) }, limit)...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" || r.URL.Path == "/metrics" {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case held <- struct{}{}:
			defer func() { <-held }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", retryAfter)
			writeAnswer(w, errOverloaded)
		}
	})
}
