package store_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"bankbench/bank-go/internal/dbtest"
	"bankbench/bank-go/store"
)

func TestMain(m *testing.M) {
	dbtest.Main(m)
}

// newClient creates a client with balance and returns its id.
func newClient(tb testing.TB, st *store.Store, balance int64) int64 {
	tb.Helper()
	c, err := st.CreateClient(context.Background(), balance)
	if err != nil {
		tb.Fatal(err)
	}
	return c.ID
}

// checkBalance fails tb unless client id holds want, in its row and in the
// ledger.
func checkBalance(tb testing.TB, st *store.Store, conn *pgx.Conn, id, want int64) {
	tb.Helper()
	got, err := st.Balance(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	if got != want {
		tb.Errorf("balance of %d = %d, want %d", id, got, want)
	}
	if got, want := dbtest.Ledger(tb, conn, id), want; got != want {
		tb.Errorf("ledger of %d = %d, want %d", id, got, want)
	}
}

func TestHealth(t *testing.T) {
	if err := dbtest.Store(t).Health(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestCreateClient(t *testing.T) {
	st, conn := dbtest.Store(t), dbtest.Conn(t)
	for _, balance := range []int64{0, 1, 1_000_000_000_000_000} {
		c, err := st.CreateClient(context.Background(), balance)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c, (store.Client{ID: c.ID, Balance: balance}); got != want || c.ID < 1 {
			t.Errorf("CreateClient(%d) = %+v, want %+v with a positive id", balance, got, want)
		}
		checkBalance(t, st, conn, c.ID, balance)
	}
	t.Run("negative", func(t *testing.T) {
		// The schema refuses it: a server error that is not about
		// availability, so the service answers 500.
		_, err := st.CreateClient(context.Background(), -1)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23514" || errors.Is(err, store.ErrUnavailable) {
			t.Errorf("CreateClient(-1) error = %v, want check_violation (23514)", err)
		}
	})
}

func TestBalance(t *testing.T) {
	st := dbtest.Store(t)
	for _, id := range []int64{0, -1, math.MaxInt64} {
		if _, err := st.Balance(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Balance(%d) error = %v, want ErrNotFound", id, err)
		}
	}
}

func TestTransfer(t *testing.T) {
	ctx := context.Background()
	st, conn := dbtest.Store(t), dbtest.Conn(t)
	t.Run("ok", func(t *testing.T) {
		from, to := newClient(t, st, 100), newClient(t, st, 5)
		got, err := st.Transfer(ctx, from, to, 30)
		if err != nil {
			t.Fatal(err)
		}
		if want := (store.Transfer{ID: got.ID, From: from, To: to, Amount: 30}); got != want || got.ID < 1 {
			t.Errorf("Transfer = %+v, want %+v with a positive id", got, want)
		}
		var amount int64
		err = conn.QueryRow(ctx, "SELECT amount FROM transaction WHERE id = $1 AND from_client_id = $2 AND to_client_id = $3",
			got.ID, from, to).Scan(&amount)
		if err != nil || amount != 30 {
			t.Errorf("ledger row %d: amount %d, error %v; want 30", got.ID, amount, err)
		}
		checkBalance(t, st, conn, from, 70)
		checkBalance(t, st, conn, to, 35)
	})
	t.Run("whole balance", func(t *testing.T) {
		from, to := newClient(t, st, 10), newClient(t, st, 0)
		if _, err := st.Transfer(ctx, from, to, 10); err != nil {
			t.Fatal(err)
		}
		checkBalance(t, st, conn, from, 0)
		checkBalance(t, st, conn, to, 10)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		known := newClient(t, st, 10)
		for _, pair := range [][2]int64{{known, -1}, {-1, known}, {-1, -2}} {
			if _, err := st.Transfer(ctx, pair[0], pair[1], 1); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Transfer(%d, %d) error = %v, want ErrNotFound", pair[0], pair[1], err)
			}
		}
		checkBalance(t, st, conn, known, 10)
	})
	t.Run("ErrInsufficientFunds", func(t *testing.T) {
		from, to := newClient(t, st, 10), newClient(t, st, 0)
		if _, err := st.Transfer(ctx, from, to, 11); !errors.Is(err, store.ErrInsufficientFunds) {
			t.Errorf("error = %v, want ErrInsufficientFunds", err)
		}
		checkBalance(t, st, conn, from, 10)
		checkBalance(t, st, conn, to, 0)
	})
}

func TestUnavailable(t *testing.T) {
	t.Run("database down", func(t *testing.T) {
		cfg := dbtest.Config(t)
		cfg.Host, cfg.Port = "127.0.0.1", dbtest.FreePort(t)
		st, err := store.New(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		checkUnavailable(t, st)
	})
	t.Run("acquire timeout", func(t *testing.T) {
		cfg := dbtest.Config(t)
		cfg.PoolSize, cfg.AcquireTimeout = 1, 100*time.Millisecond
		st, err := store.New(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		from, to := newClient(t, st, 10), newClient(t, st, 0)
		// Another session locks a client: a transfer of it then waits for
		// the lock while holding the pool's only connection.
		tx, err := dbtest.Conn(t).Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(context.Background(), "SELECT 1 FROM client WHERE id = $1 FOR UPDATE", to); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := st.Transfer(context.Background(), from, to, 1); done <- err }()
		waitForLockWaiter(t, dbtest.Conn(t))
		checkUnavailable(t, st)
		_ = tx.Rollback(context.Background())
		if err := <-done; err != nil {
			t.Errorf("transfer after the lock: %v", err)
		}
	})
}

// checkUnavailable fails tb unless every method of st says ErrUnavailable.
func checkUnavailable(tb testing.TB, st *store.Store) {
	tb.Helper()
	ctx := context.Background()
	_, errCreate := st.CreateClient(ctx, 1)
	_, errBalance := st.Balance(ctx, 1)
	_, errTransfer := st.Transfer(ctx, 1, 2, 1)
	for name, err := range map[string]error{
		"Health": st.Health(ctx), "CreateClient": errCreate, "Balance": errBalance, "Transfer": errTransfer,
	} {
		if !errors.Is(err, store.ErrUnavailable) {
			tb.Errorf("%s error = %v, want ErrUnavailable", name, err)
		}
	}
}

// waitForLockWaiter returns once a session of the test database waits for a
// lock, and fails tb after 10 s.
func waitForLockWaiter(tb testing.TB, conn *pgx.Conn) {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var waiting bool
		err := conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting)
		if err != nil {
			tb.Fatal(err)
		}
		if waiting {
			return
		}
	}
	tb.Fatal("no session waits for the lock after 10 s")
}

func TestConnString(t *testing.T) {
	want := store.Config{Host: "::1", Port: 6432, User: "bank user", Password: "p@ss/w:rd?#%", Database: "bank"}
	parsed, err := pgconn.ParseConfig(want.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	got := store.Config{Host: parsed.Host, Port: int(parsed.Port), User: parsed.User, Password: parsed.Password, Database: parsed.Database}
	if got != want {
		t.Errorf("ConnString() parses back to %+v, want %+v", got, want)
	}
}
