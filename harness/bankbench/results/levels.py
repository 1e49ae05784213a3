"""A level's figures, computed from its files (results/LAYOUT.md): the definitions every table,
chart and sentence of the report rests on.

- Measured window: the requests that start at or after `measure_from_ms` (the histograms'
  seconds from 0 on, bankbench.results.histograms); earlier ones are warm-up and count nowhere.
- Throughput: measured requests / (end of the last measured request - `measure_from_ms`), in
  seconds. Each label uses the same window, so label throughputs add up to the overall one.
- Percentiles: pandas `quantile` over every measured request's latency, linear interpolation
  between the two nearest (latencies as the histograms hold them: exact below 2,048 ms).
- Error %: requests the generator marked failed (failed assertions included) over measured ones.
- Errors by status: those failed requests by response code; a failed request whose answer was a
  2xx failed an assertion on its body ("assertion"), one without an HTTP answer (refused,
  reset, timed out: JMeter's "Non HTTP response code: ...") is "no response". The plan's
  expected answers (422 to a transfer: insufficient funds) are successes and count nowhere.
- Resources: the metrics.csv rows from `measure_from_ms` to the second holding the end of the
  last request, and not after `ended_ms` (`resource_window`: JMeter's dashboard after the load
  is not load).
- Service metrics: from service_metrics.csv.xz where the level has one, over the same window
  (bankbench.results.service_metrics says how gauges and counters are read).
- CPU per request (`efficiency`): the CPU milliseconds the service's processes (PostgreSQL's
  apart) used per measured request, over the same window: their mean CPU % of one core x 10 /
  throughput; PostgreSQL's likewise.
- `loadgen_saturated`: the load generator was short of CPU (bankbench.load.validity says when).
  With PostgreSQL beside it on its CPUs (service-alone, `loadgen_peers` in level.json), the CPU
  the two used together counts: its threads queued behind PostgreSQL's backends.
- The load generator's verdict (`loadgen`): whether the level is valid, and if not why
  (bankbench.load.validity). The arrivals count over every request of the load, warm-up
  included: they are what the plan asked of the generator. A level with phases (profile
  overload) is also judged phase by phase, on the iterations started within each measured
  phase's seconds (`phases`) against its own rate: a level's average can hide a phase the
  generator fell behind in.
- Per-second intervals (`seconds_ci`): bootstrap intervals of throughput and p99 over the whole
  seconds of the measured window, for levels with too few repeats (bankbench.estimates).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from bankbench import estimates
from bankbench.load import validity
from bankbench.results import files, histograms, service_metrics
from bankbench.results.documents import LevelRecord
from bankbench.results.histograms import Histograms

PERCENTILES = {"p50_ms": 0.50, "p90_ms": 0.90, "p95_ms": 0.95, "p99_ms": 0.99}
# What a level's summary is computed from.
INPUTS = (files.LEVEL, histograms.FILE, files.METRICS, files.MONEY)
OPTIONAL_INPUTS = (files.SERVICE_METRICS,)  # levels of runs before it have none
ASSERTION, NO_RESPONSE = "assertion", "no response"  # errors_by_status keys besides HTTP codes
# summary.json resource figure -> (metrics.csv column, pandas aggregation)
RESOURCES = {
    "service_cpu_mean": ("service_cpu_pct", "mean"),
    "service_cpu_max": ("service_cpu_pct", "max"),
    "service_rss_mean_mb": ("service_rss_mb", "mean"),
    "service_rss_max_mb": ("service_rss_mb", "max"),
    "pg_cpu_mean": ("pg_cpu_pct", "mean"),
    "pg_cpu_max": ("pg_cpu_pct", "max"),
    "pg_rss_mean_mb": ("pg_rss_mb", "mean"),
    "pg_rss_max_mb": ("pg_rss_mb", "max"),
    "loadgen_cpu_mean": ("loadgen_cpu_pct", "mean"),
    "loadgen_cpu_max": ("loadgen_cpu_pct", "max"),
    "machine_cpu_mean": ("machine_cpu_pct", "mean"),
}


def level_summary(level_dir: Path, intervals: bool = True, resources: bool = True) -> dict:
    """A level's figures (its summary.json but the version), computed from its files; without
    `intervals`, no `seconds_ci` (its bootstrap takes seconds: the progress line of a level does
    not need it); without `resources`, no metrics.csv read (on AWS it comes when the run closes)."""
    level = files.level_record(level_dir)
    requests = histograms.read(level_dir / histograms.FILE)
    measured, seconds = measured_window(level, requests)
    summary = {
        "level": level.document,
        "money_ok": bool(files.money(level_dir)["ok"]),
        "overall": latency_stats(requests, measured, seconds),
        "labels": {str(label): latency_stats(requests, rows.index, seconds)
                   for label, rows in requests.rows.loc[measured].groupby("label", observed=True)},
    }
    if resources:
        metrics = resource_window(level, files.read_metrics(level_dir), seconds)
        summary["resources"] = resource_stats(metrics, level.loadgen_cpus, level.loadgen_peers)
        summary["efficiency"] = cpu_per_request(metrics, summary["overall"]["throughput_rps"])
    summary["loadgen"] = validity.judge(level, summary.get("resources"), offered(requests, level),
                                         summary["overall"]["throughput_rps"], offered_by_phase(requests, level))
    if intervals:
        summary["seconds_ci"] = estimates.second_intervals(requests.seconds(measured), requests.latencies(measured))
    if files.has_service_metrics(level_dir):
        scrapes = files.read_service_metrics(level_dir)
        # The generator's measured window: after the load the service idles, which would dilute rates.
        summary["service_metrics"] = service_metrics.window_stats(scrapes, level.measure_from_ms,
                                                               level.measure_from_ms + seconds * 1000)
    return summary


def measured_window(level: LevelRecord, requests: Histograms) -> tuple[pd.Index, float]:
    """The histogram rows of the measured window, and its length in seconds (NaN: no request)."""
    rows = requests.rows[requests.rows["second"] >= 0]
    return rows.index, (rows["end_ms"].max() - level.measure_from_ms) / 1000


class Phase(NamedTuple):
    """A phase of the arrivals, in seconds of the measured window: [start_s, end_s)."""

    start_s: int
    end_s: int
    multiple: float
    rate: float


def phases(level: LevelRecord) -> tuple[Phase, ...]:
    """A level's measured phases, in seconds of its measured window (none: no phases)."""
    starts = np.cumsum([0] + [phase["seconds"] for phase in level.phases])[:-1]
    return tuple(Phase(int(start), int(start + phase["seconds"]), phase["multiple"], phase["rate"])
                 for start, phase in zip(starts, level.phases, strict=True))


def offered(requests: Histograms, level: LevelRecord) -> dict | None:
    """The arrivals the generator offered against the plan's (bankbench.load.validity.offered)."""
    return _offered(requests.rows, level.arrivals)


def offered_by_phase(requests: Histograms, level: LevelRecord) -> list[dict]:
    """Per measured phase, with its `seconds` and `multiple`: the arrivals started within its
    seconds against its rate over them (bankbench.load.validity.offered)."""
    rows = requests.rows
    return [{"seconds": phase.end_s - phase.start_s, "multiple": phase.multiple,
             **_offered(rows[rows["second"].between(phase.start_s, phase.end_s - 1)],
                        {"rate": phase.rate, "window_s": phase.end_s - phase.start_s})}
            for phase in phases(level)]


def _offered(rows: pd.DataFrame, arrivals: dict | None) -> dict | None:
    return validity.offered(int(rows["iterations"].sum()), rows["first_iteration_ms"].min(),
                             rows["last_iteration_ms"].max(), arrivals)


def resource_window(level: LevelRecord, metrics: pd.DataFrame, seconds: float) -> pd.DataFrame:
    """The metrics.csv rows of the measured window (module doc). After its last request JMeter
    writes its dashboard, at full CPU: that is not load."""
    start, end = level.measure_from_ms, level.ended_ms
    if not pd.isna(seconds):
        end = min(end, start + 1000 * (seconds + 1))
    return metrics[metrics["t_ms"].between(start, end)]


def generator_figures(level: LevelRecord, requests: Histograms, metrics: pd.DataFrame) -> dict:
    """What a run of the load generator achieved, as bankbench.run.experiments.calibration records
    it: requests, CPU (its own, the target service's, the machine's), arrivals offered, and
    whether it drove the planned rate."""
    measured, seconds = measured_window(level, requests)
    overall = latency_stats(requests, measured, seconds)
    used = resource_stats(resource_window(level, metrics, seconds), level.loadgen_cpus)
    figures = {**{name: overall[name] for name in ("requests", "errors", "throughput_rps", "p99_ms")},
               **{name: used[name] for name in ("loadgen_cpu_mean", "loadgen_cpu_max", "service_cpu_mean",
                                                "machine_cpu_mean", "loadgen_saturated")},
               "loadgen_cpus": level.loadgen_cpus,
               **(offered(requests, level) or {})}
    return {**figures, "drives_plan": validity.drives_plan(figures)}


def latency_stats(requests: Histograms, rows: pd.Index, seconds: float) -> dict:
    """Requests, errors, throughput and latency figures of the histogram `rows` spread over `seconds`."""
    chosen = requests.rows.loc[rows]
    elapsed = pd.Series(requests.latencies(rows), dtype="float64")
    count = int(chosen["requests"].sum())
    errors = int(chosen.loc[~chosen["ok"], "requests"].sum())
    quantiles = elapsed.quantile(list(PERCENTILES.values()))
    return {
        "requests": count,
        "errors": errors,
        "error_pct": _number(100 * errors / count) if count else None,
        "throughput_rps": _number(count / seconds) if seconds > 0 else None,
        "mean_ms": _number(elapsed.mean()),
        **{name: _number(value) for name, value in zip(PERCENTILES, quantiles, strict=True)},
        "max_ms": _number(elapsed.max()),
        "errors_by_status": errors_by_status(chosen),
    }


def errors_by_status(rows: pd.DataFrame) -> dict[str, int]:
    """Failed requests per HTTP status, "assertion", "no response" (module doc): `status_order`."""
    failed = rows[~rows["ok"]].groupby("status", observed=True)["requests"].sum()
    counts = failed[failed > 0].groupby(error_kind, observed=True).sum()
    return {kind: int(counts[kind]) for kind in sorted(counts.index, key=status_order)}


def error_kind(code: object) -> str:
    """The errors_by_status key of a failed request's response code."""
    text = str(code).strip()
    if not text.isdigit():
        return NO_RESPONSE
    return ASSERTION if 200 <= int(text) < 300 else text


def status_order(status: str) -> tuple[int, str]:
    """Sort key: HTTP codes in numeric order, then "assertion", then "no response"."""
    return (int(status), "") if status.isdigit() else (10_000 + (status == NO_RESPONSE), status)


def resource_stats(metrics: pd.DataFrame, loadgen_cpus: int | None = None, peers: Sequence[str] = ()) -> dict:
    """CPU and memory figures of a window's metrics rows, and whether the generator saturated
    (module doc) on its `loadgen_cpus`, busy with its `peers` there ("pg"), else on the machine."""
    figures = {name: _number(metrics[column].agg(how)) for name, (column, how) in RESOURCES.items()}
    saturated = validity.saturated(validity.busy(figures, peers, "{}_cpu_mean"), loadgen_cpus,
                                    figures["machine_cpu_mean"], figures["service_cpu_mean"])
    return {**figures, "loadgen_saturated": saturated}


def cpu_per_request(metrics: pd.DataFrame, throughput_rps: float | None) -> dict:
    """CPU milliseconds per request of the service and of PostgreSQL (module doc)."""
    means = {role: metrics[f"{role}_cpu_pct"].mean() for role in ("service", "pg")}
    return {f"{role}_cpu_ms_per_request": _number(mean * 10 / throughput_rps) if throughput_rps
            else None for role, mean in means.items()}


def _number(value: float) -> float | None:
    """A JSON-friendly figure: None for NaN (an empty window), else rounded to 3 decimals."""
    return None if pd.isna(value) else round(float(value), 3)
