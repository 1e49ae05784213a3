"""`make tune`'s duel of a value against the incumbent, as pure logic.

The incumbent is the value kept so far: the two are probed in turn, `repeats` probes each (profile
tune: 6), so the machine's drift falls on both alike. A probe's score, the shared core's CPU per
request, moves with the settings below saturation; the p99 does not. A value holds the target when
most of its probes did: one p99 past it is the machine's hiccup (go's shipped settings: 56 ms once
in eleven probes of 4-36 ms at 60 % of capacity, 2026-11-28). A probe is void and taken again, up to
`repeats` times a duel, where the load generator fell short or the JIT was still compiling
(`Outcome.compiling`: such probes read 47-80 % high, issue 69). The candidate wins if it held and
the incumbent did not, or where the 95 % interval of its effect on CPU per request lies below 0
(bankbench.analyse.duel_stats: Hodges-Lehmann with the Mann-Whitney interval); the duel records the effect,
its interval and the smallest cut it could have detected at 80 % power. A value is kept only after a
second, independent duel (tuning).

See docs/method.md#a-duels-effect-and-power."""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from bankbench.analyse import duel_stats
from bankbench.results.probes import LOADGEN


@dataclass(frozen=True)
class Outcome:
    """One probe of a value: what of the target it missed (or "start"), its p99 and its score."""

    missed: tuple[str, ...]
    p99_ms: float | None = None
    cpu_ms: float | None = None  # the shared core's CPU per request: the service's and PostgreSQL's
    compiling: bool = False  # the JIT compiled through its window (measure.steady.JIT_QUIET): void


@dataclass
class Duel:
    """A candidate against the incumbent: the probes that counted, in order, those void, the
    outcome, and the effect on CPU per request (candidate / incumbent - 1: < 0 a cut) with its
    95 % interval and the smallest cut the duel could detect (None: none, or no figure)."""

    incumbent: str
    candidate: str
    probes: list[tuple[str, Outcome]] = field(default_factory=list)
    voided: list[tuple[str, Outcome]] = field(default_factory=list)
    won: bool = False
    complete: bool = True  # False: the budget ran out before it ended
    why: str = ""
    effect: float | None = None
    low: float | None = None
    high: float | None = None
    detectable: float | None = None
    confirms: bool = False  # the second duel of a value that won its first

    def outcomes(self, value: str) -> list[Outcome]:
        return [outcome for probed, outcome in self.probes if probed == value]


def duel(probe: Callable[[str], Outcome], incumbent: str, candidate: str, repeats: int,
         over: Callable[[], bool], confirms: bool = False) -> Duel:
    """Probes `incumbent` and `candidate` in turn and judges them (module doc)."""
    result = Duel(incumbent, candidate, confirms=confirms)
    turns = [incumbent, candidate] * repeats
    while turns:
        if over():
            result.complete, result.why = False, f"the budget ran out: {incumbent} stays"
            return result
        outcome = probe(turns[0])
        if (LOADGEN in outcome.missed or outcome.compiling) and len(result.voided) < repeats:
            result.voided.append((turns[0], outcome))
            continue
        result.probes.append((turns.pop(0), outcome))
        if misses(result.outcomes(candidate)) > repeats // 2:
            result.why = f"{candidate} missed the target in most of its probes ({_missed(result.outcomes(candidate))})"
            return result
    judge(result)
    return result


def misses(outcomes: list[Outcome]) -> int:
    return sum(bool(o.missed) for o in outcomes)


def _missed(outcomes: list[Outcome]) -> str:
    return ", ".join(sorted({name for o in outcomes for name in o.missed}))


def judge(result: Duel) -> None:
    """Whether the candidate (which held the target in most of its probes) beats the incumbent,
    why, and the effect on CPU per request, into `result`."""
    a, b = result.incumbent, result.candidate
    scores_a, scores_b = ([o.cpu_ms for o in result.outcomes(value)] for value in (a, b))
    measured_a, measured_b = ([score for score in scores if score is not None] for scores in (scores_a, scores_b))
    effect = None
    if len(measured_a + measured_b) == len(scores_a + scores_b) and min(len(scores_a), len(scores_b)) >= 2:
        effect = duel_stats.compare(measured_a, measured_b)
        result.effect, result.detectable = effect.value, effect.detectable
        result.low, result.high = (None if effect.low <= -1 else effect.low), _finite(effect.high)
    if misses(result.outcomes(a)) * 2 > len(scores_a):
        result.won, result.why = True, f"{a} missed the target in most of its probes ({_missed(result.outcomes(a))}) " \
                                       f"where {b} held it"
    elif effect is None:
        result.why = f"no CPU figure for two or more probes of each: {a} stays"
    else:
        result.won = effect.wins
        seen = "no cut" if effect.detectable is None else f"a cut of {effect.detectable:.1%}"
        result.why = (f"{b}'s CPU per request {effect.value:+.1%} [{effect.low:+.1%}, {effect.high:+.1%}] against "
                      f"{a}'s ({seen} detectable): {'a cut' if effect.wins else 'not a cut'}")


def _finite(value: float) -> float | None:
    """A JSON-friendly figure: None for an end the interval does not reach."""
    return value if math.isfinite(value) else None
