// Package store keeps the bank's clients and ledger in PostgreSQL. It runs the
// statements of db/queries/ verbatim, the very texts the Java service runs.
package store

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/semaphore"
)

const (
	// queryTimeout abandons a database call that has taken this long; the
	// Java service sets pgjdbc's socketTimeout to the same value.
	queryTimeout = 10 * time.Second
	// connectTimeout bounds opening a connection, as pgjdbc's connectTimeout.
	// The pool keeps connecting in the background after an acquire gives up,
	// so without it a connection could wait for the kernel's TCP timeout.
	connectTimeout = 3 * time.Second
	// maxLifetime retires connections; HikariCP shortens each connection's
	// lifetime by up to 2.5% so they do not all reconnect at once, and the
	// pool does the same here with a jitter.
	maxLifetime       = 30 * time.Minute
	maxLifetimeJitter = maxLifetime / 40
	// pingAfterIdle is how long a connection may sit idle before it is
	// checked on acquire: HikariCP's aliveBypassWindowMs, where pgxpool's
	// own default is 1 s. A check is a round trip, so both pools check alike.
	pingAfterIdle = 500 * time.Millisecond
	// connectBackoff is how long a pool slot stays unused after its
	// connection could not be opened (see Store.acquire).
	connectBackoff = time.Second
)

// Config locates the database and sizes the pool.
type Config struct {
	Host     string
	Port     int
	User     string
	Password string
	Database string
	// PoolSize is both the minimum and the maximum number of connections:
	// a fixed-size pool, as HikariCP's default.
	PoolSize int32
	// AcquireTimeout is the longest wait for a pooled connection.
	AcquireTimeout time.Duration
}

// ConnString returns the connection URL of c.
func (c Config) ConnString() string {
	u := url.URL{
		Scheme: "postgres",
		User:   url.UserPassword(c.User, c.Password),
		Host:   net.JoinHostPort(c.Host, strconv.Itoa(c.Port)),
		Path:   "/" + c.Database,
	}
	return u.String()
}

// Store runs the bank's statements on a pool of connections.
type Store struct {
	pool *pgxpool.Pool
	// slots admits at most one request per connection the server lets the
	// pool keep; see acquire.
	slots          *semaphore.Weighted
	acquireTimeout time.Duration
	waits          waits
}

// New returns a Store for the database of cfg. It does not connect: the
// pool opens its connections in the background, so a service can start
// while the database is down. Use Health to find out whether it answers.
func New(ctx context.Context, cfg Config) (*Store, error) {
	poolCfg, err := pgxpool.ParseConfig(cfg.ConnString())
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	poolCfg.MaxConns = cfg.PoolSize
	poolCfg.MinConns = cfg.PoolSize
	poolCfg.MaxConnLifetime = maxLifetime - maxLifetimeJitter
	poolCfg.MaxConnLifetimeJitter = maxLifetimeJitter
	poolCfg.ConnConfig.ConnectTimeout = connectTimeout
	poolCfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool {
		return p.IdleDuration > pingAfterIdle
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Store{
		pool:           pool,
		slots:          semaphore.NewWeighted(int64(cfg.PoolSize)),
		acquireTimeout: cfg.AcquireTimeout,
	}, nil
}

// Close closes the pool once every connection in use is back.
func (s *Store) Close() {
	s.pool.Close()
}

// withConn runs fn on a pooled connection. Waiting for the connection is
// bounded by the acquire timeout and fn by the query timeout, both within
// ctx. The error comes back classified (see classify).
func (s *Store) withConn(ctx context.Context, fn func(context.Context, *pgx.Conn) error) error {
	conn, err := s.timedAcquire(ctx)
	if err != nil {
		return classify(err)
	}
	defer s.slots.Release(1) // after the connection is back: a waiter finds it idle
	defer conn.Release()
	queryCtx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	return classify(fn(queryCtx, conn.Conn()))
}

// timedAcquire waits for a pooled connection up to the acquire timeout,
// and counts the wait in the pool's statistics.
func (s *Store) timedAcquire(ctx context.Context) (*pgxpool.Conn, error) {
	acquireCtx, cancel := context.WithTimeout(ctx, s.acquireTimeout)
	defer cancel()
	start := time.Now()
	conn, err := s.acquire(acquireCtx)
	switch {
	case err == nil:
		s.waits.acquires.Add(1)
		s.waits.nanos.Add(int64(time.Since(start)))
	case ctx.Err() == nil && acquireCtx.Err() != nil:
		s.waits.timeouts.Add(1)
	}
	return conn, err
}

// acquire waits for a pooled connection until ctx ends, as HikariCP does,
// also when the pool is below its size and a new connection cannot be
// opened: the server is down, or refuses it because max_connections is
// reached (say by another service on the same database). pgxpool alone
// would open the connection inside Acquire and fail the request at once.
// Here the slot whose connection failed is held back for connectBackoff, so
// the request and those after it wait for a busy connection instead, and
// each slot retries at most once per backoff, as HikariCP's background
// connection creator does.
func (s *Store) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	for {
		if err := s.takeSlot(ctx); err != nil {
			return nil, err
		}
		conn, err := s.pool.Acquire(ctx)
		if err == nil {
			return conn, nil
		}
		if ctx.Err() != nil || !cannotConnect(err) {
			s.slots.Release(1)
			return nil, err
		}
		time.AfterFunc(connectBackoff, func() { s.slots.Release(1) })
	}
}

// takeSlot takes a pool slot, counting the request as pending while every
// slot is taken, as HikariCP counts the threads that wait for a connection
// after finding none idle.
func (s *Store) takeSlot(ctx context.Context) error {
	if s.slots.TryAcquire(1) {
		return nil
	}
	s.waits.pending.Add(1)
	defer s.waits.pending.Add(-1)
	return s.slots.Acquire(ctx, 1)
}
