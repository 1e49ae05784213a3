"""Figures of a benchmark run, computed from the raw files of results/LAYOUT.md.

The definitions every table, chart and sentence of the report rests on:

- Measured window: the samples that start (`timeStamp`) at or after `measure_from_ms`; earlier
  ones are warm-up and count nowhere.
- Throughput: measured requests / (end of the last measured sample - `measure_from_ms`), in
  seconds. Each label uses the same window, so label throughputs add up to the overall one.
- Percentiles: pandas `quantile`, linear interpolation between the two nearest samples.
- Error %: samples with `success=false` (failed assertions included) over measured samples.
- Errors by status: those failed samples by HTTP response code; a failed sample whose answer was
  a 2xx failed an assertion on its body ("assertion"), one without an HTTP answer (refused,
  reset, timed out: JMeter's "Non HTTP response code: ...") is "no response". The plan's
  expected answers (422 to a transfer: insufficient funds) are successes and count nowhere.
- Resources: the metrics.csv rows from `measure_from_ms` to the second holding the end of the
  last sample, and not after `ended_ms` (`resource_window`: JMeter's dashboard after the load
  is not load).
- Service metrics: from service_metrics.csv where the level has one, over the same window
  (bankbench.analyse.servicestats says how gauges and counters are read).
- CPU per request (`efficiency`): the CPU milliseconds the service's processes (PostgreSQL's
  apart) used per measured request, over the same window: their mean CPU % of one core x 10 /
  throughput; PostgreSQL's likewise.
- `loadgen_saturated`: the load generator was short of CPU (bankbench.load.generator says when).
  With PostgreSQL beside it on its CPUs (service-alone, `loadgen_peers` in level.json), the CPU
  the two used together counts: its threads queued behind PostgreSQL's backends.
- The load generator's verdict (`loadgen`): whether the level is valid, and if not why: JMeter
  short of CPU, an arrival rate offered below the plan's, or a plan beyond what the calibration
  showed JMeter can drive (bankbench.load.generator). The arrivals count over every sample of
  the load, warm-up included: they are what the plan asked of the generator.
- Repeats: a (service, users, pool) level runs `repeat` times; aggregates are the median over
  the usable repeats, those whose money check passed and whose load generator held up
  (`usable`), with a 95 % confidence interval (bankbench.analyse.stats). A failed money check or
  an invalid level is never averaged in, nor compared.
- Per-second intervals (`seconds_ci`): bootstrap intervals of throughput and p99 over the whole
  seconds of the measured window, for levels with too few repeats (bankbench.analyse.stats).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import pandas as pd
from tabulate import tabulate

from bankbench import registry
from bankbench.analyse import formatting, servicestats, stats
from bankbench.analyse.rawdata import (
    read_json,
    read_metrics,
    read_samples,
    read_service_metrics,
    write_json,
)
from bankbench.errors import UserError
from bankbench.load import generator

LEVEL_KEYS = ("service", "users", "pool")
VALID = "loadgen.valid"  # summary.csv column: the load generator's verdict on the level
PERCENTILES = {"p50_ms": 0.50, "p90_ms": 0.90, "p95_ms": 0.95, "p99_ms": 0.99}
INPUTS = ("level.json", "jmeter.csv.gz", "metrics.csv", "money.json")
OPTIONAL_INPUTS = ("service_metrics.csv",)  # levels of runs before it have none
# What summaries hold: readers refuse another version, `summarize` recomputes it
# (2: errors by status, service metrics; 3: per-second intervals, CPU placement; 4: the load
# generator's verdict).
SUMMARY_VERSION = 4
ASSERTION, NO_RESPONSE = "assertion", "no response"  # errors_by_status keys besides HTTP codes
ERRORS_BY_STATUS = "overall.errors_by_status."  # summary.csv column prefix, then the status
SERVICE_STATUSES = "service_metrics.requests_by_status."  # the same, as the service counted answers
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
# comparison_table columns: summary.csv column -> header suffix
COMPARED = {
    "overall.throughput_rps": "req/s",
    "overall.p50_ms": "p50 ms",
    "overall.p99_ms": "p99 ms",
    "overall.error_pct": "err %",
}
FIRST = next(iter(COMPARED))  # the cell that also tells how many repeats failed


def summarize_level(level_dir: Path) -> dict:
    """Computes a level's summary.json from its raw files, writes it and returns it."""
    summary = level_summary(level_dir)
    write_json(level_dir / "summary.json", summary)
    return summary


def level_summary(level_dir: Path, intervals: bool = True, resources: bool = True) -> dict:
    """A level's summary.json, computed from its raw files; without `intervals`, no `seconds_ci`
    (its bootstrap takes seconds: the progress line of a level does not need it); without
    `resources`, no metrics.csv read (on AWS it comes when the run closes)."""
    level = read_json(level_dir / "level.json")
    start = level["measure_from_ms"]
    samples = read_samples(level_dir / "jmeter.csv.gz")
    measured, seconds = measured_window(level, samples)
    summary = {
        "summary_version": SUMMARY_VERSION,
        "level": level,
        "money_ok": bool(read_json(level_dir / "money.json")["ok"]),
        "overall": latency_stats(measured, seconds),
        "labels": {
            str(label): latency_stats(group, seconds)
            for label, group in measured.groupby("label", observed=True)
        },
    }
    if resources:
        metrics = resource_window(level, read_metrics(level_dir / "metrics.csv"), seconds)
        summary["resources"] = resource_stats(metrics, level.get("loadgen_cpus"), level.get("loadgen_peers", ()))
        summary["efficiency"] = cpu_per_request(metrics, summary["overall"]["throughput_rps"])
    summary["loadgen"] = generator.judge(level, summary.get("resources"),
                                         generator.offered(samples, level.get("arrivals")),
                                         summary["overall"]["throughput_rps"])
    if intervals:
        summary["seconds_ci"] = stats.second_intervals(
            ((measured["timeStamp"] - start) // 1000).to_numpy(dtype=int), measured["elapsed"].to_numpy(dtype=float))
    if (level_dir / "service_metrics.csv").exists():
        scrapes = read_service_metrics(level_dir / "service_metrics.csv")
        # JMeter's measured window: after the load the service idles, which would dilute rates.
        summary["service_metrics"] = servicestats.window_stats(scrapes, start, start + seconds * 1000)
    return summary


def measured_window(level: dict, samples: pd.DataFrame) -> tuple[pd.DataFrame, float]:
    """The samples of the measured window, and its length in seconds: from `measure_from_ms` to
    the end of the last sample (NaN for none)."""
    start = level["measure_from_ms"]
    measured = samples[samples["timeStamp"] >= start]
    return measured, ((measured["timeStamp"] + measured["elapsed"]).max() - start) / 1000


def resource_window(level: dict, metrics: pd.DataFrame, seconds: float) -> pd.DataFrame:
    """The metrics.csv rows of the measured window: from `measure_from_ms` to the row of the
    second that holds the end of the last sample, and none after `ended_ms`. After its last
    sample JMeter writes its dashboard, at full CPU: that is not load."""
    start, end = level["measure_from_ms"], level["ended_ms"]
    if not pd.isna(seconds):
        end = min(end, start + 1000 * (seconds + 1))
    return metrics[metrics["t_ms"].between(start, end)]


def generator_figures(level: dict, samples: pd.DataFrame, metrics: pd.DataFrame) -> dict:
    """What a run of JMeter achieved, as the calibration records it (bankbench.run.calibration):
    the requests it drove in the measured window, its CPU (and that of the service, there the
    calibration target, and the machine), the arrivals it offered against the plan's
    (bankbench.load.generator.offered), and whether it drove the planned rate."""
    measured, seconds = measured_window(level, samples)
    overall = latency_stats(measured, seconds)
    used = resource_stats(resource_window(level, metrics, seconds), level.get("loadgen_cpus"))
    figures = {**{name: overall[name] for name in ("requests", "errors", "throughput_rps", "p99_ms")},
               **{name: used[name] for name in ("loadgen_cpu_mean", "loadgen_cpu_max", "service_cpu_mean",
                                                "machine_cpu_mean", "loadgen_saturated")},
               "loadgen_cpus": level.get("loadgen_cpus"),
               **(generator.offered(samples, level.get("arrivals")) or {})}
    return {**figures, "drives_plan": generator.drives_plan(figures)}


def latency_stats(samples: pd.DataFrame, seconds: float) -> dict:
    """Requests, errors, throughput and latency figures of `samples` spread over `seconds`."""
    elapsed = samples["elapsed"]
    requests = len(samples)
    errors = int((~samples["success"]).sum())
    quantiles = elapsed.quantile(list(PERCENTILES.values()))
    return {
        "requests": requests,
        "errors": errors,
        "error_pct": _number(100 * errors / requests) if requests else None,
        "throughput_rps": _number(requests / seconds) if seconds > 0 else None,
        "mean_ms": _number(elapsed.mean()),
        **{name: _number(value) for name, value in zip(PERCENTILES, quantiles, strict=True)},
        "max_ms": _number(elapsed.max()),
        "errors_by_status": errors_by_status(samples),
    }


def errors_by_status(samples: pd.DataFrame) -> dict[str, int]:
    """Failed samples per HTTP status, "assertion" and "no response" (see the module doc),
    statuses in `status_order`."""
    per_code = samples.loc[~samples["success"], "responseCode"].value_counts(dropna=False)
    counts: dict[str, int] = {}
    for code, n in per_code[per_code > 0].items():  # a few distinct codes, however many samples
        kind = error_kind("" if pd.isna(code) else code)
        counts[kind] = counts.get(kind, 0) + int(n)
    return {kind: counts[kind] for kind in sorted(counts, key=status_order)}


def error_kind(code: object) -> str:
    """The errors_by_status key of a failed sample's JMeter responseCode."""
    text = str(code).strip()
    if not text.isdigit():
        return NO_RESPONSE
    return ASSERTION if 200 <= int(text) < 300 else text


def status_order(status: str) -> tuple[int, str]:
    """Sort key: HTTP codes in numeric order, then "assertion", then "no response"."""
    return (int(status), "") if status.isdigit() else (10_000 + (status == NO_RESPONSE), status)


def resource_stats(metrics: pd.DataFrame, loadgen_cpus: int | None = None, peers: Sequence[str] = ()) -> dict:
    """CPU and memory figures of the metrics rows of a window, and whether the generator
    saturated (module doc): its `loadgen_cpus` when it had some, busy with it and its `peers`
    (the processes beside it there, "pg"), else the machine."""
    figures = {name: _number(metrics[column].agg(how)) for name, (column, how) in RESOURCES.items()}
    busy = [figures["loadgen_cpu_mean"], *(figures[f"{peer}_cpu_mean"] for peer in peers)]
    saturated = generator.saturated(None if None in busy else sum(busy), loadgen_cpus, figures["machine_cpu_mean"],
                                    figures["service_cpu_mean"])
    return {**figures, "loadgen_saturated": saturated}


def cpu_per_request(metrics: pd.DataFrame, throughput_rps: float | None) -> dict:
    """CPU milliseconds per request of the service and of PostgreSQL (module doc) from the
    metrics rows of the throughput's window."""
    def per_request(column: str) -> float | None:
        mean = metrics[column].mean()
        return _number(mean * 10 / throughput_rps) if throughput_rps else None

    return {"service_cpu_ms_per_request": per_request("service_cpu_pct"),
            "pg_cpu_ms_per_request": per_request("pg_cpu_pct")}


def _number(value: float) -> float | None:
    """A JSON-friendly figure: None for NaN (an empty window), else rounded to 3 decimals."""
    return None if pd.isna(value) else round(float(value), 3)


def summarize_run(run_dir: Path, force: bool = False) -> pd.DataFrame:
    """Summarizes every level of a run, writes summary.csv and the run's summary.json (its
    `summary_version`), and returns summary.csv as `read_summary` does.

    A level's summary.json of this version and newer than its inputs is reused, unless `force`.
    """
    level_dirs = sorted(p for p in (run_dir / "levels").glob("*") if (p / "level.json").is_file())
    if not level_dirs:
        raise UserError(f"{run_dir} holds no levels/<level>/level.json: is it a run folder?")
    rows = [flatten(_summary(level_dir, force), level_dir.name) for level_dir in level_dirs]
    frame = pd.DataFrame(rows).sort_values([*LEVEL_KEYS, "repeat"], key=sort_key, ignore_index=True)
    # A status that one level had and another not: 0 there (where the level has the figures).
    statuses = [column for column in frame if column.startswith(ERRORS_BY_STATUS)]
    frame[statuses] = frame[statuses].fillna(0)
    if "service_metrics.scrapes" in frame:
        scraped = frame["service_metrics.scrapes"].notna()
        for column in [c for c in frame if c.startswith(SERVICE_STATUSES)]:
            frame.loc[scraped, column] = frame.loc[scraped, column].fillna(0)
    frame.to_csv(run_dir / "summary.csv", index=False)
    write_json(run_dir / "summary.json", {"summary_version": SUMMARY_VERSION, "levels": len(frame)})
    return read_summary(run_dir)


def read_summary(run_dir: Path) -> pd.DataFrame:
    """A summarized run's summary.csv; refuses a run without summaries or of another version."""
    redo = f"run `make summarize RUN={run_dir}`"
    if not (run_dir / "summary.json").is_file():
        raise UserError(f"{run_dir.name} has not been summarized: {redo}")
    version = read_json(run_dir / "summary.json").get("summary_version")
    if version != SUMMARY_VERSION:
        raise UserError(f"{run_dir.name} has summaries of version {version}, this harness reads "
                        f"version {SUMMARY_VERSION}: {redo}")
    frame = pd.read_csv(run_dir / "summary.csv", dtype={"loadgen.reasons": str})
    saturated = frame["resources.loadgen_saturated"]  # empty where a level had no figures
    frame["resources.loadgen_saturated"] = saturated.where(saturated.notna(), False).astype(bool)
    frame[VALID] = frame[VALID].astype(bool)
    frame["loadgen.reasons"] = frame["loadgen.reasons"].fillna("")
    return frame


def usable(frame: pd.DataFrame) -> pd.Series:
    """The rows whose figures count: the money check passed and the load generator held up."""
    return frame["money_ok"].astype(bool) & frame[VALID].astype(bool)


def _summary(level_dir: Path, force: bool) -> dict:
    if not force and _is_fresh(level_dir):
        summary = read_json(level_dir / "summary.json")
        if summary.get("summary_version") == SUMMARY_VERSION:
            return summary
    return summarize_level(level_dir)


def _is_fresh(level_dir: Path) -> bool:
    """Whether summary.json is newer than every input it was computed from."""
    optional = [name for name in OPTIONAL_INPUTS if (level_dir / name).exists()]
    try:
        inputs = max((level_dir / name).stat().st_mtime for name in (*INPUTS, *optional))
        return (level_dir / "summary.json").stat().st_mtime > inputs
    except FileNotFoundError:
        return False


def flatten(summary: dict, level_id: str) -> dict:
    """One summary.csv row: level_id (folder name), scalar level.json keys, overall.*
    (overall.errors_by_status.<status>), resources.*, efficiency.*, money_ok, loadgen.* (the load generator's
    verdict), and service_metrics.* where the level has them
    (service_metrics.requests_by_status.<status>)."""
    level = {key: value for key, value in summary["level"].items() if not isinstance(value, (dict, list))}
    return {
        "level_id": level_id,
        **level,
        **_dotted("overall", summary["overall"]),
        **_dotted("resources", summary["resources"]),
        **_dotted("efficiency", summary.get("efficiency", {})),
        **_dotted("seconds_ci", summary.get("seconds_ci", {})),
        "money_ok": summary["money_ok"],
        **_dotted("loadgen", summary["loadgen"]),
        **_dotted("service_metrics", summary.get("service_metrics", {})),
    }


def _dotted(prefix: str, block: dict) -> dict:
    """A nested summary block as `prefix.key` (and `prefix.key.inner`) columns."""
    flat = {}
    for key, value in block.items():
        flat |= _dotted(f"{prefix}.{key}", value) if isinstance(value, dict) else {f"{prefix}.{key}": value}
    return flat


def label_summary(run_dir: Path, summary: pd.DataFrame) -> pd.DataFrame:
    """One row per (level, request label) with the level keys, money_ok and the label's figures."""
    rows = [
        {**level[["level_id", *LEVEL_KEYS, "repeat", "money_ok", VALID]].to_dict(), "label": label, **stats}
        for _, level in summary.iterrows()
        for label, stats in read_json(run_dir / "levels" / level["level_id"] / "summary.json")["labels"].items()
    ]
    return pd.DataFrame(rows)


def aggregate_repeats(frame: pd.DataFrame, columns: Sequence[str], keys: Sequence[str] = LEVEL_KEYS) -> pd.DataFrame:
    """Each `keys` group's median of `columns` over its usable repeats, with the 95 % interval
    as `<column>.low`/`.high` (bankbench.analyse.stats says how; NaN ends: none).

    Every group is kept, with `repeats` (all), `failed` (money check failed), `invalid` (money
    check passed, load generator did not hold up) and `interval` (stats.REPEATS or
    stats.SECONDS: what the intervals were taken over); a group with no usable repeat has no
    figures (NaN).
    """
    ok, money = usable(frame), frame["money_ok"].astype(bool)
    rows = []
    for key, group in frame.groupby(list(keys)):
        passed = group[ok[group.index]]
        failed = int((~money[group.index]).sum())
        row = {**dict(zip(keys, key, strict=True)), "repeats": len(group), "failed": failed,
               "invalid": len(group) - failed - len(passed),
               "interval": stats.REPEATS if len(passed) >= stats.MIN_REPEATS else stats.SECONDS}
        for column in columns:
            figure = stats.figure(passed, column)
            row |= {column: figure.value, f"{column}.low": figure.low, f"{column}.high": figure.high}
        rows.append(row)
    return pd.DataFrame(rows)


def level_figures(summary: pd.DataFrame, column: str) -> dict[tuple, stats.Figure]:
    """`column` per level (service, users, pool) over its usable repeats (`stats.figure`)."""
    passed = summary[usable(summary)]
    return {key: stats.figure(rows, column) for key, rows in passed.groupby(list(LEVEL_KEYS))}


def aggregate_levels(summary: pd.DataFrame) -> pd.DataFrame:
    """`aggregate_repeats` of every numeric overall.*, resources.*, efficiency.* and
    service_metrics.* figure of a run's summary, with the run's `pg_max_connections` (one
    PostgreSQL cluster serves a whole run)."""
    columns = [
        column for column in summary.columns
        if column.startswith(("overall.", "resources.", "efficiency.", "service_metrics."))
        and summary[column].dtype.kind in "if"
    ]
    return aggregate_repeats(summary, columns).assign(pg_max_connections=summary["pg_max_connections"].max())


def main_pool(levels: pd.DataFrame) -> int:
    """The pool size user sweeps are shown at: the one most levels ran with.

    On a tie (a pool sweep), the largest that PostgreSQL's max_connections can serve: beyond it
    lies the cliff the pool chart shows.
    """
    counts = levels["pool"].value_counts()
    tied = counts[counts == counts.max()].index
    servable = tied[tied <= levels["pg_max_connections"].max()]
    return int((servable if len(servable) else tied).max())


def row_keys(summary: pd.DataFrame) -> list[str]:
    """What tells a run's levels apart besides the service: users, and pool when it varies."""
    return ["users", "pool"] if summary["pool"].nunique() > 1 else ["users"]


class Timeline(NamedTuple):
    """Per-second figures of one level, where its warm-up ended, and its faults (chaos)."""

    frame: pd.DataFrame  # t_s (since level start), then the figures (see timeline, service_timeline)
    warmup_end_s: float
    faults: tuple[tuple[str, float, float], ...] = ()  # (fault, at_s, recovery_s)


def timeline(level_dir: Path, bucket_s: float = 1.0) -> Timeline:
    """Throughput, errors and p50/p99 latency of a level per `bucket_s` of sample start time."""
    level = read_json(level_dir / "level.json")
    samples = read_samples(level_dir / "jmeter.csv.gz")
    since_start = (samples["timeStamp"] - level["started_ms"]) / 1000
    bucket = (since_start // bucket_s * bucket_s).rename("t_s")
    latency = samples["elapsed"].groupby(bucket)
    frame = pd.DataFrame({
        "requests_per_s": latency.size() / bucket_s,
        "errors_per_s": (~samples["success"]).groupby(bucket).sum() / bucket_s,
        "p50_ms": latency.quantile(0.50),
        "p99_ms": latency.quantile(0.99),
    })
    return _timeline(frame.reset_index(), level)


def _timeline(frame: pd.DataFrame, level: dict) -> Timeline:
    """A level's per-second `frame` with, in seconds since its start, its warm-up end and faults."""
    faults = tuple((f["fault"], (f["at_ms"] - level["started_ms"]) / 1000, f["recovery_s"])
                   for f in level.get("faults", []))
    return Timeline(frame, (level["measure_from_ms"] - level["started_ms"]) / 1000, faults)


def timeline_levels(summary: pd.DataFrame, users: int | None = None) -> dict[str, str]:
    """Level name per service to draw over time: `users` (default the most) at the main pool.

    A usable repeat is preferred, then the first one.
    """
    at_pool = summary[summary["pool"] == main_pool(summary)]
    chosen = at_pool[at_pool["users"] == (users or at_pool["users"].max())].assign(usable=usable)
    first = chosen.sort_values(["usable", "repeat"], ascending=[False, True]).groupby("service").head(1)
    return {row.service: row.level_id for row in first.sort_values("service", key=sort_key).itertuples()}


def service_timeline(level_dir: Path) -> Timeline | None:
    """The service's own figures per scrape (`servicestats.per_second`, `t_s` since the level's
    start) with its warm-up end and faults; None for a level without service_metrics.csv."""
    if not (level_dir / "service_metrics.csv").exists():
        return None
    level = read_json(level_dir / "level.json")
    frame = servicestats.per_second(read_service_metrics(level_dir / "service_metrics.csv"))
    frame.insert(0, "t_s", (frame.pop("t_ms") - level["started_ms"]) / 1000)
    return _timeline(frame, level)


def has_service_metrics(summary: pd.DataFrame) -> bool:
    """Whether any level of a run has figures from the service's own metrics."""
    return "service_metrics.scrapes" in summary and bool(summary["service_metrics.scrapes"].gt(0).any())


def status_columns(summary: pd.DataFrame) -> list[str]:
    """The summary's overall.errors_by_status.<status> columns, statuses in `status_order`."""
    return sorted((column for column in summary if column.startswith(ERRORS_BY_STATUS)),
                  key=lambda column: status_order(column.removeprefix(ERRORS_BY_STATUS)))


def error_statuses(summary: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Failed requests per status in % of the measured requests, as `aggregate_levels` has
    figures (a column per status, named by it: "503", "assertion"), and the statuses in
    `status_order`; no statuses when no request failed."""
    statuses = [column.removeprefix(ERRORS_BY_STATUS) for column in status_columns(summary)]
    if not statuses:
        return pd.DataFrame(), []
    pct = summary[[*LEVEL_KEYS, "repeat", "money_ok", VALID]].assign(**{
        status: 100 * summary[ERRORS_BY_STATUS + status] / summary["overall.requests"] for status in statuses
    })
    figures = aggregate_repeats(pct, statuses).assign(pg_max_connections=summary["pg_max_connections"].max())
    return figures, statuses


def comparison_table(summary: pd.DataFrame) -> str:
    """Side-by-side terminal table: a row per users (and pool), throughput/p50/p99/error % per service."""
    cells = aggregate_repeats(summary, list(COMPARED))
    for column in COMPARED:
        cells[column] = formatting.spread_column(cells, column, mark_failed=column == FIRST)
    rows = row_keys(summary)
    wide = cells.pivot(index=rows, columns="service", values=list(COMPARED))
    services = sorted(cells["service"].unique(), key=service_order)
    wide = wide.reindex(columns=[(metric, service) for service in services for metric in COMPARED])
    headers = rows + [f"{service} {COMPARED[metric]}" for metric, service in wide.columns]
    return tabulate(wide.fillna("-").reset_index().values.tolist(), headers, disable_numparse=True,
                    stralign="right")


def spread_table(summary: pd.DataFrame) -> str:
    """Terminal table: per service and level, how much throughput and p99 varied between the
    usable repeats (coefficient of variation, `stats.cv_pct`)."""
    passed = summary[usable(summary)]
    rows = [
        [service, f"{users:,}", pool, len(group),
         *(formatting.number(stats.cv_pct(group[column])) for column in ("overall.throughput_rps", "overall.p99_ms"))]
        for (service, users, pool), group in passed.groupby(list(LEVEL_KEYS))
    ]
    return tabulate(rows, ["service", "users", "pool", "repeats", "CV req/s %", "CV p99 %"],
                    disable_numparse=True, stralign="right")


def service_order(service: str) -> tuple[int, str]:
    """Sort key: the services of the registry in its order, any other after them."""
    known = registry.names()
    return (known.index(service) if service in known else len(known), service)


def by_service(frame: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """The rows of each service, services in `service_order`."""
    for service in sorted(frame["service"].unique(), key=service_order):
        yield service, frame[frame["service"] == service]


def sort_key(column: pd.Series) -> pd.Series:
    """A `sort_values(key=...)` putting services in `service_order`, other columns as they are."""
    if column.name != "service":
        return column
    rank = {service: i for i, service in enumerate(sorted(column.unique(), key=service_order))}
    return column.map(rank)
