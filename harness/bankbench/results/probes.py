"""The probes of make capacity and make tune: what one must achieve, and their records.

What a probe (a level of make capacity or make tune) must achieve, where make tune probes, and
the probes, searches and duels as capacity.json and tuning.json keep them (results/LAYOUT.md).

See results/LAYOUT.md#capacityjson and results/LAYOUT.md#tuningjson."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bankbench.registry import Settings
from bankbench.results import files, runs, versions
from bankbench.results.documents import Document, LevelSummary, record, records

P99_MS = 50.0  # the latency target (make capacity P99_MS=)
MAX_ERROR_PCT = 0.1  # errors must stay under it
LOADGEN = "load generator"  # the miss of a level at which the load generator did not hold up


@dataclass(frozen=True)
class Target:
    """What a level must achieve to count as held."""

    p99_ms: float = P99_MS
    max_error_pct: float = MAX_ERROR_PCT

    def misses(self, summary: LevelSummary) -> list[str]:
        """What of the target a level's summary missed (LOADGEN: bankbench.load.validity's)."""
        p99, errors = summary.overall.p99_ms, summary.overall.error_pct
        return [name for name, missed in (
            ("money", not summary.money_ok),
            (LOADGEN, not summary.loadgen.valid),
            ("p99", p99 is None or p99 > self.p99_ms),
            ("errors", errors is None or errors >= self.max_error_pct)) if missed]

    def held(self, summary: LevelSummary) -> bool:
        return not self.misses(summary)


@dataclass(frozen=True)
class Basis:
    """Where make tune tunes a service: below its capacity at the shipped settings, `rate`, which
    the passes `run` names found (`capacities.Rates.passes`: a run, or `3 passes, runs A to B`)."""

    rate: int
    target: Target
    run: str


@dataclass(frozen=True)
class Searched:
    """A knob as the newest make tune run that searched it left it: a run of other knobs starts it
    at `value` where `complete`; one of this knob, at the same `others`, goes on where it stopped."""

    value: str
    run: str
    complete: bool
    judged: tuple[str, ...]
    others: dict[str, str]


@dataclass(frozen=True)
class Probe(Document):
    """One probe as capacity.json and tuning.json keep it (bankbench.run.experiments.capacity_search.Prober)."""

    document: dict[str, Any] = field(repr=False)  # as written: the tables of every probe show it
    level: str = ""
    rate: int = 0
    heap_mb: int | None = None  # the heap it limited the service to; None: the service's own settings
    held: bool = False
    missed: Sequence[str] = ()  # what of the target it missed (Target.misses, or "start")
    service_cpu_ms: float | None = None
    pg_cpu_ms: float | None = None
    long: bool = False  # make capacity's level of `long_s` measured seconds at the rate found
    # Why it was not run (no level folder): its rate is beyond what the load generator drove in calibration.
    not_run: str | None = None

    @property
    def generator_short(self) -> bool:
        return LOADGEN in self.missed


@dataclass(frozen=True)
class RateFound(Document):
    """Where a contender's rate search settled: capacity.json's `rate` (run.experiments.capacity_search)."""

    document: dict[str, Any] = field(repr=False)
    # A rate the contender held (bankbench.run.experiments.bisection.provisional; a search that
    # bisected: the highest that held and was confirmed); None: none, or not yet.
    found: int | None = None
    failed_at: int | None = None  # the lowest rate above it that missed; None: none did
    # The staircase's own estimate of the rate held half the time (None: too few probes at its
    # fixed step, or a search that bisected).
    staircase: float | None = None
    complete: bool = False  # the search ended before the budget did


@dataclass(frozen=True)
class HeapSweep(Document):
    """Where a contender's heap sweep at one rate settled: capacity.json's `heap`."""

    document: dict[str, Any] = field(repr=False)
    rate: int  # the rate the heaps were probed at: the rate found
    found: int | None = None  # the smallest heap, MB, that held there; None: none did
    failed_at: int | None = None  # the largest heap under it that missed
    complete: bool = False


@dataclass(frozen=True)
class Search(Document):
    """A contender's probes, rate search and heap sweep in capacity.json."""

    document: dict[str, Any] = field(repr=False)
    service: str
    contender: str  # its name in `in_turn`: `go`, `go tuned`, `go-again`, `java pool16`
    pool: int  # the pool its levels ran with
    # Every one, in order: the staircase's, the long level, the heaps'.
    probes: tuple[Probe, ...] = field(metadata=records(Probe))
    # Its document {} where none settled (not yet, or no time left).
    rate: RateFound = field(default_factory=lambda: RateFound(document={}), metadata=record(RateFound))
    sweep: HeapSweep | None = field(default=None, metadata=record(HeapSweep, "heap"))  # None: not swept
    long: Probe | None = field(default=None, metadata=record(Probe))
    # A tuned contender whose settings are the shipped ones: the shipped record.
    as_shipped: bool = field(default=False, metadata={"key": runs.AS_SHIPPED})
    twin_of: str | None = None  # the A/A control's twin: the contender it repeats under its own name

    @property
    def found(self) -> int | None:
        return self.rate.found

    @property
    def failed_at(self) -> int | None:
        return self.rate.failed_at

    @property
    def staircase(self) -> float | None:
        return self.rate.staircase

    @property
    def swept_at(self) -> int | None:
        """The rate its heaps were swept at; None: not swept."""
        return None if self.sweep is None else self.sweep.rate

    @property
    def own_heap(self) -> tuple[Probe, ...]:
        """The probes at the contender's own settings, the long level's among them: the model's."""
        return tuple(p for p in self.probes if p.heap_mb is None)

    @property
    def complete(self) -> bool:
        """Whether the rate search and any heap sweep ended before the budget did."""
        return self.rate.complete and (self.sweep is None or self.sweep.complete)


@dataclass(frozen=True)
class Searches:
    """A make capacity run's capacity.json: the target; each service's searches at the shipped (or,
    TUNED=1, the tuned) settings and, TUNED=both, at the tuned ones (`tuned`), by service; and by
    name the contenders `beside` them: the A/A control's twin, the pools beside the shipped one."""

    target: Target
    shipped: dict[str, Search]
    tuned: dict[str, Search] | None  # None: the run probed no tuned contender beside the shipped ones
    in_turn: bool  # the contenders were probed in turn (a pass: bankbench.analyse.paired)
    long_s: int  # the measured seconds of the level at each rate found (0: none)
    beside: dict[str, Search] = field(default_factory=dict)
    contenders: tuple[str, ...] = ()  # every contender's name, in the order of their turns

    @classmethod
    def read(cls, run_dir: Path) -> "Searches":
        doc = files.record(run_dir, runs.CAPACITY_FILE, versions.CAPACITY)
        sections = {name: {key: Search.of(record) for key, record in doc[name].items()}
                    for name in (runs.SHIPPED_SECTION, runs.TUNED_SECTION) if name in doc}
        main = {name: {key: search for key, search in section.items() if key == search.service}
                for name, section in sections.items()}
        beside = {search.contender: search for section in sections.values() for key, search in section.items()
                  if key != search.service}
        in_turn = doc["in_turn"]  # null: one service searched after another
        return cls(Target(**doc["target"]), main[runs.SHIPPED_SECTION], main.get(runs.TUNED_SECTION),
                   in_turn is not None, doc["long_s"], beside, tuple(in_turn or ()))

    def section(self, tuned: bool) -> dict[str, Search]:
        return (self.tuned or {}) if tuned else self.shipped

    def every(self) -> dict[str, Search]:
        """Every contender's search by its name (`in_turn`'s), each once (no `as_shipped` copy)."""
        return {search.contender: search for section in (self.shipped, self.tuned or {}, self.beside)
                for search in section.values() if not search.as_shipped}

    @property
    def control(self) -> tuple[Search, Search] | None:
        """The A/A pair: the contender and its twin (None: the pass had none)."""
        twin = next((search for search in self.beside.values() if search.twin_of), None)
        return None if twin is None or twin.twin_of is None else (self.every()[twin.twin_of], twin)


@dataclass(frozen=True)
class Turn(Document):
    """One turn of a duel, a probe of one value, as tuning.json keeps it (bankbench.run.experiments.sweep.Outcome)."""

    document: dict[str, Any] = field(repr=False)
    value: str = ""
    cpu_ms: float | None = None  # the shared core's: the service's and PostgreSQL's CPU ms per request
    p99_ms: float | None = None
    missed: Sequence[str] = ()


@dataclass(frozen=True)
class Duel(Document):
    """A candidate value against the incumbent (bankbench.run.experiments.sweep.duel): `effect` on
    CPU per request (candidate / incumbent - 1, < 0 a cut) with its 95 % interval (None: an end
    it does not reach), the smallest cut it could detect at 80 % power, and the probes made void
    (the load generator short, the JIT compiling). The duels of the runs before issue 69 (a value
    kept where its median beat the incumbent's by more than the probes' spread) have no verdict of
    their own (`won` None), no effect and no voided probe."""

    document: dict[str, Any] = field(repr=False)
    incumbent: str
    candidate: str
    turns: tuple[Turn, ...] = field(metadata=records(Turn, key="probes"))
    kept: bool
    complete: bool  # False: the budget ran out first
    why: str
    won: bool | None  # this duel, where `kept` judges the value over its two
    effect: float | None
    low: float | None
    high: float | None
    detectable: float | None
    confirms: bool  # the second, independent duel of a value that won its first
    voided: tuple[Turn, ...] = field(metadata=records(Turn))


@dataclass(frozen=True)
class Knob(Document):
    """One knob of a make tune record; `resumed`: the earlier run it went on from (its `run`)."""

    document: dict[str, Any] = field(repr=False)
    knob: str
    values: Sequence[str]
    chosen: str
    complete: bool
    duels: tuple[Duel, ...] = field(default=(), metadata=records(Duel))
    resumed: dict[str, Any] | None = None

    @property
    def judged(self) -> tuple[str, ...]:
        """The values whose duels ended, in the order they were judged."""
        return tuple(dict.fromkeys(value for duel in self.duels if duel.complete
                                   for value in (duel.incumbent, duel.candidate)))


@dataclass(frozen=True)
class Tuned(Document):
    """What make tune recorded of a service (tuning.json's `services.<name>`); `tuned`: the settings
    found, as tuned.toml takes them (None: the run ended first)."""

    document: dict[str, Any] = field(repr=False)
    not_searched: Sequence[str]  # the knobs neither searched through nor carried
    rate: int = 0
    capacity: int | None = None
    run: str = ""
    heap_mb: int | None = None
    heap_run: str | None = None
    probes: tuple[Probe, ...] = field(default=(), metadata=records(Probe))
    knobs: tuple[Knob, ...] = field(default=(), metadata=records(Knob))
    carried: dict[str, dict[str, str]] = field(default_factory=dict)  # {}: every knob searched here
    chosen: dict[str, str] = field(default_factory=dict)
    tuned: Settings | None = None

    @classmethod
    def of(cls, document: dict[str, Any], **read: Any) -> "Tuned":
        found = document.get("tuned")
        return super().of(document, tuned=None if found is None else Settings.of(found, "a tuning.json's `tuned`"),
                          **read)


@dataclass(frozen=True)
class Tuning:
    """A make tune run's tuning.json (its duels: runs.PAIRED; `rate_share`: of the capacity)."""

    budget_s: float
    rate_share: float
    services: dict[str, Tuned]

    @classmethod
    def read(cls, run_dir: Path) -> "Tuning":
        doc = files.record(run_dir, runs.TUNING_FILE, versions.TUNING)
        return cls(doc["budget_s"], doc["rate_share"],
                   {service: Tuned.of(record) for service, record in doc["services"].items()})
