package server

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
)

// statusOK is the body of a successful GET / or GET /health.
var statusOK = statusBody{Status: "Ok"}

// handleLiveness answers GET /: the process serves, whatever the database.
func handleLiveness() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, statusOK)
	})
}

// handleHealth answers GET /health: whether the database answers. Any
// failure is 503, and not logged: a down database would flood the log.
func handleHealth(store Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := store.Health(r.Context()); err != nil {
			writeAnswer(w, errUnavailable)
			return
		}
		writeJSON(w, http.StatusOK, statusOK)
	})
}

// handleCreateClient answers POST /client/new/{balance}.
func handleCreateClient(logger *slog.Logger, store Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		balance, err := strconv.ParseInt(r.PathValue("balance"), 10, 64)
		if err != nil || balance < 0 || balance > maxMoney {
			writeAnswer(w, errBalance)
			return
		}
		client, err := store.CreateClient(r.Context(), balance)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		writeJSON(w, http.StatusOK, client)
	})
}

// handleBalance answers GET /client/{id}/balance. Any integer is looked up:
// ids below 1 are simply not found, as in the Java service.
func handleBalance(logger *slog.Logger, store Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			writeAnswer(w, errID)
			return
		}
		balance, err := store.Balance(r.Context(), id)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		writeJSON(w, http.StatusOK, balanceBody{Balance: balance})
	})
}

// handleTransfer answers POST /transaction.
func handleTransfer(logger *slog.Logger, store Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, apiErr := decodeTransfer(w, r)
		if apiErr != nil {
			writeAnswer(w, apiErr)
			return
		}
		transfer, err := store.Transfer(r.Context(), req.From, req.To, req.Amount)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		writeJSON(w, http.StatusOK, transfer)
	})
}

// probeMethods are the methods handleNoRoute tries on a path.
var probeMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
}

// handleNoRoute answers the requests that no route takes: 405 when a route
// serves the path with another method, else 404. ServeMux would tell them
// apart by itself, but answers in plain text; asking mux which pattern
// each method would reach keeps routes.go the only list of routes.
func handleNoRoute(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, method := range probeMethods {
			probe := &http.Request{Method: method, URL: r.URL, Host: r.Host}
			if _, pattern := mux.Handler(probe); pattern != "/" {
				allow = append(allow, method)
			}
		}
		if len(allow) == 0 {
			writeAnswer(w, errNoRoute)
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeAnswer(w, errMethod)
	})
}
