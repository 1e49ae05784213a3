"""Medians with 95 % intervals, and whether two figures differ.

Two differ where their ratio's 95 % interval excludes 1, and only then. Over MIN_REPEATS passed
repeats or more ("repeats"), a figure is the median with a percentile bootstrap interval
(`scipy.stats.bootstrap`, fixed seed: the same runs, the same report), and a ratio that of the
repeats' geometric means with Welch's t interval on the logarithms: it excludes 1 exactly where
Welch's test gives p < ALPHA. (A bootstrap of the medians' ratio over three repeats a side is
their ranges, which miss each other by chance one time in ten: too narrow to test with, and an
interval beside a test that disagreed with it read "within noise" next to a ratio that excluded 1.)
Over fewer ("seconds"), throughput and p99 take the widest
of the repeats' BCa bootstraps over their whole seconds (`second_intervals`: noise within a level,
not between runs; a p99 is docs/method.md#latency-percentiles'), a ratio's interval the ratio of
their ends. Over make capacity's passes ("passes"), a
figure is the geometric mean of the runs' and a ratio that of the ratios within each run (drift hits
both alike), each with capacity_model.ACROSS's 95 % interval: a t interval over the runs on the
logarithms.

See docs/method.md#how-to-read-the-figures."""

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from bankbench.analyse import capacity_model

CONFIDENCE = 0.95
ALPHA = 0.05  # Welch's level over repeats: 1 - CONFIDENCE (module doc)
MIN_REPEATS = 3  # fewer passed repeats: intervals from per-second buckets (see the module doc)
RESAMPLES = 9999  # bootstrap resamples over repeats (a few values: cheap)
SECOND_RESAMPLES = 999  # over the seconds of a level (each resample a sum of per-second counts)
SEED = 20261122
REPEATS, SECONDS, PASSES = "repeats", "seconds", "passes"  # where an interval comes from


@dataclass(frozen=True)
class Figure:
    """A median with its 95 % interval (NaN ends: none), and the values it was taken over."""

    value: float
    low: float
    high: float
    source: str  # REPEATS, SECONDS, or "" without an interval
    values: tuple[float, ...]


@dataclass(frozen=True)
class Ratio:
    """b / a with its 95 % interval and, over repeats, Welch's p (NaN: no test)."""

    value: float
    low: float
    high: float
    p: float = np.nan
    source: str = ""  # PASSES: over the ratios within each run (module doc); else over repeats or seconds

    @property
    def significant(self) -> bool:
        """The interval excludes 1 (over repeats, the same as Welch's p < ALPHA)."""
        return bool(self.low > 1 or self.high < 1)


def _bootstrap(data: tuple[np.ndarray, ...], statistic: Callable, resamples: int,
               method: str = "percentile") -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.bootstrap(data, statistic, confidence_level=CONFIDENCE, n_resamples=resamples,
                                 method=method, rng=np.random.default_rng(SEED))
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if method != "percentile" and (np.isnan(low) or np.isnan(high)):
        # BCa cannot correct a statistic that barely moves (whole-ms p99s of a quiet level).
        return _bootstrap(data, statistic, resamples, "percentile")
    return low, high


def _interval_of(values: np.ndarray, statistic: Callable, method: str = "percentile") -> tuple[float, float]:
    """Where all `values` are alike, nothing to resample (scipy would warn): their value."""
    if np.ptp(values) == 0:
        return float(values[0]), float(values[0])
    return _bootstrap((values,), statistic, RESAMPLES, method=method)


def median_interval(values: Sequence[float]) -> tuple[float, float]:
    return _interval_of(np.asarray(values, dtype=float), np.median)


def figure(rows: pd.DataFrame, column: str) -> Figure:
    """`column` over the passed repeats `rows` of one level (module doc)."""
    values = rows[column].dropna().to_numpy(dtype=float)
    if len(values) == 0:
        return Figure(np.nan, np.nan, np.nan, "", ())
    median = float(np.median(values))
    if len(values) >= MIN_REPEATS:
        return Figure(median, *median_interval(values), REPEATS, tuple(values))
    seconds = f"seconds_ci.{column.rsplit('.', 1)[-1]}"
    if column.startswith("overall.") and f"{seconds}.low" in rows and rows[f"{seconds}.low"].notna().all():
        # Widened to hold the figure: throughput over the window and per whole second differ.
        return Figure(median, min(float(rows[f"{seconds}.low"].min()), median),
                      max(float(rows[f"{seconds}.high"].max()), median), SECONDS, tuple(values))
    return Figure(median, np.nan, np.nan, "", tuple(values))


def over_passes(values: Sequence[float]) -> Figure:
    """A figure of make capacity's passes (module doc): the runs' geometric mean, its interval."""
    data = np.asarray(values, dtype=float)
    over = capacity_model.over_passes(data)
    if over is None:
        raise ValueError("a figure over passes takes two passes or more")
    return Figure(over.value, over.low, over.high, PASSES, tuple(data))


def ratio(a: Figure, b: Figure) -> Ratio:
    """b / a with its interval (module doc); NaN when either has no figure or interval."""
    if np.isnan(a.value) or np.isnan(b.value) or a.value == 0:
        return Ratio(np.nan, np.nan, np.nan)
    value = b.value / a.value
    if a.source == b.source == PASSES and len(a.values) == len(b.values):
        over = capacity_model.over_passes(np.array(b.values) / np.array(a.values))  # runs in one order
        if over is None:
            raise ValueError("a ratio over passes takes two passes or more")
        return Ratio(over.value, over.low, over.high, source=PASSES)
    if a.source == b.source == REPEATS:
        return _welch_ratio(b.values, a.values)
    with np.errstate(divide="ignore", invalid="ignore"):
        return Ratio(value, b.low / a.high, np.float64(b.high) / a.low)


def _welch_ratio(b: Sequence[float], a: Sequence[float]) -> Ratio:
    """b / a over repeats (module doc): the ratio of their geometric means, with Welch's t interval
    and p on the logarithms; repeats all alike on both sides have no spread to test, and a repeat's
    0 (no errors) no logarithm: the medians' ratio then, untested."""
    if min(*b, *a) <= 0:
        return Ratio(float(np.median(b) / np.median(a)), np.nan, np.nan)
    logs_b, logs_a = (np.log(np.asarray(values, dtype=float)) for values in (b, a))
    value = float(np.exp(logs_b.mean() - logs_a.mean()))
    if np.ptp(logs_b) == 0 and np.ptp(logs_a) == 0:
        return Ratio(value, value, value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # one side all alike: "catastrophic cancellation"
        test = stats.ttest_ind(logs_b, logs_a, equal_var=False)
        low, high = np.exp(test.confidence_interval(CONFIDENCE))
    return Ratio(value, float(low), float(high), float(test.pvalue))


def leader(figures: dict[str, Figure], high_is_best: bool) -> tuple[str, list[tuple[str, Ratio]]]:
    """The name whose centre is best, and each other's ratio to it (the leader's over theirs), from
    the nearest to the farthest: a gap counts only where `Ratio.significant`. The centre is what
    `ratio` compares: over repeats the geometric mean, so that no factor reads below 1."""
    ranked = sorted(figures.items(), key=lambda item: _centre(item[1]), reverse=high_is_best)
    (best, lead), others = ranked[0], ranked[1:]
    return best, [(name, ratio(figure, lead)) for name, figure in others]


def _centre(f: Figure) -> float:
    """Over repeats, all above 0: their geometric mean (as `_welch_ratio`); else the median."""
    if f.source == REPEATS and min(f.values, default=0) > 0:
        return float(stats.gmean(f.values))
    return f.value


def cv_pct(values: Sequence[float]) -> float:
    """The coefficient of variation of `values` in % (sample standard deviation; NaN below 2)."""
    data = np.asarray(values, dtype=float)
    return float(100 * stats.variation(data, ddof=1)) if len(data) > 1 else np.nan


def second_intervals(seconds: np.ndarray, elapsed: np.ndarray) -> dict[str, dict[str, float]]:
    """A level's throughput and p99 intervals (module doc) from each sample's whole second and
    latency in ms: throughput over whole seconds only (the last, partial one would look slow)."""
    counts = np.bincount(seconds)
    if len(counts) < 3:
        return {}
    # A resample of seconds holds each second's samples as often as it drew the second: its p99 is
    # that of the sum of those seconds' counts per latency value, every resample at once.
    values, value_of = np.unique(elapsed, return_inverse=True)
    per_second = np.zeros((len(counts), len(values)))
    np.add.at(per_second, (seconds, value_of), 1)

    def p99(picked: np.ndarray, axis: int = -1) -> np.ndarray:
        rows = picked.reshape(-1, picked.shape[-1])
        drawn = np.bincount((rows + len(counts) * np.arange(len(rows))[:, None]).ravel(),
                            minlength=len(rows) * len(counts)).reshape(len(rows), len(counts))
        return percentile_of_counts(drawn @ per_second, values, 99).reshape(picked.shape[:-1])

    # BCa: resampling seconds pulls a high percentile down; its bias correction puts it back.
    low, high = _bootstrap((np.arange(len(counts)),), p99, SECOND_RESAMPLES, method="BCa")
    rate_low, rate_high = _interval_of(counts[:-1].astype(float), np.mean, method="BCa")
    return {"throughput_rps": {"low": rate_low, "high": rate_high}, "p99_ms": {"low": low, "high": high}}


def percentile_of_counts(counts: np.ndarray, values: np.ndarray, q: float) -> np.ndarray:
    """np.percentile(samples, q) along the last axis of `counts`, how many samples took each of the
    ascending `values`: the same figure to the bit (numpy's linear method), without the samples."""
    n = counts.sum(axis=-1)
    at = (n - 1) * np.true_divide(q, 100)  # where in the sorted samples; between two, interpolated
    below = np.floor(at)
    cumulative = counts.cumsum(axis=-1)

    def nth(index: np.ndarray) -> np.ndarray:  # the index-th smallest sample, from 0
        return values[(cumulative <= index[..., None]).sum(axis=-1)]

    a, b = nth(below), nth(np.minimum(below + 1, n - 1))
    t = at - below
    diff = b - a  # numpy's _lerp, so that the figure is its to the last bit
    result = np.asarray(a + diff * t, dtype=float)
    np.subtract(b, diff * (1 - t), out=result, where=t >= 0.5)
    return result
