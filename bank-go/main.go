// Command bank-go serves the bankbench bank API (api/openapi.yaml) over
// PostgreSQL. Its settings come from the environment; see config.go.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"bankbench/bank-go/metrics"
	"bankbench/bank-go/server"
	"bankbench/bank-go/store"
)

// shutdownTimeout is how long in-flight requests may take to finish after
// SIGTERM or SIGINT.
const shutdownTimeout = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bank-go: %v\n", err)
		os.Exit(1)
	}
}

// run serves until ctx is done, then shuts down gracefully. It returns an
// error only when it cannot start or the listener fails; a database that is
// down is not one: the service answers 503 until the database is back.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(stdout, nil))
	st, err := store.New(ctx, cfg.store)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Health(ctx); err != nil {
		logger.Warn("database not reachable, answering 503 until it is", "err", err)
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	m := metrics.New()
	m.Register(metrics.Pool(st.Stats))
	srv := server.NewHTTPServer(server.NewServer(logger, st, m, cfg.maxConcurrent))
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(server.Listener(ln)) }()
	logger.Info("listening", "addr", ln.Addr().String(), "pool_size", cfg.store.PoolSize,
		"max_concurrent_requests", cfg.maxConcurrent)
	if cfg.pprofAddr != "" {
		stopProfiling, err := serveProfiling(cfg.pprofAddr, serveErr)
		if err != nil {
			return err
		}
		defer stopProfiling()
		logger.Info("profiling", "addr", cfg.pprofAddr)
	}

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close() // cut the requests that did not finish in time
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("stopped")
	return nil
}
