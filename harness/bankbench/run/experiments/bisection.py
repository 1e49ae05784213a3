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

from collections.abc import Callable, Generator, Sequence
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


Search = Generator[int, bool, Found]  # yields the values to probe, is sent whether each passed


def in_turn(searches: dict[str, Search], passes: Callable[[str, int], bool],
            over: Callable[[], bool]) -> dict[str, Found]:
    """Runs `searches` side by side, one probe of each in turn (`passes(name, value)`), so that
    whatever drifts on the machine falls on all of them alike; returns what each found. Once
    `over()`, every search still going ends where it is, incomplete."""
    asked: dict[str, int] = {}
    found: dict[str, Found] = {}

    def step(name: str, advance: Callable[[], int]) -> None:
        try:
            asked[name] = advance()
        except StopIteration as done:
            asked.pop(name, None)
            found[name] = done.value

    for name, search in searches.items():
        step(name, search.__next__)
    while asked:
        for name in list(asked):
            search = searches[name]
            if over():
                step(name, lambda search=search: search.throw(OutOfTime))
            else:
                step(name, lambda search=search, name=name: search.send(bool(passes(name, asked[name]))))
    return found


def alone(search: Search, passes: Callable[[int], bool], over: Callable[[], bool]) -> Found:
    """One search by itself."""
    return in_turn({"": search}, lambda _, value: passes(value), over)[""]


def smallest(passes: Callable[[int], bool], sizes: Sequence[int], repeats: int, over: Callable[[], bool]) -> Found:
    return alone(size_search(sizes, repeats), passes, over)


def rate_search(ladder: Sequence[int], precision: float, repeats: int) -> Search:
    """The highest rate that passes: up the `ladder` (ascending rates) to its first failure,
    then bisection until the failing rate is within `precision` (a fraction) of the passing one,
    then `repeats` confirmations."""
    found = Found()
    try:
        for rate in ladder:
            if not (yield from _probe(found, rate)):
                found.bad = rate
                break
            found.good = rate
        if found.good is not None:
            yield from _settle(found, lambda a, b: a < b, lambda good, bad: bad - good <= max(1, precision * good),
                               repeats)
    except OutOfTime:
        found.complete = False
    return found


def size_search(sizes: Sequence[int], repeats: int) -> Search:
    """The smallest of `sizes` (ascending) that passes: the largest first (none passing: None),
    then bisection over the list, then `repeats` confirmations. `good` and `bad` are sizes."""
    found = Found()
    try:
        # Bisected over the indexes: the values probed are sizes[index].
        if (yield from _probe(found, len(sizes) - 1, sizes)):
            found.good, found.bad = len(sizes) - 1, -1  # -1: below the smallest, taken as failing
            yield from _settle(found, lambda a, b: a > b, lambda good, bad: good - bad <= 1, repeats, sizes)
    except OutOfTime:
        found.complete = False
    found.probes = [(sizes[at], ok) for at, ok in found.probes]
    found.good = None if found.good is None else sizes[found.good]
    found.bad = None if found.bad is None or found.bad < 0 else sizes[found.bad]
    return found


def _probe(found: Found, value: int, sizes: Sequence[int] | None = None) -> Generator[int, bool, bool]:
    """Asks for `value` (of `sizes`, an index into them) and records whether it passed."""
    ok = yield value if sizes is None else sizes[value]
    found.probes.append((value, ok))
    return ok


def _settle(found: Found, better: Callable[[int, int], bool], close: Callable[[int, int], bool], repeats: int,
            sizes: Sequence[int] | None = None) -> Generator[int, bool, None]:
    """Bisects between `found.good` (passed) and `found.bad` (failed; None: nothing above the
    good one was tried) until `close`, confirms the good one, and on a failed confirmation goes
    on between the best other value that passed and the one that just failed."""
    while found.good is not None:
        while found.bad is not None and not close(found.good, found.bad):
            middle = (found.good + found.bad) // 2
            if (yield from _probe(found, middle, sizes)):
                found.good = middle
            else:
                found.bad = middle
        confirmed = True
        for _ in range(repeats):
            confirmed = (yield from _probe(found, found.good, sizes)) and confirmed
            if not confirmed:
                break
        if confirmed:
            return
        found.bad = found.good
        found.good = _best_passed(found, found.bad, better)


def _best_passed(found: Found, beyond: int, better: Callable[[int, int], bool]) -> int | None:
    """The value nearest `beyond` on its good side that passed every time it was probed."""
    values = {value for value, _ in found.probes}
    clean = [v for v in values if better(v, beyond) and all(ok for value, ok in found.probes if value == v)]
    return min(clean, key=lambda v: abs(v - beyond), default=None)
