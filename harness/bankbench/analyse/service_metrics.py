"""Figures of the service's own metrics (service_metrics.csv) over a level's window.

service_metrics.csv is bankbench.measure.scrape's, a row per scrape and a column per series
(`files.read_service_metrics`). Gauges are over the scrapes of the measured window; counters count
from the last scrape at or before its start to the last one in it, and a counter that went down was
reset by a restart (a fault): its new value is what it gained since, as Prometheus' `increase()` has
it. Rates divide by the seconds between those two scrapes.

See results/LAYOUT.md#service_metricscsvxz."""

import pandas as pd

from bankbench.measure.scrape import STATUS_PREFIX, UP

MB = 2**20
HOW = ("mean", "max")  # what a gauge's figures are over the window


def window_stats(frame: pd.DataFrame, start_ms: float, end_ms: float) -> dict:
    """The summary.json `service_metrics` block of the scrapes between start_ms and end_ms."""
    frame = _with_statuses(frame)
    gauges = frame[frame["t_ms"].between(start_ms, end_ms)]
    counters = _counters(frame, start_ms, end_ms)
    answered = counters.loc[counters[UP] == 1, "t_ms"] if UP in counters else counters["t_ms"]
    span_s = (answered.max() - answered.min()) / 1000 if len(answered) > 1 else 0.0
    acquires, acquire_s = increase(counters, "pool_acquires"), increase(counters, "pool_acquire_seconds")
    gc_s = increase(counters, "gc_pause_seconds")
    return {
        "scrapes": int((_column(gauges, UP) == 1).sum()),
        "scrapes_failed": int((_column(gauges, UP) == 0).sum()),
        "requests": increase(counters, "requests"),
        "throughput_rps": _per_s(increase(counters, "requests"), span_s),
        "requests_by_status": {column.removeprefix(STATUS_PREFIX): increase(counters, column)
                               for column in frame if column.startswith(STATUS_PREFIX)},
        "pool_max": _agg(gauges, "pool_max", "max"),
        **{f"{gauge}_{how}": _agg(gauges, gauge, how) for gauge in ("pool_active", "pool_pending")
           for how in HOW},
        "pool_acquires": acquires,
        "pool_acquire_mean_ms": None if not acquires or acquire_s is None else number(1000 * acquire_s / acquires),
        **{c: increase(counters, c) for c in ("pool_timeouts", "pool_created", "gc_pauses")},
        "gc_pauses_per_s": _per_s(increase(counters, "gc_pauses"), span_s),
        "gc_seconds_per_s": _per_s(gc_s, span_s),
        "gc_pct": _per_s(None if gc_s is None else 100 * gc_s, span_s),
        **{f"heap_{how}_mb": _agg(gauges, "heap_bytes", how, MB) for how in HOW},
        **{f"threads_{how}": _agg(gauges, "threads", how) for how in HOW},
    }


def busy_share(frame: pd.DataFrame, column: str, start_ms: int, end_ms: int) -> float | None:
    """A counter of milliseconds worked (`jit_ms`) over the window as a share of its wall time: its
    gain (module doc) over the milliseconds between the first and last scrape that have it; None
    without two such scrapes."""
    counters = _counters(frame, start_ms, end_ms)
    gained, times = increase(counters, column), counters.loc[_column(counters, column).notna(), "t_ms"]
    span_ms = times.max() - times.min() if len(times) > 1 else 0
    return None if gained is None or span_ms <= 0 else gained / span_ms


def _counters(frame: pd.DataFrame, start_ms: float, end_ms: float) -> pd.DataFrame:
    """The scrapes a counter's gain over the window is taken between (module doc)."""
    before = frame.loc[frame["t_ms"] <= start_ms, "t_ms"]
    return frame[frame["t_ms"].between(before.max() if len(before) else start_ms, end_ms)]


def per_second(frame: pd.DataFrame) -> pd.DataFrame:
    """Per scrape: `t_ms` and figures; rates (gc_pct: GC time in %) since the previous scrape."""
    return pd.DataFrame({
        "t_ms": frame["t_ms"],
        "requests_per_s": _rate(frame, "requests"),
        "pool_active": _column(frame, "pool_active"),
        "pool_pending": _column(frame, "pool_pending"),
        "gc_pct": 100 * _rate(frame, "gc_pause_seconds"),
        "heap_mb": _column(frame, "heap_bytes") / MB,
        "threads": _column(frame, "threads"),
    })


def increase(frame: pd.DataFrame, column: str) -> float | None:
    """What a counter gained over the rows, resets counted (None without two values)."""
    if column not in frame or frame[column].count() < 2:
        return None
    return number(_gains(frame, column).sum())


def _gains(frame: pd.DataFrame, column: str) -> pd.Series:
    """A counter's gain since the previous scrape that had it; after a reset, its new value."""
    values = _column(frame, column).dropna()
    gains = values.diff()
    return gains.where(gains >= 0, values).iloc[1:].reindex(frame.index)


def _rate(frame: pd.DataFrame, column: str) -> pd.Series:
    seconds = frame.loc[_column(frame, column).notna(), "t_ms"].diff() / 1000
    return _gains(frame, column) / seconds.reindex(frame.index)


def _with_statuses(frame: pd.DataFrame) -> pd.DataFrame:
    """`requests_<status>` at 0 in answered scrapes before the series' first request."""
    statuses = [column for column in frame if column.startswith(STATUS_PREFIX)]
    if not statuses or UP not in frame:
        return frame
    answered = frame[UP] == 1
    return frame.assign(**{column: frame[column].mask(answered & frame[column].isna(), 0) for column in statuses})


def _column(frame: pd.DataFrame, column: str) -> pd.Series:
    return frame[column] if column in frame else pd.Series(float("nan"), index=frame.index)


def _per_s(value: float | None, span_s: float) -> float | None:
    return None if value is None or span_s <= 0 else number(value / span_s)


def _agg(frame: pd.DataFrame, column: str, how: str, unit: float = 1) -> float | None:
    return number(_column(frame, column).agg(how) / unit)


def number(value: float) -> float | None:
    """A JSON-friendly figure: None for NaN (say an empty window), else rounded to 3 decimals."""
    return None if pd.isna(value) else round(float(value), 3)
