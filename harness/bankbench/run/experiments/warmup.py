"""The warm start: the service served until warm, then its tables emptied.

Profile `start = "warm"`: the service serves the rematch scenario until warm by quick-bench's rule
(measure.steady), at most MAX_S; then the tables are emptied. It serves the next levels alike
(saving most of a run's time) unless faults or CPU profiles need one per level.

See docs/benchmarks.md#cold-cold-with-the-aot-cache-warm."""

import collections
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from bankbench import paths
from bankbench.errors import UserError
from bankbench.load import jmeter
from bankbench.load.profiles import Level
from bankbench.measure import steady
from bankbench.run.environments.interface import Env, Service

USERS = 64  # as many requests in flight as quick-bench's wrk connections, no think time
MAX_S = 300
FOLDER = "warmup"  # in the level's folder: JMeter's log of the warm-up (its samples are dropped)


class Kept:
    """Up to `size` warm services by Level.process; the one used longest ago makes room."""

    def __init__(self, size: int = 1) -> None:
        self.size = size
        self.held: dict[tuple, tuple[Service, str]] = {}  # process -> (service, the level it warmed for)

    def get(self, level: Level) -> tuple[Service, str] | None:
        """The warm service for `level` and the level it warmed for, now the latest used. One that
        died (of OutOfMemoryError, say) is stopped: a search goes on past a rate that killed it."""
        if (found := self.held.pop(level.process, None)) and found[0].exit_code() is not None:
            found[0].stop()
            return None
        if found:
            self.held[level.process] = found
        return found

    def make_room(self) -> None:
        while len(self.held) >= self.size:
            self.held.pop(next(iter(self.held)))[0].stop()

    def hold(self, level: Level, svc: Service) -> None:
        self.make_room()
        self.held[level.process] = (svc, level.id)

    def stop(self) -> None:
        while self.held:
            self.held.popitem()[1][0].stop()


def warm_up(where: Env[Any], svc: Service, level: Level, out: Path, tag: str) -> dict:
    """Warms `svc` up for `level`, empties the tables; returns what level.json records of it."""
    profile = replace(level.profile, model="sustained", scenario="rematch", think_ms=0, rampup_s=1,
                      warmup_s=0, duration_s=MAX_S)
    load = Level(level.service, USERS, level.pool, level.repeat, profile)
    props = {**load.load_properties(), "host": "127.0.0.1", "port": svc.url.rsplit(":", 1)[1]}
    meter = steady.Meter(level.service, svc.url)
    rounds: list[steady.Round] = []
    # Read idle, before the load: a cold JVM's first scrape under 64 requests in flight once took
    # over the read's timeout (helidon), and that ended a run.
    before: tuple[float, float] | None = meter.read()
    started = time.monotonic()
    jm = jmeter.Run(props, out / FOLDER, dashboard=False)
    try:
        # JMeter's console is read, or its pipe would fill and stall it.
        threading.Thread(target=collections.deque, args=(jm.lines(), 0), daemon=True).start()
        while not steady.is_warm(rounds) and time.monotonic() - started < MAX_S and jm.proc.poll() is None:
            time.sleep(steady.ROUND_S)
            elapsed = round(time.monotonic() - started)
            try:
                now = meter.read()
            except httpx.TimeoutException:  # a round without figures: the next starts afresh
                print(f"{tag} {level.id} warm-up {elapsed:3d} s: /metrics did not answer in time, "
                      "round not counted", flush=True)
                before = None
                continue
            if before is not None:
                rounds.append(steady.Round((now[0] - before[0]) / steady.ROUND_S, now[1] - before[1]))
                print(f"{tag} {level.id} warm-up {elapsed:3d} s: "
                      f"{rounds[-1].rps:.0f} req/s, JIT {rounds[-1].jit_ms:.0f} ms in the round", flush=True)
            before = now
        failed = jm.proc.poll() not in (None, 0)
    finally:
        jm.stop()
        jm.results.unlink(missing_ok=True)
    if failed:
        raise UserError(f"JMeter's warm-up of {level.id} failed: see {out / FOLDER / 'jmeter.log'}")
    where.psql(paths.EMPTY_TABLES.read_text())
    return {"warm": steady.is_warm(rounds), "seconds": round(time.monotonic() - started),
            "users": USERS, "rounds": [r.as_dict() for r in rounds]}
