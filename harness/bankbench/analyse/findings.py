"""The figures of the report's first table, per service, each with its interval.

The figures of the report's first table (publish.tables.first, the notebook's too) and of its
sections' rankings (publish.tables.rankings): per service, each a `Cell`, its p99 at the articles'
largest users level under each start and, from the capacity verdict (`Verdict.of`), its capacity,
CPU per request and peak RSS at its smallest heap; what the placement and overload runs judged.

See docs/method.md#the-report.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bankbench import registry
from bankbench.analyse import (
    at_rate,
    capacity_figures as capacity,
    estimates,
    overload,
    paired,
    projection,
    repeats,
    sensitivity,
    standing,
)
from bankbench.analyse.overload import Outcome
from bankbench.analyse.repeats import P99
from bankbench.bank import processes
from bankbench.load.profiles import STARTS
from bankbench.machine import placement
from bankbench.results import probes, runs, startup_record, summaries
from bankbench.results.runs import Run

ARTICLE = "article"  # the profile family whose starts the table compares (profiles.toml)
EFFICIENCY = "efficiency"  # the profile whose runs give CPU per request vs rate (profiles.toml)
NONE = estimates.Figure(np.nan, np.nan, np.nan, "", ())
# Cell.bound: the load generator fell short at the next rate, on its own CPU or beside PostgreSQL
GENERATOR_BOUND, BED_BOUND = probes.LOADGEN, capacity.LOADGEN_BESIDE_PG
TOP_RATE = capacity.TOP_RATE  # Cell.bound: no rate above it was tried
NO_HEAP, NOT_SWEPT = "no heap held", "not swept"  # Cell.missing of an RSS at the smallest heap


@dataclass(frozen=True)
class Verdict:
    """What the verdict rests on; publish.report and the notebook render it."""

    searched: Run | None
    measured: Run | None
    target_ms: float
    found: list[capacity.Capacity]  # capacity.figures of `searched`
    projected: list[projection.Projection]
    assumptions: projection.Assumptions | None
    unprojected: str = ""  # why there is no projection (capacity_figures.NOT_ALONE, NONE_HELD), "" where there is
    split: Run | None = None  # beside a service-alone `searched`, its like under split
    split_found: list[capacity.Capacity] = field(default_factory=list)  # capacity.figures of it

    @classmethod
    def of(cls, selected: list[Run]) -> "Verdict | None":
        """The newest capacity run (service-alone, shipped first), efficiency run; None: neither."""
        every = [run for run in selected if run.searched]
        searched = [run for run in every if run.placement == capacity.BUDGET_PLACEMENT] or every
        searched = [run for run in searched if not run.tuned] or searched  # the shipped settings' first
        measured = [run for run in selected if run.family == EFFICIENCY]
        if not searched:
            return cls(None, measured[-1], probes.P99_MS, [], [], None) if measured else None
        found = capacity.figures(searched[-1])
        priced = capacity.projections(searched[-1], found, measured)
        projected = ([], None, priced) if isinstance(priced, str) else (*priced, "")
        split = _split_beside(searched[-1], every)
        beside = (split, capacity.figures(split)) if split else (None, [])
        return cls(searched[-1], measured[-1] if measured else None, capacity.target_ms(searched[-1]), found,
                   *projected, *beside)


def _split_beside(searched: Run, every: list[Run]) -> Run | None:
    """The split run alike in target, settings and admission limit (its series', else the newest)
    beside a service-alone `searched`, whose load generator and PostgreSQL may fall short first."""
    if searched.placement != capacity.BUDGET_PLACEMENT:
        return None
    target_ms = capacity.target_ms(searched)
    alike = [run for run in every if run.placement == placement.SPLIT and run.tuned == searched.tuned
             and run.admission_limit == searched.admission_limit and capacity.target_ms(run) == target_ms]
    chosen = [run for run in alike if searched.series and run.series == searched.series] or alike
    return chosen[-1] if chosen else None


@dataclass(frozen=True)
class Cell:
    """One figure of the first table."""

    figure: estimates.Figure = NONE
    n: int = 0  # the repeats (or probes) whose figures count: money check passed, load generator held up
    of: int = 0  # every repeat run; of probes, those with a verdict (a probe the load generator spoiled is void)
    bound: str = ""  # what capped it (GENERATOR_BOUND ...): a capacity's lower bound, a cost's upper
    missing: str = ""  # why there is no figure: "no run yet" ...

    @property
    def counts(self) -> bool:
        """Whether the figure may lead or trail a comparison: measured, usable and not a bound."""
        return not self.bound and not np.isnan(self.figure.value)


def gaps(cells: dict[str, Cell], high_is_best: bool) -> tuple[str, list[tuple[str, estimates.Ratio]]] | None:
    """`estimates.leader` over the cells whose figure counts; None with fewer than two."""
    counted = {service: cell.figure for service, cell in cells.items() if cell.counts}
    return estimates.leader(counted, high_is_best) if len(counted) > 1 else None


@dataclass(frozen=True)
class Placements:
    """What a series of runs over CPU placements judged (bankbench.analyse.sensitivity)."""

    judged: tuple[int, ...]  # users levels with a verdict under every placement
    limited: tuple[int, ...]  # users levels where the load generator fell short under some placement
    changes: tuple[sensitivity.Change, ...]  # where the verdict changes with the placement
    start: str = "cold"  # how the series' services started (profiles.STARTS)


@dataclass(frozen=True)
class Findings:
    """The first table's figures per service, and what its sections' tables need besides."""

    services: tuple[str, ...]
    users: int | None  # the articles' largest users level that the start runs measured
    users_rps: float | None  # the requests/s they served there (the median over the start runs' levels)
    p99: dict[str, dict[str, Cell]]  # start (profiles.STARTS) -> service -> its p99 (ms) at `users`
    capacity: dict[str, Cell]  # iterations/s at the target; the interval: the rate found to the one that missed
    cpu_ms: dict[str, Cell]  # CPU ms per request there; over passes, its core's, PostgreSQL's too
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
    # Beside a capacity under service-alone, under split: Verdict.split's, or over the passes.
    split_capacity: dict[str, Cell] = field(default_factory=dict)
    passes: paired.Passes | None = None
    tuned_capacity: dict[str, Cell] = field(default_factory=dict)  # over the passes, at the tuned settings
    # make startup's newest record: start (cold, cold+AOT) -> service -> seconds to its first 200.
    startup: dict[str, dict[str, Cell]] = field(default_factory=dict)
    startup_stamp: str = ""
    startup_commit: str = ""  # the commit that record measured
    # At one common rate (analyse.at_rate), from the newest efficiency run: the rate, and per
    # figure (at_rate.FIGURES) and service its cell.
    common_rate: int | None = None
    at_rate: dict[str, dict[str, Cell]] = field(default_factory=dict)
    requests_per_iteration: float | None = None  # of the capacity runs' scenario, as they served it

    @property
    def capacity_run(self) -> Run | None:
        return self.verdict.searched if self.verdict else None

    @property
    def first_capacity(self) -> tuple[dict[str, Cell], str]:
        """The capacities the first table shows and the rankings rank, and their placement: under
        split over the passes, or where PostgreSQL beside the load generator capped one under
        service-alone and a split run is shown; else the capacity run's."""
        if self.passes or (self.split_capacity and any(cell.bound == BED_BOUND for cell in self.capacity.values())):
            return self.split_capacity, placement.SPLIT
        return self.capacity, self.capacity_run.placement if self.capacity_run else ""

    @classmethod
    def of(cls, selected: list[Run]) -> "Findings":
        series, single = runs.by_series(selected)
        starts = runs.by_start(single).get(ARTICLE, {})
        verdict = Verdict.of(single)
        found = {c.service: c for c in verdict.found} if verdict else {}
        passes = paired.of(selected)
        # Every service a start, the capacity search or the capacity passes measured: a row each.
        sources = [*starts.values(), *([verdict.searched] if verdict and verdict.searched else []),
                   *(passes.runs if passes else ())]
        services = tuple(sorted({s for run in sources for s in run.summary["service"]},
                                key=summaries.service_order))
        users = _users(starts)
        without_aot = frozenset(s for s in services if s in registry.names() and not processes.has_aot_cache(s))
        past = max((run for run in single if overload.is_phased_run(run)), key=lambda run: run.id, default=None)
        outcomes = overload.outcomes(past) if past else []
        overloads = {service: tuple(o for o in outcomes if o.service == service)
                     for service in dict.fromkeys(o.service for o in outcomes)}
        split_capacity, passes, tuned_capacity = _split(verdict, services, passes)
        startup, startup_stamp, startup_commit = _startups(services, without_aot)
        common_rate, at_rate_cells = _at_rate(verdict.measured if verdict else None, services,
                                              verdict.target_ms if verdict else None)
        machine = selected[0].manifest.machine if selected else {}
        searched = [*(passes.runs if passes else ()), *([verdict.searched] if verdict and verdict.searched else [])]
        return cls(
            services=services, users=users, users_rps=_served(starts, users),
            p99={start: {s: _p99(starts.get(start), s, users, start, without_aot) for s in services}
                 for start in STARTS},
            capacity=_each(services, found, _capacity),
            cpu_ms=_shared_core(passes, services) if passes else _each(services, found, _cpu_ms),
            rss_mb=_each(services, found, _at_heap),
            heap_mb={s: heap.heap_mb if s in found and (heap := found[s].heap) else None for s in services},
            target_ms=verdict.target_ms if verdict else probes.P99_MS,
            verdict=verdict, start_runs=starts, without_aot=without_aot,
            placements=_placements([group for group in series.values() if len(group) > 1]),
            cores=machine.get("cores"), cpu_model=machine.get("cpu_model", ""),
            overload_run=past, overload=overloads,
            split_capacity=split_capacity, passes=passes, tuned_capacity=tuned_capacity,
            startup=startup, startup_stamp=startup_stamp, startup_commit=startup_commit,
            common_rate=common_rate, at_rate=at_rate_cells, requests_per_iteration=_per_iteration(searched))


def _each(services: tuple[str, ...], found: dict[str, Any], cell: Callable[[Any], Cell],
          missing: str = "no capacity run yet") -> dict[str, Cell]:
    return {s: cell(found[s]) if s in found else Cell(missing=missing) for s in services}


def _split(verdict: Verdict | None, services: tuple[str, ...],
           passes: paired.Passes | None) -> tuple[dict[str, Cell], paired.Passes | None, dict[str, Cell]]:
    """Capacities under split: over the passes (tuned too where probed), else Verdict.split's."""
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


def _startups(services: tuple[str, ...],
              without_aot: frozenset[str]) -> tuple[dict[str, dict[str, Cell]], str, str]:
    """Per start and service, seconds to the first 200 in startup's newest record; its stamp and commit."""
    if (record := startup_record.newest()) is None:
        return {}, "", ""

    def cell(service: str, start: str) -> Cell:
        values = record.seconds.get(service, {}).get(start)
        if not values:
            return Cell(missing="n/a: not a JVM" if service in without_aot and start == startup_record.AOT
                        else "not measured")
        return Cell(estimates.figure(pd.DataFrame({"s": values}), "s"), len(values), len(values))

    return ({start: {s: cell(s, start) for s in services} for start in (startup_record.COLD, startup_record.AOT)},
            record.stamp, record.commit)


def _at_rate(run: Run | None, services: tuple[str, ...],
             target_ms: float | None) -> tuple[int | None, dict[str, dict[str, Cell]]]:
    """The efficiency `run`'s common rate (at_rate.common_rate) and per figure each service's cell there."""
    target = probes.Target(target_ms) if target_ms else at_rate.TARGET
    if run is None or (rate := at_rate.common_rate(run.summary, target)) is None:
        return None, {}
    rows = at_rate.at(run.summary, rate)
    rows = rows[rows["pool"] == repeats.main_pool(run.summary)]

    def cell(service: str, column: str) -> Cell:
        own = rows[rows["service"] == service]
        if own.empty:
            return Cell(missing="not in the efficiency run")
        (row,) = repeats.aggregate_repeats(own, []).to_dict("records")
        return Cell(estimates.figure(own[standing.usable(own)], column), *n_of_n(row))

    return rate, {column: {s: cell(s, column) for s in services} for column in at_rate.FIGURES}


def _per_iteration(searched: list[Run]) -> float | None:
    """Requests per iteration of the scenario, as the capacity runs served it: the median over
    their usable levels of requests/s over iterations/s."""
    rows = pd.concat([run.summary[standing.usable(run.summary)] for run in searched if not run.summary.empty]
                     or [pd.DataFrame(columns=[summaries.THROUGHPUT, "users"])])
    ratio = (rows[summaries.THROUGHPUT] / rows["users"]).median()
    return None if pd.isna(ratio) else float(ratio)


def p99_by_start(starts: dict[str, Run]) -> pd.DataFrame:
    """The headline chart's figures: each start's p99 per service and users level, main pool."""
    frames = [repeats.aggregate_repeats(run.summary[run.summary["pool"] == repeats.main_pool(run.summary)], [P99],
                                        keys=["service", "users"]).assign(start=start)
              for start, run in starts.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def n_of_n(row: dict) -> tuple[int, int]:
    """The repeats that count and all of them, from a row of `repeats.aggregate_repeats`."""
    return int(row["repeats"] - row["failed"] - row["invalid"]), int(row["repeats"])


def _users(starts: dict[str, Run]) -> int | None:
    """The articles' largest users level that the start runs measured (else their largest)."""
    if not (measured := {int(u) for run in starts.values() for u in run.summary["users"]}):
        return None
    published = [int(u) for u in runs.read_articles()["users"] if int(u) in measured]
    return max(published or measured)


def _served(starts: dict[str, Run], users: int | None) -> float | None:
    rows = [run.summary[(run.summary["users"] == users) & standing.usable(run.summary)] for run in starts.values()]
    served = pd.concat(rows)[summaries.THROUGHPUT].median() if rows else np.nan
    return None if pd.isna(served) else float(served)


def _p99(run: Run | None, service: str, users: int | None, start: str, without_aot: frozenset[str]) -> Cell:
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
    figure = repeats.level_figures(rows, P99).get((service, users, repeats.main_pool(summary)), NONE)
    return Cell(figure, *n_of_n(row))


def _capacity(c: capacity.Capacity) -> Cell:
    """The rate found, its interval the rate that missed above it (none: a bound)."""
    if c.rate is None:
        return Cell(missing="none held")
    rate, high = float(c.rate), np.nan if c.failed_at is None else float(c.failed_at)
    return _counted(estimates.Figure(rate, rate, high, "", ()), c.at_rate, c.bound)


def _cpu_ms(c: capacity.Capacity) -> Cell:
    return _counted(c.cpu_ms, c.at_rate) if c.rate is not None else Cell(missing="none held")


def _at_heap(c: capacity.Capacity) -> Cell:
    if c.heap is None:
        return Cell(missing=(NO_HEAP if c.swept else NOT_SWEPT) if c.rate is not None else "none held")
    return _counted(c.rss_heap_mb, c.heap)


def _counted(figure: estimates.Figure, probed: capacity.Probed | None, bound: str = "") -> Cell:
    return Cell(figure, probed.held if probed else 0, probed.held + probed.missed if probed else 0, bound)


def _placements(groups: list[list[Run]]) -> Placements | None:
    if not groups:
        return None
    found = sensitivity.verdicts(groups[-1])
    limited = sorted({v.users for v in found if v.limited})
    return Placements(tuple(sorted({v.users for v in found} - set(limited))), tuple(limited),
                      tuple(sensitivity.changes(found)), groups[-1][0].start)
