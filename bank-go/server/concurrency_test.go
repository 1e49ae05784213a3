package server_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"bankbench/bank-go/internal/dbtest"
	"bankbench/bank-go/metrics"
	"bankbench/bank-go/server"
)

// TestConcurrentTransfers runs crossing transfers among a few clients from
// many goroutines through HTTP and a real database: every accepted transfer
// must show in the final balances, exactly.
func TestConcurrentTransfers(t *testing.T) {
	const (
		clients    = 4
		opening    = 100 // low, so that some transfers meet insufficient funds
		goroutines = 60
		transfers  = 20 // per goroutine
	)
	srv := httptest.NewServer(server.NewServer(slog.New(slog.DiscardHandler), dbtest.Store(t), metrics.New(), maxConcurrent))
	defer srv.Close()
	c := &client{url: srv.URL, http: srv.Client()}
	c.http.Timeout = 30 * time.Second

	ids := make([]int64, clients)
	for i := range ids {
		var created struct{ ID int64 }
		c.do(t, "POST", fmt.Sprintf("/client/new/%d", opening), "", &created)
		ids[i] = created.ID
	}

	var mu sync.Mutex
	accepted := 0
	want := make(map[int64]int64, clients) // expected balance per client
	for _, id := range ids {
		want[id] = opening
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range transfers {
				// Neighbours in both directions, and across: pairs cross.
				from := ids[(g+i)%clients]
				to := ids[(g+i+1+g%(clients-1))%clients]
				amount := int64(1 + (g*transfers+i)%97)
				body := fmt.Sprintf(`{"from_client_id":%d,"to_client_id":%d,"amount":%d}`, from, to, amount)
				if status := c.do(t, "POST", "/transaction", body, nil); status == http.StatusOK {
					mu.Lock()
					want[from] -= amount
					want[to] += amount
					accepted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d of %d transfers accepted, the others refused for insufficient funds", accepted, goroutines*transfers)
	if accepted == 0 {
		t.Fatal("no transfer accepted")
	}

	conn := dbtest.Conn(t)
	var sum int64
	for _, id := range ids {
		var got struct{ Balance int64 }
		c.do(t, "GET", fmt.Sprintf("/client/%d/balance", id), "", &got)
		if got.Balance != want[id] || got.Balance < 0 {
			t.Errorf("balance of %d = %d, want %d", id, got.Balance, want[id])
		}
		if got, want := dbtest.Ledger(t, conn, id), got.Balance; got != want {
			t.Errorf("ledger of %d = %d, want the balance %d", id, got, want)
		}
		sum += got.Balance
	}
	if got, want := sum, int64(clients*opening); got != want {
		t.Errorf("sum of balances = %d, want %d", got, want)
	}
}

// client calls the service over HTTP.
type client struct {
	url  string
	http *http.Client
}

// do sends a request and returns the status, decoding a 200 body into out
// when out is not nil. It fails tb on anything but 200 or 422, the only
// answers a valid transfer may get.
func (c *client) do(tb testing.TB, method, path, body string, out any) int {
	tb.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		tb.Error(err)
		return 0
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK && out != nil:
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			tb.Error(err)
		}
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnprocessableEntity:
		tb.Errorf("%s %s: status %d", method, path, resp.StatusCode)
	}
	return resp.StatusCode
}
