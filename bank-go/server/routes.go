package server

import (
	"log/slog"
	"net/http"
)

// addRoutes lists every route of the service, and so is where to look for
// the handler of a request.
func addRoutes(mux *http.ServeMux, logger *slog.Logger, store Store, metrics http.Handler) {
	mux.Handle("GET /{$}", handleLiveness())
	mux.Handle("GET /health", handleHealth(store))
	mux.Handle("POST /client/new/{balance}", handleCreateClient(logger, store))
	mux.Handle("GET /client/{id}/balance", handleBalance(logger, store))
	mux.Handle("POST /transaction", handleTransfer(logger, store))
	mux.Handle("GET /metrics", metrics)
	mux.Handle("/", handleNoRoute(mux))
}
