"""The tables the verbs print on the terminal (`summarize`, `capacity`, `compare`, a run's page).

See docs/benchmarks.md.
"""

from typing import Any

import pandas as pd
from tabulate import tabulate

from bankbench.analyse import capacity_figures, estimates, repeats
from bankbench.analyse.standing import usable
from bankbench.publish import formatting, tables
from bankbench.publish.formatting import REPEATS, figure_text, number, with_interval
from bankbench.results import summaries
from bankbench.results.runs import Run
from bankbench.results.summaries import LEVEL_KEYS, THROUGHPUT, load_header, service_order

# comparison_table columns: summary.csv column -> header suffix, as the report's tables head them
COMPARED = {column: tables.LEVEL_COLUMNS[column][0]
            for column in (THROUGHPUT, "overall.p50_ms", "overall.p99_ms", "overall.error_pct")}


def comparison_table(summary: pd.DataFrame) -> str:
    """Side-by-side terminal table: a row per users (and pool), per service REPEATS and COMPARED."""
    cells = repeats.aggregate_repeats(summary, list(COMPARED))
    cells = cells.assign(**{column: formatting.spread_column(cells, column) for column in COMPARED},
                         **{REPEATS: formatting.counted(cells)})
    shown = {REPEATS: REPEATS, **COMPARED}
    rows = repeats.row_keys(summary)
    wide = cells.pivot(index=rows, columns="service", values=list(shown))
    services = sorted(cells["service"].unique(), key=service_order)
    wide = wide.reindex(columns=[(metric, service) for service in services for metric in shown])
    headers = [load_header(summary) if key == "users" else key for key in rows] + [
        f"{service} {shown[metric]}" for metric, service in wide.columns]
    return tabulate(wide.fillna("-").reset_index().values.tolist(), headers, disable_numparse=True,
                    stralign="right")


def spread_table(summary: pd.DataFrame) -> str:
    """Per service and level, how much throughput and p99 varied (CV %) over the repeats counted."""
    ok = usable(summary)
    rows = [[service, f"{users:,}", pool, f"{len(passed)} of {len(group)}",
             *(number(estimates.cv_pct(passed[c])) for c in (THROUGHPUT, "overall.p99_ms"))]
            for (service, users, pool), group in summary.groupby(list(LEVEL_KEYS))
            for passed in [group[ok[group.index]]]]
    return tabulate(rows, ["service", load_header(summary), "pool", "repeats", "CV req/s %", "CV p99 %"],
                    disable_numparse=True, stralign="right")


def capacities(run: Run) -> str:
    """The capacities a search found (bankbench.analyse.capacity_figures) as a terminal table."""
    found = tables.verdict(capacity_figures.figures(run), [], capacity_figures.target_ms(run))
    return tabulate(found, headers="keys", showindex=False, disable_numparse=True, stralign="right")


def two_runs(a: Run, b: Run) -> str:
    """Two runs compared (`repeats.differences`), with what A and B are and how to read it; a median
    over fewer than all repeats of its level says how many (`2 of 3`)."""
    frame = repeats.differences(a, b)
    repeats_of = {name: run.summary.groupby(list(summaries.LEVEL_KEYS)).size() for name, run in (("a", a), ("b", b))}

    def median(name: str, row: Any) -> str:  # a row of frame.itertuples()
        figure, total = getattr(row, name), repeats_of[name][(row.service, row.users, row.pool)]
        text = figure_text(figure)
        return text if len(figure.values) == total else f"{text} ({len(figure.values)} of {total})"

    cells = [[row.service, f"{row.users:,}", row.pool, row.figure, median("a", row),
              median("b", row), with_interval(row.ratio.value, row.ratio.low, row.ratio.high),
              "-" if pd.isna(row.ratio.p) else f"{row.ratio.p:.3f}", row.verdict]
             for row in frame.itertuples()]
    headers = ["service", "users", "pool", "figure", "A", "B", "B/A", "Welch p", "verdict"]
    sources = sorted({f.source for f in (*frame["a"], *frame["b"]) if f.source})
    invalid = [f"{name}: {', '.join(ids)}" for name, run in (("A", a), ("B", b))
               if (ids := run.summary.loc[~run.summary[summaries.VALID], "level_id"].tolist())]
    return (f"A = {a.id}\nB = {b.id}\n"
            f"median [95 % interval] over {' or '.join(sources) or 'nothing'}; a difference when the "
            f"interval of B/A excludes 1 (over repeats: of the geometric means, Welch's t interval "
            f"on the logarithms, p < {estimates.ALPHA}; harness/bankbench/analyse/estimates.py)\n"
            + (f"left out, the load generator did not hold up: {'; '.join(invalid)}\n" if invalid else "")
            + "\n" + tabulate(cells, headers, disable_numparse=True, stralign="right"))
