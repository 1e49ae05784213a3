"""The verdict of the runs shown, as the report's head and the notebook read it: from the newest
capacity run (`searched`; of the newest under placement service-alone where there is one: the
service alone on its core, the figure a budget needs; at the shipped settings where there is one,
not TUNED's) each service's capacity at the latency target and the cost projection (only from a
capacity under service-alone: else why there is none), from the newest efficiency run
(`measured`) CPU per request and p99 against the offered rate. Beside a capacity under
service-alone, the newest under split with the same target, settings and admission limit (of the
same `make capacity` where it ran both: `split`): on a machine too small for PostgreSQL and the
load generator to keep up with a service alone on its core, split's is the capacity set by the
service with PostgreSQL beside it, not by the load generator."""

from __future__ import annotations

from dataclasses import dataclass, field

from bankbench.analyse import capacity_figures as capacity, projection
from bankbench.analyse.capacity_figures import Capacity
from bankbench.results import probes
from bankbench.results.runs import Run
from bankbench.tools import placement

EFFICIENCY = "efficiency"  # the profile whose runs give CPU per request vs rate (profiles.toml)


@dataclass(frozen=True)
class Verdict:
    """What the verdict rests on; publish.report and the notebook render it."""

    searched: Run | None
    measured: Run | None
    target_ms: float
    found: list[Capacity]  # capacity_figures.figures of `searched`
    projected: list[projection.Projection]
    assumptions: projection.Assumptions | None
    unprojected: str = ""  # why there is no projection, where there is a capacity run but none
    split: Run | None = None  # beside a `searched` under service-alone: its like under split (module doc)
    split_found: list[Capacity] = field(default_factory=list)  # capacity_figures.figures of `split`

    @classmethod
    def of(cls, selected: list[Run]) -> Verdict | None:
        """None when the runs hold neither a capacity nor an efficiency run."""
        every = [run for run in selected if capacity.is_capacity_run(run)]
        searched = [run for run in every if run.placement == capacity.BUDGET_PLACEMENT] or every
        searched = [run for run in searched if not run.tuned] or searched  # the shipped settings' first
        measured = [run for run in selected if run.family == EFFICIENCY]
        if not searched and not measured:
            return None
        if not searched:
            return cls(None, measured[-1], probes.P99_MS, [], [], None)
        found = capacity.figures(searched[-1])
        priced = capacity.projections(searched[-1], found, measured)
        projected = ([], None, priced) if isinstance(priced, str) else (*priced, "")
        split = _split_beside(searched[-1], every)
        beside = (split, capacity.figures(split)) if split else (None, [])
        return cls(searched[-1], measured[-1] if measured else None, capacity.target_ms(searched[-1]), found,
                   *projected, *beside)


def _split_beside(searched: Run, every: list[Run]) -> Run | None:
    """The capacity run under split to show beside `searched`, one under service-alone, with the
    same target, settings and admission limit: of the same series where there is one, else the
    newest; None for a `searched` under split, or none such."""
    if searched.placement != capacity.BUDGET_PLACEMENT:
        return None
    target_ms = capacity.target_ms(searched)
    alike = [run for run in every if run.placement == placement.SPLIT and run.tuned == searched.tuned
             and run.admission_limit == searched.admission_limit and capacity.target_ms(run) == target_ms]
    return ([run for run in alike if searched.series and run.series == searched.series] or alike or [None])[-1]
