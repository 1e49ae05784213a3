package server_test

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"bankbench/bank-go/metrics"
	"bankbench/bank-go/server"
)

// TestListenerAnswersJSON sends requests that net/http rejects before any
// handler runs, over a real connection, and wants the contract's JSON.
func TestListenerAnswersJSON(t *testing.T) {
	srv := httptest.NewUnstartedServer(server.NewServer(slog.New(slog.DiscardHandler), &fakeStore{}, metrics.New(), maxConcurrent))
	srv.Listener = server.Listener(srv.Listener)
	srv.Start()
	defer srv.Close()
	for _, tc := range []struct {
		name, request string
		wantStatus    int
		wantBody      string
	}{
		{"bad percent-encoding", "GET /client/%zz/balance HTTP/1.1\r\nHost: x\r\n\r\n", 400,
			`{"status":"Error","message":"malformed request"}`},
		{"header without colon", "GET / HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n", 400,
			`{"status":"Error","message":"malformed request"}`},
		{"headers too large", "GET / HTTP/1.1\r\nHost: x\r\nX: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 431,
			`{"status":"Error","message":"request header fields too large"}`},
		{"served", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 200, `{"status":"Ok"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go func() { _, _ = io.WriteString(conn, tc.request) }() // a too-large one is cut short
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if got, want := resp.StatusCode, tc.wantStatus; got != want {
				t.Errorf("status = %d, want %d", got, want)
			}
			if got, want := resp.Header.Get("Content-Type"), "application/json"; got != want {
				t.Errorf("Content-Type = %q, want %q", got, want)
			}
			if got, want := string(body), tc.wantBody; got != want {
				t.Errorf("body = %s, want %s", got, want)
			}
		})
	}
}
