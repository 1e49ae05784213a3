"""The figures of a `make capacity` run: per service, capacity, heap and projection.

From capacity.json and its levels' summaries: per service, the rate found, its figures there, its
smallest heap that held, and their AWS projection.

See docs/method.md#capacity-the-searchs-design and results/LAYOUT.md#capacityjson."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bankbench.analyse import estimates, projection, repeats, standing
from bankbench.machine import placement
from bankbench.results import files, summaries
from bankbench.results.probes import LOADGEN, Search, Searches, Target
from bankbench.results.runs import Run

RSS = "resources.service_rss_max_mb"  # the RSS the figures give: the peak of the level
# Where the verdict prices each line: the service host's type, and the c5d infra runs PostgreSQL on.
PROJECTED_ON = {projection.SERVICE: ("m5.large",), projection.DATABASE: ("c5d.large",)}
BUDGET_PLACEMENT = placement.SERVICE_ALONE  # the capacity a budget reads: requests/s per service CPU
LOADGEN_BESIDE_PG = f"{LOADGEN} beside PostgreSQL"  # what fell short where they shared the generator's CPU
TOP_RATE = "top rate tried"  # what bounds a capacity no rate above which was tried
HELD, MISSED, UNDECIDED = "held", "missed", "undecided"  # what a heap's probes say (Probed)
NOT_ALONE, NONE_HELD = "not alone", "none held"  # why `projections` has none


@dataclass(frozen=True)
class Probed:
    """One heap's probes at one rate: held or missed as most with a verdict did (tie: undecided)."""

    heap_mb: int | None  # None: the service's own
    probes: int  # every probe there
    held: int
    missed: int  # probes that missed with a verdict on the service

    @property
    def verdict(self) -> str:
        return HELD if self.held > self.missed else MISSED if self.missed > self.held else UNDECIDED


@dataclass(frozen=True)
class Capacity:
    """One service's capacity, each figure over the probes that held the target there."""

    service: str
    rate: int | None  # iterations/s, the highest that held and was confirmed (None: none held)
    failed_at: int | None  # the lowest rate above it that missed (None: none did)
    generator_bound: bool  # the load generator fell short at failed_at: a lower bound
    complete: bool  # False: the search ended before it was done (`exited`, else the budget ran out)
    throughput: estimates.Figure  # requests/s at the rate
    p99_ms: estimates.Figure
    cpu_ms: estimates.Figure  # the service's CPU ms per request
    pg_cpu_ms: estimates.Figure
    rss_mb: estimates.Figure  # with the service's own heap settings
    at_rate: Probed | None  # the probes at the rate with the service's own heap
    heap: Probed | None  # the smallest heap of the sweep that held the rate (None: none, or not swept)
    below: Probed | None  # the nearest heap under it that was probed (None: none)
    rss_heap_mb: estimates.Figure  # with that heap
    postgres_beside_loadgen: bool = False  # a shortfall of the generator is the test bed's
    swept: bool = False  # its heap was swept at the rate (`heap` None then: no heap held)
    held_once: int | None = None  # the highest rate a probe with its own heap held, confirmed or not
    exited: tuple[int, int] | None = None  # (rate, exit status) of its last probe, where the service exited

    @property
    def bound(self) -> str:
        """What makes the rate found only a lower bound of the capacity, "" where it is not one."""
        return _bound(self.rate, self.failed_at, self.generator_bound, self.postgres_beside_loadgen)

    @property
    def bound_by(self) -> str:
        return LOADGEN_BESIDE_PG if self.postgres_beside_loadgen else LOADGEN


def record_bound(search: Search, mode: str) -> str:
    """`Capacity.bound` of a contender's search in a run under placement `mode`."""
    return _bound(search.found, search.failed_at, _generator_missed(search, search.failed_at),
                  placement.postgres_beside_loadgen(mode))


def _bound(rate: int | None, failed_at: int | None, generator_bound: bool, beside_pg: bool) -> str:
    if rate is None or not (generator_bound or failed_at is None):
        return ""
    return (LOADGEN_BESIDE_PG if beside_pg else LOADGEN) if generator_bound else TOP_RATE


def searches(run: Run) -> Searches:  # its capacity.json
    return Searches.read(run.path)


def figures(run: Run) -> list[Capacity]:
    """Every searched service's capacity, in the registry's order."""
    shipped = searches(run).shipped
    found = []
    for service in sorted(shipped, key=summaries.service_order):
        search = shipped[service]
        heap, below = smallest_heap(search, search.swept_at)
        at_rate = _held(run, search, search.found, None)
        # An exit at the last probe run ended the search (at a small heap, one may exit and it go on).
        last = next((probe for probe in reversed(search.probes) if probe.not_run is None), None)
        status = files.level_record(run.level_dir(last.level)).service_exit if last else None
        throughput, p99, service_cpu, pg_cpu, rss = (estimates.figure(at_rate, column) for column in (
            "overall.throughput_rps", "overall.p99_ms", "efficiency.service_cpu_ms_per_request",
            "efficiency.pg_cpu_ms_per_request", RSS))
        found.append(Capacity(
            service, search.found, search.failed_at, _generator_missed(search, search.failed_at), search.complete,
            throughput, p99, service_cpu, pg_cpu, rss,
            probed(search, search.found).get(None), heap, below,
            estimates.figure(_held(run, search, search.swept_at, heap.heap_mb if heap else None), RSS),
            placement.postgres_beside_loadgen(run.placement), search.sweep is not None,
            max((p.rate for p in search.probes if p.heap_mb is None and p.held), default=None),
            (last.rate, status) if last and isinstance(status, int) else None))
    return found


def target_ms(run: Run) -> float:
    return float(searches(run).target.p99_ms)


def probed(search: Search, rate: int | None) -> dict[int | None, Probed]:
    """Per heap (None: the service's own settings) probed at `rate`: what its probes say."""
    found: dict[int | None, Probed] = {}
    for probe in (p for p in search.probes if rate is not None and p.rate == rate):
        before = found.get(probe.heap_mb, Probed(probe.heap_mb, 0, 0, 0))
        verdict = tuple(probe.missed) != (LOADGEN,)  # a miss by the load generator alone says nothing
        found[probe.heap_mb] = Probed(probe.heap_mb, before.probes + 1, before.held + probe.held,
                                      before.missed + (verdict and not probe.held))
    return found


def smallest_heap(search: Search, rate: int | None) -> tuple[Probed | None, Probed | None]:
    """The smallest heap that held at `rate`, and the nearest heap probed under it (None: none)."""
    heaps = {mb: p for mb, p in probed(search, rate).items() if mb is not None}
    if not (held := [mb for mb, p in heaps.items() if p.verdict == HELD]):
        return None, None
    below = [mb for mb in heaps if mb < min(held)]
    return heaps[min(held)], heaps[max(below)] if below else None


def _generator_missed(search: Search, rate: int | None) -> bool:
    return any(p.rate == rate and p.heap_mb is None and p.generator_short for p in search.probes)


def _held(run: Run, search: Search, rate: int | None, heap_mb: int | None) -> pd.DataFrame:
    ids = [p.level for p in search.probes if p.rate == rate and p.heap_mb == heap_mb and p.held and rate is not None]
    return run.summary[run.summary["level_id"].isin(ids)]


def rss_by_heap(run: Run) -> pd.DataFrame:
    """Per service and heap (NaN: its own) at the sweep's rate: peak RSS and `Probed.verdict`."""
    rows = []
    for service, search in searches(run).shipped.items():
        rate = search.swept_at
        probes = pd.DataFrame([p.document for p in search.probes])
        if rate is None or probes.empty:
            continue
        at_rate = probes[(probes["rate"] == rate) & probes["level"].isin(run.summary["level_id"])]
        verdicts = probed(search, rate)
        for heap_mb, group in at_rate.groupby("heap_mb", dropna=False):
            figure = estimates.figure(run.summary[run.summary["level_id"].isin(group["level"])], RSS)
            rows.append({"service": service, "heap_mb": heap_mb, "rss_mb": figure.value, "rss_mb.low": figure.low,
                         "rss_mb.high": figure.high,
                         "verdict": verdicts[None if pd.isna(heap_mb) else int(heap_mb)].verdict})
    return pd.DataFrame(rows, columns=["service", "heap_mb", "rss_mb", "rss_mb.low", "rss_mb.high", "verdict"])


def p99_by_rate(run: Run) -> pd.DataFrame:
    """Per service and rate probed at its own heap: p99, and `short`: the generator fell short."""
    summary = run.summary
    own = summary[summary["heap_mb"].isna()] if "heap_mb" in summary else summary
    figures = repeats.aggregate_repeats(own, ["overall.p99_ms"], keys=["service", "users"]).rename(
        columns={"users": "rate"})
    probes = pd.DataFrame([{"service": service, "rate": p.rate, "short": p.generator_short}
                           for service, search in searches(run).shipped.items()
                           for p in search.probes if p.heap_mb is None], columns=["service", "rate", "short"])
    rates = probes.groupby(["service", "rate"], as_index=False)["short"].any()
    return rates.merge(figures, on=["service", "rate"], how="left")


def projections(run: Run, found: list[Capacity], measured: Sequence[Run] = ()) -> \
        tuple[list[projection.Projection], projection.Assumptions] | str:
    """Each service's cost on PROJECTED_ON, from an AWS run of `measured` (`held_at_target`) else
    `found`; else why not: NOT_ALONE (only BUDGET_PLACEMENT's is per service CPU), NONE_HELD."""
    instances = projection.catalog()
    target = searches(run).target
    basis = projection.preferred([run, *(other for other in measured if other.manifest.env == projection.AWS)])
    if basis is run and run.placement != BUDGET_PLACEMENT:
        return NOT_ALONE
    figures = held_at_target(basis, target) if basis is not run else {
        c.service: (projection.Span.of(c.throughput, projection.AT_LEAST if c.bound else ""),
                    projection.Span.of(c.pg_cpu_ms)) for c in found}
    assumptions = projection.Assumptions(projection.Basis.of(basis, instances), target.p99_ms, basis is run)
    service_on, database_on = (projection.alike([instances[name] for name in PROJECTED_ON[line]])
                               for line in (projection.SERVICE, projection.DATABASE))
    projected = []
    for service, (rps, pg_ms) in figures.items():
        if not np.isnan(rps.value):
            projected += [projection.from_capacity(service, rps, on, assumptions) for on in service_on]
        if not np.isnan(pg_ms.value):
            projected += [projection.from_cpu_time(service, pg_ms, on, assumptions) for on in database_on]
    return (projected, assumptions) if projected else NONE_HELD


def held_at_target(run: Run, target: Target) -> dict[str, tuple[projection.Span, projection.Span]]:
    """Per service of an open-model run: figures at the highest offered rate that held `target`."""
    usable = run.summary[standing.usable(run.summary)]
    found = {}
    for service, rows in summaries.by_service(usable):
        held = [rate for rate, at in rows.groupby("users")
                if estimates.figure(at, "overall.p99_ms").value <= target.p99_ms
                and estimates.figure(at, "overall.error_pct").value < target.max_error_pct]
        if held:
            highest = rows[rows["users"] == max(held)]
            found[service] = (
                projection.Span.of(estimates.figure(highest, "overall.throughput_rps"), projection.AT_LEAST),
                projection.Span.of(estimates.figure(highest, "efficiency.pg_cpu_ms_per_request")))
    return found
