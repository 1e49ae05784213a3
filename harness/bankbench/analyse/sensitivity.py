"""The verdict's sensitivity to the test bed: the runs of a series (bankbench.results.runs), one
per CPU placement (bankbench.tools.placement), compared at each users level of the main pool.

Within each run, per figure (p99, errors, throughput), the verdict is the service whose median is
best together with every service within noise of it (`estimates.leader`, `estimates.Ratio.significant`,
as the narrative names a leader): "go", "go or java (within noise)", or "within noise" when no
service stands out. The verdict changes with the placement where two placements name a different
winner (the one best service, or none) at a users level and figure: "go or java (within noise)" and
"within noise" both name none, so a tie that only changes shape is no change. A verdict taken
where the load generator did not hold up in some repeat (`loadgen.valid`,
bankbench.load.generator: short of CPU, short of the planned rate) measures JMeter as much as the
services: it is shown, marked, and left out of that question.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bankbench import estimates
from bankbench.analyse import repeats
from bankbench.analyse.narrative import ERRORS, P99, THROUGHPUT
from bankbench.results import summaries
from bankbench.results.runs import Run, by_series
from bankbench.tools import placement

FIGURES = {P99: ("p99 ms", False), ERRORS: ("err %", False), THROUGHPUT: ("req/s", True)}  # (name, high is best)


@dataclass(frozen=True)
class Verdict:
    """Which service was best on one figure at one users level of one placement's run."""

    placement: str
    users: int
    figure: str  # a name of FIGURES
    best: tuple[str, ...]  # the best median's service, then those within noise of it
    services: tuple[str, ...]  # every service with the figure there
    limited: bool  # the load generator did not hold up in some repeat of some service
    zero: bool = False  # every service's figure was 0 in every repeat (errors, say)

    @property
    def text(self) -> str:
        if not self.services and self.limited:
            return "n/a"  # no repeat the load generator held up in
        if len(self.services) < 2:
            return f"{''.join(self.services) or 'no service'} alone"
        if self.zero:
            return "all 0"
        if len(self.best) == len(self.services):
            return "within noise"
        return self.best[0] if len(self.best) == 1 else f"{' or '.join(self.best)} (within noise)"

    @property
    def winner(self) -> str | None:
        """The one service ahead of every other, or None (a tie, a single service, all 0)."""
        single = len(self.best) == 1 and len(self.services) > 1 and not self.zero
        return self.best[0] if single else None


def ordered(series: list[Run]) -> list[Run]:
    """The runs of a series in the order of placement.MODES (split, service-alone, shared)."""
    rank = {mode: i for i, mode in enumerate(placement.MODES)}
    return sorted(series, key=lambda run: rank.get(run.placement, len(rank)))


def levels(run: Run) -> pd.DataFrame:
    """The run's summary rows at its main pool whose money check passed (the load generator's
    verdict aside: `verdicts` marks the levels where it did not hold up)."""
    summary = run.summary
    return summary[(summary["pool"] == repeats.main_pool(summary)) & summary["money_ok"].astype(bool)]


def verdicts(series: list[Run]) -> list[Verdict]:
    """Every (placement, users, figure) verdict of the series."""
    out = []
    for run in ordered(series):
        rows = levels(run)
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


def changes(found: list[Verdict]) -> list[str]:
    """Where the placements name different winners, in words (verdicts taken where the load
    generator did not hold up left out): "at 10,000 users, p99: go under split, ..."."""
    out = []
    for (users, figure), group in _by_point(found).items():  # placements in order within each
        valid = [v for v in group if not v.limited]
        if len({v.winner for v in valid}) > 1:
            out.append(f"at {users:,} users, {figure}: "
                       + ", ".join(f"{v.text} under {v.placement}" for v in valid))
    return out


def _by_users(found: list[Verdict]) -> list[Verdict]:
    """`found` (placement by placement, as `verdicts` gives them) by users level, placements in
    their order within each."""
    return sorted(found, key=lambda v: v.users)


def _by_point(found: list[Verdict]) -> dict[tuple[int, str], list[Verdict]]:
    points: dict[tuple[int, str], list[Verdict]] = {}
    for v in _by_users(found):
        points.setdefault((v.users, v.figure), []).append(v)
    return points


def sentence(series: list[Run]) -> str:
    """Whether the verdict changes with the placement, and what was left out of that question."""
    found = verdicts(series)
    modes = ", ".join(run.placement for run in ordered(series))
    if len(series) < 2:
        return f"Only one placement ({modes}) was measured: nothing to compare."
    limited = "; ".join(dict.fromkeys(f"{v.users:,} users under {v.placement}" for v in _by_users(found) if v.limited))
    users = sorted({v.users for v in found if not v.limited})
    if not users:
        return f"No verdict to compare: the load generator did not hold up at any level ({limited})."
    left_out = f" Left out, as the load generator did not hold up there: {limited}." if limited else ""
    diff = changes(found)
    if diff:
        return f"The verdict changes with the CPU placement ({modes}): {'; '.join(diff)}.{left_out}"
    return (f"The verdict is the same under every placement ({modes}) at "
            f"{' and '.join(f'{u:,}' for u in users)} users, on {', '.join(n for n, _ in FIGURES.values())}."
            + left_out)


def headline(runs: list[Run]) -> str | None:
    """For the report's headline: whether the verdict changes with the CPU placement, from the
    series among `runs` that measured two placements or more (None without one)."""
    series, _ = by_series(runs)
    groups = [group for group in series.values() if len(group) > 1]
    if not groups:
        return None
    diff = [change for group in groups for change in changes(verdicts(group))]
    if not diff:
        return " ".join(sentence(group) for group in groups) + " See Placement sensitivity."
    return ("The verdict depends on the test bed: it changes with the CPU placement of the load "
            f"generator, the service and PostgreSQL ({'; '.join(diff)}); see Placement sensitivity.")
