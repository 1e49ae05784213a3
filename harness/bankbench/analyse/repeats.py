"""A run's figures over the repeats of each level, and two runs side by side.

How a figure is taken over repeats: bankbench.analyse.estimates. Also a run's errors by status, and
`differences`, for `bankbench compare`.

See docs/method.md#how-to-read-the-figures and docs/method.md#two-runs."""

from collections.abc import Sequence

import pandas as pd

from bankbench.analyse import estimates, standing
from bankbench.errors import UserError
from bankbench.results import summaries
from bankbench.results.runs import Run
from bankbench.results.summaries import ERRORS_BY_STATUS, LEVEL_KEYS, service_order, status_columns

P99, ERRORS = "overall.p99_ms", "overall.error_pct"  # summary.csv's columns, beside summaries.THROUGHPUT
COMPARED = {"overall.throughput_rps": "req/s", P99: "p99 ms", ERRORS: "err %"}  # what `differences` compares


def aggregate_repeats(frame: pd.DataFrame, columns: Sequence[str], keys: Sequence[str] = LEVEL_KEYS) -> pd.DataFrame:
    """Each `keys` group's median of `columns` over its usable repeats, `.low`/`.high` and `.each`
    repeat's value; its `repeats`, `failed`, `invalid` counts, `interval` source and `verdicts`."""
    marked = standing.verdicts(frame)
    ordered = frame.sort_values("repeat", kind="stable")
    rows = []
    for key, group in ordered.groupby(list(keys)):
        marks = marked[group.index]
        passed = group[marks == standing.COUNTS]
        failed = int((marks == standing.FAILED).sum())
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
    passed = summary[standing.usable(summary)]
    return {key: estimates.figure(rows, column) for key, rows in passed.groupby(list(LEVEL_KEYS))}


def aggregate_levels(summary: pd.DataFrame) -> pd.DataFrame:
    """`aggregate_repeats` of every numeric figure, and `pg_max_connections` (one cluster a run)."""
    columns = [column for column in summary.columns
               if column.startswith(("overall.", "resources.", "efficiency.", "service_metrics."))
               and summary[column].dtype.kind in "if"]
    return aggregate_repeats(summary, columns).assign(pg_max_connections=summary["pg_max_connections"].max())


def main_pool(levels: pd.DataFrame) -> int:
    """The pool size user sweeps are shown at: the one most levels ran with; on a tie (a pool
    sweep), the largest max_connections can serve (beyond it lies the pool chart's cliff)."""
    counts = levels["pool"].value_counts()
    tied = counts[counts == counts.max()].index
    servable = tied[tied <= levels["pg_max_connections"].max()]
    return int((servable if len(servable) else tied).max())


def row_keys(summary: pd.DataFrame) -> list[str]:
    """What tells a run's levels apart besides the service: users, and pool when it varies."""
    return ["users", "pool"] if summary["pool"].nunique() > 1 else ["users"]


def error_statuses(summary: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Failed requests per status ("503", "assertion") in % of the measured requests, a column
    each, as `aggregate_levels` has figures, and the statuses in `status_order` (or none)."""
    statuses = [column.removeprefix(ERRORS_BY_STATUS) for column in status_columns(summary)]
    if not statuses:
        return pd.DataFrame(), []
    pct = summary[[*LEVEL_KEYS, "repeat", "model", "money_ok", summaries.VALID]].assign(**{
        status: 100 * summary[ERRORS_BY_STATUS + status] / summary["overall.requests"] for status in statuses
    })
    figures = aggregate_repeats(pct, statuses).assign(pg_max_connections=summary["pg_max_connections"].max())
    return figures, statuses


def differences(a: Run, b: Run) -> pd.DataFrame:
    """Per (service, users, pool, figure) both runs measured: each, the ratio B/A, its verdict."""
    rows = []
    for column, name in COMPARED.items():
        in_a, in_b = (level_figures(run.summary, column) for run in (a, b))
        for key in sorted(in_a.keys() & in_b.keys(), key=lambda k: (service_order(k[0]), *k[1:])):
            ratio = estimates.ratio(in_a[key], in_b[key])
            same_zero = in_a[key].values and not any(in_a[key].values) and not any(in_b[key].values)
            rows.append({**dict(zip(LEVEL_KEYS, key, strict=True)), "figure": name,
                         "a": in_a[key], "b": in_b[key], "ratio": ratio,
                         "verdict": "both 0" if same_zero else ratio_verdict(ratio)})
    if not rows:
        raise UserError(f"{a.id} and {b.id} have no level (service, users, pool) in common")
    return pd.DataFrame(rows)


def ratio_verdict(ratio: estimates.Ratio) -> str:
    """"no interval" where there is no ratio to test (a figure without interval, or 0 in A)."""
    if pd.isna(ratio.low):
        return "no interval"
    return "within noise" if not ratio.significant else "B higher" if ratio.low > 1 else "B lower"
