"""A level's figures (its summary.json) and a run's summary.csv, computed from their files.

The definitions every table, chart and sentence of the report rests on (results/LAYOUT.md's
summary.json says what each figure is).

- Measured window: the requests from `measure_from_ms` on (the histograms' seconds from 0);
  earlier ones are warm-up. Throughput divides by the seconds to the end of the last measured
  request, the same for each label, so label throughputs add up to the overall one.
- Resources, service metrics and CPU per request are over the same window, up to the second
  holding its last request's end and not after `ended_ms`: JMeter's dashboard after it is not load.
- The load generator's verdict (load.validity) counts the whole load's arrivals, warm-up included
  (what the plan asked), and each phase's too: an average can hide one it fell behind in.

See results/LAYOUT.md#summaryjson and docs/method.md#latency-percentiles."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from bankbench.analyse import estimates, service_metrics
from bankbench.analyse.service_metrics import number
from bankbench.errors import UserError
from bankbench.load import validity
from bankbench.measure import steady
from bankbench.results import files, histograms, summaries
from bankbench.results.documents import LevelRecord, LevelSummary
from bankbench.results.histograms import Histograms
from bankbench.results.summaries import ASSERTION, NO_RESPONSE, status_order

PERCENTILES = {"p50_ms": 0.50, "p90_ms": 0.90, "p95_ms": 0.95, "p99_ms": 0.99}
# summary.json resource figure -> (metrics.csv column, pandas aggregation)
RESOURCES = {
    figure.format(how): (column, how)
    for column, figure in (
        ("service_cpu_pct", "service_cpu_{}"), ("service_rss_mb", "service_rss_{}_mb"),
        ("pg_cpu_pct", "pg_cpu_{}"), ("pg_rss_mb", "pg_rss_{}_mb"),
        ("loadgen_cpu_pct", "loadgen_cpu_{}"))
    for how in ("mean", "max")
} | {"machine_cpu_mean": ("machine_cpu_pct", "mean")}


def summarize_run(run_dir: Path, force: bool = False) -> pd.DataFrame:
    """Summarizes every level of a run (reusing a level's summary.json of this version and newer
    than its inputs, unless `force`), writes summary.csv and summary.json: `summaries.read_summary`'s."""
    if not (level_dirs := files.level_dirs(run_dir)):
        raise UserError(f"{run_dir} holds no levels/<level>/level.json: is it a run folder?")
    return summaries.write_run(run_dir, [summaries.flatten(_summary(level_dir, force), level_dir.name)
                                         for level_dir in level_dirs])


def _summary(level_dir: Path, force: bool) -> dict:
    return (None if force else summaries.fresh_level(level_dir)) or summarize_level(level_dir)


def summarize_level(level_dir: Path) -> dict:
    """Computes a level's summary.json from its files, writes it and returns it."""
    return summaries.write_level(level_dir, level_summary(level_dir))


def level_summary(level_dir: Path, intervals: bool = True, resources: bool = True,
                  level: LevelRecord | None = None) -> dict:
    """A level's summary.json but the version. Without `intervals`, no `seconds_ci` (a slow
    bootstrap); without `resources`, no metrics.csv read (on AWS it comes when the run closes);
    `level`: its record, where the level has not written it yet."""
    level = level or files.level_record(level_dir)
    requests = histograms.read(level_dir / histograms.FILE)
    measured, seconds = measured_window(level, requests)
    summary: dict[str, Any] = {
        "level": level.document,
        "money_ok": files.money_ok(level_dir),
        "overall": latency_stats(requests, measured, seconds),
        "labels": {str(label): latency_stats(requests, rows.index, seconds)
                   for label, rows in requests.rows.loc[measured].groupby("label", observed=True)},
    }
    rps = summary["overall"]["throughput_rps"]
    if resources:
        metrics = resource_window(level, files.read_metrics(level_dir), seconds)
        summary["resources"] = resource_stats(metrics, level.loadgen_cpus, level.loadgen_peers)
        summary["efficiency"] = {  # CPU ms per request (module doc)
            f"{role}_cpu_ms_per_request": number(metrics[f"{role}_cpu_pct"].mean() * 10 / rps)
            if rps else None for role in ("service", "pg")}
    summary["loadgen"] = validity.judge(level, summary.get("resources"), offered(requests, level),
                                         rps, offered_by_phase(requests, level))
    if intervals:
        summary["seconds_ci"] = estimates.second_intervals(requests.seconds(measured), requests.latencies(measured))
    if files.has_service_metrics(level_dir):
        scrapes = files.read_service_metrics(level_dir)
        # The generator's measured window: after the load the service idles, which would dilute rates.
        summary["service_metrics"] = service_metrics.window_stats(scrapes, level.measure_from_ms,
                                                               level.measure_from_ms + seconds * 1000)
    return summary


def judged(level_dir: Path, resources: bool = True, level: LevelRecord | None = None) -> LevelSummary:
    """A level's summary without its intervals (a slow bootstrap), as a run reads it to judge the
    level: `level_summary`'s, its `resources` and `level` alike."""
    return LevelSummary.of(level_summary(level_dir, intervals=False, resources=resources, level=level))


def jit_share(level_dir: Path) -> float | None:
    """The share of the level's measured window, to the load's end, its service's JIT compiled
    (service_metrics.busy_share of `jit_ms`, steady.JIT); None: no JIT, or no scrapes."""
    if not files.has_service_metrics(level_dir):
        return None
    level = files.level_record(level_dir)
    return service_metrics.busy_share(files.read_service_metrics(level_dir), steady.JIT, level.measure_from_ms,
                                      level.ended_ms)


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
    """A level's measured phases (none: no phases)."""
    starts = np.cumsum([0] + [phase.seconds for phase in level.phases])[:-1]
    return tuple(Phase(int(start), int(start + phase.seconds), phase.multiple, phase.rate)
                 for start, phase in zip(starts, level.phases, strict=True))


def offered(requests: Histograms, level: LevelRecord) -> dict | None:
    """The arrivals the generator offered against the plan's (bankbench.load.validity.offered);
    None where the level plans none."""
    arrivals = level.arrivals
    return None if arrivals is None else _offered(requests.rows, arrivals.rate, arrivals.window_s)


def offered_by_phase(requests: Histograms, level: LevelRecord) -> list[dict]:
    """Per measured phase: `seconds`, `multiple` and the arrivals started within it (`offered`)."""
    rows = requests.rows
    return [{"seconds": phase.end_s - phase.start_s, "multiple": phase.multiple,
             **_offered(rows[rows["second"].between(phase.start_s, phase.end_s - 1)], phase.rate,
                        phase.end_s - phase.start_s)}
            for phase in phases(level)]


def _offered(rows: pd.DataFrame, rate: float, window_s: float) -> dict:
    return validity.offered(int(rows["iterations"].sum()), rows["first_iteration_ms"].min(),
                             rows["last_iteration_ms"].max(), rate, window_s)


def resource_window(level: LevelRecord, metrics: pd.DataFrame, seconds: float) -> pd.DataFrame:
    """The metrics.csv rows of the measured window (module doc)."""
    start = level.measure_from_ms
    end: float = level.ended_ms
    if not pd.isna(seconds):
        end = min(end, start + 1000 * (seconds + 1))
    return metrics[metrics["t_ms"].between(start, end)]


def generator_figures(level: LevelRecord, requests: Histograms, metrics: pd.DataFrame) -> dict:
    """What a load generator's run achieved, as bankbench.run.experiments.calibration records it."""
    measured, seconds = measured_window(level, requests)
    overall = latency_stats(requests, measured, seconds)
    used = resource_stats(resource_window(level, metrics, seconds), level.loadgen_cpus)
    figures = {**{name: overall[name] for name in ("requests", "errors", "throughput_rps", "p99_ms")},
               **{name: used[name] for name in ("loadgen_cpu_mean", "loadgen_cpu_max", "service_cpu_mean",
                                                "machine_cpu_mean", "loadgen_saturated")},
               "loadgen_cpus": level.loadgen_cpus, **(offered(requests, level) or {})}
    return {**figures, "drives_plan": validity.drives_plan(figures)}


def per_second_percentiles(requests: Histograms, rows: pd.Index | None = None) -> pd.DataFrame:
    """Per `second`, the p50 and p99 (`p50_ms`, `p99_ms`) of `rows`' requests (default all)."""
    latency = pd.Series(requests.latencies(rows), dtype="float64").groupby(requests.seconds(rows))
    return pd.DataFrame({"p50_ms": latency.quantile(0.50), "p99_ms": latency.quantile(0.99)})


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
        "error_pct": number(100 * errors / count) if count else None,
        "throughput_rps": number(count / seconds) if seconds > 0 else None,
        "mean_ms": number(elapsed.mean()),
        **{name: number(value) for name, value in zip(PERCENTILES, quantiles, strict=True)},
        "max_ms": number(elapsed.max()),
        "errors_by_status": errors_by_status(chosen),
    }


def errors_by_status(rows: pd.DataFrame) -> dict[str, int]:
    """Failed requests per HTTP status, then "assertion" (a 2xx whose body failed an assertion) and
    "no response" (no HTTP answer); the plan's expected answers (422) are successes, not here."""
    failed = rows[~rows["ok"]].groupby("status", observed=True)["requests"].sum()
    counts = failed[failed > 0].groupby(error_kind, observed=True).sum()
    return {kind: int(counts[kind]) for kind in sorted(counts.index, key=status_order)}


def error_kind(code: object) -> str:
    """The errors_by_status key of a failed request's response code."""
    text = str(code).strip()
    if not text.isdigit():
        return NO_RESPONSE
    return ASSERTION if 200 <= int(text) < 300 else text


def resource_stats(metrics: pd.DataFrame, loadgen_cpus: int | None = None, peers: Sequence[str] = ()) -> dict:
    """CPU and memory figures of a window's metrics rows, and whether the generator saturated
    (validity.saturated): on its `loadgen_cpus` with its `peers` there ("pg"), else the machine."""
    figures = {name: number(metrics[column].agg(how)) for name, (column, how) in RESOURCES.items()}
    saturated = validity.saturated(validity.busy(figures, peers, "{}_cpu_mean"), loadgen_cpus,
                                    figures["machine_cpu_mean"], figures["service_cpu_mean"])
    return {**figures, "loadgen_saturated": saturated}
