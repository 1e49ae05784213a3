package store

import (
	"sync/atomic"
	"time"
)

// PoolStats is a snapshot of the pool, with the meanings HikariCP's metrics
// give them, so that both services report alike (api/metrics.md).
type PoolStats struct {
	Max     int32 // the pool's size
	Open    int32 // connections open, idle or in use
	Active  int32 // connections in use by a request
	Idle    int32 // connections open and idle
	Pending int64 // requests waiting for a connection now: every one is in use
	// Acquires counts the connections handed out and AcquireTime sums the
	// time their requests waited for them.
	Acquires    uint64
	AcquireTime time.Duration
	// Timeouts counts the waits that ended at the acquire timeout.
	Timeouts uint64
	// Created counts the connections opened since start.
	Created int64
}

// waits tracks the requests that wait in Store.acquire: pgxpool's own
// counters miss the wait for a slot in front of it.
type waits struct {
	pending  atomic.Int64
	acquires atomic.Uint64
	nanos    atomic.Int64
	timeouts atomic.Uint64
}

// Stats returns a snapshot of the pool.
func (s *Store) Stats() PoolStats {
	ps := s.pool.Stat()
	return PoolStats{
		Max:         ps.MaxConns(),
		Open:        ps.TotalConns(),
		Active:      ps.AcquiredConns(),
		Idle:        ps.IdleConns(),
		Pending:     s.waits.pending.Load(),
		Acquires:    s.waits.acquires.Load(),
		AcquireTime: time.Duration(s.waits.nanos.Load()),
		Timeouts:    s.waits.timeouts.Load(),
		Created:     ps.NewConnsCount(),
	}
}
