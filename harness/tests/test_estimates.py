"""Intervals and verdicts (bankbench.analyse.estimates): synthetic runs whose services differ only by noise
name no winner, a real 2x difference is named, in the narrative and in `compare`."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bankbench import cli, paths
from bankbench.analyse import estimates, repeats
from bankbench.publish import terminal, verdict_tables
from bankbench.results.documents import Manifest
from bankbench.results.runs import Run

NOISE = ((0.97, 1.0, 1.03), (1.02, 0.98, 1.01))  # two runs' repeats, off by a few % each way


def synthetic_run(factor: dict[str, float], jitter: tuple[float, ...] = NOISE[0]) -> pd.DataFrame:
    """A summary frame of one level (2,000 users, pool 95) per service: throughput 1000 req/s
    and p99 50 ms times the service's `factor` (p99 divided by it), a repeat per `jitter`
    (throughput times it, p99 divided by it; the second service's repeats in reverse order)."""
    rows = []
    for i, (service, scale) in enumerate(factor.items()):
        for repeat, off in enumerate(jitter[::-1] if i % 2 else jitter, 1):
            rows.append({"level_id": f"{service}-u2000-p95-r{repeat}", "service": service, "users": 2000,
                         "pool": 95, "repeat": repeat, "model": "article", "money_ok": True, "loadgen.valid": True,
                         "pg_max_connections": 100,
                         "overall.throughput_rps": 1000 * scale * off, "overall.p99_ms": 50 / scale / off,
                         "overall.error_pct": 0.0, "resources.loadgen_saturated": False,
                         "resources.machine_cpu_mean": 60.0})
    return pd.DataFrame(rows)


def run(summary: pd.DataFrame, name: str) -> Run:
    return Run(Path(name), Manifest.of({"run_id": name, "profile": "local"}), summary)


def test_the_interval_of_three_repeats_is_their_range() -> None:
    low, high = estimates.median_interval([900.0, 1000.0, 1100.0])
    assert (low, high) == (900.0, 1100.0)
    assert estimates.median_interval([5.0, 5.0, 5.0]) == (5.0, 5.0)


def test_fewer_repeats_take_the_interval_of_their_seconds() -> None:
    rows = pd.DataFrame({"overall.throughput_rps": [100.0, 110.0], "overall.p50_ms": [1.0, 2.0],
                         "seconds_ci.throughput_rps.low": [95.0, 104.0],
                         "seconds_ci.throughput_rps.high": [103.0, 118.0]})
    figure = estimates.figure(rows, "overall.throughput_rps")
    assert (figure.value, figure.low, figure.high, figure.source) == (105.0, 95.0, 118.0, estimates.SECONDS)
    p50 = estimates.figure(rows, "overall.p50_ms")
    assert p50.value == 1.5 and np.isnan(p50.low) and p50.source == ""


def test_a_percentile_of_counts_is_numpys_of_the_samples_to_the_bit() -> None:
    """second_intervals takes each resample's p99 from counts per latency value: the figures the
    samples themselves give, so that committed summaries rebuild byte for byte."""
    rng = np.random.default_rng(7)
    for _ in range(500):
        values = np.unique(rng.integers(0, 400, rng.integers(1, 30)))
        counts = rng.integers(0, 6, (3, len(values)))
        counts[:, 0] += 1  # no empty resample
        for q in (50, 99, 99.9):
            expected = [np.percentile(np.repeat(values, row), q) for row in counts]
            assert estimates.percentile_of_counts(counts.astype(float), values, q).tolist() == expected


def test_second_intervals_cover_the_level_figures() -> None:
    seconds = np.repeat(np.arange(30), 100)  # 30 whole seconds of 100 samples, and a partial one
    seconds = np.concatenate([seconds, np.full(10, 30)])
    elapsed = np.random.default_rng(1).exponential(10, len(seconds))
    intervals = estimates.second_intervals(seconds, elapsed)
    assert intervals["throughput_rps"] == {"low": 100.0, "high": 100.0}  # every whole second alike
    p99 = np.percentile(elapsed, 99)
    assert intervals["p99_ms"]["low"] <= p99 <= intervals["p99_ms"]["high"]
    assert intervals["p99_ms"]["high"] - intervals["p99_ms"]["low"] > 0


def test_a_ratio_is_significant_only_beyond_the_noise() -> None:
    same = estimates.ratio(estimates.figure(pd.DataFrame({"x": [990.0, 1010.0, 1000.0]}), "x"),
                       estimates.figure(pd.DataFrame({"x": [1005.0, 995.0, 1020.0]}), "x"))
    assert not same.significant and same.low < 1 < same.high
    double = estimates.ratio(estimates.figure(pd.DataFrame({"x": [990.0, 1010.0, 1000.0]}), "x"),
                         estimates.figure(pd.DataFrame({"x": [2005.0, 1995.0, 2020.0]}), "x"))
    assert double.significant and 1.9 < double.low <= double.value <= double.high < 2.1








def test_a_ratio_over_repeats_says_within_noise_only_where_its_interval_holds_1() -> None:
    """Ranges of three that miss each other by chance (one of b's repeats slow) are no difference:
    the interval shown holds 1, as Welch's test says; and over many draws the two never disagree."""
    def over(values: list[float]) -> estimates.Figure:
        return estimates.figure(pd.DataFrame({"x": values}), "x")

    chance = estimates.ratio(over([1.0, 1.02, 1.04]), over([1.05, 1.06, 1.5]))
    assert chance.low < 1 < chance.high and not chance.significant and chance.p >= estimates.ALPHA
    rng = np.random.default_rng(7)
    pairs = [estimates.ratio(over(list(rng.lognormal(0, 0.1, 3))), over(list(rng.lognormal(shift, 0.1, 3))))
             for shift in np.linspace(0, 0.3, 60)]
    assert all(r.significant == (r.p < estimates.ALPHA) and r.low <= r.value <= r.high for r in pairs)
    assert 0 < sum(r.significant for r in pairs) < len(pairs)
    no_errors_once = estimates.ratio(over([1.0, 2.0, 3.0]), over([0.0, 1.0, 2.0]))  # no logarithm of 0
    assert no_errors_once.value == 0.5 and np.isnan(no_errors_once.low) and not no_errors_once.significant


def test_the_leader_is_lowest_by_what_its_factors_compare() -> None:
    """java's median p99 is the lower (8 against 9 ms), helidon's geometric mean (9.1 against 10.4):
    the factors compare geometric means, so helidon leads and java's factor to it reads above 1."""
    def over(values: list[float]) -> estimates.Figure:
        return estimates.figure(pd.DataFrame({"x": values}), "x")

    lowest, others = estimates.leader({"java": over([7.0, 8.0, 20.0]), "helidon": over([6.0, 9.0, 14.0])},
                                      high_is_best=False)
    ((other, factor),) = others  # the leader's over java's
    assert (lowest, other) == ("helidon", "java") and 0.8 < factor.value < 1 and not factor.significant


def test_compare_two_runs() -> None:
    before = run(synthetic_run({"go": 1.0, "java": 1.0}), "before")
    noise = run(synthetic_run({"go": 1.0, "java": 1.0}, NOISE[1]), "noise")
    faster = run(synthetic_run({"go": 2.0, "java": 1.0}, NOISE[1]), "faster")
    assert set(repeats.differences(before, noise)["verdict"]) == {"within noise", "both 0"}  # errors: 0
    verdicts = repeats.differences(before, faster).set_index(["service", "figure"])["verdict"]
    assert verdicts[("go", "req/s")] == "B higher" and verdicts[("go", "p99 ms")] == "B lower"
    assert verdicts[("java", "req/s")] == "within noise"
    text = terminal.two_runs(before, faster)
    assert "A = before" in text and "B higher" in text and "over repeats" in text
    short = faster.summary.assign(**{"loadgen.valid": faster.summary["repeat"] != 1})  # r1 of each invalid
    assert "(2 of 3)" in terminal.two_runs(before, run(short, "short")) and "(2 of 3)" not in text


def test_compare_needs_levels_in_common() -> None:
    other = synthetic_run({"go": 1.0}).assign(users=100)
    with pytest.raises(Exception, match="no level"):
        repeats.differences(run(synthetic_run({"go": 1.0}), "a"), run(other, "b"))


def test_compare_command_on_the_committed_placement_runs(capsys: pytest.CaptureFixture) -> None:
    """`make compare` reads summarized runs only: the committed ones hold no raw samples."""
    placement = paths.ROOT / "results" / "placement"
    assert cli.main(["compare", str(placement / "shared"), str(placement / "split")]) == 0
    out = capsys.readouterr().out
    assert "A = 20261127T044414Z-native-local" in out and "Welch p" in out
    # java's req/s, p99 and err %; go's levels under shared are invalid (JMeter short of CPU), so go is
    # compared nowhere
    assert out.count("within noise") == 3 and "\n       go " not in out
    assert "A: go-u2000-p95-r1, go-u2000-p95-r2, go-u2000-p95-r3" in out  # left out: the generator did not hold up


def test_compare_refuses_a_run_without_summaries(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    placement = paths.ROOT / "results" / "placement"
    bare = shutil.copytree(placement / "split", tmp_path / "split")
    (bare / "summary.json").unlink()
    assert cli.main(["compare", str(placement / "shared"), str(bare)]) == 1
    assert "has not been summarized: run `make summarize RUN=" in capsys.readouterr().err


def test_a_p99_that_barely_moves_still_has_an_interval() -> None:
    """BCa fails on such data (scipy warns and returns NaN): the percentile interval stands in."""
    seconds = np.repeat(np.arange(20), 50)
    elapsed = np.full(len(seconds), 3.0)
    elapsed[350] = 40.0  # one slow answer: the p99 is 3 ms with or without any one second
    assert estimates.second_intervals(seconds, elapsed)["p99_ms"] == {"low": 3.0, "high": 3.0}


def differs(summary: pd.DataFrame) -> list[list[str]]:
    """The rows of verdict_tables' table of what differs, split into words."""
    told = verdict_tables.text(summary).split("What differs at 95 %")[1]
    return [line.split() for line in told.splitlines() if re.match(r"\s+[\d,]+\s+(p99|CPU|peak)", line)]


def test_noise_names_no_winner() -> None:
    rows = differs(synthetic_run({"go": 1.0, "java": 1.0}))
    assert rows and all(row[-2:] == ["within", "noise"] for row in rows)


def test_a_real_difference_is_named() -> None:
    """Java twice as fast: its p99 half go's, told apart."""
    p99 = [row for row in differs(synthetic_run({"go": 1.0, "java": 2.0})) if row[1] == "p99"]
    assert p99 == [["2,000", "p99", "ms", "java", "go", "2.00", "[1.87-2.14]×", "yes"]]


def test_one_repeat_without_seconds_names_no_winner() -> None:
    rows = differs(synthetic_run({"go": 1.0, "java": 2.0}, jitter=(1.0,)))
    assert rows and not any(row[-1] == "yes" for row in rows)


def test_an_open_model_load_reads_as_a_rate() -> None:
    """Users only for the closed and article models: an open model's load is iterations/s."""
    assert verdict_tables.text(synthetic_run({"go": 1.0}).assign(model="open")).splitlines()[1].split()[0] == "it/s"
