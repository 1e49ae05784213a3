"""A run's figures and what differs between its services at 95 %, as two text tables.

What `make bench` and `make summarize` end with, and what a run's page opens on: per service and
level the figures of the report's first table that a bench run has (p99, CPU per request, peak
RSS), each the median of the repeats that counted with its 95 % interval; then, per level and
figure, the lowest service by what the factors compare and each other's factor to it
(`estimates.leader`) with its interval, and whether that interval excludes 1. Tables, no
sentence: what a figure means is in docs/method.md#how-to-read-the-figures.
"""

import textwrap

import pandas as pd
from tabulate import tabulate

from bankbench.analyse import estimates, findings, repeats
from bankbench.analyse.repeats import P99
from bankbench.publish.formatting import (
    count,
    differs,
    factor,
    figure_text,
    significant,
    whole,
    with_interval,
)
from bankbench.results import summaries

WIDTH = 100  # the terminal's columns the tables fit in
# What the verdict shows of each level, as the first table has it: summary.csv column -> (header, format)
FIGURES = {P99: ("p99 ms", count),
           "efficiency.service_cpu_ms_per_request": ("CPU ms/request", significant),
           "resources.service_rss_max_mb": ("peak RSS MB", whole)}
NOTE = ("A median is over the repeats that counted (money check "
        "passed, load generator held up); with fewer than 3, a p99's interval is over the seconds of each "
        "repeat. A factor is over 3 repeats or more that of their geometric means (Welch's t interval); it "
        "differs where its 95 % interval excludes 1 "
        "(docs/method.md#how-to-read-the-figures). Figures of this machine alone.")


def cells(summary: pd.DataFrame, column: str) -> dict[tuple, findings.Cell]:
    """`column` per level (service, users, pool) as the first table's cells, with n of N."""
    figures = repeats.level_figures(summary, column)
    return {key: findings.Cell(figures.get(key, findings.NONE), *findings.n_of_n(row))
            for row in repeats.aggregate_repeats(summary, []).to_dict("records")
            for key in [tuple(row[k] for k in summaries.LEVEL_KEYS)]}


def _table(summary: pd.DataFrame, by_column: dict[str, dict[tuple, findings.Cell]], tablefmt: str) -> str:
    """A row per level, its n of N in fewer words where the table would be wider than WIDTH."""
    keys = _ordered(by_column[P99])
    pooled = "pool" in repeats.row_keys(summary)
    headers = [summaries.load_header(summary), *(["pool"] if pooled else []), "service",
               *(FIGURES[column][0] for column in by_column)]
    figures = [[f"{key[1]:,}", *([str(key[2])] if pooled else []), key[0],
                *(figure_text(by_column[column][key].figure, FIGURES[column][1]) for column in by_column)]
               for key in keys]
    align = ["right"] * (1 + pooled) + ["left"] + ["right"] * len(by_column) + ["left"]
    for words, header in ((True, ""), (False, "repeats\ncounted")):
        rows = [[*row, _counted(by_column[P99][key], words)] for row, key in zip(figures, keys, strict=True)]
        table = tabulate(rows, [*headers, header], tablefmt, disable_numparse=True, colalign=align)
        if max(map(len, table.splitlines())) <= WIDTH:
            break
    return table


def _ordered(levels: dict[tuple, findings.Cell]) -> list[tuple]:
    return sorted(levels, key=lambda key: (key[1], key[2], summaries.service_order(key[0])))


def _counted(cell: findings.Cell, words: bool) -> str:
    return f"{cell.n} of {cell.of}" + (f" repeat{'s' if cell.of > 1 else ''} counted" if words else "")


def _differences(summary: pd.DataFrame, by_column: dict[str, dict[tuple, findings.Cell]], tablefmt: str) -> str:
    """Per level (load, pool) that two services or more counted at, for each figure, the service
    lowest by what the factors compare and each other's factor to it (`estimates.leader`) with its 95 %
    interval, and whether that interval excludes 1 (`Ratio.significant`)."""
    pooled = "pool" in repeats.row_keys(summary)
    rows = []
    for level in dict.fromkeys(key[1:] for key in _ordered(by_column[P99])):
        for column, level_cells in by_column.items():
            header = FIGURES[column][0]
            counted = {key[0]: cell.figure for key, cell in level_cells.items()
                       if key[1:] == level and cell.counts}
            if len(counted) < 2:
                continue
            lowest, others = estimates.leader(counted, high_is_best=False)
            for other, r in others:
                f = factor(r, high_is_best=False)
                rows.append([f"{level[0]:,}", *([str(level[1])] if pooled else []), header, lowest, other,
                             f"{with_interval(f.value, f.low, f.high, whole)}×", differs(r)])
    if not rows:
        return "(no level that two services counted at)"
    headers = [summaries.load_header(summary), *(["pool"] if pooled else []), "figure", "lowest", "other",
               "other / lowest", "differs"]
    align = ["right"] * (1 + pooled) + ["left"] * 3 + ["right", "left"]
    return tabulate(rows, headers, tablefmt, disable_numparse=True, colalign=align)


def parts(summary: pd.DataFrame, tablefmt: str = "simple") -> list[str]:
    """The two tables of `summary` (in tabulate's `tablefmt`), each under its title, then what their
    figures are; a figure the run did not record (CPU or RSS in an older run) has no column."""
    by_column = {column: cells(summary, column) for column in FIGURES if column in summary}
    return ["Median [95 % interval]:", _table(summary, by_column, tablefmt),
            "What differs at 95 %: each figure's lowest service, and each other's factor to it:",
            _differences(summary, by_column, tablefmt), NOTE]


def text(summary: pd.DataFrame) -> str:
    """`parts` for a terminal: in at most WIDTH columns."""
    title, table, differs_title, differs, note = parts(summary)
    return "\n".join([title, table, "", differs_title, differs,
                      *textwrap.wrap(note, WIDTH, break_on_hyphens=False)])
