"""A level over time, second by second: the load generator's figures and the service's.

The generator's figures per second, the service's per scrape, and the warm-up's end and faults
struck (chaos), in seconds since the level's start.

See docs/method.md#the-report (the latency-over-time chart) and docs/benchmarks.md#chaos."""

from pathlib import Path
from typing import NamedTuple

import pandas as pd

from bankbench.analyse import levels, service_metrics
from bankbench.analyse.repeats import main_pool
from bankbench.analyse.standing import usable
from bankbench.results import files, histograms
from bankbench.results.documents import LevelRecord
from bankbench.results.summaries import sort_key


class Timeline(NamedTuple):
    """Per-second figures of one level, where its warm-up ended, and its faults (chaos)."""

    frame: pd.DataFrame  # t_s (since level start), then the figures (see timeline, service_timeline)
    warmup_end_s: float
    faults: tuple[tuple[str, float, float], ...] = ()  # (fault, at_s, recovery_s)


def timeline(level_dir: Path) -> Timeline:
    """Throughput, errors and p50/p99 latency of a level per second of request start."""
    level = files.level_record(level_dir)
    requests = histograms.read(level_dir / histograms.FILE)
    rows = requests.rows
    frame = pd.DataFrame({
        "requests_per_s": rows.groupby("second")["requests"].sum(),
        "errors_per_s": rows[~rows["ok"]].groupby("second")["requests"].sum(),
    }).join(levels.per_second_percentiles(requests)).fillna({"errors_per_s": 0})
    frame.index = frame.index + level.since_start_s(level.measure_from_ms)
    return _timeline(frame.rename_axis("t_s").reset_index(), level)


def _timeline(frame: pd.DataFrame, level: LevelRecord) -> Timeline:
    faults = tuple((f.fault, level.since_start_s(f.at_ms), f.recovery_s) for f in level.faults)
    return Timeline(frame, level.since_start_s(level.measure_from_ms), faults)


def timeline_levels(summary: pd.DataFrame, users: int | None = None) -> dict[str, str]:
    """Per service, the level drawn over time: `users` (else the most), main pool, usable first."""
    at_pool = summary[summary["pool"] == main_pool(summary)]
    chosen = at_pool[at_pool["users"] == (users or at_pool["users"].max())].assign(usable=usable)
    first = chosen.sort_values(["usable", "repeat"], ascending=[False, True]).groupby("service").head(1)
    return {row.service: row.level_id for row in first.sort_values("service", key=sort_key).itertuples()}


def service_timeline(level_dir: Path) -> Timeline | None:
    """The service's own figures per scrape (`service_metrics.per_second`); None without them."""
    if not files.has_service_metrics(level_dir):
        return None
    level = files.level_record(level_dir)
    frame = service_metrics.per_second(files.read_service_metrics(level_dir))
    frame.insert(0, "t_s", level.since_start_s(frame.pop("t_ms")))
    return _timeline(frame, level)
