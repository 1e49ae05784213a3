package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The answers the JMeter plan reads (jmeter/src/test/jmeter/bank.jmx): the rematch scenario's
// ids and exact balances, and the contention scenario's 200 or 422 among hot accounts.
func TestAnswersWhatThePlanReads(t *testing.T) {
	b := &bank{}
	b.open(hotBalance)
	mux := b.routes()
	steps := []struct {
		method, path, body string
		status             int
		answer             string
	}{
		{"GET", "/health", "", 200, `{"status":"Ok"}`},
		{"POST", "/client/new/400", "", 200, `{"id":2,"name":"","email":"","phone":"","balance":400}`},
		{"POST", "/client/new/300", "", 200, `{"id":3,"name":"","email":"","phone":"","balance":300}`},
		{"GET", "/client/2/balance", "", 200, `{"balance":400}`},
		{"POST", "/transaction", `{"from_client_id":2,"to_client_id":3,"amount":10}`, 200,
			`{"id":1,"from_client_id":2,"to_client_id":3,"amount":10}`},
		{"GET", "/client/2/balance", "", 200, `{"balance":390}`},
		{"GET", "/client/3/balance", "", 200, `{"balance":310}`},
		{"POST", "/transaction", `{"from_client_id":3,"to_client_id":1,"amount":311}`, 422,
			`{"status":"Error","message":"insufficient funds"}`},
		{"POST", "/transaction", `{"from_client_id":1,"to_client_id":9,"amount":1}`, 404,
			`{"status":"Error","message":"client not found"}`},
		{"GET", "/client/9/balance", "", 404, `{"status":"Error","message":"client not found"}`},
	}
	for _, step := range steps {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(step.method, step.path, strings.NewReader(step.body)))
		if w.Code != step.status || w.Body.String() != step.answer {
			t.Errorf("%s %s: %d %s, want %d %s", step.method, step.path, w.Code, w.Body, step.status, step.answer)
		}
		if got := w.Header().Get("Content-Type"); got != "application/json" {
			t.Errorf("%s %s: Content-Type %q", step.method, step.path, got)
		}
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/client/1/balance", nil))
	if w.Code != http.StatusOK || w.Body.String() != `{"balance":1000000000000}` {
		t.Errorf("hot account 1: %d %s", w.Code, w.Body)
	}
}
