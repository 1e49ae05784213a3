"""Two runs side by side: per service and level in both, each figure with its 95 % interval,
the ratio B/A with its interval, and whether the difference is significant (bankbench.estimates):
the question after changing one knob."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
from tabulate import tabulate

from bankbench import estimates
from bankbench.analyse import repeats
from bankbench.analyse.formatting import with_interval
from bankbench.errors import UserError
from bankbench.results import runs, summaries
from bankbench.results.runs import Run

FIGURES = {"overall.throughput_rps": "req/s", "overall.p99_ms": "p99 ms", "overall.error_pct": "err %"}


def compare(a: Run, b: Run) -> pd.DataFrame:
    """A row per (service, users, pool, figure) that both runs measured."""
    rows = []
    for column, name in FIGURES.items():
        in_a, in_b = (repeats.level_figures(run.summary, column) for run in (a, b))
        for key in sorted(in_a.keys() & in_b.keys(), key=lambda k: (summaries.service_order(k[0]), *k[1:])):
            ratio = estimates.ratio(in_a[key], in_b[key])
            same_zero = in_a[key].values and not any(in_a[key].values) and not any(in_b[key].values)
            rows.append({**dict(zip(summaries.LEVEL_KEYS, key, strict=True)), "figure": name,
                         "a": in_a[key], "b": in_b[key], "ratio": ratio,
                         "verdict": "both 0" if same_zero else verdict(ratio)})
    if not rows:
        raise UserError(f"{a.id} and {b.id} have no level (service, users, pool) in common")
    return pd.DataFrame(rows)


def verdict(ratio: estimates.Ratio) -> str:
    """"B higher", "B lower" or "within noise" (estimates.Ratio.significant); "no interval" where
    there is no ratio to test (a figure without interval, or 0 in A)."""
    if pd.isna(ratio.low):
        return "no interval"
    if not ratio.significant:
        return "within noise"
    return "B higher" if ratio.low > 1 else "B lower"


def table(a: Run, b: Run) -> str:
    """The comparison as a terminal table, with what A and B are and how to read it; a median over
    fewer than all repeats of its level says how many (`2 of 3`)."""
    frame = compare(a, b)
    repeats_of = {name: run.summary.groupby(list(summaries.LEVEL_KEYS)).size() for name, run in (("a", a), ("b", b))}

    def median(name: str, row: tuple) -> str:
        figure, total = getattr(row, name), repeats_of[name][(row.service, row.users, row.pool)]
        text = with_interval(figure.value, figure.low, figure.high)
        return text if len(figure.values) == total else f"{text} ({len(figure.values)} of {total})"

    cells = [
        [row.service, f"{row.users:,}", row.pool, row.figure, median("a", row), median("b", row),
         with_interval(row.ratio.value, row.ratio.low, row.ratio.high),
         "-" if pd.isna(row.ratio.p) else f"{row.ratio.p:.3f}", row.verdict]
        for row in frame.itertuples()
    ]
    headers = ["service", "users", "pool", "figure", "A", "B", "B/A", "Welch p", "verdict"]
    sources = sorted({f.source for f in (*frame["a"], *frame["b"]) if f.source})
    invalid = [f"{name}: {', '.join(ids)}" for name, run in (("A", a), ("B", b))
               if (ids := run.summary.loc[~run.summary[summaries.VALID], "level_id"].tolist())]
    return (f"A = {a.id}\nB = {b.id}\n"
            f"median [95 % interval] over {' or '.join(sources) or 'nothing'}; a difference when the "
            f"interval of B/A excludes 1 and, over repeats, Welch's t-test on the logarithms gives "
            f"p < {estimates.ALPHA} (harness/bankbench/analyse/estimates.py)\n"
            + (f"left out, the load generator did not hold up: {'; '.join(invalid)}\n" if invalid else "")
            + "\n" + tabulate(cells, headers, disable_numparse=True, stralign="right"))


# The verb: `bankbench compare`.

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, metavar="RUN_A", help="the run to compare against")
    parser.add_argument("b", type=Path, metavar="RUN_B", help="the run compared with it")


def main(args: argparse.Namespace) -> int:
    """Prints the comparison table."""
    print(table(runs.load_run(args.a), runs.load_run(args.b)))
    return 0
