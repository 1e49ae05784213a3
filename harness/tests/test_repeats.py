"""A gate that labels instead of hiding: every median says how many repeats it is over, a level
where some repeat does not count is shown repeat by repeat, and a throughput the load generator
capped in a closed loop is a lower bound, never beaten by a smaller level's "peak"."""

from __future__ import annotations

import pandas as pd

from bankbench.analyse import repeats
from bankbench.publish import charts, tables, terminal
from bankbench.results import summaries

GENERATOR_SHORT = "JMeter short of CPU (97 % of its 1 CPU)"


def summary(levels: dict[tuple[str, int], list[float]], invalid: set[tuple[str, int, int]] = frozenset(),
            model: str = "open") -> pd.DataFrame:
    """A summary frame: per (service, users) a repeat per throughput given, the repeats in
    `invalid` (service, users, repeat) ones the load generator did not hold up in; p99 is 40 ms
    plus the repeat's number, so that each repeat's own figure is told apart."""
    rows = []
    for (service, users), throughputs in levels.items():
        for repeat, rps in enumerate(throughputs, 1):
            valid = (service, users, repeat) not in invalid
            rows.append({
                "level_id": f"{service}-u{users}-p95-r{repeat}", "service": service, "users": users, "pool": 95,
                "repeat": repeat, "model": model, "pg_max_connections": 100, "money_ok": True,
                summaries.VALID: valid, "loadgen.reasons": "" if valid else GENERATOR_SHORT,
                "overall.requests": 30 * rps, "overall.throughput_rps": rps, "overall.mean_ms": 10.0,
                "overall.p50_ms": 8.0, "overall.p90_ms": 20.0, "overall.p99_ms": 40.0 + repeat,
                "overall.max_ms": 100.0, "overall.error_pct": 0.0, "overall.errors_by_status.503": 0,
                "resources.service_cpu_mean": 50.0, "resources.service_cpu_max": 90.0,
                "resources.service_rss_mean_mb": 100.0, "resources.service_rss_max_mb": 110.0})
    return pd.DataFrame(rows)


def test_a_level_with_one_invalid_repeat_is_shown_with_all_three() -> None:
    runs = summary({("go", 100): [400.0, 410.0, 420.0], ("go", 500): [1800.0, 1500.0, 1850.0]},
                   invalid={("go", 500, 2)})
    table = tables.levels(runs).set_index(["users", "repeats"])
    # no median of r1 and r3 alone: each repeat's own figures, the invalid one marked
    assert table.loc[500].index.tolist() == ["r1", "r2 INVALID", "r3"]
    assert table.loc[500, ["req/s", "p99 ms"]].values.tolist() == [["1800", "41"], ["1500", "42"],
                                                                   ["1850", "43"]]
    assert table.loc[500, "load generator"].tolist() == ["ok", f"INVALID: {GENERATOR_SHORT}", "ok"]
    assert table.loc[(100, "3 of 3"), "req/s"] == "410 [400-420]"  # every repeat counts: their median
    assert "r1 1800; r2 1500 INVALID; r3 1850" in terminal.comparison_table(runs)


def test_every_median_says_how_many_repeats_it_is_over() -> None:
    runs = summary({("go", 100): [400.0, 410.0, 420.0], ("java", 100): [300.0]})
    runs.loc[2, "resources.service_rss_max_mb"] = float("nan")  # go's r3 has no RSS
    table = tables.levels(runs).set_index("service")
    assert table["repeats"].to_dict() == {"go": "3 of 3", "java": "1 of 1"}
    assert table.loc["go", "RSS max MB"] == "110 (2 of 3)"
    assert terminal.comparison_table(runs).splitlines()[2].split()[1:4] == ["3", "of", "3"]


def test_a_closed_loop_the_generator_capped_is_a_lower_bound() -> None:
    levels = {("go", 500): [1833.0, 1809.0, 1900.0], ("go", 2000): [2304.0, 2244.0, 2355.0]}
    capped = {("go", 2000, repeat) for repeat in (1, 2, 3)}
    closed = summary(levels, capped, model="sustained")
    table = tables.levels(closed).set_index(["users", "repeats"])
    assert table.loc[2000, "req/s"].tolist() == [">= 2304 (load generator)", ">= 2244 (load generator)",
                                                 ">= 2355 (load generator)"]
    assert table.loc[2000, "p99 ms"].tolist() == ["41", "42", "43"]  # INVALID, as the row says
    assert ">= 2244 (load generator, lowest of 3)" in terminal.comparison_table(closed)
    drawn = {c.get_label(): c.lines[0] for c in charts.throughput(repeats.aggregate_levels(closed)).axes[0].containers}
    bound = drawn["go: at least (load generator the limit)"]  # beside go's medians, not dropped
    assert (list(bound.get_xdata()), list(bound.get_ydata())) == ([2000], [2244.0])
    # Under a planned rate a generator that fell short bounds nothing: the figures, marked INVALID.
    opened = tables.levels(summary(levels, capped)).set_index(["users", "repeats"])
    assert opened.loc[2000, "req/s"].tolist() == ["2304", "2244", "2355"]
