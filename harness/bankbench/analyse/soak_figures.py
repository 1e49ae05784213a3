"""make soak's figures: a soak level minute by minute, and its service's verdict.

Minutes count from 1, the measured window's first. What the soak found of its service
(bankbench.analyse.trends): the requests' figures from its histograms, its process's RSS from
metrics.csv, its own (heap, GC, threads, pool) from service_metrics.csv, PostgreSQL's from the
watcher's pg_stats.csv, and the money checks at the midpoint and the end. Gauges are means over the
minute's samples; PostgreSQL's table sizes are its last sample's.

See docs/benchmarks.md#endurance-make-soak."""

from pathlib import Path

import numpy as np
import pandas as pd

from bankbench.analyse import levels, service_metrics, trends
from bankbench.analyse.service_metrics import MB, number
from bankbench.results import files, histograms, soak_record
from bankbench.results.documents import NOT_RECORDED, LevelRecord
from bankbench.results.probes import Target
from bankbench.results.soak_record import END, MIDPOINT, Minute, MoneyCheck, Watched

# The climb per hour a judged trend's upper end must stay under (trends' module doc), one figure each.
# RSS, 20 MB/h: 480 MB a day, about the headroom between a service's steady RSS and its bound in
# services.yaml (go: 40-90 MB of 512; java: 0.9-1.2 GB of 1,408), so a slower leak outlives a daily
# restart; and 30 minute means that spread by 5 MB (sd) rule it out, their interval being +-13 MB/h.
# Pool, 2 connections in use more an hour: 95 connections at the few a soak uses last two days. One
# an hour (a leaked connection's pace) is within the noise of half an hour: the interval narrows as
# minutes^1.5, so a longer MINUTES= tells it.
TOLERANCES = {"rss_mb": 20.0, "pool_active": 2.0}
SHOWN = ("heap_mb", "threads", "pg_connections")  # trends beside them, shown and not judged
# A Minute's gauges -> (the frame they are read from, its column, unit)
GAUGES = {"rss_mb": ("metrics", "service_rss_mb", 1), "heap_mb": ("scrapes", "heap_bytes", MB),
          "threads": ("scrapes", "threads", 1), "pool_active": ("scrapes", "pool_active", 1),
          "pool_idle": ("scrapes", "pool_idle", 1), "pg_connections": ("pg", soak_record.PG_CONNECTIONS, 1),
          "pg_active": ("pg", soak_record.PG_ACTIVE, 1)}


def watched(level_dir: Path, target: Target, rate: float, failed: str = "") -> Watched:
    """The soak of the level in `level_dir` at `rate` iterations/s; `failed`: why it did not run through."""
    level = files.level_record(level_dir)
    frames = _frames(level_dir)
    count = int(sum(phase.seconds for phase in level.phases) // trends.MINUTE_S)
    per_minute = {figure: points(frames, level, figure, trends.MINUTE_S, count) for figure in GAUGES}
    minutes = tuple(_minute(m, level, frames, {figure: number(per_minute[figure][1][m - 1]) for figure in GAUGES})
                    for m in range(1, count + 1))
    judged = count >= trends.MIN_POINTS  # else over STEP_S means, shown only (trends' module doc)
    step_s = trends.MINUTE_S if judged else trends.STEP_S
    series = per_minute if judged else {figure: points(frames, level, figure, step_s, count) for figure in GAUGES}
    found = tuple(trends.trend(figure, *series[figure], step_s, TOLERANCES.get(figure) if judged else None)
                  for figure in (*TOLERANCES, *SHOWN))
    money = _money(level_dir, level, count)
    loadgen = levels.judged(level_dir).loadgen.valid
    exited = level.service_exit not in (None, NOT_RECORDED)
    return Watched(level.service, level_dir.name, rate, minutes, found, money,
                   trends.failures(minutes, found, money, target, loadgen, exited), failed)


def _frames(level_dir: Path) -> dict[str, pd.DataFrame | histograms.Histograms]:
    scraped = files.has_service_metrics(level_dir)
    return {"requests": histograms.read(level_dir / histograms.FILE), "metrics": files.read_metrics(level_dir),
            "scrapes": files.read_service_metrics(level_dir) if scraped else pd.DataFrame(),
            "pg": soak_record.read_pg_stats(level_dir)}


def points(frames: dict, level: LevelRecord, figure: str, step_s: int, minutes: int) -> tuple[np.ndarray, np.ndarray]:
    """`figure`'s mean in each `step_s` of the measured window, and the middle of each, in seconds."""
    source, column, unit = GAUGES[figure]
    frame = frames[source]
    bins = np.arange(minutes * trends.MINUTE_S // step_s)
    if column not in frame:
        return (bins + 0.5) * step_s, np.full(len(bins), np.nan)
    at = (frame["t_ms"] - level.measure_from_ms) // (1000 * step_s)
    means = frame[column].astype("float64").groupby(at).mean().reindex(bins) / unit
    return (bins + 0.5) * step_s, means.to_numpy()


def _minute(minute: int, level: LevelRecord, frames: dict, gauges: dict[str, float | None]) -> Minute:
    requests, scrapes, pg = frames["requests"], frames["scrapes"], frames["pg"]
    rows = requests.rows.index[(requests.rows["second"] // trends.MINUTE_S) == minute - 1]
    stats = levels.latency_stats(requests, rows, trends.MINUTE_S)
    end_ms = level.measure_from_ms + minute * trends.MINUTE_S * 1000
    gc_pct = service_metrics.window_stats(scrapes, end_ms - trends.MINUTE_S * 1000, end_ms)["gc_pct"] \
        if len(scrapes) else None
    sampled = pg[pg["t_ms"] < end_ms]
    return Minute(minute, stats["requests"], stats["throughput_rps"], stats["p50_ms"], stats["p99_ms"],
                  stats["error_pct"], stats["errors_by_status"], gc_pct=gc_pct,
                  relations=soak_record.relations(sampled.iloc[-1]) if len(sampled) else {}, **gauges)


def _money(level_dir: Path, level: LevelRecord, minutes: int) -> tuple[MoneyCheck, ...]:
    """The midpoint's check (its minute from when it ran) and the end's (the last minute)."""
    found = []
    if (midpoint := soak_record.midpoint_money(level_dir)) is not None:
        at_ms, check = midpoint
        minute = min(max(int((at_ms - level.measure_from_ms) // (1000 * trends.MINUTE_S)) + 1, 1), minutes)
        found.append(MoneyCheck(MIDPOINT, minute, check.ok, check.figures))
    if (end := files.money(level_dir)) is not None:
        found.append(MoneyCheck(END, minutes, end.ok, end.figures))
    return tuple(found)


def minutes_frame(soak: Watched) -> pd.DataFrame:
    """A service's minutes as a frame: a row per minute, a column per figure, `tables_mb` the
    schema's tables with their indexes."""
    frame = pd.DataFrame([vars(m) for m in soak.minutes])
    if frame.empty:
        return frame
    totals = [sum(r.total_mb for r in m.relations.values()) if m.relations else np.nan for m in soak.minutes]
    return frame.drop(columns=["relations", "errors_by_status"]).assign(tables_mb=totals)
