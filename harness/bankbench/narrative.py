"""A one-paragraph reading of a run, every sentence computed from its figures (no verdict
is written in advance: who comes first, by how much and where is whatever the numbers say)."""

from __future__ import annotations

import pandas as pd

from bankbench import analysis
from bankbench.formatting import count, number

ERROR_LIMIT_PCT = 1.0  # error rate from which a level counts as failing its users
THROUGHPUT, P99, ERRORS = "overall.throughput_rps", "overall.p99_ms", "overall.error_pct"


def reading(summary: pd.DataFrame) -> str:
    """The paragraph for one run's summary frame (one row per level)."""
    levels = analysis.aggregate_levels(summary)
    measured = levels.dropna(subset=[THROUGHPUT])
    at_pool = measured[measured["pool"] == analysis.main_pool(summary)]
    sentences = [
        money(summary),
        largest_load(at_pool),
        *(peak(service, rows) for service, rows in analysis.by_service(at_pool)),
        errors(at_pool),
        statuses(summary),
        service_side(at_pool),
        pools(measured),
        saturation(summary),
        spread(measured),
    ]
    return " ".join(sentence for sentence in sentences if sentence)


def money(summary: pd.DataFrame) -> str:
    failed = summary.loc[~summary["money_ok"].astype(bool), "level_id"].tolist()
    if not failed:
        return f"The money check passed after all {len(summary)} levels."
    return (f"The money check FAILED after {', '.join(failed)} ({len(failed)} of {len(summary)} "
            f"levels): their figures are left out of every table and chart.")


def largest_load(levels: pd.DataFrame) -> str | None:
    """Each service at the largest user count measured, and the gaps between them."""
    if levels.empty:
        return None
    users = levels["users"].max()
    rows = levels[levels["users"] == users]
    figures = "; ".join(
        f"{service} served {number(row[THROUGHPUT].iloc[0])} req/s with a p99 of "
        f"{number(row[P99].iloc[0])} ms and {number(row[ERRORS].iloc[0])} % errors"
        for service, row in analysis.by_service(rows)
    )
    text = f"At {users:,} users, {figures}."
    if len(rows) < 2:
        return text
    by_rate = rows.set_index("service")[THROUGHPUT].sort_values(ascending=False)
    by_p99 = rows.set_index("service")[P99].sort_values()
    text += (f" Throughput there was {_pct_above(by_rate.iloc[0], by_rate.iloc[1])} higher for "
             f"{by_rate.index[0]} than for {by_rate.index[1]}; p99 was lowest for {by_p99.index[0]}")
    if by_p99.iloc[0] > 0:  # sub-millisecond answers can record 0 ms
        text += f", {number(by_p99.iloc[-1] / by_p99.iloc[0])} times higher for {by_p99.index[-1]}"
    return text + "."


def peak(service: str, rows: pd.DataFrame) -> str:
    """Where a service's throughput peaked and what it did after."""
    best = rows.loc[rows[THROUGHPUT].idxmax()]
    last = rows.loc[rows["users"].idxmax()]
    text = f"Throughput peaked for {service} at {number(best[THROUGHPUT])} req/s with {best['users']:,} users"
    if last["users"] == best["users"]:
        return text + ", the largest load it has figures for."
    return text + f", then fell to {number(last[THROUGHPUT])} req/s at {last['users']:,} users."


def errors(levels: pd.DataFrame) -> str | None:
    """The first user count at which each service's error rate passed ERROR_LIMIT_PCT."""
    parts = []
    for service, rows in analysis.by_service(levels):
        over = rows[rows[ERRORS] > ERROR_LIMIT_PCT].sort_values("users")
        parts.append(
            f"at or below {ERROR_LIMIT_PCT:g} % for {service} at every level" if over.empty
            else f"above {ERROR_LIMIT_PCT:g} % for {service} from {over['users'].iloc[0]:,} users on "
                 f"({number(over[ERRORS].iloc[0])} % there)"
        )
    return f"The error rate was {'; '.join(parts)}." if parts else None


def statuses(summary: pd.DataFrame) -> str | None:
    """What the failed requests at the largest load (main pool) were answered, per service."""
    columns = analysis.status_columns(summary)
    if not columns:
        return None
    counts = analysis.aggregate_repeats(summary, columns)
    at_pool = counts[counts["pool"] == analysis.main_pool(summary)]
    rows = at_pool[at_pool["users"] == at_pool["users"].max()]
    parts = []
    for service, row in analysis.by_service(rows):
        failed = [f"{count(row[column].iloc[0])} x {column.removeprefix(analysis.ERRORS_BY_STATUS)}"
                  for column in columns if row[column].iloc[0] > 0]
        if failed:
            parts.append(f"{service} {', '.join(failed)}")
    if not parts:
        return None
    return (f"The failed requests at {rows['users'].max():,} users (median of the repeats) were "
            f"{'; '.join(parts)} (503: no pooled connection within the acquire timeout, or the "
            f"database unavailable; assertion: an answer with the wrong body; no response: no HTTP "
            f"answer at all).")


def service_side(levels: pd.DataFrame) -> str | None:
    """At the largest load, the pool wait and GC time the services measured themselves."""
    if "service_metrics.pool_pending_mean" not in levels:
        return None
    rows = levels[levels["users"] == levels["users"].max()].dropna(subset=["service_metrics.pool_pending_mean"])
    parts = [
        f"{service} had {number(row['service_metrics.pool_pending_mean'])} requests waiting for a "
        f"connection on average ({number(row['service_metrics.pool_acquire_mean_ms'])} ms per acquire, "
        f"{count(row['service_metrics.pool_timeouts'])} acquire timeouts) and spent "
        f"{number(row['service_metrics.gc_pct'])} % of the time in GC pauses"
        for service, rows_of in analysis.by_service(rows) for row in [rows_of.iloc[0]]
    ]
    if not parts:
        return None
    return f"By their own metrics at {rows['users'].max():,} users, {'; '.join(parts)}."


def pools(levels: pd.DataFrame) -> str | None:
    """With a pool sweep: the pool size that gave each service its best throughput."""
    if levels["pool"].nunique() < 2:
        return None
    at_users = levels[levels["users"] == levels["users"].max()]
    parts = [
        f"{service} did best with a pool of {best['pool']} ({number(best[THROUGHPUT])} req/s, "
        f"{number(best[ERRORS])} % errors)"
        for service, rows in analysis.by_service(at_users)
        for best in [rows.loc[rows[THROUGHPUT].idxmax()]]
    ]
    return f"Across pool sizes at {at_users['users'].max():,} users, {'; '.join(parts)}."


def saturation(summary: pd.DataFrame) -> str:
    """Whether the load generator, not the service, was the limit somewhere."""
    saturated = summary.loc[summary["resources.loadgen_saturated"].astype(bool), "level_id"].tolist()
    if not saturated:
        busiest = summary["resources.machine_cpu_mean"].max()
        return (f"The load generator never took the largest share of a saturated machine (machine "
                f"CPU mean at most {number(busiest)} %; saturated means at least "
                f"{analysis.SATURATED_MACHINE_CPU} % with JMeter using as much CPU as the service).")
    return (f"The load generator saturated the machine at {len(saturated)} of {len(summary)} levels "
            f"({', '.join(saturated)}): there the throughput measures the machine as much as the service.")


def spread(levels: pd.DataFrame) -> str | None:
    """The largest repeat-to-repeat spread of throughput, relative to its median."""
    repeated = levels[levels["repeats"] - levels["failed"] > 1]
    if repeated.empty:
        return None
    relative = (repeated[f"{THROUGHPUT}.max"] - repeated[f"{THROUGHPUT}.min"]) / repeated[THROUGHPUT]
    widest = repeated.loc[relative.idxmax()]
    return (f"Across repeats, throughput varied by up to {number(100 * relative.max())} % of its median "
            f"({widest['service']} at {widest['users']:,} users, pool {widest['pool']}).")


def _pct_above(high: float, low: float) -> str:
    return f"{number(100 * (high - low) / low)} %"

