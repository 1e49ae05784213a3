package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"bankbench/bank-go/store"
)

// poolName labels the pool series, as the Java service's HikariCP pool is
// named (spring.datasource.hikari.pool-name).
const poolName = "bank"

// Pool returns a collector of the pool's statistics, read from stats at
// each scrape. The names are HikariCP's Micrometer meters with the
// hikaricp_ prefix replaced by db_pool_, as the Java service renames them.
func Pool(stats func() store.PoolStats) prometheus.Collector {
	return poolCollector{stats}
}

type poolCollector struct {
	stats func() store.PoolStats
}

func poolDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("db_pool_"+name, help, nil, prometheus.Labels{"pool": poolName})
}

var (
	maxDesc      = poolDesc("connections_max", "Pool size.")
	openDesc     = poolDesc("connections", "Connections open.")
	activeDesc   = poolDesc("connections_active", "Connections in use by a request.")
	idleDesc     = poolDesc("connections_idle", "Connections open and idle.")
	pendingDesc  = poolDesc("connections_pending", "Requests waiting for a connection.")
	acquireDesc  = poolDesc("connections_acquire_seconds", "Time requests waited for the connections they got.")
	timeoutsDesc = poolDesc("connections_timeout_total", "Waits for a connection that ended at the acquire timeout.")
	createdDesc  = poolDesc("connections_created_total", "Connections opened since start.")
)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	prometheus.DescribeByCollect(c, ch)
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge(maxDesc, float64(s.Max))
	gauge(openDesc, float64(s.Open))
	gauge(activeDesc, float64(s.Active))
	gauge(idleDesc, float64(s.Idle))
	gauge(pendingDesc, float64(s.Pending))
	ch <- prometheus.MustNewConstSummary(acquireDesc, s.Acquires, s.AcquireTime.Seconds(), nil)
	counter(timeoutsDesc, float64(s.Timeouts))
	counter(createdDesc, float64(s.Created))
}
