"""A run page's reading: one paragraph computed from the run's figures.

A run page's words: a one-paragraph reading of a run, every sentence computed from its figures.
A median is over every repeat of its level unless the sentence says how many it is over (`_over`);
a throughput the load generator capped is a lower bound, "at least", and no smaller level is called
the peak beside it.

See docs/method.md#the-report.
"""

import pandas as pd

from bankbench import estimates
from bankbench.analyse import overload, repeats
from bankbench.analyse.repeats import ERRORS, P99
from bankbench.load import validity as load_generator
from bankbench.publish.formatting import count, gap, interval, number, times, with_interval
from bankbench.publish.verdict_words import names, refused_by
from bankbench.results import summaries
from bankbench.results.summaries import THROUGHPUT

ERROR_LIMIT_PCT = 1.0  # error rate from which a level counts as failing its users
REFUSED = summaries.ERRORS_BY_STATUS + "503"  # the 503s the load generator counted


def reading(summary: pd.DataFrame, limit: int | None = None) -> str:
    """The paragraph for one run's summary; `limit`: its admission limit, which its 503s name."""
    levels = repeats.aggregate_levels(summary)
    measured = levels.dropna(subset=[THROUGHPUT])
    pooled = levels[levels["pool"] == repeats.main_pool(summary)]
    at_pool = pooled.dropna(subset=[THROUGHPUT])
    unit = summaries.load_unit(summary)
    sentences = [
        money(summary),
        largest_load(summary, pooled, unit),
        *(peak(summary, service, rows, unit) for service, rows in summaries.by_service(pooled)),
        errors(at_pool, unit),
        statuses(summary, unit, limit),
        service_side(at_pool, unit),
        pools(summary, measured, unit),
        generator(summary),
        spread(measured, unit),
    ]
    return " ".join(sentence for sentence in sentences if sentence)


def money(summary: pd.DataFrame) -> str:
    failed = summary.loc[~summary["money_ok"].astype(bool), "level_id"].tolist()
    if not failed:
        return f"The money check passed after all {len(summary)} levels."
    return (f"The money check FAILED after {', '.join(failed)} ({len(failed)} of {len(summary)} "
            f"levels): their figures are left out of every median and chart, and the tables show "
            f"them marked FAILED.")


def largest_load(summary: pd.DataFrame, levels: pd.DataFrame, unit: str) -> str | None:
    """Each service at the largest load at the main pool, and which differences are beyond noise."""
    levels = levels[levels[THROUGHPUT].notna() | levels["verdicts"].map(_bound)]
    if levels.empty:
        return None
    users = levels["users"].max()
    rows = levels[levels["users"] == users]
    figures = "; ".join(_served(service, row.iloc[0]) for service, row in summaries.by_service(rows))
    text = f"At {users:,} {unit} (median [95 % interval] of every repeat unless said), {figures}."
    if len(rows) < 2:
        return text
    key = (users, repeats.main_pool(summary))
    services = sorted(summary["service"].unique(), key=summaries.service_order)
    for column, name, high_is_best in ((THROUGHPUT, "Throughput", True), (P99, "The p99", False)):
        every = repeats.level_figures(summary, column)
        figures = {service: every[(service, *key)] for service in services
                   if (service, *key) in every and not pd.isna(every[(service, *key)].value)}
        if len(figures) > 1:  # a service whose repeats all failed their money check has none
            text += " " + versus(figures, name, high_is_best)
    return text


def versus(figures: dict[str, estimates.Figure], name: str, high_is_best: bool) -> str:
    """Who led on a figure and by how much, each gap with its interval, or "within noise"."""
    leader, gaps = estimates.leader(figures, high_is_best)
    if not any(r.significant for _, r in gaps):
        return (f"{name} there was within noise between the services: " + "; ".join(
            f"{leader}'s {times(r, high_is_best)} than {service}'s ({interval(r, high_is_best)})"
            for service, r in gaps) + ".")
    parts = "; ".join(gap(service, r, high_is_best) for service, r in gaps)
    return f"{name} there was {'highest' if high_is_best else 'lowest'} for {leader}: {parts}."


def _with_interval(row: pd.Series, column: str) -> str:
    return with_interval(*(row[f"{column}{how}"] for how in ("", ".low", ".high")))


def _bound(verdicts: tuple) -> bool:
    """Whether the load generator capped some repeat's throughput (`summaries.generator_bound`)."""
    return any(mark == summaries.BOUND for _, mark in verdicts)


def _floor(row: pd.Series) -> str:
    """`at least 2244 req/s` for a level with a repeat the load generator capped."""
    return f"at least {number(summaries.floor(row['verdicts'], row[f'{THROUGHPUT}.each']))} req/s"


def _noted(row: pd.Series, form: str = " ({})") -> str:
    """`_over` after a figure, in brackets or in `form`; "" where every repeat counts."""
    return form.format(over) if (over := _over(row)) else ""


def _over(row: pd.Series) -> str:
    """`median of 1 of 3 repeats: 2 INVALID` where some of a level's repeats do not count, or ""."""
    marks = [summaries.INVALID if mark == summaries.BOUND else mark for _, mark in row["verdicts"]]
    left_out = {mark: marks.count(mark) for mark in (summaries.FAILED, summaries.INVALID) if mark in marks}
    kinds = ", ".join(f"{n} {mark}" for mark, n in left_out.items())
    return f"median of {marks.count(summaries.COUNTS)} of {len(marks)} repeats: {kinds}" if left_out else ""


def _served(service: str, row: pd.Series) -> str:
    """What a service served at a level, as `largest_load` says it."""
    if pd.isna(row[THROUGHPUT]):  # no repeat counts, the load generator capped some
        return f"{service} served {_floor(row)}, where the load generator was the limit"
    text = (f"{service} served {_with_interval(row, THROUGHPUT)} req/s with a p99 of {_with_interval(row, P99)} "
            f"ms and {number(row[ERRORS])} % errors{_noted(row)}")
    return text + (f" (and {_floor(row)} where the load generator was the limit)" if _bound(row["verdicts"]) else "")


def peak(summary: pd.DataFrame, service: str, rows: pd.DataFrame, unit: str) -> str | None:
    """Where a service's throughput peaked, and if it then fell beyond noise (unknown if capped)."""
    measured = rows.dropna(subset=[THROUGHPUT])
    capped = rows[rows["verdicts"].map(_bound)]
    best = None if measured.empty else measured.loc[measured[THROUGHPUT].idxmax()]
    if not capped.empty:
        where = " and ".join(f"{row['users']:,} {unit} ({_floor(row)} there)" for _, row in capped.iterrows())
        text = (f"The load generator, not {service}, was the limit at {where}, so {service}'s peak throughput "
                f"is not known")
        return text + ("." if best is None else f"; with the load generator holding up, its highest median was "
                       f"{number(best[THROUGHPUT])} req/s at {best['users']:,} {unit}{_noted(best)}.")
    if best is None:
        return None
    last = measured.loc[measured["users"].idxmax()]
    text = (f"Throughput peaked for {service} at {number(best[THROUGHPUT])} req/s at {best['users']:,} "
            f"{unit}{_noted(best)}")
    if last["users"] == best["users"]:
        return text + ", the largest load it has figures for."
    figures = repeats.level_figures(summary, THROUGHPUT)
    r = estimates.ratio(figures[(service, last["users"], last["pool"])],  # the peak over the last
                        figures[(service, best["users"], best["pool"])])
    if not r.significant:
        return text + (f"; at {last['users']:,} {unit}{_noted(last)} it was within noise of that (the peak "
                       f"{times(r, True)}, {interval(r, True)}).")
    return text + (f", then fell to {number(last[THROUGHPUT])} req/s at {last['users']:,} {unit}{_noted(last)} "
                   f"(the peak {times(r, True)}, {interval(r, True)}).")


def errors(levels: pd.DataFrame, unit: str) -> str | None:
    """The first load at which each service's error rate passed ERROR_LIMIT_PCT."""
    parts = []
    for service, rows in summaries.by_service(levels):
        over = rows[rows[ERRORS] > ERROR_LIMIT_PCT].sort_values("users")
        if over.empty:
            parts.append(f"at or below {ERROR_LIMIT_PCT:g} % for {service} at every level with figures")
            continue
        first = over.iloc[0]
        parts.append(f"above {ERROR_LIMIT_PCT:g} % for {service} from {first['users']:,} {unit} on "
                     f"({number(first[ERRORS])} % there{_noted(first, ', {}')})")
    return f"The error rate was {'; '.join(parts)}." if parts else None


def statuses(summary: pd.DataFrame, unit: str, limit: int | None = None) -> str | None:
    """What the failed requests at the largest load were answered, and what sent the 503s."""
    columns = summaries.status_columns(summary)
    if not columns:
        return None
    counts = repeats.aggregate_repeats(summary, columns)
    at_pool = counts[counts["pool"] == repeats.main_pool(summary)]
    rows = at_pool[at_pool["users"] == at_pool["users"].max()]
    refused, causes = overload.refusals(summary, limit), {}
    parts = []
    for service, of_service in summaries.by_service(rows):
        row = of_service.iloc[0]
        failed = [f"{count(row[column])} x {column.removeprefix(summaries.ERRORS_BY_STATUS)}"
                  for column in columns if row[column] > 0]
        if failed:
            parts.append(f"{service} {', '.join(failed)}{_noted(row)}")
        levels = summary.loc[(summary[list(summaries.LEVEL_KEYS)] == row[list(summaries.LEVEL_KEYS)]).all(axis=1)]
        answered = [level for level in levels["level_id"] if level in refused] if row.get(REFUSED, 0) > 0 else []
        for cause in dict.fromkeys(refused_by(refused[level]) for level in answered):
            causes.setdefault(cause, []).append(service)
    if not parts:
        return None
    why = "; ".join(f"from {names(services)}, {cause}" for cause, services in causes.items())
    return (f"The failed requests at {rows['users'].max():,} {unit} (median of every repeat unless said) were "
            f"{'; '.join(parts)} (503: {why or 'the services recorded no counter that tells why'}; assertion: an "
            f"answer with the wrong body; no response: no HTTP answer at all).")


def service_side(levels: pd.DataFrame, unit: str) -> str | None:
    """At the largest load, the pool wait and GC time the services measured themselves."""
    if "service_metrics.pool_pending_mean" not in levels:
        return None
    rows = levels[levels["users"] == levels["users"].max()].dropna(subset=["service_metrics.pool_pending_mean"])
    parts = [
        f"{service} had {number(row['service_metrics.pool_pending_mean'])} requests waiting for a "
        f"connection on average ({number(row['service_metrics.pool_acquire_mean_ms'])} ms per acquire, "
        f"{count(row['service_metrics.pool_timeouts'])} acquire timeouts) and spent "
        f"{number(row['service_metrics.gc_pct'])} % of the time in GC pauses{_noted(row)}"
        for service, rows_of in summaries.by_service(rows) for row in [rows_of.iloc[0]]
    ]
    return f"By their own metrics at {rows['users'].max():,} {unit}, {'; '.join(parts)}." if parts else None


def pools(summary: pd.DataFrame, levels: pd.DataFrame, unit: str) -> str | None:
    """With a pool sweep, each service's best pool size where it beat every other beyond noise."""
    if levels["pool"].nunique() < 2:
        return None
    users = levels["users"].max()
    at_users = levels[levels["users"] == users]
    figures = repeats.level_figures(summary, THROUGHPUT)
    parts = []
    for service, rows in summaries.by_service(at_users.dropna(subset=[THROUGHPUT])):
        best = rows.loc[rows[THROUGHPUT].idxmax()]
        gaps = [estimates.ratio(figures[(service, users, pool)], figures[(service, users, best["pool"])])
                for pool in rows["pool"] if pool != best["pool"]]
        figure = f"{number(best[THROUGHPUT])} req/s, {number(best[ERRORS])} % errors{_noted(best, ', {}')}"
        parts.append(f"{service} did best with a pool of {best['pool']} ({figure})" if all(r.significant for r in gaps)
                     else f"no pool size stood out beyond noise for {service} (highest median: pool "
                          f"{best['pool']}, {figure})")
    return f"Across pool sizes at {users:,} {unit}, {'; '.join(parts)}." if parts else None


def generator(summary: pd.DataFrame) -> str:
    """Whether the load generator held up at every level, else where not and why (load.validity)."""
    invalid = summary[~summary[summaries.VALID].astype(bool)]
    if invalid.empty:
        generators = summary.reindex(columns=["generator"])["generator"]  # NaN: an older harness's
        name = " and ".join(sorted({load_generator.name(g if isinstance(g, str) else None) for g in generators}))
        return (f"The load generator held up at every level: {name} was never short of CPU (at least "
                f"{load_generator.SATURATED_CPU_PCT} % of its own CPUs, or with PostgreSQL that much of the "
                f"CPUs they shared, or, sharing every CPU, the machine that busy and {name} using as much "
                f"CPU as the service) and offered at least {load_generator.OFFERED_MIN_PCT} % of every planned "
                "arrival rate, within what its calibration showed it can drive where the run was calibrated.")
    reasons = "; ".join(f"{level}: {why}" for level, why in zip(invalid["level_id"], invalid["loadgen.reasons"],
                                                                  strict=True))
    return (f"The load generator did not hold up at {len(invalid)} of {len(summary)} levels, which are "
            f"INVALID: left out of every median, chart and comparison, and shown repeat by repeat in the "
            f"tables ({reasons}).")


def spread(levels: pd.DataFrame, unit: str) -> str | None:
    """The widest 95 % interval of throughput, relative to its median, and what it was taken over."""
    bounded = levels.dropna(subset=[f"{THROUGHPUT}.low", f"{THROUGHPUT}.high"])
    if bounded.empty:
        return None
    relative = (bounded[f"{THROUGHPUT}.high"] - bounded[f"{THROUGHPUT}.low"]) / bounded[THROUGHPUT]
    widest = bounded.loc[relative.idxmax()]
    return (f"The widest 95 % interval of throughput spanned {number(100 * relative.max())} % of its median "
            f"({widest['service']} at {widest['users']:,} {unit}, pool {widest['pool']}; over "
            f"{widest['interval']}).")
