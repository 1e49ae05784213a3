package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"bankbench/bank-go/internal/dbtest"
	"bankbench/bank-go/store"
)

// A pool larger than the server lets it open waits for its busy connections,
// as HikariCP does, instead of failing requests: the server here refuses a
// third connection to the role (SQLSTATE 53300, as at max_connections).
func TestPoolLargerThanServerAllows(t *testing.T) {
	const allowed, poolSize, requests = 2, 6, 60
	cfg := limitedRole(t, allowed)
	cfg.PoolSize, cfg.AcquireTimeout = poolSize, 3*time.Second
	st, err := store.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	owner := dbtest.Store(t)
	a, b := newClient(t, owner, 1000), newClient(t, owner, 1000)

	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for i := range requests {
		wg.Go(func() {
			from, to := a, b
			if i%2 == 1 {
				from, to = b, a
			}
			if _, err := st.Transfer(context.Background(), from, to, 1); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("transfer: %v", err)
	}
	conn := dbtest.Conn(t)
	checkBalance(t, owner, conn, a, 1000)
	checkBalance(t, owner, conn, b, 1000)
}

// limitedRole returns the test database's settings for a new role that may
// hold at most allowed connections; the role is dropped when tb ends.
func limitedRole(tb testing.TB, allowed int) store.Config {
	tb.Helper()
	cfg := dbtest.Config(tb)
	cfg.User, cfg.Password = fmt.Sprintf("limited_%d", time.Now().UnixNano()), "limited"
	admin := dbtest.Conn(tb)
	ctx := context.Background()
	for _, sql := range []string{
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' CONNECTION LIMIT %d", cfg.User, cfg.Password, allowed),
		"GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO " + cfg.User,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO " + cfg.User,
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Cleanup(func() {
		for _, sql := range []string{"DROP OWNED BY " + cfg.User, "DROP ROLE " + cfg.User} {
			if _, err := admin.Exec(ctx, sql); err != nil {
				tb.Error(err)
			}
		}
	})
	return cfg
}
