"""make capacity's passes: capacity runs whose contenders were probed in turn (capacity.json
`in_turn`), taken together under one CPU placement. Each contender's capacity is a figure over
the runs (estimates.over_passes: their median and range), its values in the runs' order, so that
estimates.ratio takes each ratio within a run, where the machine's drift fell on both alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from bankbench import estimates, paths
from bankbench.analyse import capacity_figures as capacity
from bankbench.machine import placement
from bankbench.results.probes import Search, Searches
from bankbench.results.runs import CAPACITY_FILE, Run, newest_first
from bankbench.results.summaries import service_order

MIN_PASSES = 2  # a range over the runs needs two; one pass is shown as any capacity run is


@dataclass(frozen=True)
class Over:
    """One contender's capacity over the runs, and what made it only a lower bound in some run
    (capacity_figures.record_bound: "" where each run found a rate that missed above it); and
    the CPU per request of the core it shared with PostgreSQL (the service's and PostgreSQL's) at
    the rate found, over the runs' levels that confirmed it, None where a run had none."""

    figure: estimates.Figure
    bound: str
    cpu_ms: estimates.Figure | None = None


@dataclass(frozen=True)
class Passes:
    """The capacities of every pass under `placement`, shipped and (where every run probed them)
    tuned; a service some run found no rate for is left out."""

    placement: str
    runs: tuple[Run, ...]
    shipped: dict[str, Over]
    tuned: dict[str, Over]
    long_s: tuple[int, ...] = ()  # the lengths of the levels that confirmed the rates found
    long_measured: int = 0  # how many rates found a long level measured (_long_levels)
    long_missed: tuple[tuple[str, int], ...] = ()  # those that missed the target: contender, pass


def of(selected: list[Run], mode: str = placement.SPLIT) -> Passes | None:
    """The passes among `selected` under `mode` at the shipped settings, only TUNED=both's where
    there are MIN_PASSES of them (every figure and ratio then comes from the same runs); None
    where there are fewer than MIN_PASSES."""
    found = [(run, capacity.searches(run)) for run in selected
             if run.placement == mode and not run.tuned and run.searched]
    found = [(run, doc) for run, doc in found if doc.in_turn]
    if len(both := [(run, doc) for run, doc in found if doc.tuned is not None]) >= MIN_PASSES:
        found = both
    if len(found) < MIN_PASSES:
        return None
    runs, docs = zip(*found, strict=True)
    measured, missed = _long_levels(docs)
    return Passes(mode, runs, _over(docs, False, mode), _over(docs, True, mode),
                  tuple(sorted({doc.long_s for doc in docs} - {None, 0})), measured, tuple(missed))


def _over(docs: tuple[Searches, ...], tuned: bool, mode: str) -> dict[str, Over]:
    """Per service at the shipped settings or the `tuned` ones, its capacities over the runs that all found one."""
    services = sorted({service for doc in docs for service in doc.section(tuned)}, key=service_order)
    found = {}
    for service in services:
        searched = [doc.section(tuned).get(service) for doc in docs]
        rates = [search and search.found for search in searched]
        if None not in rates:
            bounds = [capacity.record_bound(search, mode) for search in searched]
            found[service] = Over(estimates.over_passes(rates), next(filter(None, bounds), ""), _shared_core(searched))
    return found


def _shared_core(searched: list[Search]) -> estimates.Figure | None:
    """The service's and PostgreSQL's CPU ms per request at the level that confirmed each run's
    rate (capacity.json `long`), over the runs; None where a run has no such figure."""
    costs = [(search.long.service_cpu_ms, search.long.pg_cpu_ms) if search.long else (None, None)
             for search in searched]
    if any(None in cost for cost in costs):
        return None
    return estimates.over_passes([service + database for service, database in costs])


def _long_levels(docs: tuple[Searches, ...]) -> tuple[int, list[tuple[str, int]]]:
    """How many rates found over the passes' capacity.json `docs` a long level measured (`long`; a
    service probed once, `as_shipped`, counted once), and those whose long level missed the
    target: the contender (`go`, `go tuned`) and its pass, 1 the first."""
    measured, missed = 0, []
    for number, doc in enumerate(docs, 1):
        for tuned, suffix in ((False, ""), (True, " tuned")):
            for service, search in doc.section(tuned).items():
                if search.long and not search.as_shipped:
                    measured += 1
                    if not search.long.held:
                        missed.append((service + suffix, number))
    return measured, missed


def under(root: Path = paths.RUNS, mode: str = placement.SPLIT) -> Passes | None:
    """The passes among the run folders under `root` (of), read without their summaries."""
    searched = [Run(path, manifest, pd.DataFrame()) for path, manifest in newest_first(CAPACITY_FILE, root)]
    return of(searched[::-1], mode)  # oldest first: the runs' order


def capacities(mode: str, tuned: bool = False,
               root: Path = paths.RUNS) -> tuple[dict[str, int], tuple[str, ...], str] | None:
    """Each service's capacity as the first table shows it, the base rates of make overload: over
    the passes under `root` and `mode` (shipped, or `tuned`) where there are some, else
    capacity_figures.newest_capacities; with its runs and placement. None: no capacity run."""
    passes = under(root, mode)
    found = (passes.tuned if tuned else passes.shipped) if passes else {}
    if found:
        return ({service: round(over.figure.value) for service, over in found.items()},
                tuple(run.id for run in passes.runs), mode)
    newest = capacity.newest_capacities(mode, tuned, root)
    return newest and (newest[0], (newest[1],), newest[2])
