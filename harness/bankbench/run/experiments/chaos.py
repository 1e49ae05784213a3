"""`make bench CHAOS=...`: faults struck in each level's measured window.

`pg-restart` stops PostgreSQL with a fast shutdown (open transactions roll back), then starts it;
`service-kill` SIGKILLs and restarts the service (same port). The money check proves no transfer was
half done.

See docs/benchmarks.md#chaos."""

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.load import generators
from bankbench.load.profiles import Level
from bankbench.measure.resources import Sampler
from bankbench.results import bursts, files
from bankbench.results.documents import Fault
from bankbench.run.environments.interface import Service

FAULTS = ("pg-restart", "service-kill")
RECOVERY_TIMEOUT_S = 120
PROBE_INTERVAL_S = 0.1


def parse(spec: str | None) -> tuple[str, ...]:
    """The faults of a comma list such as "pg-restart,service-kill"; empty means none."""
    faults = tuple(f for f in (spec or "").split(",") if f)
    if unknown := [f for f in faults if f not in FAULTS]:
        raise UserError(f"unknown fault {', '.join(unknown)}: choose from {', '.join(FAULTS)}")
    return faults


class Injector(threading.Thread):
    """Strikes the faults of one level and measures each recovery. After a kill `svc` points at the
    restarted process, so the runner stops that one, and the sampler follows the new processes."""

    def __init__(self, faults: tuple[str, ...], level: Level, cluster, svc: processes.Running,
                 sampler: Sampler, started_ms: Callable[[], int | None], log: Path):
        super().__init__(daemon=True)
        self.faults, self.level, self.cluster, self.svc = faults, level, cluster, svc
        self.sampler, self.started_ms, self.log = sampler, started_ms, log
        self.records: list[dict] = []
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            while (started_ms := self.started_ms()) is None:  # JMeter has not started its load yet
                time.sleep(PROBE_INTERVAL_S)
            window_s, first_s = self.level.profile.duration_s, self.level.measure_offset_s
            for i, fault in enumerate(self.faults, 1):
                at_ms = started_ms + 1000 * (first_s + window_s * i / (len(self.faults) + 1))
                time.sleep(max(at_ms / 1000 - time.time(), 0))
                self.records.append(self._strike(fault))
        except Exception as err:  # handed to the runner, which fails the level loudly
            self.error = err

    def finish(self) -> list[dict]:
        """Waits for the last recovery; returns the records or raises what went wrong."""
        self.join(RECOVERY_TIMEOUT_S * (len(self.faults) + 1))
        if self.error or self.is_alive():
            raise UserError(f"chaos in {self.level.id} failed: {self.error or 'no recovery'}")
        return self.records

    def _strike(self, fault: str) -> dict:
        at_ms = int(time.time() * 1000)
        if fault == "pg-restart":
            self.cluster.stop("fast")
            self.cluster.start()
            self.sampler.watch("pg", self.cluster.postmaster_pid())
        else:
            os.killpg(self.svc.pid, signal.SIGKILL)
            self.svc.proc.wait()
            port = int(self.svc.url.rsplit(":", 1)[1])
            restarted = self.svc.service.start(port=port, pool=self.level.pool,
                                               db_env=self.cluster.env(), log=self.log,
                                               cpus=self.svc.cpus)
            self.svc.proc = restarted.proc
            self.sampler.watch("service", restarted.pid)
        recovered_ms = self._wait_healthy(at_ms)
        return {"fault": fault, "at_ms": at_ms, "recovered_ms": recovered_ms,
                "recovery_s": round((recovered_ms - at_ms) / 1000, 2)}

    def _wait_healthy(self, since_ms: int) -> int:
        deadline = since_ms / 1000 + RECOVERY_TIMEOUT_S
        with httpx.Client(base_url=self.svc.url, timeout=2) as client:
            while time.time() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if client.get("/health").status_code == 200:
                        return int(time.time() * 1000)
                time.sleep(PROBE_INTERVAL_S)
        raise UserError(f"{self.svc.service.name} not healthy {RECOVERY_TIMEOUT_S} s after the fault")


def start(faults: tuple[str, ...], level: Level, where: object, svc: Service, sampler: Sampler,
          started_ms: Callable[[], int | None], log: Path) -> Injector | None:
    """Starts striking `faults` during the level (None when there are none)."""
    if not faults:
        return None
    if (cluster := getattr(where, "cluster", None)) is None or not isinstance(svc, processes.Running):
        raise UserError("CHAOS runs with ENV=native only")
    injector = Injector(faults, level, cluster, svc, sampler, started_ms, log)
    injector.start()
    return injector


def record(level_dir: Path, injector: Injector | None) -> list[dict]:
    """The faults of a finished level with their bursts, also written to its chaos.json."""
    if injector is None:
        return []
    faults = bursts.with_bursts(injector.finish(), generators.level_samples(level_dir))
    files.write_json(level_dir / files.CHAOS, faults)
    return faults


def describe(fault: Fault, started_ms: int) -> str:
    """One line: when the fault struck, how long recovery took, what failed meanwhile."""
    codes = ", ".join(f"{code} x{b.count} over {b.duration_s:g} s" for code, b in fault.burst.items())
    return (f"{fault.fault} at +{(fault.at_ms - started_ms) / 1000:.1f} s: healthy again after "
            f"{fault.recovery_s:g} s, {fault.errors} failed requests{': ' + codes if codes else ''}")
