"""A one-paragraph reading of a run, every sentence computed from its figures (no verdict
is written in advance: who comes first, by how much and where is whatever the numbers say)."""

from __future__ import annotations

import pandas as pd

from bankbench import analysis
from bankbench.formatting import number

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

