"""A soak's verdict: whether a figure climbs, by its slope's 95 % interval per hour.

Pure functions of its figures. A figure's trend is its least-squares slope per hour over evenly
spaced points, with the slope's 95 % t-interval (scipy's linregress); it rises where that interval's
upper end is not under its tolerance, so a pass says the data rule out a climb as steep as the
tolerance, not only that none was seen. The interval takes the points' noise as independent:
per-minute means of 1 Hz samples are that more nearly than the samples themselves, which is why the
trend is over minutes (over STEP_S points only in a soak too short for MIN_POINTS minutes, then
shown and not judged). A step that stays (memory kept after a burst, a pool grown and not shrunk)
rises as a leak does: the soak flags it, and `onset_minute` says where it began.

See docs/benchmarks.md#endurance-make-soak."""

from collections.abc import Sequence

import numpy as np
from scipy import stats

from bankbench.analyse.estimates import CONFIDENCE
from bankbench.results.probes import Target
from bankbench.results.soak_record import Failure, Minute, MoneyCheck, Trend

HOUR_S = 3600
MIN_POINTS = 3  # a line through fewer has no interval (n - 2 degrees of freedom)
MINUTE_S = 60
STEP_S = 10  # the points of a soak shorter than MIN_POINTS minutes
NOISE_SDS = 2  # how far above its start a point must be to count as risen (onset_minute)
# What a service can miss besides a trend (each judged trend is named by its figure); RUN: its level left
# nothing to judge.
P99, ERRORS, MONEY, LOADGEN, EXIT, RUN = "p99", "errors", "money", "load generator", "exit", "run"


def trend(figure: str, t_s: Sequence[float] | np.ndarray, values: Sequence[float] | np.ndarray, step_s: int,
          tolerance: float | None = None) -> Trend:
    """`figure`'s slope per hour over the points (`t_s` seconds into the window, NaN values left
    out); fewer than MIN_POINTS give no slope and no verdict."""
    t, y = np.asarray(t_s, dtype=float), np.asarray(values, dtype=float)
    kept = np.isfinite(y)
    t, y = t[kept], y[kept]
    if len(y) < MIN_POINTS:
        return Trend(figure, None, None, None, len(y), step_s)
    if np.ptp(y) == 0:  # a figure that never moved (a fixed pool's connections): no noise to fit
        return Trend(figure, 0.0, 0.0, 0.0, len(y), step_s, tolerance)
    fit = stats.linregress(t, y)
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, len(y) - 2) * fit.stderr
    slope, low, high = (round(float(HOUR_S * value), 3) for value in (fit.slope, fit.slope - half, fit.slope + half))
    return Trend(figure, slope, low, high, len(y), step_s, tolerance, onset_minute(t, y))


def onset_minute(t_s: np.ndarray, values: np.ndarray) -> int | None:
    """The minute (1: the first) from which every point stayed above the start (the median of the
    first MIN_POINTS) by more than NOISE_SDS of the points' noise; None: the last point did not. The
    noise is the spread of the steps between points about their median (1.4826 x MAD / sqrt 2): a
    steady climb and one step leave it as it is."""
    steps = np.diff(values)
    noise = 1.4826 * np.median(np.abs(steps - np.median(steps))) / np.sqrt(2) if len(steps) else 0.0
    above = values > np.median(values[:MIN_POINTS]) + NOISE_SDS * noise
    if not above[-1]:
        return None
    first = len(above) - int(np.argmin(above[::-1])) if not above.all() else 0
    return int(t_s[first] // MINUTE_S) + 1


def failures(minutes: Sequence[Minute], trends: Sequence[Trend], money: Sequence[MoneyCheck],
             target: Target, loadgen_valid: bool = True, exited: bool = False) -> tuple[Failure, ...]:
    """What the service missed, each with the first minute it missed it in: p99 over the target or
    errors at or over its bound in a minute, a judged trend rising (from its onset, else the last
    minute), a money check failed, the load generator not holding up, the service exiting."""
    found = []
    for check, value, missed in ((P99, "p99_ms", lambda v: v is None or v > target.p99_ms),
                                 (ERRORS, "error_pct", lambda v: v is None or v >= target.max_error_pct)):
        missing = [m for m in minutes if missed(getattr(m, value))]
        if missing:
            found.append(Failure(check, missing[0].minute, getattr(missing[0], value), len(missing)))
    last = minutes[-1].minute if minutes else None
    found += [Failure(t.figure, t.onset_minute or last, t.high) for t in trends if t.rising]
    found += [Failure(MONEY, check.minute) for check in money if not check.ok]
    found += [Failure(name, None) for name, missed in ((LOADGEN, not loadgen_valid), (EXIT, exited)) if missed]
    return tuple(found)
