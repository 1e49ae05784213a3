"""Figures as text, one format for the terminal table, the Markdown report and the notebook."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from tabulate import tabulate

Format = Callable[[float], str]
# Left-aligned in Markdown:
NAME_COLUMNS = {"service", "instance", "label", "level", "item", "value", "errors by status", "placement",
                "load generator", "run", "profile", "why it is kept"}


def number(value: float) -> str:
    """A figure with about three significant digits (4123, 52.5, 2.08); '-' when missing."""
    if pd.isna(value):
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def count(value: float) -> str:
    """A whole count with thousands separators (1,234,567); '-' when missing."""
    return "-" if pd.isna(value) else f"{value:,.0f}"


def significant(value: float) -> str:
    """A figure with three significant digits however small (0.00133, 0.192, 2); '-' when missing."""
    if pd.isna(value):
        return "-"
    if abs(value) >= 100:
        return number(value)
    return np.format_float_positional(value, precision=3, fractional=False, trim="-")


def with_interval(value: float, low: float, high: float, fmt: Format = number) -> str:
    """`value [low-high]`, or the value alone without an interval or where both ends print alike."""
    text, low_text, high_text = fmt(value), fmt(low), fmt(high)
    return text if pd.isna(low) or low_text == high_text else f"{text} [{low_text}-{high_text}]"


def spread_column(aggregated: pd.DataFrame, column: str, fmt: Format = number,
                  mark_failed: bool = False) -> pd.Series:
    """Text cells of `column` from `repeats.aggregate_repeats` output.

    A figure shows `median [low-high]`, its 95 % interval (bankbench.analyse.stats), or the median alone
    when it has no interval or the interval is no wider than the figure's digits. A group with
    no usable repeat shows FAILED when its money check failed every time, else INVALID (the load
    generator did not hold up: bankbench.load.generator).
    With `mark_failed`, a group where some repeats failed the money check or were invalid says
    how many.
    """
    def cell(row: pd.Series) -> str:
        if row["repeats"] == row["failed"]:
            return "FAILED"
        if row["repeats"] == row["failed"] + row["invalid"]:
            return "INVALID"
        text = with_interval(row[column], row[f"{column}.low"], row[f"{column}.high"], fmt)
        marks = [f"{row[kind]} {kind.upper()}" for kind in ("failed", "invalid") if mark_failed and row[kind]]
        return f"{text} ({', '.join(marks)})" if marks else text

    return aggregated.apply(cell, axis=1)


def markdown(table: pd.DataFrame) -> str:
    """A GitHub Markdown table of text cells, shown as they are: names left, figures right."""
    align = ["left" if column in NAME_COLUMNS else "right" for column in table.columns]
    cells = table.astype(str).map(lambda text: text.replace("|", "\\|"))  # a bare | splits the cell
    return tabulate(cells, headers="keys", tablefmt="github", showindex=False,
                    disable_numparse=True, colalign=align)
