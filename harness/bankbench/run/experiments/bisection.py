"""The searches of `make capacity`, as pure logic over a measuring function: the highest rate at
which a service meets its targets, and the smallest heap at which it still does at that rate.

Each probe is one short level (`passes(value)`), and probes cost minutes, so both searches
bisect, and both confirm what they found: the found value is measured `repeats` more times and
must pass every time. A failed confirmation makes it a failure and the bisection goes on below
it (above it, for a heap). `over()` says that the time budget is spent: the search then stops
where it is and says so (`complete` False). Both assume that passing is monotone: a service that
meets its targets at a rate meets them below it, and one that does with a heap does with more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


class OutOfTime(Exception):
    """The budget ran out before the search was done."""


@dataclass
class Found:
    """What a search found: `good` the best value that passed and was confirmed (None: none
    did), `bad` the nearest value that failed beyond it (None: none failed), every probe in
    order, and whether the search ended before the budget did."""

    good: int | None = None
    bad: int | None = None
    probes: list[tuple[int, bool]] = field(default_factory=list)
    complete: bool = True

    def confirmations(self) -> int:
        """How many probes of `good` passed."""
        return sum(1 for value, ok in self.probes if value == self.good and ok)


class _Prober:
    """Runs the probes, recording them, and raises OutOfTime once the budget is spent."""

    def __init__(self, passes: Callable[[int], bool], over: Callable[[], bool], found: Found):
        self.passes, self.over, self.found = passes, over, found

    def __call__(self, value: int) -> bool:
        if self.over():
            raise OutOfTime
        ok = bool(self.passes(value))
        self.found.probes.append((value, ok))
        return ok

    def best_passed(self, beyond: int, better: Callable[[int, int], bool]) -> int | None:
        """The value nearest `beyond` on its good side that passed every time it was probed."""
        values = {value for value, _ in self.found.probes}
        clean = [v for v in values if better(v, beyond) and all(ok for value, ok in self.found.probes if value == v)]
        return min(clean, key=lambda v: abs(v - beyond), default=None)


def highest_rate(passes: Callable[[int], bool], ladder: Sequence[int], precision: float, repeats: int,
                 over: Callable[[], bool]) -> Found:
    """The highest rate that passes: up the `ladder` (ascending rates) to its first failure,
    then bisection until the failing rate is within `precision` (a fraction) of the passing one,
    then `repeats` confirmations."""
    found = Found()
    probe = _Prober(passes, over, found)
    try:
        for rate in ladder:
            if not probe(rate):
                found.bad = rate
                break
            found.good = rate
        if found.good is not None:
            _settle(probe, found, lambda a, b: a < b,
                    lambda good, bad: bad - good <= max(1, precision * good), repeats)
    except OutOfTime:
        found.complete = False
    return found


def smallest(passes: Callable[[int], bool], sizes: Sequence[int], repeats: int, over: Callable[[], bool]) -> Found:
    """The smallest of `sizes` (ascending) that passes: the largest first (none passing: None),
    then bisection over the list, then `repeats` confirmations. `good` and `bad` are sizes."""
    found = Found()
    probe = _Prober(lambda at: passes(sizes[at]), over, found)
    try:
        if probe(len(sizes) - 1):
            found.good, found.bad = len(sizes) - 1, -1  # -1: below the smallest, taken as failing
            _settle(probe, found, lambda a, b: a > b, lambda good, bad: good - bad <= 1, repeats)
    except OutOfTime:
        found.complete = False
    found.probes = [(sizes[at], ok) for at, ok in found.probes]
    found.good = None if found.good is None else sizes[found.good]
    found.bad = None if found.bad is None or found.bad < 0 else sizes[found.bad]
    return found


def _settle(probe: _Prober, found: Found, better: Callable[[int, int], bool],
            close: Callable[[int, int], bool], repeats: int) -> None:
    """Bisects between `found.good` (passed) and `found.bad` (failed; None: nothing above the
    good one was tried) until `close`, confirms the good one, and on a failed confirmation goes
    on between the best other value that passed and the one that just failed."""
    while found.good is not None:
        while found.bad is not None and not close(found.good, found.bad):
            middle = (found.good + found.bad) // 2
            if probe(middle):
                found.good = middle
            else:
                found.bad = middle
        if all(probe(found.good) for _ in range(repeats)):
            return
        found.bad = found.good
        found.good = probe.best_passed(found.bad, better)
