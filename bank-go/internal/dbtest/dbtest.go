// Package dbtest gives integration tests a real PostgreSQL database, never a
// mock. It follows the convention of every bankbench suite:
//
//  1. with POSTGRES_HOST set (as `make test` does), the server of the
//     POSTGRES_* variables;
//  2. else, when a Docker engine answers, a container of bankbench's
//     PostgreSQL image, started through Testcontainers;
//  3. else the tests fail, saying how to get a database.
//
// With -short (`make check`) every test that needs the database is skipped
// instead: the unit tests run alone, with no server at all.
//
// On that server each test package gets a database of its own, with the
// schema of db/schema.sql, so packages can run in parallel and other suites
// sharing the server do not see their clients.
package dbtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bankbench/bank-go/store"
	"bankbench/db"
)

const noDatabase = "no database: run `make db-up` and export its settings, or install Docker"

// The package's database, made on the first call to Config.
var (
	setupOnce sync.Once
	testDB    store.Config
	setupErr  error
	teardown  = func() {}
)

// Main runs the tests of a package, then drops its database. Call it from
// TestMain in every package that uses Config.
func Main(m *testing.M) {
	code := m.Run()
	teardown()
	os.Exit(code)
}

// Config returns the settings of the package's test database, creating it
// on the first call. It fails tb when there is no database server, and
// skips it under -short.
func Config(tb testing.TB) store.Config {
	tb.Helper()
	if testing.Short() {
		tb.Skip("needs PostgreSQL: skipped with -short")
	}
	setupOnce.Do(func() { testDB, teardown, setupErr = setup(context.Background()) })
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	return testDB
}

// Store returns a Store on the package's test database, closed when tb ends.
func Store(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.New(context.Background(), Config(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(st.Close)
	return st
}

// Conn returns a connection to the package's test database, closed when tb
// ends, for checks that go beyond the Store.
func Conn(tb testing.TB) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(context.Background(), Config(tb).ConnString())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// setup creates a database with the schema on the server of the convention
// and returns its settings and how to drop it.
func setup(ctx context.Context) (store.Config, func(), error) {
	srv, stop, err := server(ctx)
	if err != nil {
		return store.Config{}, func() {}, err
	}
	admin, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		stop()
		return store.Config{}, func() {}, fmt.Errorf("dbtest: %w", err)
	}
	cfg := srv
	cfg.Database = fmt.Sprintf("bank_test_%016x", rand.Uint64())
	drop := func() {
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+cfg.Database+" WITH (FORCE)")
		_ = admin.Close(ctx)
		stop()
	}
	if err := createDatabase(ctx, admin, cfg); err != nil {
		drop()
		return store.Config{}, func() {}, err
	}
	return cfg, drop, nil
}

// createDatabase creates the database of cfg through admin and loads the
// schema into it.
func createDatabase(ctx context.Context, admin *pgx.Conn, cfg store.Config) error {
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+cfg.Database); err != nil {
		return fmt.Errorf("dbtest: %w", err)
	}
	conn, err := pgx.Connect(ctx, cfg.ConnString())
	if err != nil {
		return fmt.Errorf("dbtest: %w", err)
	}
	defer conn.Close(ctx)
	// Without arguments Exec uses the simple protocol, which runs the
	// several statements of the schema.
	if _, err := conn.Exec(ctx, db.Schema); err != nil {
		return fmt.Errorf("dbtest: schema: %w", err)
	}
	return nil
}

// server returns the settings of a PostgreSQL server per the convention, and
// how to stop it when dbtest started it.
func server(ctx context.Context) (store.Config, func(), error) {
	// A small pool: several packages, and the Java suite, may share the
	// server and its max_connections.
	cfg := store.Config{PoolSize: 8, AcquireTimeout: 3 * time.Second}
	if host := os.Getenv("POSTGRES_HOST"); host != "" {
		cfg.Host = host
		cfg.User = envOr("POSTGRES_USER", "postgres")
		cfg.Password = envOr("POSTGRES_PASSWORD", "postgres")
		cfg.Database = envOr("POSTGRES_NAME", "bank")
		port, err := strconv.Atoi(envOr("POSTGRES_PORT", "5432"))
		if err != nil {
			return cfg, func() {}, fmt.Errorf("dbtest: POSTGRES_PORT: %w", err)
		}
		cfg.Port = port
		fmt.Fprintf(os.Stderr, "dbtest: PostgreSQL of POSTGRES_HOST at %s:%d\n", cfg.Host, cfg.Port)
		return cfg, func() {}, nil
	}
	if dockerAnswers(ctx) {
		return startContainer(ctx, cfg)
	}
	return cfg, func() {}, errors.New(noDatabase)
}

// envOr returns the environment variable name, or def when it is empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// FreePort returns a local TCP port that nothing listens on now: for a
// database that is down, or a server to start.
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Ledger returns what the ledger says client id holds: its incoming minus
// its outgoing amounts, opening deposit included. It must equal the balance.
func Ledger(tb testing.TB, conn *pgx.Conn, id int64) int64 {
	tb.Helper()
	var total int64
	err := conn.QueryRow(context.Background(), `
		SELECT coalesce(sum(CASE WHEN to_client_id = $1 THEN amount ELSE -amount END), 0)
		FROM transaction WHERE to_client_id = $1 OR from_client_id = $1`, id).Scan(&total)
	if err != nil {
		tb.Fatal(err)
	}
	return total
}
