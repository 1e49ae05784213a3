"""Per-second CPU and memory samples of the service, PostgreSQL and the load generator.

See results/LAYOUT.md#metricscsv."""

import csv
import threading
import time
from pathlib import Path
from typing import Protocol

import psutil

COLUMNS = ("t_ms", "service_cpu_pct", "service_rss_mb", "pg_cpu_pct", "pg_rss_mb",
           "loadgen_cpu_pct", "machine_cpu_pct")


class Tree:
    """A process and its descendants as one: CPU time includes reaped children (PostgreSQL's exited
    backends), memory is the root's RSS plus the descendants' private resident memory."""

    def __init__(self, pid: int | None):
        self.root = psutil.Process(pid) if pid else None
        self.last_cpu: float | None = None

    def sample(self, dt: float) -> tuple[float, float]:
        cpu, mem = 0.0, 0.0
        try:
            procs = [self.root, *self.root.children(recursive=True)] if self.root else []
        except psutil.NoSuchProcess:  # the root is gone: 0 % and 0 MB from now on
            procs = []
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


class Cgroup:
    """A container's cgroup (v1 or v2), from a process in it, measured as `docker stats` does: every
    process's CPU time (health checks included), and its memory less the inactive page cache."""

    ROOT = Path("/sys/fs/cgroup")

    def __init__(self, pid: int):
        v1, v2 = {}, ""
        for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controllers:
                v1.update(dict.fromkeys(controllers.split(","), path.lstrip("/")))
            else:
                v2 = path.lstrip("/")
        self.v1 = "cpuacct" in v1 and "memory" in v1
        if self.v1:
            self.cpu = self.ROOT / "cpuacct" / v1["cpuacct"] / "cpuacct.usage"  # ns
            self.memory = self.ROOT / "memory" / v1["memory"]
        else:
            self.cpu = self.ROOT / v2 / "cpu.stat"  # usage_usec
            self.memory = self.ROOT / v2
        self.last_cpu: float | None = None

    def sample(self, dt: float) -> tuple[float, float]:
        try:
            if self.v1:
                cpu = int(self.cpu.read_text()) / 1e9
                used = int((self.memory / "memory.usage_in_bytes").read_text())
                inactive = _keyed(self.memory / "memory.stat")["total_inactive_file"]
            else:
                cpu = _keyed(self.cpu)["usage_usec"] / 1e6
                used = int((self.memory / "memory.current").read_text())
                inactive = _keyed(self.memory / "memory.stat")["inactive_file"]
        except FileNotFoundError:  # the container is gone
            return 0.0, 0.0
        pct = 0.0 if self.last_cpu is None else max(cpu - self.last_cpu, 0.0) / dt * 100
        self.last_cpu = cpu
        return pct, max(used - inactive, 0) / 2**20


def _keyed(path: Path) -> dict[str, int]:
    """A cgroup file of `name value` lines."""
    return {name: int(value) for name, value in (line.split() for line in path.read_text().splitlines())}


class Measured(Protocol):
    """What the sampler measures: a process tree (native) or a container's cgroup (compose)."""

    def sample(self, dt: float) -> tuple[float, float]:
        """CPU % of one core since the last sample, and memory in MB (0, 0 once it is gone)."""


class Background(threading.Thread):
    """A daemon thread whose run() works until `stopped` is set: stop() sets it and waits."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stopped = threading.Event()

    def stop(self) -> None:
        self.stopped.set()
        self.join()


class Sampler(Background):
    """Writes one metrics.csv row a second until stopped, and keeps them for `means`."""

    def __init__(self, out: Path, service: Measured, pg: Measured, interval: float = 1.0):
        super().__init__()
        self.out, self.interval = out, interval
        self.trees: dict[str, Measured] = {"service": service, "pg": pg, "loadgen": Tree(None)}
        self.rows: list[tuple[float, ...]] = []

    def means(self, since_ms: int) -> dict[str, float] | None:
        """Each column's mean over the rows from `since_ms` on (the progress line's); or None."""
        if not (rows := [row for row in list(self.rows) if row[0] >= since_ms]):
            return None
        return {name: sum(row[i] for row in rows) / len(rows) for i, name in enumerate(COLUMNS) if i}

    def watch(self, name: str, pid: int) -> None:
        """Measures `pid` and its children as `name` from now on (a late generator, a restart)."""
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
                service, pg = self.trees["service"].sample(dt), self.trees["pg"].sample(dt)
                lg_cpu = self.trees["loadgen"].sample(dt)[0]
                row = (int(time.time() * 1000), *service, *pg, lg_cpu, psutil.cpu_percent(None))
                writer.writerow([row[0], *(f"{value:.1f}" for value in row[1:])])
                f.flush()
                self.rows.append(row)
