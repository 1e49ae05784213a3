"""`make tune`'s choice of one knob's value, as pure logic over a measuring function: each value is
probed `repeats` times at the service's capacity rate, and the best is kept.

A value meets the target when every one of its probes held it (bankbench.results.probes
.Target). A probe at which the load generator did not hold up says nothing of the value, whatever
else it missed: the value is probed at a rate that held before, and a generator short of CPU (under
service-alone it shares a core with PostgreSQL, whose CPU once rose from 30 % to 70-88 % of it for a
whole probe) makes late requests and errors of its own. So it runs again, at most `repeats` more
times in all; a probe that missed otherwise ends the value's probes. Of the values that met the
target, one wins over the shipped value (the first) only if every one of its probes had a lower p99
than every probe of the shipped value, and of those the one with the lowest median p99 wins: a value
within the shipped one's spread ties, and ties go to the shipped value. With 3 probes each, a value
no better than the shipped one wins by chance one time in 20 (3 of 6 draws of one distribution being
its 3 smallest). Where the shipped value missed the target, the one with the lowest median p99 of
those that met it wins; where none did, or the budget ran out before every value was measured, the
shipped value stays."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import median

from bankbench.results.probes import LOADGEN


@dataclass(frozen=True)
class Outcome:
    """One probe of a value: what of the target it missed (Target.misses, or "start": the
    service did not start with it), and its p99."""

    missed: tuple[str, ...]
    p99_ms: float | None = None


@dataclass
class Choice:
    """A knob's value kept, why, and the outcomes it was chosen from (value -> its probes that count)."""

    chosen: str
    why: str
    complete: bool = True  # False: the budget ran out before every value was measured
    measured: dict[str, list[Outcome]] = field(default_factory=dict)


def sweep(probe: Callable[[str], Outcome], values: Sequence[str], repeats: int, over: Callable[[], bool]) -> Choice:
    """Measures each of `values` (the shipped one first) and chooses (module doc)."""
    measured: dict[str, list[Outcome]] = {}
    for value in values:
        measured[value] = measure(functools.partial(probe, value), repeats, over)
        if len(measured[value]) < repeats and not any(o.missed for o in measured[value]):
            return Choice(values[0], f"the budget ran out at {value}: the shipped value stays", False, measured)
    chosen, why = choose(measured, values[0], repeats)
    return Choice(chosen, why, True, measured)


def measure(probe: Callable[[], Outcome], repeats: int, over: Callable[[], bool]) -> list[Outcome]:
    """Up to `repeats` probes of one value that count, stopping at the first miss (the value
    cannot meet the target then) and when `over()`; a probe at which the load generator did not
    hold up does not count and runs again, `repeats` times at most."""
    counted: list[Outcome] = []
    spoiled = 0
    while len(counted) < repeats and not over():
        outcome = probe()
        if LOADGEN in outcome.missed and spoiled < repeats:
            spoiled += 1
            continue
        counted.append(outcome)
        if outcome.missed:
            break
    return counted


def choose(measured: dict[str, list[Outcome]], shipped: str, repeats: int) -> tuple[str, str]:
    """The value kept, and why (module doc)."""
    met = {value: sorted(o.p99_ms for o in outcomes) for value, outcomes in measured.items()
           if len(outcomes) == repeats and not any(o.missed for o in outcomes)}
    if not met:
        return shipped, "no value held the target in every probe: the shipped value stays"
    if shipped not in met:
        best = min(met, key=lambda value: median(met[value]))
        return best, (f"the shipped {shipped} missed the target; {best} held it with the lowest median p99 "
                      f"of those that did ({_p99s(met[best])})")
    better = [value for value in met if met[value][-1] < met[shipped][0]]
    if not better:
        return shipped, f"no value had every p99 under every one of the shipped {shipped}'s ({_p99s(met[shipped])})"
    best = min(better, key=lambda value: median(met[value]))
    return best, f"{best}'s p99 ({_p99s(met[best])}) under every one of the shipped {shipped}'s ({_p99s(met[shipped])})"


def _p99s(p99s: list[float]) -> str:
    return ", ".join(f"{p99:g}" for p99 in p99s) + " ms"
