"""Whether the verdict changes with the CPU placement (make sensitivity).

The verdict's sensitivity to the test bed: a series' runs, one per CPU placement, compared per
users level of the main pool and figure (`estimates.leader`). It changes where two placements name
a different winner (the one best service, or none: a tie that only changes shape is no change); a
verdict where the load generator fell short in some repeat measures it too: it is left out there.

See docs/benchmarks.md#placement-sensitivity-does-the-test-bed-decide-the-verdict."""

from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd

from bankbench.analyse import estimates, repeats
from bankbench.analyse.repeats import ERRORS, P99
from bankbench.machine import placement
from bankbench.results import summaries
from bankbench.results.runs import Run
from bankbench.results.summaries import THROUGHPUT

FIGURES = {P99: ("p99 ms", False), ERRORS: ("err %", False), THROUGHPUT: ("req/s", True)}  # (name, high is best)


@dataclass(frozen=True)
class Verdict:
    """Which service was best on one figure at one users level of one placement's run."""

    placement: str
    users: int
    figure: str  # a name of FIGURES
    best: tuple[str, ...]  # the best service (estimates.leader), then those within noise of it
    services: tuple[str, ...]  # every service with the figure there
    limited: bool  # the load generator did not hold up in some repeat of some service
    zero: bool = False  # every service's figure was 0 in every repeat (errors, say)

    @property
    def winner(self) -> str | None:
        """The one service ahead of every other, or None (a tie, a single service, all 0)."""
        single = len(self.best) == 1 and len(self.services) > 1 and not self.zero
        return self.best[0] if single else None


def ordered(series: list[Run]) -> list[Run]:
    """The runs of a series in the order of placement.MODES (split, service-alone, shared)."""
    rank = {mode: i for i, mode in enumerate(placement.MODES)}
    return sorted(series, key=lambda run: rank.get(run.placement, len(rank)))


def verdicts(series: list[Run]) -> list[Verdict]:
    """Every (placement, users, figure) verdict of the series."""
    out = []
    for run in ordered(series):
        summary = run.summary  # the main pool's levels whose money check passed
        rows = summary[(summary["pool"] == repeats.main_pool(summary))
                       & summary["money_ok"].astype(bool)]
        for users, at_users in rows.groupby("users"):
            limited = not at_users[summaries.VALID].astype(bool).all()
            held = at_users[at_users[summaries.VALID].astype(bool)]
            for column, (name, high_is_best) in FIGURES.items():
                figures = {service: estimates.figure(group, column) for service, group in summaries.by_service(held)}
                figures = {service: f for service, f in figures.items() if not pd.isna(f.value)}
                if not figures:
                    if limited:
                        out.append(Verdict(run.placement, int(users), name, (), (), limited))
                    continue
                best, gaps = estimates.leader(figures, high_is_best)
                tied = tuple(service for service, ratio in gaps if not ratio.significant)
                zero = not any(value for f in figures.values() for value in f.values)
                out.append(Verdict(run.placement, int(users), name, (best, *tied), tuple(figures), limited, zero))
    return out


class Change(NamedTuple):
    """A users level and figure whose verdict names different winners under the placements."""

    users: int
    figure: str
    verdicts: tuple[Verdict, ...]  # each placement's, in order, those taken where the load generator held up


def changes(found: list[Verdict]) -> list[Change]:
    """Where the placements name different winners (verdicts the generator limited left out)."""
    points: dict[tuple[int, str], list[Verdict]] = {}
    for v in by_users(found):  # placements in order within each point
        points.setdefault((v.users, v.figure), []).append(v)
    valid = {point: tuple(v for v in group if not v.limited) for point, group in points.items()}
    return [Change(*point, kept) for point, kept in valid.items()
            if len({v.winner for v in kept}) > 1]


def by_users(found: list[Verdict]) -> list[Verdict]:
    """`found` (as `verdicts` gives them) by users level, placements in their order within each."""
    return sorted(found, key=lambda v: v.users)
