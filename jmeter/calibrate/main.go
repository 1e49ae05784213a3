// Command calibrate answers the requests of the JMeter plan (jmeter/src/test/jmeter/bank.jmx)
// at almost no cost, so that JMeter run against it measures JMeter alone: what the load
// generator can drive on its CPUs (harness/bankbench/measure/calibration.py).
//
// It answers as the services do (api/openapi.yaml) where the plan looks: the ids it extracts,
// the balances it asserts, 200 or 422 to a transfer. The clients live in memory, one balance
// each, so the plan's assertions pass; there is no database, no validation beyond what those
// answers need, no metrics. Settings from the environment: PORT (8080) and HOT_ACCOUNTS (0):
// clients 1..N made at start with a large balance, as the harness makes them for the
// contention scenario (bankbench.bank.hot).
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// hotBalance is the opening balance of the hot accounts (bankbench.bank.hot.BALANCE).
const hotBalance = 1_000_000_000_000

// bank holds every client's balance, index = id - 1, and counts ledger entries.
type bank struct {
	mu       sync.Mutex
	balances []int64
	ledger   int64
}

type transfer struct {
	From   int64 `json:"from_client_id"`
	To     int64 `json:"to_client_id"`
	Amount int64 `json:"amount"`
}

func main() {
	port := envOr("PORT", "8080")
	hot, err := strconv.Atoi(envOr("HOT_ACCOUNTS", "0"))
	if err != nil || hot < 0 {
		fmt.Fprintf(os.Stderr, "calibrate: HOT_ACCOUNTS must be a whole number, not %q\n", os.Getenv("HOT_ACCOUNTS"))
		os.Exit(2)
	}
	b := &bank{}
	for range hot {
		b.open(hotBalance)
	}
	srv := &http.Server{Addr: "127.0.0.1:" + port, Handler: b.routes(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "calibrate: listening on %s\n", srv.Addr)
	fmt.Fprintln(os.Stderr, srv.ListenAndServe())
	os.Exit(1)
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func (b *bank) routes() *http.ServeMux {
	mux := http.NewServeMux()
	ok := []byte(`{"status":"Ok"}`)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { answer(w, http.StatusOK, ok) })
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { answer(w, http.StatusOK, ok) })
	mux.HandleFunc("POST /client/new/{balance}", b.create)
	mux.HandleFunc("GET /client/{id}/balance", b.balance)
	mux.HandleFunc("POST /transaction", b.transfer)
	return mux
}

func (b *bank) open(balance int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.balances = append(b.balances, balance)
	return int64(len(b.balances))
}

func (b *bank) create(w http.ResponseWriter, r *http.Request) {
	balance, err := strconv.ParseInt(r.PathValue("balance"), 10, 64)
	if err != nil || balance < 0 {
		fail(w, http.StatusBadRequest, "invalid balance")
		return
	}
	id := b.open(balance)
	answer(w, http.StatusOK, fmt.Appendf(nil, `{"id":%d,"name":"","email":"","phone":"","balance":%d}`, id, balance))
}

func (b *bank) balance(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid client id")
		return
	}
	b.mu.Lock()
	balance, found := b.at(id)
	b.mu.Unlock()
	if !found {
		fail(w, http.StatusNotFound, "client not found")
		return
	}
	answer(w, http.StatusOK, fmt.Appendf(nil, `{"balance":%d}`, balance))
}

func (b *bank) transfer(w http.ResponseWriter, r *http.Request) {
	var t transfer
	if err := json.NewDecoder(r.Body).Decode(&t); err != nil || t.Amount <= 0 || t.From == t.To {
		fail(w, http.StatusBadRequest, "invalid transaction")
		return
	}
	b.mu.Lock()
	from, foundFrom := b.at(t.From)
	_, foundTo := b.at(t.To)
	status := http.StatusOK
	switch {
	case !foundFrom || !foundTo:
		status = http.StatusNotFound
	case from < t.Amount:
		status = http.StatusUnprocessableEntity
	default:
		b.balances[t.From-1] -= t.Amount
		b.balances[t.To-1] += t.Amount
		b.ledger++
	}
	id := b.ledger
	b.mu.Unlock()
	switch status {
	case http.StatusNotFound:
		fail(w, status, "client not found")
	case http.StatusUnprocessableEntity:
		fail(w, status, "insufficient funds")
	default:
		answer(w, status, fmt.Appendf(nil, `{"id":%d,"from_client_id":%d,"to_client_id":%d,"amount":%d}`,
			id, t.From, t.To, t.Amount))
	}
}

// at is the balance of client id; the caller holds b.mu.
func (b *bank) at(id int64) (int64, bool) {
	if id < 1 || id > int64(len(b.balances)) {
		return 0, false
	}
	return b.balances[id-1], true
}

func answer(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client that went away is not the target's concern
}

func fail(w http.ResponseWriter, status int, message string) {
	answer(w, status, fmt.Appendf(nil, `{"status":"Error","message":%q}`, message))
}
