"""A run's figures over the repeats of each level: the median of the usable repeats with its 95 %
interval (bankbench.estimates says how), the errors by status, and the terminal tables that
`bench` and `summarize` print."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from tabulate import tabulate

from bankbench import estimates
from bankbench.analyse import formatting
from bankbench.results.summaries import (
    COUNTS,
    ERRORS_BY_STATUS,
    FAILED,
    LEVEL_KEYS,
    THROUGHPUT,
    VALID,
    load_header,
    service_order,
    status_columns,
    usable,
    verdicts,
)

# comparison_table columns: summary.csv column -> header suffix
COMPARED = {
    THROUGHPUT: "req/s",
    "overall.p50_ms": "p50 ms",
    "overall.p99_ms": "p99 ms",
    "overall.error_pct": "err %",
}
REPEATS = "repeats"  # the header of how many of a group's repeats count (`formatting.counted`), in every table


def aggregate_repeats(frame: pd.DataFrame, columns: Sequence[str], keys: Sequence[str] = LEVEL_KEYS) -> pd.DataFrame:
    """Each `keys` group's median of `columns` over its usable repeats, with the 95 % interval
    as `<column>.low`/`.high` (bankbench.estimates says how; NaN ends: none).

    Every group is kept, with `repeats` (all), `failed` (money check failed), `invalid` (money
    check passed, load generator did not hold up), `interval` (estimates.REPEATS or estimates.SECONDS:
    what the intervals were taken over), `verdicts` (each repeat's number and
    `summaries.verdicts` standing, in order) and each column's `<column>.each` (each repeat's
    value, in the same order): what a table shows where some repeats do not count
    (`formatting.spread_column`). A group with no usable repeat has no medians (NaN).
    """
    standing = verdicts(frame)
    ordered = frame.sort_values("repeat", kind="stable")
    rows = []
    for key, group in ordered.groupby(list(keys)):
        marks = standing[group.index]
        passed = group[marks == COUNTS]
        failed = int((marks == FAILED).sum())
        row = {**dict(zip(keys, key, strict=True)), "repeats": len(group), "failed": failed,
               "invalid": len(group) - failed - len(passed),
               "interval": estimates.REPEATS if len(passed) >= estimates.MIN_REPEATS else estimates.SECONDS,
               "verdicts": tuple(zip(group["repeat"].astype(int), marks, strict=True))}
        for column in columns:
            figure = estimates.figure(passed, column)
            row |= {column: figure.value, f"{column}.low": figure.low, f"{column}.high": figure.high,
                    f"{column}.each": tuple(group[column].astype(float))}
        rows.append(row)
    return pd.DataFrame(rows)


def level_figures(summary: pd.DataFrame, column: str) -> dict[tuple, estimates.Figure]:
    """`column` per level (service, users, pool) over its usable repeats (`estimates.figure`)."""
    passed = summary[usable(summary)]
    return {key: estimates.figure(rows, column) for key, rows in passed.groupby(list(LEVEL_KEYS))}


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


def error_statuses(summary: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Failed requests per status in % of the measured requests, as `aggregate_levels` has
    figures (a column per status, named by it: "503", "assertion"), and the statuses in
    `status_order`; no statuses when no request failed."""
    statuses = [column.removeprefix(ERRORS_BY_STATUS) for column in status_columns(summary)]
    if not statuses:
        return pd.DataFrame(), []
    pct = summary[[*LEVEL_KEYS, "repeat", "model", "money_ok", VALID]].assign(**{
        status: 100 * summary[ERRORS_BY_STATUS + status] / summary["overall.requests"] for status in statuses
    })
    figures = aggregate_repeats(pct, statuses).assign(pg_max_connections=summary["pg_max_connections"].max())
    return figures, statuses


def comparison_table(summary: pd.DataFrame) -> str:
    """Side-by-side terminal table: a row per users (and pool); per service, how many repeats
    count, then throughput/p50/p99/error % (`formatting.spread_column`)."""
    cells = aggregate_repeats(summary, list(COMPARED))
    for column in COMPARED:
        cells[column] = formatting.spread_column(cells, column)
    cells[REPEATS] = formatting.counted(cells)
    shown = {REPEATS: REPEATS, **COMPARED}
    rows = row_keys(summary)
    wide = cells.pivot(index=rows, columns="service", values=list(shown))
    services = sorted(cells["service"].unique(), key=service_order)
    wide = wide.reindex(columns=[(metric, service) for service in services for metric in shown])
    headers = [load_header(summary) if key == "users" else key for key in rows] + [
        f"{service} {shown[metric]}" for metric, service in wide.columns]
    return tabulate(wide.fillna("-").reset_index().values.tolist(), headers, disable_numparse=True,
                    stralign="right")


def spread_table(summary: pd.DataFrame) -> str:
    """Terminal table: per service and level, how much throughput and p99 varied between the
    repeats that count (coefficient of variation, `estimates.cv_pct`), and how many of all they are."""
    ok = usable(summary)
    rows = [
        [service, f"{users:,}", pool, f"{len(passed)} of {len(group)}",
         *(formatting.number(estimates.cv_pct(passed[column])) for column in (THROUGHPUT, "overall.p99_ms"))]
        for (service, users, pool), group in summary.groupby(list(LEVEL_KEYS))
        for passed in [group[ok[group.index]]]
    ]
    return tabulate(rows, ["service", load_header(summary), "pool", "repeats", "CV req/s %", "CV p99 %"],
                    disable_numparse=True, stralign="right")
