"""The searches of `make capacity` as pure logic: the highest rate that passes, the smallest heap.
Probes cost minutes, so both bisect, then confirm the value found `repeats` more times; a failed
confirmation makes it a failure, the bisection going on past it. Passing is assumed monotone."""

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field


class OutOfTime(Exception):
    """The budget ran out before the search was done."""


@dataclass
class Found:
    """`good` the best value confirmed, `bad` the nearest that failed beyond it, every probe."""

    good: int | None = None
    bad: int | None = None
    probes: list[tuple[int, bool]] = field(default_factory=list)
    complete: bool = True

    def confirmations(self) -> int:
        return sum(1 for value, ok in self.probes if value == self.good and ok)


Search = Generator[int, bool, Found]  # yields the values to probe, is sent whether each passed


def in_turn(searches: dict[str, Search], passes: Callable[[str, int], bool],
            over: Callable[[], bool]) -> dict[str, Found]:
    """Runs `searches` one probe of each in turn, so that the machine's drift falls on all alike."""
    asked: dict[str, int | None] = dict.fromkeys(searches)  # None: not started yet
    found: dict[str, Found] = {}
    while asked:
        for name, value in list(asked.items()):
            search = searches[name]
            try:
                if value is None:
                    asked[name] = next(search)
                elif over():
                    asked[name] = search.throw(OutOfTime)
                else:
                    asked[name] = search.send(bool(passes(name, value)))
            except StopIteration as done:
                del asked[name]
                found[name] = done.value
    return found


def alone(search: Search, passes: Callable[[int], bool], over: Callable[[], bool]) -> Found:
    return in_turn({"": search}, lambda _, value: passes(value), over)[""]


def smallest(passes: Callable[[int], bool], sizes: Sequence[int], repeats: int, over: Callable[[], bool]) -> Found:
    return alone(size_search(sizes, repeats), passes, over)


def rate_search(ladder: Sequence[int], precision: float, repeats: int) -> Search:
    """Up the `ladder` to its first failure, then bisection to within `precision` (a fraction)."""
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
    """The smallest of `sizes` (ascending) that passes: the largest first, then bisection."""
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
    """Asks for `value` (with `sizes`, an index into them) and records whether it passed."""
    ok = yield value if sizes is None else sizes[value]
    found.probes.append((value, ok))
    return ok


def _settle(found: Found, better: Callable[[int, int], bool], close: Callable[[int, int], bool], repeats: int,
            sizes: Sequence[int] | None = None) -> Generator[int, bool, None]:
    """Bisects until `close`, then confirms; after a failure, goes on from the best that passed."""
    while found.good is not None:
        while found.bad is not None and not close(found.good, found.bad):
            middle = (found.good + found.bad) // 2
            if (yield from _probe(found, middle, sizes)):
                found.good = middle
            else:
                found.bad = middle
        for _ in range(repeats):
            if not (yield from _probe(found, found.good, sizes)):
                break
        else:
            return
        found.bad = found.good
        failed = {value for value, ok in found.probes if not ok}
        clean = {v for v, _ in found.probes if better(v, found.bad) and v not in failed}
        found.good = min(clean, key=lambda v: abs(v - found.bad), default=None)
