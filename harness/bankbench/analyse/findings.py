"""The figures of the report's first table, which the notebook shows too (publish.tables.first),
and that the verdict's sentences word (bankbench.publish.verdict_words).

Per service: its p99 at the articles' largest users level under each start (cold, cold+AOT, warm:
the article family's runs, `runs.by_start`), and from the capacity verdict (`Verdict`) its
capacity at the latency target, the CPU per request there, and the peak RSS at the smallest heap
that held; beside a capacity under service-alone, the capacity
under split (`Verdict.split`). Each is a `Cell`: a median with its 95 % interval over n of N
repeats (or probes), a bound (the load generator fell short first, or PostgreSQL beside it), or
why there is no figure. The placement series adds what the verdict under other CPU
placements could and could not judge (bankbench.analyse.sensitivity); the newest run past
capacity (make overload) whether each service held up there (bankbench.analyse.overload).

The capacity verdict (`Verdict.of`): the newest capacity run's capacities and cost projection,
preferring placement service-alone (the service alone on its core, the figure a budget needs)
and the shipped settings; the newest efficiency run's CPU per request and p99 against the
offered rate. On a machine too small for PostgreSQL and the load generator to keep up with a
service alone on its core, split's capacity beside it is the one the service sets with
PostgreSQL beside it, not the load generator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bankbench import estimates, registry
from bankbench.analyse import (
    capacity_figures as capacity,
    overload,
    paired,
    projection,
    repeats,
    sensitivity,
)
from bankbench.analyse.capacity_figures import Capacity, Probed
from bankbench.analyse.overload import Outcome
from bankbench.analyse.repeats import P99
from bankbench.analyse.sensitivity import Change
from bankbench.bank import processes
from bankbench.load.profiles import STARTS
from bankbench.machine import placement
from bankbench.results import probes, runs, startup_record, summaries
from bankbench.results.runs import Run
from bankbench.results.summaries import service_order

ARTICLE = "article"  # the profile family whose starts the table compares (profiles.toml)
EFFICIENCY = "efficiency"  # the profile whose runs give CPU per request vs rate (profiles.toml)
NONE = estimates.Figure(np.nan, np.nan, np.nan, "", ())
# Cell.bound: the load generator fell short at the next rate (Capacity.bound_by), on a CPU of its own
# or beside PostgreSQL
GENERATOR_BOUND, BED_BOUND = probes.LOADGEN, capacity.LOADGEN_BESIDE_PG
TOP_RATE = capacity.TOP_RATE  # Cell.bound: no rate above it was tried
NO_HEAP, NOT_SWEPT = "no heap held", "not swept"  # Cell.missing of an RSS at the smallest heap
NO_RUN = "no capacity run yet"  # Cell.missing of a capacity figure


@dataclass(frozen=True)
class Verdict:
    """What the verdict rests on; publish.report and the notebook render it."""

    searched: Run | None
    measured: Run | None
    target_ms: float
    found: list[Capacity]  # capacity_figures.figures of `searched`
    projected: list[projection.Projection]
    assumptions: projection.Assumptions | None
    unprojected: str = ""  # why there is no projection (capacity_figures.NOT_ALONE, NONE_HELD), "" where there is
    split: Run | None = None  # beside a `searched` under service-alone: its like under split (module doc)
    split_found: list[Capacity] = field(default_factory=list)  # capacity_figures.figures of `split`

    @classmethod
    def of(cls, selected: list[Run]) -> Verdict | None:
        """None when the runs hold neither a capacity nor an efficiency run."""
        every = [run for run in selected if run.searched]
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
    same target, settings and admission limit: of the same series, else the newest (None: none)."""
    if searched.placement != capacity.BUDGET_PLACEMENT:
        return None
    target_ms = capacity.target_ms(searched)
    alike = [run for run in every if run.placement == placement.SPLIT and run.tuned == searched.tuned
             and run.admission_limit == searched.admission_limit and capacity.target_ms(run) == target_ms]
    return ([run for run in alike if searched.series and run.series == searched.series] or alike or [None])[-1]


@dataclass(frozen=True)
class Cell:
    """One figure of the first table."""

    figure: estimates.Figure = NONE
    n: int = 0  # the repeats (or probes) whose figures count: money check passed, load generator held up
    of: int = 0  # every repeat run; of probes, those with a verdict (a probe the load generator spoiled is void)
    # The figure is a bound: what capped it (GENERATOR_BOUND, BED_BOUND, TOP_RATE). A lower bound of a capacity,
    # an upper bound of the cost that follows from one.
    bound: str = ""
    missing: str = ""  # why there is no figure: "no run yet" ...

    @property
    def counts(self) -> bool:
        """Whether the figure may lead or trail a comparison: measured, usable and not a bound."""
        return not self.bound and not np.isnan(self.figure.value)


@dataclass(frozen=True)
class Placements:
    """What a series of runs over CPU placements judged (bankbench.analyse.sensitivity)."""

    judged: tuple[int, ...]  # users levels with a verdict under every placement
    limited: tuple[int, ...]  # users levels where the load generator fell short under some placement
    changes: tuple[Change, ...]  # where the verdict changes with the placement
    start: str = "cold"  # how the series' services started (profiles.STARTS)


@dataclass(frozen=True)
class Findings:
    """The first table's figures per service, and what the sentences need besides."""

    services: tuple[str, ...]
    users: int | None  # the articles' largest users level that the start runs measured
    users_rps: float | None  # the requests/s they served there (the median over the start runs' levels)
    p99: dict[str, dict[str, Cell]]  # start (profiles.STARTS) -> service -> its p99 (ms) at `users`
    capacity: dict[str, Cell]  # iterations/s at the target; the interval: the rate found to the one that missed
    # CPU ms per request at the capacity: the service's, or over make capacity's passes that of the core it
    # shared with PostgreSQL (paired.Over.cpu_ms)
    cpu_ms: dict[str, Cell]
    rss_mb: dict[str, Cell]  # peak RSS at the smallest heap that held
    heap_mb: dict[str, int | None]  # that heap
    target_ms: float = probes.P99_MS
    verdict: Verdict | None = None  # what the capacity figures come from
    start_runs: dict[str, Run] = field(default_factory=dict)
    without_aot: frozenset[str] = frozenset()  # services that start from no AOT cache (not JVMs)
    placements: Placements | None = None
    cores: int | None = None  # of the machine the runs ran on
    cpu_model: str = ""
    overload_run: Run | None = None  # the newest run past capacity (make overload)
    overload: dict[str, tuple[Outcome, ...]] = field(default_factory=dict)  # service -> its levels in that run
    # Beside a capacity under service-alone, each service's under split (Verdict.split); empty without one.
    # Where make capacity's passes under split are shown, over them (bankbench.analyse.paired).
    split_capacity: dict[str, Cell] = field(default_factory=dict)
    passes: paired.Passes | None = None
    tuned_capacity: dict[str, Cell] = field(default_factory=dict)  # over the passes, at the tuned settings
    # make startup's newest record: start (cold, cold+AOT) -> service -> seconds to its first 200.
    startup: dict[str, dict[str, Cell]] = field(default_factory=dict)
    startup_stamp: str = ""

    @property
    def capacity_run(self) -> Run | None:
        return self.verdict.searched if self.verdict else None

    @classmethod
    def of(cls, selected: list[Run]) -> Findings:
        """From `selected`: the article family's runs of each start, the capacity verdict
        (`Verdict.of`) and the newest series over CPU placements."""
        series, single = runs.by_series(selected)
        starts = runs.by_start(single).get(ARTICLE, {})
        verdict = Verdict.of(single)
        found = {c.service: c for c in verdict.found} if verdict else {}
        services = _services([*starts.values(), *([verdict.searched] if verdict and verdict.searched else [])])
        users = _users(starts)
        without_aot = frozenset(s for s in services if s in registry.names() and not processes.has_aot_cache(s))
        past = max((run for run in single if overload.is_phased_run(run)), key=lambda run: run.id, default=None)
        passes = paired.of(selected)
        return cls(
            services, users, _served(starts, users),
            {start: {s: _p99(starts.get(start), s, users, start, without_aot) for s in services} for start in STARTS},
            _each(services, found, _capacity, NO_RUN),
            _shared_core(passes, services) if passes else
            _each(services, found, lambda c: _at_rate(c, c.cpu_ms)),
            _each(services, found, _at_heap),
            {s: found[s].heap.heap_mb if s in found and found[s].heap else None for s in services},
            verdict.target_ms if verdict else probes.P99_MS,
            verdict, starts, without_aot, _placements([group for group in series.values() if len(group) > 1]),
            *(next((run.manifest.machine.get(key, empty) for run in selected), empty)
              for key, empty in (("cores", None), ("cpu_model", ""))),
            past, _by_service(overload.outcomes(past) if past else []),
            *_split(verdict, services, passes),
            *_startups(services, without_aot))


def _each(services: tuple[str, ...], found: dict[str, Any], cell: Callable[[Any], Cell],
          missing: str = NO_RUN) -> dict[str, Cell]:
    """Per service, the `cell` of what was `found` of it; `missing` for one without."""
    return {s: cell(found[s]) if s in found else Cell(missing=missing) for s in services}


def _split(verdict: Verdict | None, services: tuple[str, ...],
           passes: paired.Passes | None) -> tuple[dict[str, Cell], paired.Passes | None, dict[str, Cell]]:
    """The capacities under split: over make capacity's passes where there are some (shipped, and
    tuned where they probed it), else of the run beside the verdict's (Verdict.split)."""
    if passes is None:
        if not (verdict and verdict.split):
            return {}, None, {}
        split = {c.service: c for c in verdict.split_found}
        return _each(services, split, _capacity, "not searched"), None, {}
    runs = len(passes.runs)

    def over(found: dict[str, paired.Over], missing: str) -> dict[str, Cell]:
        return _each(services, found, lambda o: Cell(o.figure, runs, runs, o.bound), missing)

    return over(passes.shipped, "no rate in every pass"), passes, \
        over(passes.tuned, "not probed tuned") if passes.tuned else {}


def _shared_core(passes: paired.Passes, services: tuple[str, ...]) -> dict[str, Cell]:
    """Per service, the CPU per request of the core it shared with PostgreSQL at its capacity."""
    runs = len(passes.runs)
    found = {s: over.cpu_ms for s, over in passes.shipped.items() if over.cpu_ms}
    return _each(services, found, lambda cpu_ms: Cell(cpu_ms, runs, runs), "not in every pass")


def _startups(services: tuple[str, ...], without_aot: frozenset[str]) -> tuple[dict[str, dict[str, Cell]], str]:
    """Per start and service, the seconds to the first 200 in make startup's newest record, and its
    stamp; ({}, "") where none was made."""
    newest = startup_record.newest()
    if newest is None:
        return {}, ""
    stamp, record = newest
    seconds = record["seconds"]

    def cell(service: str, start: str) -> Cell:
        values = seconds.get(service, {}).get(start)
        if not values:
            return Cell(missing="n/a: not a JVM" if service in without_aot and start == startup_record.AOT
                        else "not measured")
        return Cell(estimates.figure(pd.DataFrame({"s": values}), "s"), len(values), len(values))

    return {start: {s: cell(s, start) for s in services} for start in (startup_record.COLD, startup_record.AOT)}, stamp


def _by_service(outcomes: list[Outcome]) -> dict[str, tuple[Outcome, ...]]:
    return {service: tuple(o for o in outcomes if o.service == service) for service in dict.fromkeys(
        o.service for o in outcomes)}


def p99_by_start(starts: dict[str, Run]) -> pd.DataFrame:
    """The headline chart's figures: each start's p99 per service and users level, main pool."""
    frames = [repeats.aggregate_repeats(run.summary[run.summary["pool"] == repeats.main_pool(run.summary)], [P99],
                                        keys=["service", "users"]).assign(start=start)
              for start, run in starts.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def n_of_n(aggregated_row: dict) -> tuple[int, int]:
    """The repeats that count and all of them, from a row of `repeats.aggregate_repeats`."""
    return (int(aggregated_row["repeats"] - aggregated_row["failed"] - aggregated_row["invalid"]),
            int(aggregated_row["repeats"]))


def _services(sources: list[Run]) -> tuple[str, ...]:
    names = {service for run in sources for service in run.summary["service"]}
    return tuple(sorted(names, key=service_order))


def _users(starts: dict[str, Run]) -> int | None:
    """The articles' largest users level that the start runs measured (else their largest)."""
    measured = {int(u) for run in starts.values() for u in run.summary["users"]}
    if not measured:
        return None
    published = [int(u) for u in runs.read_articles()["users"] if int(u) in measured]
    return max(published or measured)


def _served(starts: dict[str, Run], users: int | None) -> float | None:
    """The median requests/s of the start runs' usable levels at `users`."""
    rows = [run.summary[(run.summary["users"] == users) & summaries.usable(run.summary)] for run in starts.values()]
    served = pd.concat(rows)[summaries.THROUGHPUT].median() if rows else np.nan
    return None if pd.isna(served) else float(served)


def _p99(run: Run | None, service: str, users: int | None, start: str, without_aot: frozenset[str]) -> Cell:
    """A service's p99 at `users` in the run of one start, at the run's main pool."""
    if start == "aot" and service in without_aot:
        return Cell(missing="n/a: not a JVM")
    if run is None:
        return Cell(missing="no run yet")
    summary = run.summary
    rows = summary[(summary["service"] == service) & (summary["users"] == users)
                   & (summary["pool"] == repeats.main_pool(summary))]
    if rows.empty:
        return Cell(missing="not run")
    (row,) = repeats.aggregate_repeats(rows, [P99]).to_dict("records")
    n, of = n_of_n(row)
    figure = repeats.level_figures(rows, P99).get((service, users, repeats.main_pool(summary)), NONE)
    return Cell(figure, n, of)


def _capacity(c: Capacity) -> Cell:
    """The rate found, its interval the rate that missed above it (none: a bound)."""
    if c.rate is None:
        return Cell(missing="none held")
    high = np.nan if c.failed_at is None else float(c.failed_at)
    return _at_rate(c, estimates.Figure(float(c.rate), float(c.rate), high, "", ()), c.bound)


def _at_rate(c: Capacity, figure: estimates.Figure, bound: str = "") -> Cell:
    """A figure over the probes that held at the capacity rate, with the service's own heap."""
    return _counted(figure, c.at_rate, bound) if c.rate is not None else Cell(missing="none held")


def _at_heap(c: Capacity) -> Cell:
    if c.heap is None:
        return Cell(missing=(NO_HEAP if c.swept else NOT_SWEPT) if c.rate is not None else "none held")
    return _counted(c.rss_heap_mb, c.heap)


def _counted(figure: estimates.Figure, probed: Probed | None, bound: str = "") -> Cell:
    return Cell(figure, probed.held if probed else 0, probed.held + probed.missed if probed else 0, bound)


def _placements(groups: list[list[Run]]) -> Placements | None:
    """What the newest series over two placements or more judged."""
    if not groups:
        return None
    group = groups[-1]
    found = sensitivity.verdicts(group)
    limited = sorted({v.users for v in found if v.limited})
    return Placements(tuple(sorted({v.users for v in found} - set(limited))), tuple(limited),
                      tuple(sensitivity.changes(found)), group[0].start)
