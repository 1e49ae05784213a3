"""make tune's duel statistics (bankbench.analyse.duel_stats) on simulated duels, seeded: CPU per request
log-normal about 0.3 ms with the committed tune probes' spread (sd of log: 0.07 go, 0.17 java,
0.24 java-virtual, NOTES), 6 probes a side; the figures in the comments are what these seeds gave."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bankbench.analyse import duel_stats

SPREAD = {"go": 0.07, "java": 0.17, "java-virtual": 0.24}


def duels(seed: int, count: int, sd: float, cut: float, probes: int = 6) -> list[duel_stats.Effect]:
    rng = np.random.default_rng(seed)
    return [duel_stats.compare(0.3 * np.exp(rng.normal(0, sd, probes)),
                               0.3 * (1 - cut) * np.exp(rng.normal(0, sd, probes))) for _ in range(count)]


@pytest.mark.parametrize(("service", "count"), [("go", 1000), ("java", 600)])
def test_a_duel_keeps_a_10_percent_cut_at_the_power_it_reports(service: str, count: int) -> None:
    """Issue 69: a true 10 % cut is won as often as the duels' own power for it says, within
    simulation error (3 standard errors). go: won in 61.6 % of the duels, which reported 62.3 % on
    average (their plug-in sd of 12 probes runs a little low), 57.7 % at the true spread; java:
    13.7 % against 16.1 % reported, 13.6 % at the true spread."""
    sd = SPREAD[service]
    effects = duels(1, count, sd, 0.10)
    won = np.mean([e.wins for e in effects])
    reported = np.mean([duel_stats.power(0.10, e.sd, 6, 6) for e in effects])
    error = 3 * math.sqrt(won * (1 - won) / count)
    assert won >= reported - error
    assert abs(won - duel_stats.power(0.10, sd, 6, 6)) < error  # the power of the rule itself


def test_without_an_effect_the_candidate_wins_about_one_duel_in_fifty() -> None:
    """The whole interval below 0: a one-sided test at 2.5 %, 2.06 % with the exact test's
    discrete levels at 6 a side (this seed: 2.2 % of 1,000 duels)."""
    effects = duels(2, 1000, SPREAD["java"], 0.0)
    level = duel_stats.power(0.0, SPREAD["java"], 6, 6)
    assert level == pytest.approx(0.0206, abs=0.004)
    assert np.mean([e.wins for e in effects]) <= level + 3 * math.sqrt(level * (1 - level) / 1000)
    assert abs(np.median([e.value for e in effects])) < 0.02


def test_the_interval_is_the_moses_interval() -> None:
    """Hodges-Lehmann's shift, the median of the 42 differences, and the Mann-Whitney interval
    from the 7th smallest to the 7th largest (6 and 7 probes: the two-sided 5 % critical U is 6)."""
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 1, 6), rng.normal(0.5, 1, 7)
    differences = np.sort(np.subtract.outer(b, a).ravel())
    shift, low, high = (v[0] for v in duel_stats.shift_intervals(a[None, :], b[None, :]))
    assert (shift, low, high) == (pytest.approx(np.median(differences)), differences[6], differences[-7])
    effect = duel_stats.compare(np.exp(a), np.exp(b))
    assert (effect.value, effect.low, effect.high) == (pytest.approx(math.expm1(shift)), pytest.approx(math.expm1(low)),
                                                       pytest.approx(math.expm1(high)))


def test_a_clear_cut_wins_and_a_gain_within_the_spread_does_not() -> None:
    clear = duel_stats.compare([0.30, 0.32, 0.31, 0.30, 0.33, 0.31], [0.25, 0.26, 0.24, 0.25, 0.27, 0.26])
    assert clear.wins and clear.high < 0 and clear.value == pytest.approx(0.25 / 0.31 - 1, abs=0.02)
    within = duel_stats.compare([0.30, 0.36, 0.31, 0.33, 0.29, 0.35], [0.28, 0.29, 0.30, 0.34, 0.31, 0.33])
    assert not within.wins and within.low < 0 < within.high


def test_three_probes_a_side_can_never_win() -> None:
    """The exact test's smallest two-sided p at 3 a side is 0.1: no interval excludes 0."""
    effect = duel_stats.compare([0.30, 0.31, 0.32], [0.10, 0.11, 0.12])
    assert not effect.wins and effect.high == math.inf and effect.detectable is None
    assert duel_stats.power(0.5, 0.07, 3, 3) == 0.0


@pytest.mark.parametrize(("service", "expected"), [("go", 0.128), ("java", 0.282), ("java-virtual", 0.374)])
def test_the_detectable_cut_is_where_the_power_reaches_80_percent(service: str, expected: float) -> None:
    """At the committed spreads, 6 probes a side see cuts of 12.8 % for go, 28 % for java and 37 %
    for java-virtual at 80 % power (3 a side can see none: the old rule's median-and-range saw 21,
    47 and over 60 %, issue 69)."""
    cut = duel_stats.detectable_cut(SPREAD[service], 6, 6)
    assert cut == pytest.approx(expected, abs=0.01)
    sd = SPREAD[service]
    assert duel_stats.power(cut * 1.01, sd, 6, 6) >= 0.8 > duel_stats.power(cut * 0.99, sd, 6, 6)
    assert duel_stats.detectable_cut(sd, 8, 8) < cut  # more probes, smaller cuts


def test_equal_scores_detect_any_cut() -> None:
    effect = duel_stats.compare([0.3] * 6, [0.2] * 6)
    assert effect.sd == 0 and effect.detectable == 0 and effect.wins
    with pytest.raises(ValueError, match="two probes"):
        duel_stats.compare([0.3], [0.2, 0.2])
