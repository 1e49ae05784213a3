"""Per-second CPU and memory samples of the service, PostgreSQL and the load generator."""

from __future__ import annotations

import csv
import threading
import time
from pathlib import Path

import psutil

COLUMNS = ("t_ms", "service_cpu_pct", "service_rss_mb", "pg_cpu_pct", "pg_rss_mb",
           "loadgen_cpu_pct", "machine_cpu_pct")


class Tree:
    """A process and its descendants, measured as one: CPU time includes reaped children (so
    PostgreSQL backends that exited still count), memory is the root's RSS plus the private
    resident memory of the descendants (shared buffers are counted once)."""

    def __init__(self, pid: int | None):
        self.root = psutil.Process(pid) if pid else None
        self.last_cpu: float | None = None

    def sample(self, dt: float) -> tuple[float, float]:
        """CPU % of one core since the last sample, and memory in MB."""
        if self.root is None:
            return 0.0, 0.0
        cpu, mem = 0.0, 0.0
        try:
            procs = [self.root, *self.root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return 0.0, 0.0
        for i, proc in enumerate(procs):
            try:
                with proc.oneshot():
                    t = proc.cpu_times()
                    m = proc.memory_info()
            except psutil.NoSuchProcess:
                continue
            cpu += t.user + t.system + t.children_user + t.children_system
            mem += m.rss if i == 0 else max(m.rss - m.shared, 0)
        pct = 0.0 if self.last_cpu is None else max(cpu - self.last_cpu, 0.0) / dt * 100
        self.last_cpu = cpu
        return pct, mem / 2**20


class Sampler(threading.Thread):
    """Writes one metrics.csv row a second until stopped."""

    def __init__(self, out: Path, service_pid: int, pg_pid: int, interval: float = 1.0):
        super().__init__(daemon=True)
        self.out, self.interval = out, interval
        self.trees = {"service": Tree(service_pid), "pg": Tree(pg_pid), "loadgen": Tree(None)}
        self.stopped = threading.Event()

    def watch(self, name: str, pid: int) -> None:
        """Measures process `pid` (and its children) as `name`, "service", "pg" or "loadgen",
        from now on: the load generator starts after the sampler, a fault restarts the others."""
        self.trees[name] = Tree(pid)

    def run(self) -> None:
        psutil.cpu_percent(None)
        last = time.monotonic()
        with open(self.out, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            while not self.stopped.wait(self.interval):
                now = time.monotonic()
                dt, last = now - last, now
                svc_cpu, svc_mem = self.trees["service"].sample(dt)
                pg_cpu, pg_mem = self.trees["pg"].sample(dt)
                lg_cpu, _ = self.trees["loadgen"].sample(dt)
                writer.writerow([int(time.time() * 1000), f"{svc_cpu:.1f}", f"{svc_mem:.1f}",
                                 f"{pg_cpu:.1f}", f"{pg_mem:.1f}", f"{lg_cpu:.1f}",
                                 f"{psutil.cpu_percent(None):.1f}"])
                f.flush()

    def stop(self) -> None:
        self.stopped.set()
        self.join()
