"""make capacity's passes: capacity runs whose contenders were probed in turn (`in_turn`), each
capacity over the runs in order, so that a ratio is within a run, drift falling on both alike."""

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
    """One contender's capacity over the runs; `cpu_ms`: of its core shared with PostgreSQL."""

    figure: estimates.Figure
    bound: str  # what made it a lower bound in some run ("": none)
    cpu_ms: estimates.Figure | None = None  # per request; None: a run had none


@dataclass(frozen=True)
class Passes:
    """The passes' capacities, shipped and tuned; a service some run found none for is left out."""

    placement: str
    runs: tuple[Run, ...]
    shipped: dict[str, Over]
    tuned: dict[str, Over]
    long_s: tuple[int, ...] = ()  # the lengths of the levels that confirmed the rates found
    long_measured: int = 0  # how many rates found a long level measured (_long_levels)
    long_missed: tuple[tuple[str, int], ...] = ()  # those that missed the target: contender, pass


def of(selected: list[Run], mode: str = placement.SPLIT) -> Passes | None:
    """The passes among `selected` under `mode` (only TUNED=both's if MIN_PASSES); None: fewer."""
    found = [(run, capacity.searches(run)) for run in selected
             if run.placement == mode and not run.tuned and run.searched]
    found = [(run, doc) for run, doc in found if doc.in_turn]
    if len(both := [(run, doc) for run, doc in found if doc.tuned is not None]) >= MIN_PASSES:
        found = both  # every figure and ratio then comes from the same runs
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
    """The service's and PostgreSQL's CPU ms per request at each run's `long` level."""
    longs = [search.long for search in searched]
    if any(not long or None in (long.service_cpu_ms, long.pg_cpu_ms) for long in longs):
        return None
    return estimates.over_passes([long.service_cpu_ms + long.pg_cpu_ms for long in longs])


def _long_levels(docs: tuple[Searches, ...]) -> tuple[int, list[tuple[str, int]]]:
    """How many rates found a long level measured (`as_shipped`: counted once), and those whose long
    level missed the target: the contender (`go`, `go tuned`) and its pass, 1 the first."""
    long = [(service + suffix, number, search.long.held) for number, doc in enumerate(docs, 1)
            for tuned, suffix in ((False, ""), (True, " tuned"))
            for service, search in doc.section(tuned).items()
            if search.long and not search.as_shipped]
    return len(long), [(contender, number) for contender, number, held in long if not held]


def under(root: Path = paths.RUNS, mode: str = placement.SPLIT) -> Passes | None:
    """The passes among the run folders under `root` (of), read without their summaries."""
    searched = [Run(path, manifest, pd.DataFrame()) for path, manifest in newest_first(CAPACITY_FILE, root)]
    return of(searched[::-1], mode)  # oldest first: the runs' order


def capacities(mode: str, tuned: bool = False,
               root: Path = paths.RUNS) -> tuple[dict[str, int], tuple[str, ...], str] | None:
    """make overload's base rates as the first table shows them, with their runs and placement."""
    passes = under(root, mode)
    found = (passes.tuned if tuned else passes.shipped) if passes else {}
    if found:
        return ({service: round(over.figure.value) for service, over in found.items()},
                tuple(run.id for run in passes.runs), mode)
    newest = capacity.newest_capacities(mode, tuned, root)
    return newest and (newest[0], (newest[1],), newest[2])
