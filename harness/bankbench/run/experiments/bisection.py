"""The searches of make capacity as pure logic: the rate's staircase, the heap's bisection.

The rate: an up-and-down staircase (Dixon and Mood's design for the rate held half the time) whose
every probe is kept for a model of P(hold | rate), no probe fixing a bound: up a ladder to its first
miss, then down after a miss and up after a hold, the step halved at each reversal down to a fixed
share of the rate, for a fixed number of probes. The heap: bisection, the smallest that holds
confirmed `repeats` more times.

See docs/method.md#capacity-the-searchs-design."""

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

from bankbench.errors import UserError


class OutOfTime(Exception):
    """The budget ran out before the search was done."""


@dataclass
class Found:
    """`good` the best value found, `bad` the nearest that failed beyond it, every probe; a
    staircase's `estimate`: its rate held half the time (None: too few probes at its fixed step)."""

    good: int | None = None
    bad: int | None = None
    probes: list[tuple[int, bool]] = field(default_factory=list)
    complete: bool = True
    estimate: float | None = None

    def confirmations(self) -> int:
        return sum(1 for value, ok in self.probes if value == self.good and ok)


Search = Generator[int, bool, Found]  # yields the values to probe, is sent whether each passed


@dataclass(frozen=True)
class Design:
    """The rate search's design (the capacity profile's `search` table and `users`): `probes` per
    contender, the ladder's included; `step`, the staircase's fixed step, a share of the rate."""

    ladder: tuple[int, ...]
    probes: int = 14
    step: float = 0.06

    def __post_init__(self) -> None:
        if not self.ladder or self.ladder[0] < 1 or list(self.ladder) != sorted(set(self.ladder)):
            raise UserError(f"make capacity's ladder (`users`) must be rates rising from 1 up: {list(self.ladder)}")
        if self.probes < 1 or not 0 < self.step < 1:
            raise UserError(f"make capacity's search needs probes >= 1 and a step between 0 and 100 %: "
                            f"{self.probes}, {self.step:.0%}")

    def rungs(self) -> Generator[int, None, None]:
        """The ladder, then on past its top at its last ratio (2 if it has one rung)."""
        yield from self.ladder
        rate, ratio = self.ladder[-1], self.ladder[-1] / self.ladder[-2] if len(self.ladder) > 1 else 2.0
        while True:
            rate = max(rate + 1, round(rate * ratio))
            yield rate


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


def staircase(design: Design) -> Search:
    """Up the ladder to its first miss, then on a grid of the rate missed times (1 + step)^k: down
    after a miss, up after a hold, by half the ladder's last step at the first reversal and half
    again at each one after it, down to one step; `design.probes` probes in all. `good`, `bad`:
    `provisional` of them; `estimate`: the geometric mean of the rates probed at the fixed step and
    of the one it would probe next (Brownlee, Hodges and Rosenblatt's estimate of the 50 % point)."""
    found, anchor = Found(), 0
    fixed: list[int] = []
    try:
        below = None  # the ladder's last rung that held
        for anchor in design.rungs():
            if len(found.probes) >= design.probes:
                return _ended(found, design, anchor, fixed)
            if not (yield from _probe(found, anchor)):
                break
            below = anchor
        ladder = design.ladder
        ratio = anchor / below if below else ladder[1] / ladder[0] if len(ladder) > 1 else 2.0
        size, up, k, held = max(1, round(math.log(ratio) / math.log1p(design.step))), True, 0, False
        while len(found.probes) < design.probes:
            if held != up:  # a reversal
                size, up = max(1, size // 2), held
            k += size if up else -size
            held = yield from _probe(found, _on_grid(anchor, design.step, k))
            if size == 1:
                fixed.append(k)
    except OutOfTime:
        found.complete = False
    return _ended(found, design, anchor, fixed)


def _on_grid(anchor: int, step: float, k: int) -> int:
    return max(1, round(anchor * (1 + step) ** k))


def _ended(found: Found, design: Design, anchor: int, fixed: list[int]) -> Found:
    found.good, found.bad = provisional(found.probes)
    if len(fixed) >= 2:  # the probes at the fixed step, the last of them the search's last, and the next
        ks = [*fixed, fixed[-1] + (1 if found.probes[-1][1] else -1)]
        found.estimate = round(anchor * (1 + design.step) ** (sum(ks) / len(ks)), 1)
    return found


def provisional(probes: Sequence[tuple[int, bool]]) -> tuple[int | None, int | None]:
    """A rate the probes say the contender holds, for the heap sweep and make tune's basis (the
    capacity is the model's over every probe, bankbench.analyse.capacity_model): the highest rate probed
    twice or more at which every probe held (else, the highest at which its one probe held); and
    the lowest rate above it at which a probe missed (None: none)."""
    seen: dict[int, list[bool]] = {}
    for rate, held in probes:
        seen.setdefault(rate, []).append(held)
    clean = [rate for rate, held in seen.items() if all(held)]
    good = max([rate for rate in clean if len(seen[rate]) > 1] or clean, default=None)
    bad = min((rate for rate, held in seen.items() if not all(held) and (good is None or rate > good)), default=None)
    return good, bad


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
            sizes: Sequence[int]) -> Generator[int, bool, None]:
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
        found.bad = bad = found.good
        failed = {value for value, ok in found.probes if not ok}
        clean = {v for v, _ in found.probes if better(v, bad) and v not in failed}
        found.good = min(clean, key=lambda v: abs(v - bad), default=None)
