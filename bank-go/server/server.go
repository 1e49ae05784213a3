// Package server is the HTTP face of the bank: the routes, JSON and status
// codes of api/openapi.yaml.
package server

import (
	"context"
	"log/slog"
	"net/http"

	"bankbench/bank-go/metrics"
	"bankbench/bank-go/store"
)

// Store is what the handlers need from the database; *store.Store is one.
// Its errors are those of package store: ErrNotFound, ErrInsufficientFunds,
// ErrUnavailable or anything else, which becomes 500 internal error.
type Store interface {
	Health(ctx context.Context) error
	CreateClient(ctx context.Context, balance int64) (store.Client, error)
	Balance(ctx context.Context, id int64) (int64, error)
	Transfer(ctx context.Context, from, to, amount int64) (store.Transfer, error)
}

// NewServer returns the handler of every route, timed in m, which GET
// /metrics publishes, holding at most maxConcurrent requests at once (see
// admit). It logs through logger only the errors it cannot explain to the
// client (500 internal error).
func NewServer(logger *slog.Logger, store Store, m *metrics.Metrics, maxConcurrent int) http.Handler {
	mux := http.NewServeMux()
	addRoutes(mux, logger, store, m.Handler())
	return m.Instrument(admit(maxConcurrent, m, mux))
}
