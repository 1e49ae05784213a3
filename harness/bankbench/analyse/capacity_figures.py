"""The figures of a `make capacity` run (its capacity.json and its levels' summaries): per
service the rate found, and at it the throughput, p99, CPU per request and RSS over the probes
that held the target there (medians with 95 % intervals, bankbench.analyse.stats), the smallest
heap found and the RSS with it; and their projection onto AWS instances."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from bankbench import paths
from bankbench.analyse import projection, stats, summaries
from bankbench.analyse.formatting import significant, with_interval
from bankbench.analyse.rawdata import read_json
from bankbench.analyse.runs import CAPACITY_FILE, Run, find_runs, placement_of

FILE = CAPACITY_FILE  # in the run folder
P99_MS = 50.0  # the latency target (make capacity P99_MS=)
MAX_ERROR_PCT = 0.1  # errors must stay under it
RSS = "resources.service_rss_max_mb"  # the RSS the figures give: the peak of the level
PROJECTED_ON = ("m5.large", "c5d.large")  # the instances the verdict prices
LOADGEN = "load generator"  # the miss of a level at which the load generator did not hold up


@dataclass(frozen=True)
class Target:
    """What a level must achieve to count as held."""

    p99_ms: float = P99_MS
    max_error_pct: float = MAX_ERROR_PCT

    def misses(self, summary: dict) -> list[str]:
        """What of the target a level's summary missed: "money" (its check failed), "load
        generator" (it did not hold up: bankbench.load.generator), "p99", "errors"."""
        overall = summary["overall"]
        return [name for name, missed in (
            ("money", not summary["money_ok"]),
            (LOADGEN, not summary["loadgen"]["valid"]),
            ("p99", overall["p99_ms"] is None or overall["p99_ms"] > self.p99_ms),
            ("errors", overall["error_pct"] is None or overall["error_pct"] >= self.max_error_pct)) if missed]

    def held(self, summary: dict) -> bool:
        """Whether a level's summary meets the whole target."""
        return not self.misses(summary)


@dataclass(frozen=True)
class Capacity:
    """One service's capacity, each figure over the probes that held the target there."""

    service: str
    rate: int | None  # iterations/s, the highest that held and was confirmed (None: none held)
    failed_at: int | None  # the lowest rate above it that missed (None: none did)
    # The load generator did not hold up at failed_at: the capacity is the generator's, a lower
    # bound of the service's.
    generator_bound: bool
    complete: bool  # False: the budget ran out before the search was done
    throughput: stats.Figure  # requests/s at the rate
    p99_ms: stats.Figure
    cpu_ms: stats.Figure  # the service's CPU ms per request
    pg_cpu_ms: stats.Figure
    rss_mb: stats.Figure  # with the service's own heap settings
    heap_mb: int | None  # the smallest heap of the sweep that held the rate (None: none, or not swept)
    heap_failed_at: int | None
    rss_heap_mb: stats.Figure  # with that heap
    # The load generator did not hold up at heap_failed_at: that heap's verdict is unknown.
    heap_generator_bound: bool = False

    def rate_text(self) -> str:
        """`400 (450 missed)`: the rate found and the one above it that missed, or why none."""
        if self.rate is None:
            return "none held" + ("" if self.complete else " (budget ran out)")
        if self.generator_bound:
            return f">= {self.rate:,} (at {self.failed_at:,} the load generator fell short)" \
                + ("" if self.complete else ", budget ran out")
        above = f" ({self.failed_at:,} missed)" if self.failed_at else " (the top rate tried)"
        return f"{self.rate:,}{above}" + ("" if self.complete else ", budget ran out")

    def heap_text(self) -> str:
        """`256 (128 missed)`, `256 (at 128 the load generator fell short)`, or `-` where there
        was no sweep or no heap held."""
        if self.heap_mb is None:
            return "-"
        if self.heap_generator_bound:
            return f"{self.heap_mb} (at {self.heap_failed_at} the load generator fell short)"
        return f"{self.heap_mb}" + (f" ({self.heap_failed_at} missed)" if self.heap_failed_at else " (smallest swept)")

    def rss_per_krps(self) -> projection.Span:
        """MB of RSS per 1,000 requests/s at the capacity, at the smallest heap where there is
        one: the widest interval the two figures' intervals allow."""
        rss = self.rss_heap_mb if self.heap_mb else self.rss_mb
        rate = self.throughput
        return projection.Span(1000 * rss.value / rate.value, 1000 * rss.low / rate.high,
                               1000 * rss.high / rate.low)


def is_capacity_run(run: Run) -> bool:
    return run.searched


def document(run: Run) -> dict:
    """The run's capacity.json."""
    return read_json(run.path / FILE)


def figures(run: Run) -> list[Capacity]:
    """Every searched service's capacity, in the registry's order."""
    doc = document(run)
    found = []
    for service in sorted(doc["services"], key=summaries.service_order):
        record = doc["services"][service]
        rate, heap = record.get("rate", {}), record.get("heap", {})
        at_rate = _held(run, record, rate.get("found"), None)
        complete = bool(rate.get("complete")) and heap.get("complete", True)
        found.append(Capacity(
            service, rate.get("found"), rate.get("failed_at"), _generator_missed(record, rate.get("failed_at")),
            complete,
            *(stats.figure(at_rate, column) for column in (
                "overall.throughput_rps", "overall.p99_ms", "efficiency.service_cpu_ms_per_request",
                "efficiency.pg_cpu_ms_per_request", RSS)),
            heap.get("found"), heap.get("failed_at"),
            stats.figure(_held(run, record, rate.get("found"), heap["found"]) if heap.get("found") else
                         run.summary.iloc[:0], RSS),
            _heap_generator_missed(record, heap.get("rate"), heap.get("failed_at"))))
    return found


def newest_capacities(mode: str, root: Path = paths.RUNS) -> tuple[dict[str, int], str] | None:
    """Each service's capacity (the rate its search found and confirmed) in the newest complete
    capacity run under `root` taken under CPU placement `mode`, else in the newest under any
    placement, with a sentence naming that run; None where there is no capacity run. A service
    whose search found no rate is left out."""
    searched = [path for path in find_runs(root) if (path / FILE).is_file()]
    if not searched:
        return None
    placements = {path: placement_of(read_json(path / "manifest.json")) for path in searched}
    same = [path for path in searched if placements[path] == mode]
    path = (same or searched)[-1]
    found = {service: record["rate"]["found"] for service, record in read_json(path / FILE)["services"].items()
             if record.get("rate", {}).get("found") is not None}
    where = f"CPU placement {placements[path]}" + ("" if same else f"; none ran under this run's {mode}")
    return found, f"the capacity make capacity found in run {path.name}, {where}"


def target_ms(run: Run) -> float:
    return float(document(run)["target"]["p99_ms"])


def _generator_missed(record: dict, rate: int | None) -> bool:
    """Whether a probe at `rate` (the service's own heap) found the load generator short."""
    return any(p["rate"] == rate and p["heap_mb"] is None and LOADGEN in p.get("missed", ())
               for p in record["probes"])


def _heap_generator_missed(record: dict, rate: int | None, heap_mb: int | None) -> bool:
    """Whether the sweep's last probe of `heap_mb` missed by the load generator alone, so that
    bankbench.run.experiments.capacity_search.held_heap stopped measuring it again without a
    verdict on the heap."""
    probes = [p for p in record["probes"] if p["rate"] == rate and p["heap_mb"] == heap_mb]
    return heap_mb is not None and bool(probes) and probes[-1].get("missed") == [LOADGEN]


def _held(run: Run, record: dict, rate: int | None, heap_mb: int | None) -> pd.DataFrame:
    """The summary rows of the probes at `rate` and `heap_mb` that held the target."""
    ids = [p["level"] for p in record["probes"]
           if p["rate"] == rate and p["heap_mb"] == heap_mb and p["held"] and rate is not None]
    return run.summary[run.summary["level_id"].isin(ids)]


def rss_by_heap(run: Run) -> pd.DataFrame:
    """Per service and heap probed: the RSS (peak) median with its interval over the levels
    that ran, and whether they held the target; `heap_mb` NaN: the service's own settings at the
    capacity rate."""
    doc, rows = document(run), []
    for service, record in doc["services"].items():
        rate = record.get("heap", {}).get("rate")
        probes = pd.DataFrame(record["probes"])
        if rate is None or probes.empty:
            continue
        at_rate = probes[(probes["rate"] == rate) & probes["level"].isin(run.summary["level_id"])]
        for heap_mb, group in at_rate.groupby("heap_mb", dropna=False):
            figure = stats.figure(run.summary[run.summary["level_id"].isin(group["level"])], RSS)
            rows.append({"service": service, "heap_mb": heap_mb, "rss_mb": figure.value, "rss_mb.low": figure.low,
                         "rss_mb.high": figure.high, "held": bool(group["held"].all())})
    return pd.DataFrame(rows, columns=["service", "heap_mb", "rss_mb", "rss_mb.low", "rss_mb.high", "held"])


def projections(run: Run, found: list[Capacity], measured: Sequence[Run] = ()) -> \
        tuple[list[projection.Projection], projection.Assumptions]:
    """The cost on PROJECTED_ON of each service's CPU per request at its capacity; where an AWS
    run is among the open-model runs `measured` (`projection.preferred`), of its CPU per request
    instead, measured on the service's own instance type (`cpu_at_target`)."""
    instances = projection.catalog()
    target = Target(**document(run)["target"])
    basis = projection.preferred([run, *(other for other in measured if other.manifest.get("env") == projection.AWS)])
    if basis is run:
        cpu = {c.service: c.cpu_ms for c in found}
        at = f"at its capacity for p99 <= {target.p99_ms:g} ms"
    else:
        cpu = cpu_at_target(basis, target)
        at = f"at the highest offered rate at which it held p99 <= {target.p99_ms:g} ms"
    assumptions = projection.Assumptions(projection.Basis.of(basis, instances), at)
    return [projection.project(service, projection.Span.of(figure), instances[name], assumptions)
            for service, figure in cpu.items() if not np.isnan(figure.value) for name in PROJECTED_ON], assumptions


def cpu_at_target(run: Run, target: Target) -> dict[str, stats.Figure]:
    """Per service of an open-model run: its CPU ms per request at the highest offered rate whose
    usable repeats held `target` (median p99 and errors), over those repeats."""
    usable = run.summary[summaries.usable(run.summary)]
    found = {}
    for service, rows in summaries.by_service(usable):
        held = [rate for rate, at in rows.groupby("users")
                if stats.figure(at, "overall.p99_ms").value <= target.p99_ms
                and stats.figure(at, "overall.error_pct").value < target.max_error_pct]
        if held:
            found[service] = stats.figure(rows[rows["users"] == max(held)], "efficiency.service_cpu_ms_per_request")
    return found


def text(run: Run) -> str:
    """The capacities as a terminal table."""
    rows = [[c.service, c.rate_text(), with_interval(*_span(c.throughput)), with_interval(*_span(c.p99_ms)),
             with_interval(*_span(c.cpu_ms), significant), with_interval(*_span(c.rss_mb)), c.heap_text(),
             with_interval(*_span(c.rss_heap_mb))] for c in figures(run)]
    return tabulate(rows, ["service", "capacity it/s", "req/s", "p99 ms", "CPU ms/req", "RSS MB",
                           "min heap MB", "RSS MB at it"], disable_numparse=True, stralign="right")


def _span(figure: stats.Figure) -> tuple[float, float, float]:
    return figure.value, figure.low, figure.high
