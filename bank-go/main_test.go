// The tests of package main are inside it: they call run and loadConfig.
package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bankbench/bank-go/internal/dbtest"
	"bankbench/bank-go/store"
)

func TestMain(m *testing.M) {
	dbtest.Main(m)
}

func TestLoadConfig(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		got, err := loadConfig(func(string) string { return "" })
		want := config{addr: ":8080", store: store.Config{
			Host: "localhost", Port: 5432, User: "postgres", Password: "postgres", Database: "bank",
			PoolSize: 95, AcquireTimeout: 3 * time.Second,
		}, maxConcurrent: 1000}
		if err != nil || got != want {
			t.Errorf("loadConfig() = %+v, %v; want %+v", got, err, want)
		}
	})
	t.Run("all set", func(t *testing.T) {
		env := map[string]string{
			"PORT": "9000", "POSTGRES_HOST": "db", "POSTGRES_PORT": "6432", "POSTGRES_USER": "u",
			"POSTGRES_PASSWORD": "p", "POSTGRES_NAME": "n", "POSTGRES_CONNECTIONS_SIZE": "8",
			"POSTGRES_ACQUIRE_TIMEOUT_MS": "250", "MAX_CONCURRENT_REQUESTS": "20", "VIRTUAL_THREADS": "true",
		}
		got, err := loadConfig(func(name string) string { return env[name] })
		want := config{addr: ":9000", store: store.Config{
			Host: "db", Port: 6432, User: "u", Password: "p", Database: "n",
			PoolSize: 8, AcquireTimeout: 250 * time.Millisecond,
		}, maxConcurrent: 20}
		if err != nil || got != want {
			t.Errorf("loadConfig() = %+v, %v; want %+v", got, err, want)
		}
	})
	for _, env := range []string{
		"PORT=0", "PORT=65536", "PORT=http", "POSTGRES_PORT=-1",
		"POSTGRES_CONNECTIONS_SIZE=0", "POSTGRES_CONNECTIONS_SIZE=2147483648", "POSTGRES_CONNECTIONS_SIZE=1.5",
		"POSTGRES_ACQUIRE_TIMEOUT_MS=0", "POSTGRES_ACQUIRE_TIMEOUT_MS=3s",
		"MAX_CONCURRENT_REQUESTS=0", "MAX_CONCURRENT_REQUESTS=many",
	} {
		t.Run(env, func(t *testing.T) {
			name, value, _ := strings.Cut(env, "=")
			_, err := loadConfig(func(n string) string {
				if n == name {
					return value
				}
				return ""
			})
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("error = %v, want one naming %s", err, name)
			}
		})
	}
}

func TestRun(t *testing.T) {
	base := startRun(t, dbtest.Config(t))
	for path, want := range map[string]int{"/": 200, "/health": 200, "/client/0/balance": 404} {
		if got := status(t, "GET", base+path); got != want {
			t.Errorf("GET %s: status %d, want %d", path, got, want)
		}
	}
}

func TestRunDatabaseDown(t *testing.T) {
	cfg := dbtest.Config(t)
	cfg.Host, cfg.Port = "127.0.0.1", dbtest.FreePort(t)
	base := startRun(t, cfg)
	for _, req := range []struct {
		method, path string
		want         int
	}{{"GET", "/", 200}, {"GET", "/health", 503}, {"POST", "/client/new/1", 503}, {"GET", "/client/1/balance", 503}} {
		if got := status(t, req.method, base+req.path); got != req.want {
			t.Errorf("%s %s: status %d, want %d", req.method, req.path, got, req.want)
		}
	}
}

// startRun runs the service on the database of cfg until the end of tb,
// then checks that it shut down cleanly. It returns the service's URL once
// the service answers.
func startRun(tb testing.TB, cfg store.Config) string {
	tb.Helper()
	port := strconv.Itoa(dbtest.FreePort(tb))
	env := map[string]string{
		"PORT": port, "POSTGRES_HOST": cfg.Host, "POSTGRES_PORT": strconv.Itoa(cfg.Port),
		"POSTGRES_USER": cfg.User, "POSTGRES_PASSWORD": cfg.Password, "POSTGRES_NAME": cfg.Database,
		"POSTGRES_CONNECTIONS_SIZE": "4",
	}
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, func(name string) string { return env[name] }, &log) }()
	tb.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("run: %v", err)
			}
		case <-time.After(15 * time.Second):
			tb.Error("run did not return 15 s after cancel")
		}
		if tb.Failed() {
			tb.Logf("log:\n%s", log.String())
		}
	})
	base := "http://127.0.0.1:" + port
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
			return base
		}
	}
	tb.Fatal("service not answering after 10 s")
	return ""
}

// status sends a request without a body and returns the response status.
func status(tb testing.TB, method, url string) int {
	tb.Helper()
	req, err := http.NewRequest(method, url, http.NoBody)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// syncBuffer is a bytes.Buffer that run's goroutines may write concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
