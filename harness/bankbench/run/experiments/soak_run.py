"""`make soak`'s run: each warm service at its soak rate, watched minute by minute.

Each for the profile's minutes, watched while the load runs: PostgreSQL's connections and table
sizes every STEP_S, the money check at the midpoint (one statement: a snapshot of committed
transfers, taken without stopping the load), and a progress line each minute from the service's
/metrics and its process. The level's own files (histograms, metrics.csv, service_metrics.csv,
money.json at the end) are written as for any level.

See docs/benchmarks.md#endurance-make-soak."""

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from bankbench import paths
from bankbench.analyse.service_metrics import MB
from bankbench.bank import money
from bankbench.bank.processes import Running
from bankbench.errors import UserError
from bankbench.load.profiles import Level, levels, rates_text
from bankbench.measure import resources, scrape
from bankbench.measure.resources import Background
from bankbench.results import files, soak_record
from bankbench.run.environments.interface import Env, Options
from bankbench.run.runner import Session, remaining

STEP_S = 10  # PostgreSQL's figures: six a minute, the points of a short soak's trends (analyse.trends)
# Client backends but the watcher's own, then each table of the schema's (public) with its sizes.
PG_STATS_SQL = """
SELECT count(*), count(*) FILTER (WHERE state = 'active'), count(*) FILTER (WHERE state = 'idle')
  FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid();
SELECT relname, pg_relation_size(oid), pg_indexes_size(oid), pg_total_relation_size(oid)
  FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname;
"""


def run(opts: Options, judge: Callable[[Path, Level, str], None]) -> Path:
    """Soaks each service in turn; after each, `judge`(run folder, level, why it failed or "") while
    the run goes on: a service that fails (money lost, the generator failed) does not stop the next."""
    planned = levels(opts.profile)
    with Session(opts) as session:
        print(f"bankbench soak: {', '.join(level.service for level in planned)} in turn, "
              f"{opts.profile.duration_s // 60} min each at "
              f"{rates_text({lv.service: round(lv.schedule()[-1][1]) for lv in planned}, opts.profile.rate_source)}"
              f" -> {session.run_dir}", flush=True)
        calibrated = session.where.calibrate(planned, session.run_dir)
        for i, level in enumerate(planned):
            tag = f"[soak {i + 1}/{len(planned)} {level.service}]"
            out = files.level_dir(session.run_dir, level.id)
            failed = ""
            try:
                session.run_level(level, tag, remaining(planned[i:]), calibrated.get(level.users),
                                  watch=partial(watching, session.where, level=level, out=out, tag=tag))
            except UserError as err:
                failed = str(err)
                print(f"{tag} {level.id} did not run through: {failed}", flush=True)
            judge(session.run_dir, level, failed)
    return session.final


@contextmanager
def watching(where: Env[Any], svc: Running, level: Level, out: Path, tag: str) -> Iterator[None]:
    watcher = Watcher(where, svc, level, out, tag)
    watcher.start()
    try:
        yield
    finally:
        watcher.stop()


class Watcher(Background):
    """From the load's start to its end: PostgreSQL every STEP_S, the money check once at the
    measured window's midpoint, a progress line at the end of each measured minute."""

    def __init__(self, where: Env[Any], svc: Running, level: Level, out: Path, tag: str):
        super().__init__()
        self.where, self.svc, self.level, self.out, self.tag = where, svc, level, out, tag
        self.wanted = scrape.selectors(level.service)
        self.process = resources.Tree(svc.pid)
        self.pg: dict[str, float] = {}
        self.last: tuple[float, dict[str, float]] | None = None  # the previous minute's /metrics
        self.money_told = ""

    def run(self) -> None:
        """Whatever comes first of the next sample, the midpoint and the next minute's end; the load
        may end before the last minute's line is due (the generator's JVM started late): it is told
        then, up to the end."""
        start, offset = time.monotonic(), self.level.measure_offset_s
        minutes = self.level.measured_s // 60
        midpoint = offset + self.level.measured_s / 2
        sample_at, minute, checked = 0.0, 0, False
        while minute <= minutes:
            due = min(sample_at, offset + 60 * minute, *(() if checked else (midpoint,)))
            if self.stopped.wait(max(due - (time.monotonic() - start), 0)):
                if minute > 0:
                    self.guarded(self.progress, minute, minutes)
                return
            now = time.monotonic() - start
            if now >= sample_at:
                sample_at += STEP_S
                self.guarded(self.sample_pg)
            if not checked and now >= midpoint:
                checked = True
                self.guarded(self.check_money)
            if now >= offset + 60 * minute:
                self.guarded(self.progress, minute, minutes)
                minute += 1

    def guarded(self, step: Callable[..., None], *args: int) -> None:
        try:
            step(*args)
        except (UserError, httpx.HTTPError, ValueError) as err:  # a watcher's miss stops no soak
            print(f"{self.tag} watcher: {err}", flush=True)

    def sample_pg(self) -> None:
        connections, *tables = self.where.psql(PG_STATS_SQL).splitlines()
        total, active, idle = map(float, connections.split("|"))
        self.pg = {soak_record.PG_CONNECTIONS: total, soak_record.PG_ACTIVE: active, soak_record.PG_IDLE: idle}
        for row in tables:
            name, *sizes = row.split("|")
            self.pg |= {soak_record.relation_series(name, part): int(size) / MB
                        for part, size in zip(soak_record.RELATION_PARTS, sizes, strict=True)}
        soak_record.append_pg_stats(self.out, int(time.time() * 1000), self.pg)

    def check_money(self) -> None:
        check = money.parse(self.where.psql(paths.MONEY_CHECK.read_text()))
        soak_record.write_midpoint_money(self.out, int(time.time() * 1000), check)
        self.money_told = f"; money at the midpoint {'ok' if check.ok else 'FAILED'}"

    def progress(self, minute: int, minutes: int) -> None:
        """Minute 0, the measured window's start, only takes the /metrics the first minute starts from."""
        page = httpx.get(f"{self.svc.url}/metrics", timeout=5).text
        now, figures = time.monotonic(), scrape.values(page, self.wanted)
        last, self.last = self.last, (now, figures)
        rss_mb = self.process.sample(1.0)[1]
        if minute == 0 or last is None:
            return
        seconds, before = now - last[0], last[1]
        gained = {key: figures.get(key, 0) - before.get(key, 0) for key in figures if key.startswith("requests")}
        failed = sum(count for key, count in gained.items() if key.startswith(f"{scrape.STATUS_PREFIX}5"))
        tables_mb = sum(value for key, value in self.pg.items() if key.endswith(f".{soak_record.TOTAL_PART}"))
        print(f"{self.tag} {self.level.id} minute {minute} of {minutes}: "
              f"{gained.get(scrape.REQUESTS_KEY, 0) / seconds:,.0f} req/s, 5xx {failed:,.0f}, RSS {rss_mb:,.0f} MB, "
              f"heap {figures.get('heap_bytes', 0) / MB:,.0f} MB, threads {figures.get('threads', 0):,.0f}, "
              f"pool {figures.get('pool_active', 0):.0f} busy {figures.get('pool_idle', 0):.0f} idle; PostgreSQL "
              f"{self.pg.get(soak_record.PG_CONNECTIONS, 0):.0f} connections "
              f"({self.pg.get(soak_record.PG_ACTIVE, 0):.0f} active), tables {tables_mb:,.1f} MB{self.money_told}",
              flush=True)
        self.money_told = ""
