"""make capacity's passes: each contender's capacity and ratio within a pass, and over passes.

The passes are capacity runs whose contenders were probed in turn (`in_turn`). Each contender's
capacity in a pass is the model's over every probe of the pass (bankbench.analyse.capacity_model: the rate
held with probability 0.5), not the bisection's boundary; over the passes, a figure and a ratio
(within each pass, drift falling on both alike) take capacity_model.ACROSS's interval
(docs/method.md#capacity-the-model), and the A/A control of each pass tells the instrument's noise
from the stacks'."""

from dataclasses import dataclass, field

from bankbench.analyse import capacity_figures as capacity, capacity_model, estimates
from bankbench.machine import placement
from bankbench.results import capacities
from bankbench.results.probes import Search, Searches
from bankbench.results.runs import Run
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
    # Each rate found a long level measured (_long_levels): contender, pass (1 the first), held the target
    long_held: tuple[tuple[str, int, bool], ...] = ()
    fits: tuple[capacity_model.PassFit, ...] = ()  # each pass's model, in the runs' order
    beside: dict[str, Over] = field(default_factory=dict)  # by name: the A/A twin, the pools beside
    controls: tuple[capacity_model.Control, ...] = ()  # each pass's A/A pair, where it had one
    control: tuple[str, str] | None = None  # the A/A pair's names (contender, twin)

    @property
    def false_positives(self) -> capacity_model.FalsePositives:
        """How often an A/A pair's interval excluded 1 over these passes."""
        return capacity_model.false_positives(self.controls)


def of(selected: list[Run], mode: str = placement.SPLIT) -> Passes | None:
    """The passes among `selected` under `mode`; None: fewer than MIN_PASSES. Where MIN_PASSES of
    them had an A/A control (issue 69's protocol), only those; else, where MIN_PASSES probed the
    tuned settings too (TUNED=both), only those: every figure and ratio then comes from the same
    runs of one protocol."""
    found = [(run, capacity.searches(run)) for run in selected
             if run.placement == mode and not run.tuned and run.searched]
    found = [(run, doc) for run, doc in found if doc.in_turn]
    for newer in (lambda doc: doc.control is not None, lambda doc: doc.tuned is not None):
        if len(chosen := [(run, doc) for run, doc in found if newer(doc)]) >= MIN_PASSES:
            found = chosen
            break
    if len(found) < MIN_PASSES:
        return None
    runs, docs = zip(*found, strict=True)
    fits = tuple(fit(run, doc) for run, doc in found)
    pairs = [(fit_, doc.control) for fit_, doc in zip(fits, docs, strict=True) if doc.control]
    control = (pairs[-1][1][0].contender, pairs[-1][1][1].contender) if pairs else None
    beside = sorted({name for doc in docs for name in doc.beside}, key=lambda name: service_order(name.split()[0]))
    return Passes(mode, runs, _over(docs, fits, False, mode), _over(docs, fits, True, mode),
                  tuple(sorted({doc.long_s for doc in docs} - {0})), _long_levels(docs), fits,
                  {name: over for name in beside
                   if (over := _over_passes([doc.beside.get(name) for doc in docs], fits, mode))},
                  tuple(capacity_model.control(fit_, a.contender, b.contender) for fit_, (a, b) in pairs), control)


def fit(run: Run, doc: Searches) -> capacity_model.PassFit:
    """The model over every probe of a pass at each contender's own heap, but those the load
    generator spoiled (they say nothing of the service)."""
    return capacity_model.fit_pass([(name, run.id, probe.rate, probe.held) for name, search in doc.every().items()
                                    for probe in search.own_heap if not probe.generator_short])


def _over(docs: tuple[Searches, ...], fits: tuple[capacity_model.PassFit, ...], tuned: bool,
          mode: str) -> dict[str, Over]:
    """Per service at the shipped settings or the `tuned` ones, its capacities over the runs whose
    model gives one (a contender that never missed: the top rate it held, a lower bound)."""
    services = sorted({service for doc in docs for service in doc.section(tuned)}, key=service_order)
    return {service: over for service in services
            if (over := _over_passes([doc.section(tuned).get(service) for doc in docs], fits, mode))}


def _over_passes(searched: list[Search | None], fits: tuple[capacity_model.PassFit, ...], mode: str) -> Over | None:
    """One contender's capacity in each pass (the model's), over the passes; None where a pass has none."""
    points = [None if search is None else fit_.point(_name(search))
              for search, fit_ in zip(searched, fits, strict=True)]
    held = [point for point in points if point is not None and not isinstance(point, capacity_model.NoneHeld)]
    if len(held) < len(points):
        return None
    found = [search for search in searched if search is not None]  # every one: each has a point
    rates = [point.rate if isinstance(point, capacity_model.AboveTried) else point for point in held]
    bounds = [capacity.record_bound(search, mode) or capacity.TOP_RATE
              for search, point in zip(found, held, strict=True) if isinstance(point, capacity_model.AboveTried)]
    return Over(estimates.over_passes(rates), next(iter(bounds), ""), _shared_core(found))


def _name(search: Search) -> str:
    """The contender's name in its pass's model: a tuned one probed once is its shipped self."""
    return search.service if search.as_shipped else search.contender


def _shared_core(searched: list[Search]) -> estimates.Figure | None:
    """The service's and PostgreSQL's CPU ms per request at each run's `long` level."""
    longs = [search.long for search in searched]
    totals = [long.service_cpu_ms + long.pg_cpu_ms for long in longs
              if long and long.service_cpu_ms is not None and long.pg_cpu_ms is not None]
    if len(totals) < len(longs):
        return None
    return estimates.over_passes(totals)


def _long_levels(docs: tuple[Searches, ...]) -> tuple[tuple[str, int, bool], ...]:
    """Each rate found a long level measured (`as_shipped`: counted once): the contender (`go`,
    `go tuned`), its pass, 1 the first, and whether the long level held the target."""
    return tuple((service + suffix, number, search.long.held) for number, doc in enumerate(docs, 1)
                 for tuned, suffix in ((False, ""), (True, " tuned"))
                 for service, search in doc.section(tuned).items()
                 if search.long and not search.as_shipped)


def record(run: Run) -> capacities.Pass:
    """What capacity.toml keeps of a make capacity run (bankbench.results.capacities): each main
    contender's capacity in it, the model's over every probe, at the shipped and the tuned settings
    (TUNED=1: every contender at the tuned ones); a marker's rate where it never missed (a lower
    bound, named in `at_least`); none where it never held."""
    doc = capacity.searches(run)
    fitted = fit(run, doc)
    sections: dict[bool, dict[str, float]] = {False: {}, True: {}}
    at_least = []
    for tuned in (False, True):
        for service, search in doc.section(tuned).items():
            point = fitted.point(_name(search))
            if isinstance(point, capacity_model.NoneHeld):
                continue
            if isinstance(point, capacity_model.AboveTried):
                at_least.append(search.contender)
            sections[tuned or bool(run.tuned)][service] = round(
                point.rate if isinstance(point, capacity_model.AboveTried) else point, 1)
    return capacities.Pass(run.id, run.placement, doc.target, sections[False], sections[True],
                           tuple(dict.fromkeys(at_least)))
