"""`make tune`'s duel of a value against the incumbent (the value kept so far), as pure logic: the
two are probed in turn, so the machine's drift falls on both alike. A probe's score, the shared
core's CPU per request, moves with the settings below saturation; the p99 does not. A value holds
the target when most of its probes did: one p99 past it is the machine's hiccup (go's shipped
settings: 56 ms once in eleven probes of 4-36 ms at 60 % of capacity, 2026-11-28). The candidate
wins if it held and the incumbent did not, or by a median score lower by more than their spread."""

from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import median

from bankbench.results.probes import LOADGEN


@dataclass(frozen=True)
class Outcome:
    """One probe of a value: what of the target it missed (or "start"), its p99 and its score."""

    missed: tuple[str, ...]
    p99_ms: float | None = None
    cpu_ms: float | None = None  # the shared core's CPU per request: the service's and PostgreSQL's


@dataclass
class Duel:
    """A candidate against the incumbent: the probes that counted, in order, and the outcome."""

    incumbent: str
    candidate: str
    probes: list[tuple[str, Outcome]] = field(default_factory=list)
    kept: bool = False
    complete: bool = True  # False: the budget ran out before it ended
    why: str = ""

    def outcomes(self, value: str) -> list[Outcome]:
        return [outcome for probed, outcome in self.probes if probed == value]


def duel(probe: Callable[[str], Outcome], incumbent: str, candidate: str, repeats: int,
         over: Callable[[], bool]) -> Duel:
    """Probes `incumbent` and `candidate` in turn and judges them (module doc)."""
    result = Duel(incumbent, candidate)
    turns, spoiled = [incumbent, candidate] * repeats, 0
    while turns:
        if over():
            result.complete, result.why = False, f"the budget ran out: {incumbent} stays"
            return result
        outcome = probe(turns[0])
        if LOADGEN in outcome.missed and spoiled < repeats:
            spoiled += 1
            continue
        result.probes.append((turns.pop(0), outcome))
        if misses(result.outcomes(candidate)) > repeats // 2:
            result.why = f"{candidate} missed the target in most of its probes ({_missed(result.outcomes(candidate))})"
            return result
    result.kept, result.why = judge(result.outcomes(incumbent), result.outcomes(candidate), incumbent, candidate)
    return result


def misses(outcomes: list[Outcome]) -> int:
    return sum(bool(o.missed) for o in outcomes)


def _missed(outcomes: list[Outcome]) -> str:
    return ", ".join(sorted({name for o in outcomes for name in o.missed}))


def judge(incumbent: list[Outcome], candidate: list[Outcome], a: str, b: str) -> tuple[bool, str]:
    """Whether `b` (the candidate, which held the target in most of its probes) beats `a`, and why."""
    if misses(incumbent) * 2 > len(incumbent):
        return True, f"{a} missed the target in most of its probes ({_missed(incumbent)}) where {b} held it"
    scores_a, scores_b = [o.cpu_ms for o in incumbent], [o.cpu_ms for o in candidate]
    if None in scores_a or None in scores_b:
        return False, f"no CPU figure for every probe: {a} stays"
    spread = max(max(scores_a) - min(scores_a), max(scores_b) - min(scores_b))
    gain = median(scores_a) - median(scores_b)
    told = (f"{b}'s median {median(scores_b):.4f} ms of CPU per request against {a}'s {median(scores_a):.4f}, "
            f"a spread of {spread:.4f}")
    return gain > spread, (f"{told}: lower by more than it" if gain > spread else f"{told}: not lower by more")
