"""GET /metrics: the series of api/metrics.yaml in the Prometheus text format 0.0.4.

Requests and the pool under the names bank-go and bank-java share; garbage collection, memory and
threads under Python's names: prometheus_client's gc and process collectors, plus two series
they lack (GC pause time, live threads), named after theirs (contract/contender/README.md).
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterable

import prometheus_client
from prometheus_client import CollectorRegistry, Gauge, Histogram
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    Metric,
    SummaryMetricFamily,
)
from prometheus_client.registry import Collector

from bankpy.store import POOL_NAME, PoolStats

# The request histogram's bounds in seconds, those of bank-go and bank-java.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
CONTENT_TYPE = prometheus_client.CONTENT_TYPE_PLAIN_0_0_4

prometheus_client.disable_created_metrics()  # no *_created series: the other services have none


class Metrics:
    """The registry of one service: the request histogram, the admission limit (`concurrent`,
    which bankpy.web.Server.admit moves), the pool, the Python runtime."""

    def __init__(self, pool_stats: Callable[[], PoolStats], max_concurrent: int):
        self.registry = CollectorRegistry()
        self.requests = Histogram("http_server_requests_seconds",
                                  "Time spent answering HTTP requests, per route pattern and status.",
                                  ["method", "uri", "status"], buckets=BUCKETS, registry=self.registry)
        self.concurrent = Gauge("http_server_requests_concurrent", "Requests held now under the admission "
                                "limit: running or waiting for a pooled connection.", registry=self.registry)
        Gauge("http_server_requests_concurrent_max", "The admission limit: past it, a request is answered "
              "503 at once.", registry=self.registry).set(max_concurrent)
        prometheus_client.GCCollector(registry=self.registry)
        prometheus_client.ProcessCollector(registry=self.registry)
        prometheus_client.PlatformCollector(registry=self.registry)
        self.registry.register(PoolCollector(pool_stats))
        self.registry.register(RuntimeCollector())

    def observe(self, method: str, uri: str, status: int, seconds: float) -> None:
        self.requests.labels(method, uri, str(status)).observe(seconds)

    def page(self) -> bytes:
        return prometheus_client.generate_latest(self.registry)


class PoolCollector(Collector):
    """The pool's figures at each scrape, named as HikariCP's meters with db_pool_ for hikaricp_."""

    def __init__(self, stats: Callable[[], PoolStats]):
        self.stats = stats

    def collect(self) -> Iterable[Metric]:
        s = self.stats()
        label = ([POOL_NAME],)

        def family(kind, name: str, doc: str, *value) -> Metric:
            metric = kind(f"db_pool_{name}", doc, labels=["pool"])
            metric.add_metric(*label, *value)
            return metric

        yield family(GaugeMetricFamily, "connections_max", "Pool size.", s.max)
        yield family(GaugeMetricFamily, "connections", "Connections open.", s.open)
        yield family(GaugeMetricFamily, "connections_active", "Connections in use by a request.", s.active)
        yield family(GaugeMetricFamily, "connections_idle", "Connections open and idle.", s.idle)
        yield family(GaugeMetricFamily, "connections_pending", "Requests waiting for a connection.",
                     s.pending)
        yield family(SummaryMetricFamily, "connections_acquire_seconds",
                     "Time requests waited for the connections they got.", s.acquires, s.acquire_seconds)
        yield family(CounterMetricFamily, "connections_timeout",
                     "Waits for a connection that ended at the acquire timeout.", s.timeouts)
        yield family(CounterMetricFamily, "connections_created", "Connections opened since start.", s.created)


class RuntimeCollector(Collector):
    """What prometheus_client's collectors lack: the time spent in garbage collections (timed by
    gc.callbacks, as go_gc_duration_seconds times Go's pauses) and the live threads."""

    def __init__(self) -> None:
        self.collections = 0
        self.seconds = 0.0
        self.started = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, _info: dict) -> None:
        # A collection runs in one thread at a time, holding the GIL: no lock needed.
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.collections += 1
            self.seconds += time.perf_counter() - self.started

    def collect(self) -> Iterable[Metric]:
        yield SummaryMetricFamily("python_gc_duration_seconds",
                                  "Time spent in garbage collections (all generations).",
                                  count_value=self.collections, sum_value=self.seconds)
        yield GaugeMetricFamily("python_threads", "Live Python threads (threading.active_count()).",
                                threading.active_count())
