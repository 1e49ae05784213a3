"""make soak's verdict on synthetic minutes (bankbench.analyse.trends): a flat RSS passes, a leak and
a step that stays rise past the tolerance from the minute they began, a per-minute miss names its
minute; and soak.json reads back as it was written."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from bankbench.analyse import soak_figures, trends
from bankbench.publish import soak_page
from bankbench.results import soak_record
from bankbench.results.probes import Target
from bankbench.results.soak_record import Failure, Minute, MoneyCheck, Relation, Soak, Watched

MINUTES = 30
T_S = (np.arange(MINUTES) + 0.5) * trends.MINUTE_S  # the middle of each minute
RSS_MB = soak_figures.TOLERANCES["rss_mb"]
SOAK = Soak(MINUTES, 0.8, "RATE=400", "split", 50.0, 0.1, soak_figures.TOLERANCES, {})


def noise(sd: float, seed: int = 72) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, sd, MINUTES)


def rss_trend(values: np.ndarray) -> soak_record.Trend:
    return trends.trend("rss_mb", T_S, values, trends.MINUTE_S, RSS_MB)


def test_a_flat_series_passes_its_interval_holding_zero() -> None:
    flat = rss_trend(60 + noise(2))
    assert not flat.rising and flat.points == MINUTES
    assert flat.low < 0 < flat.high < RSS_MB


def test_a_leak_rises_from_its_first_minutes() -> None:
    leak = rss_trend(60 + 40 * T_S / 3600 + noise(0.5))  # 40 MB an hour
    assert leak.rising and leak.low < 40 < leak.high and leak.low > RSS_MB
    assert leak.onset_minute is not None and leak.onset_minute <= 5


def test_a_step_that_stays_rises_from_the_minute_it_came() -> None:
    step = rss_trend(60 + 30 * (np.arange(MINUTES) >= 15) + noise(0.5))  # +30 MB from minute 16 on
    assert step.rising and step.onset_minute == 16


def test_a_trend_needs_three_points_and_skips_missing_ones() -> None:
    assert rss_trend(np.full(MINUTES, np.nan)).slope_per_h is None
    assert not rss_trend(np.full(MINUTES, np.nan)).rising
    gaps = 60 + noise(1)
    gaps[::2] = np.nan
    assert rss_trend(gaps).points == MINUTES // 2


def test_a_trend_shown_only_is_never_rising() -> None:
    assert not trends.trend("heap_mb", T_S, 60 + 100 * T_S / 3600, trends.MINUTE_S).rising


def minute(number: int, p99_ms: float = 10.0, error_pct: float = 0.0) -> Minute:
    return Minute(number, 1000, 100.0, 2.0, p99_ms, error_pct, {}, 60.0, 20.0, 0.5, 30.0, 3.0, 5.0, 8.0, 2.0)


def test_failures_name_the_first_minute_each_check_missed_in() -> None:
    minutes = [minute(m, p99_ms=80 if m in (7, 9) else 10, error_pct=0.2 if m == 12 else 0) for m in range(1, 21)]
    money = [MoneyCheck(soak_record.MIDPOINT, 10, True, {}), MoneyCheck(soak_record.END, 20, False, {})]
    leak = rss_trend(60 + 40 * T_S / 3600)
    found = trends.failures(minutes, [leak], money, Target(), loadgen_valid=False)
    assert found == (Failure(trends.P99, 7, 80, 2), Failure(trends.ERRORS, 12, 0.2),
                     Failure("rss_mb", leak.onset_minute, leak.high), Failure(trends.MONEY, 20),
                     Failure(trends.LOADGEN, None))
    assert trends.failures([minute(1), minute(2)], [], money[:1], Target()) == ()


def test_a_noisy_trend_over_its_tolerance_is_not_called_rising() -> None:
    """A slope whose interval holds 0 but reaches the tolerance fails the rule and reads as what it is:
    a climb to the tolerance not ruled out, with no minute it rose from; a leak reads rising."""
    noisy = rss_trend(60 + noise(40))
    leak = rss_trend(60 + 40 * T_S / 3600 + noise(0.5))
    assert noisy.rising and noisy.low < 0 < RSS_MB <= noisy.high
    failures = (Failure("rss_mb", MINUTES, noisy.high),)
    watched = Watched("go", "go-u500-p95-r1", 400.0, tuple(minute(m) for m in range(1, MINUTES + 1)), (noisy,), (),
                      failures)
    assert soak_page.verdict_line(watched, SOAK).startswith(f"[soak] go FAILED (RSS {RSS_MB:g}/h not ruled out):")
    rising = Watched("go", "go-u500-p95-r1", 400.0, watched.minutes, (leak,), (),
                     (Failure("rss_mb", leak.onset_minute, leak.high),))
    assert soak_page.verdict_line(rising, SOAK).startswith(
        f"[soak] go FAILED in minute {leak.onset_minute} (RSS rising from minute {leak.onset_minute}):")


def test_soak_json_reads_back_as_written(tmp_path: Path) -> None:
    watched = Watched("go", "go-u500-p95-r1", 400.0,
                      (Minute(1, 24_000, 400.0, 2.0, 9.0, 0.0, {"503": 0}, 41.5, 12.0, 0.1, 25.0, 1.2, 7.8, 9.0, 1.0,
                              {"client": Relation(1.0, 0.5, 1.6)}),),
                      (rss_trend(60 + noise(2)), trends.trend("threads", T_S[:2], [1, 2], trends.MINUTE_S)),
                      (MoneyCheck(soak_record.END, 1, True, {"clients": 3}),), (Failure(trends.P99, 1, 60.0),))
    soak = dataclasses.replace(SOAK, minutes=1, services={"go": watched})
    soak_record.write(tmp_path, soak)
    assert soak_record.read(tmp_path) == soak
    assert soak_record.read(tmp_path).services["go"].trend("rss_mb").points == MINUTES


@pytest.mark.parametrize("values, onset", [([5, 5, 5, 6, 7, 8], 4), ([5, 5, 5, 5, 9, 5, 9, 9], 7),
                                           ([5, 5, 5, 6, 7, 5], None), ([6, 7, 8, 9, 10, 11], 3)])
def test_onset_is_where_it_stayed_above_the_start(values: list[float], onset: int | None) -> None:
    assert trends.onset_minute(T_S[:len(values)], np.array(values, dtype=float)) == onset
