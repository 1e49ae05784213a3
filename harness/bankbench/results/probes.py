"""What a probe (a level of make capacity or make tune) must achieve, and where make tune probes:
the run/ floor judges its levels with these, the analysis reads them back."""

from __future__ import annotations

from dataclasses import dataclass

P99_MS = 50.0  # the latency target (make capacity P99_MS=)
MAX_ERROR_PCT = 0.1  # errors must stay under it
LOADGEN = "load generator"  # the miss of a level at which the load generator did not hold up


@dataclass(frozen=True)
class Target:
    """What a level must achieve to count as held."""

    p99_ms: float = P99_MS
    max_error_pct: float = MAX_ERROR_PCT

    def misses(self, summary: dict) -> list[str]:
        """What of the target a level's summary missed: "money" (its check failed), "load
        generator" (it did not hold up: bankbench.load.validity), "p99", "errors"."""
        overall = summary["overall"]
        return [name for name, missed in (
            ("money", not summary["money_ok"]),
            (LOADGEN, not summary["loadgen"]["valid"]),
            ("p99", overall["p99_ms"] is None or overall["p99_ms"] > self.p99_ms),
            ("errors", overall["error_pct"] is None or overall["error_pct"] >= self.max_error_pct)) if missed]

    def held(self, summary: dict) -> bool:
        """Whether a level's summary meets the whole target."""
        return not self.misses(summary)


@dataclass(frozen=True)
class Basis:
    """Where make tune tunes a service: below the capacity rate found under a placement at the
    shipped settings (`run`: the capacity run's id), to its target."""

    rate: int
    target: Target
    run: str


def judged(knob: dict) -> tuple[str, ...]:
    """The values of a tuning.json knob whose duels ended, in the order they were judged."""
    return tuple(dict.fromkeys(value for duel in knob.get("duels", []) if duel["complete"]
                               for value in (duel["incumbent"], duel["candidate"])))


@dataclass(frozen=True)
class Searched:
    """One knob as the newest make tune run that searched it left it (tuning.json): the value
    kept, whether every value was judged, the values whose duels ended, and the other knobs'
    values it was searched at. A run of other knobs starts it at `value` where `complete`; a run
    of this knob at the same other values goes on from there where not."""

    value: str
    run: str
    complete: bool
    judged: tuple[str, ...]
    others: dict[str, str]
