"""Figures as text, one format for the terminal table, the Markdown report and the notebook.

See docs/method.md#how-to-read-the-figures."""

from collections.abc import Callable

import numpy as np
import pandas as pd
from tabulate import tabulate

from bankbench.analyse import estimates, standing
from bankbench.analyse.projection import Span

Format = Callable[[float], str]
FLOORED = "throughput_rps"  # the figures, overall or per label, that a BOUND repeat bounds from below
# Left-aligned in Markdown:
NAME_COLUMNS = {"service", "line", "instance", "label", "level", "item", "value", "errors by status", "placement",
                "load generator", "run", "folder", "profile", "why it is kept", "money check", "stack",
                "contender", "against", "figures", "runs", "commits", "days", "kernels", "settings", "bound by",
                "search", "search ended", "at the heap below", "check", "not passed", "full stack",
                "standard library", "micro-framework"}
REPEATS = "repeats"  # the header of how many of a group's repeats count (`counted`), in every table


def number(value: float | None) -> str:
    """A figure with about three significant digits (4123, 52.5, 2.08); '-' when missing."""
    if value is None or pd.isna(value):
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def whole(value: float) -> str:
    """`number`, but a whole number as one: `4`, not `4.00` (a factor of 2; latencies print with `count`)."""
    return count(value) if not pd.isna(value) and float(value).is_integer() else number(value)


def count(value: float | None) -> str:
    """A whole count with thousands separators (1,234,567); '-' when missing."""
    return "-" if value is None or pd.isna(value) else f"{value:,.0f}"


def significant(value: float | None) -> str:
    """Three significant digits however small (0.00133, 0.192, 2); `number` from 100 on."""
    if value is None or pd.isna(value) or abs(value) >= 100:
        return number(value)
    return np.format_float_positional(value, precision=3, fractional=False, trim="-")


def with_interval(value: float, low: float, high: float, fmt: Format = number) -> str:
    """`value [low-high]`, or the value alone without an interval or where both ends print alike."""
    text, low_text, high_text = fmt(value), fmt(low), fmt(high)
    return text if pd.isna(low) or low_text == high_text else f"{text} [{low_text}-{high_text}]"


def figure_text(figure: estimates.Figure | estimates.Ratio | Span, fmt: Format = number) -> str:
    """A figure with its interval, as `with_interval` has it."""
    return with_interval(figure.value, figure.low, figure.high, fmt)


def bounded(span: Span, fmt: Format = number) -> str:
    """`≤ 0.00316 [0.00315-0.00317]`: the bound's sign where it is one, the figure, its interval."""
    return f"{span.bound} {figure_text(span, fmt)}" if span.bound else figure_text(span, fmt)


def factor(r: estimates.Ratio, high_is_best: bool) -> estimates.Ratio:
    """The ratio of `estimates.leader`, turned over where lower is best: a lead reads above 1."""
    if high_is_best:
        return r
    with np.errstate(divide="ignore"):
        value, low, high = (float(np.float64(1) / end) for end in (r.value, r.high, r.low))
    return estimates.Ratio(value, low, high, r.p, r.source)


def differs(r: estimates.Ratio) -> str:
    """A factor's last column in every table: `yes` where its 95 % interval excludes 1."""
    if pd.isna(r.low):
        return "untold: no interval"
    return "yes" if r.significant else "within noise"


def spread_column(aggregated: pd.DataFrame, column: str, fmt: Format = number,
                  each_row: bool = False) -> pd.Series:
    """Text cells of `column` (`repeats.aggregate_repeats`): `median [low-high]`, with `(2 of 3)`
    where only some repeats have it; where a repeat does not count (`listed`), each repeat's, marked
    (`r1 85; r2 5028 INVALID`), or with `each_row` a list of them. A throughput the load generator
    capped in a closed loop reads `>= 2244 (load generator)`; the lowest alone where all were."""
    floored = column.endswith(FLOORED)

    def cell(row: pd.Series) -> str | list[str]:
        marks, values = row["verdicts"], row[f"{column}.each"]
        if not listed(row):
            text = with_interval(row[column], row[f"{column}.low"], row[f"{column}.high"], fmt)
            have = sum(not pd.isna(value) for value in values)
            return text if have in (0, len(values)) else f"{text} ({have} of {len(values)})"
        if floored and not each_row and all(mark == standing.BOUND for _, mark in marks):
            lowest = f", lowest of {len(marks)}" if len(marks) > 1 else ""
            return f">= {fmt(standing.floor(marks, values))} (load generator{lowest})"
        texts = [f">= {fmt(value)} (load generator)" if floored and mark == standing.BOUND else fmt(value)
                 for (_, mark), value in zip(marks, values, strict=True)]
        if each_row:
            return texts
        return "; ".join(f"r{repeat} {text}" + ("" if floored and mark == standing.BOUND else _marked(mark))
                         for (repeat, mark), text in zip(marks, texts, strict=True))

    return aggregated.apply(cell, axis=1)


def listed(row: pd.Series) -> bool:
    """Whether a group (an `aggregate_repeats` row) has a repeat that does not count: one by one."""
    return any(mark != standing.COUNTS for _, mark in row["verdicts"])


def counted(aggregated: pd.DataFrame, each_row: bool = False) -> pd.Series:
    """`3 of 3`: how many of each group's repeats count, of all; with `each_row`, a group shown
    repeat by repeat (`listed`) as a list of them, `r1 FAILED`, `r2`, `r3 INVALID`."""
    def cell(row: pd.Series) -> str | list[str]:
        if each_row and listed(row):
            return [f"r{repeat}{_marked(mark)}" for repeat, mark in row["verdicts"]]
        return f"{row['repeats'] - row['failed'] - row['invalid']} of {row['repeats']}"

    return aggregated.apply(cell, axis=1)


def _marked(mark: str) -> str:
    """` FAILED`, ` INVALID` (a BOUND repeat too) or "" after a repeat that counts."""
    return "" if mark == standing.COUNTS else f" {standing.INVALID if mark == standing.BOUND else mark}"


def markdown(table: pd.DataFrame) -> str:
    """A GitHub Markdown table of text cells, shown as they are: names left, figures right."""
    align = ["left" if column in NAME_COLUMNS else "right" for column in table.columns]
    cells = table.astype(str).map(lambda text: text.replace("|", "\\|"))  # a bare | splits the cell
    return tabulate(cells, headers="keys", tablefmt="github", showindex=False,
                    disable_numparse=True, colalign=align)
