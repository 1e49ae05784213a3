"""The statistics of make tune's duel: its effect, its interval and its power.

Issue 69, item 5 (docs/method.md#a-duels-effect-and-power). From the CPU per request of each probe
of the incumbent and of the candidate, the effect candidate / incumbent - 1 as the Hodges-Lehmann
shift of the log scores (the median of every candidate-minus-incumbent difference), with the 95 %
interval that inverts the two-sided Mann-Whitney test (scipy's, exact below 9 probes a side without
ties: the Moses interval). The candidate wins when the whole interval is below 0, a cut: a one-sided
test at 2.5 %.

Each duel also gives the smallest cut it could detect at 80 % power, from its own probes: the
pooled standard deviation of their log scores and their counts, by simulating this very rule on
normal log scores (SIMULATIONS draws, a fixed seed). The t-test's formula (statsmodels'
TTestIndPower with the Mann-Whitney test's efficiency of 3/pi) overstates it at these counts:
0.63 against 0.58 for a 10 % cut at sd 0.07 with 6 probes a side, as the exact test's levels are
discrete. Below 4 probes a side the interval cannot exclude 0 at all: no cut is detectable."""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
POWER = 0.8
SIMULATIONS = 4000
SEED = 20261206
METHOD = "Hodges-Lehmann shift, Mann-Whitney interval"  # on log CPU per request


@dataclass(frozen=True)
class Effect:
    """candidate / incumbent - 1 with its 95 % interval (< 0: the candidate costs less); the
    smallest cut the duel could detect at POWER (0.12: 12 %; None: none, too few probes)."""

    value: float
    low: float
    high: float
    detectable: float | None
    sd: float  # the pooled standard deviation of the log scores
    method: str = METHOD

    @property
    def wins(self) -> bool:
        """The candidate's whole interval is a cut."""
        return bool(self.high < 0)


def compare(incumbent: Sequence[float], candidate: Sequence[float]) -> Effect:
    """The effect of `candidate`'s scores against `incumbent`'s (module doc); 2 or more a side."""
    a, b = np.log(np.asarray(incumbent, dtype=float)), np.log(np.asarray(candidate, dtype=float))
    if min(len(a), len(b)) < 2:
        raise ValueError("a duel's effect needs at least two probes of each value")
    shift, low, high = (float(v[0]) for v in shift_intervals(a[None, :], b[None, :]))
    sd = pooled_sd(a, b)
    return Effect(float(np.expm1(shift)), float(np.expm1(low)), float(np.expm1(high)),
                  detectable_cut(sd, len(a), len(b)), sd)


def shift_intervals(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row by row, the Hodges-Lehmann shift of b from a and its interval: the shifts the two-sided
    Mann-Whitney test does not reject at 1 - CONFIDENCE. The test's statistic moves only where a
    shift crosses a difference b_j - a_i, so it is tried once between each two and past both ends."""
    differences = np.sort((b[:, :, None] - a[:, None, :]).reshape(len(b), -1), axis=1)
    tried = np.concatenate([differences[:, :1] - 1, (differences[:, 1:] + differences[:, :-1]) / 2,
                            differences[:, -1:] + 1], axis=1)
    p = stats.mannwhitneyu(b[:, None, :] - tried[:, :, None], a[:, None, :], axis=-1).pvalue
    kept = p > 1 - CONFIDENCE
    below = np.concatenate([np.full((len(b), 1), -np.inf), differences], axis=1)  # each gap's ends
    above = np.concatenate([differences, np.full((len(b), 1), np.inf)], axis=1)
    rows = np.arange(len(b))
    first, last = kept.argmax(axis=1), kept.shape[1] - 1 - kept[:, ::-1].argmax(axis=1)
    return np.median(differences, axis=1), below[rows, first], above[rows, last]


def pooled_sd(a: np.ndarray, b: np.ndarray) -> float:
    """The two samples' pooled standard deviation."""
    return float(np.sqrt(((len(a) - 1) * np.var(a, ddof=1) + (len(b) - 1) * np.var(b, ddof=1))
                         / (len(a) + len(b) - 2)))


@lru_cache
def _upper_ends(n_incumbent: int, n_candidate: int) -> np.ndarray:
    """The interval's upper end over SIMULATIONS duels of standard normal log scores without an
    effect, sorted: with a shift d and a standard deviation sd, a duel wins where sd * end + d < 0."""
    rng = np.random.default_rng(SEED)
    a, b = rng.standard_normal((SIMULATIONS, n_incumbent)), rng.standard_normal((SIMULATIONS, n_candidate))
    return np.sort(shift_intervals(a, b)[2])


def power(cut: float, sd: float, n_incumbent: int, n_candidate: int) -> float:
    """The chance the candidate wins when it costs `cut` less (0.1: 10 %), log scores normal with
    standard deviation `sd` on both sides."""
    if sd == 0:
        return float(cut > 0 and np.isfinite(_upper_ends(n_incumbent, n_candidate)).all())
    return float(np.mean(_upper_ends(n_incumbent, n_candidate) < -np.log1p(-cut) / sd))


def detectable_cut(sd: float, n_incumbent: int, n_candidate: int, target: float = POWER) -> float | None:
    """The smallest cut won with probability `target` (module doc); None: no cut is."""
    ends = _upper_ends(n_incumbent, n_candidate)
    end = ends[int(np.ceil(target * len(ends))) - 1]
    return float(-np.expm1(-sd * end)) if np.isfinite(end) else None
