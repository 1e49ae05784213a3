"""A run's manifest.json, a level's level.json and summary.json, pgwire.json: typed records.

As their readers ask them (results/LAYOUT.md): a field is its key's value, its default what a
document without the key holds (none of it: no heap limit, no phases), never what a record of an older
schema stood for: a reader refuses those (bankbench.results.versions). A field without a default
must be in every document; `document` keeps the whole, for the files that copy it.

See results/LAYOUT.md#manifestjson, results/LAYOUT.md#leveljson and
results/LAYOUT.md#summaryjson."""

from collections.abc import Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Self

from bankbench.errors import UserError
from bankbench.registry import Settings

WITH_TUNED = "with_tuned"  # the manifest's settings: make capacity TUNED=both
NOT_RECORDED = "not recorded"  # a level's service exit where the environment does not record it


class Document:
    """A JSON document read into the fields of a dataclass, with the document beside them."""

    document: dict[str, Any]
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # every Document is a dataclass

    if TYPE_CHECKING:
        # What @dataclass gives every subclass: its document, and its fields by name.
        def __init__(self, *, document: dict[str, Any], **fields: Any) -> None: ...

    @classmethod
    def of(cls, document: dict[str, Any], **read: Any) -> Self:
        """`document` read; `read`: the fields a subclass reads otherwise (a record in it, say). A
        document without a key that every one has is refused."""
        for f in fields(cls):
            key = f.metadata.get("key") or f.name  # a field named otherwise gives its key
            if f.name != "document" and f.name not in read and key in document:
                read[f.name] = _read(document[key], f.metadata)
        if missing := [f.metadata.get("key") or f.name for f in fields(cls) if f.name not in (*read, "document")
                       and f.default is MISSING and f.default_factory is MISSING]:
            raise UserError(f"a {cls.__name__} without {', '.join(missing)}: a record of another schema "
                            "(run `make migrate`)")
        return cls(document=document, **read)


def _read(value: Any, metadata: Mapping[str, Any]) -> Any:
    """A field's value as its metadata says: records in a list (none for null), one record (or
    None for null), records by key, or the value itself."""
    if (many := metadata.get("records")) is not None:
        return () if value is None else tuple(map(many.of, value))
    if (one := metadata.get("record")) is not None:
        return None if value is None else one.of(value)
    if (named := metadata.get("by_key")) is not None:
        return {name: named.of(item) for name, item in value.items()}
    return value


def records(kind: type[Document], key: str | None = None) -> dict[str, Any]:
    """The metadata of a field of `kind` records, read from the list at `key` (default the field's
    name): `field(metadata=records(kind))`, a call to field() itself so that a type checker sees
    whether the field has a default."""
    return {"records": kind, "key": key}


def record(kind: type[Document], key: str | None = None) -> dict[str, Any]:
    """The metadata of a field of one `kind` record (None where the document holds null), as `records`."""
    return {"record": kind, "key": key}


def by_key(kind: type[Document], key: str | None = None) -> dict[str, Any]:
    """The metadata of a field of `kind` records by name, read from the object at `key`, as `records`."""
    return {"by_key": kind, "key": key}


@dataclass(frozen=True)
class Manifest(Document):
    """What a run was measured on (bankbench.measure.manifest writes it)."""

    document: dict[str, Any] = field(default_factory=dict, repr=False)
    run_id: str | None = None
    created_utc: str | None = None
    profile: str = ""
    env: str = ""
    load_model: str | None = None  # in words (profiles.LOAD_MODELS)
    git: dict[str, Any] = field(default_factory=dict)  # the `commit` measured, and whether the tree was `dirty`
    machine: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def recorded_profile(self) -> dict[str, Any]:
        """The profile as recorded: its settings by name (bankbench.load.profiles.Profile)."""
        return self.settings.get("profile", {})

    @property
    def cpu_placement(self) -> dict[str, Any]:
        """The CPU placement as bankbench.machine.placement recorded it."""
        return self.settings["cpu_placement"]

    @property
    def placement(self) -> str:
        """The placement's mode (split, service-alone, shared, hosts)."""
        return self.cpu_placement["mode"]

    @property
    def series(self) -> str:
        """The series of runs over CPU placements the run belongs to (bankbench.results.runs); "" for none."""
        return self.settings.get("series", "")

    @property
    def admission_limit(self) -> int:
        """The services' MAX_CONCURRENT_REQUESTS."""
        return self.settings["max_concurrent_requests"]

    @cached_property
    def with_tuned(self) -> dict[str, Settings]:
        """The tuned settings the run had at hand (TUNED=1 or TUNED=both), read once."""
        tables = self.recorded_profile.get("tuned") or {}
        return {service: Settings.of(table, f"{self.run_id}'s tuned {service}") for service, table in tables.items()}

    @property
    def tuned(self) -> dict[str, Settings]:
        """The tuned settings its levels ran at (TUNED=1); {} at the shipped ones, TUNED=both's passes
        included (their tuned contenders are capacity.json's tuned section: `with_tuned`)."""
        return {} if self.settings.get(WITH_TUNED) else self.with_tuned


@dataclass(frozen=True)
class Arrivals(Document):
    """The arrivals a level plans: `rate` iterations/s over `window_s` (rate x window of them)."""

    document: dict[str, Any] = field(repr=False)
    rate: float
    window_s: float


@dataclass(frozen=True)
class BaseRate(Document):
    """A phased level's base rate, iterations/s, and where it came from in words (profiles.with_rates)."""

    document: dict[str, Any] = field(repr=False)
    rate: int
    source: str


@dataclass(frozen=True)
class PlannedPhase(Document):
    """One measured phase of a phased level: `seconds` at `multiple` x the base rate, `rate`."""

    document: dict[str, Any] = field(repr=False)
    seconds: int
    multiple: float
    rate: float


@dataclass(frozen=True)
class Burst(Document):
    """The failed requests of one response code around a fault (bankbench.results.bursts)."""

    document: dict[str, Any] = field(repr=False)
    count: int
    duration_s: float  # first to last


@dataclass(frozen=True)
class Fault(Document):
    """A fault struck during a level (bankbench.run.experiments.chaos) and its error burst."""

    document: dict[str, Any] = field(repr=False)
    fault: str  # chaos.FAULTS
    at_ms: int
    recovery_s: float  # until /health answered again
    errors: int
    burst: dict[str, Burst] = field(default_factory=dict, metadata=by_key(Burst))  # per response code


@dataclass(frozen=True)
class Calibration(Document):
    """What the load generator drove against the calibration target at a level's load
    (bankbench.run.experiments.calibration): calibration.json's figures for that load."""

    document: dict[str, Any] = field(repr=False)
    throughput_rps: float | None
    loadgen_cpu_mean: float | None  # % of one core
    machine_cpu_mean: float | None  # % of the machine
    loadgen_saturated: bool
    drives_plan: bool | None  # None: the load plans no arrival rate
    errors: int  # failed requests against the target
    loadgen_cpus: int | None = None  # None: it shared the CPUs
    planned_rate: float | None = None  # iterations/s, where the load plans arrivals
    offered_pct: float | None = None  # of `planned_rate`
    generator: str | None = None  # None: before there were two, JMeter


@dataclass(frozen=True)
class LevelRecord(Document):
    """What a level ran: the level as planned and what its run added (results.runs.level_record)."""

    document: dict[str, Any] = field(repr=False)
    service: str
    started_ms: int
    measure_from_ms: int  # where the measured window starts: earlier requests are warm-up
    ended_ms: int
    generator: str  # profiles.GENERATORS
    arrivals: Arrivals | None = field(metadata=record(Arrivals))  # None: a closed model plans none
    heap_mb: int | None = None
    base_rate: BaseRate | None = field(default=None, metadata=record(BaseRate))  # with phases
    phases: Sequence[PlannedPhase] = field(default=(), metadata=records(PlannedPhase))  # each measured one
    loadgen_cpus: int | None = None  # the load generator's CPUs, under a placement that gives it some
    loadgen_peers: Sequence[str] = ()  # the processes beside it there ("pg" under service-alone)
    calibration: Calibration | None = field(default=None, metadata=record(Calibration))  # None: not calibrated
    faults: Sequence[Fault] = field(default=(), metadata=records(Fault))  # struck during the load (CHAOS)
    service_exit: int | str | None = NOT_RECORDED  # by the load's end; None: it ran throughout

    def since_start_s(self, at_ms: float) -> float:
        """Seconds from the load's start to `at_ms` (epoch ms)."""
        return (at_ms - self.started_ms) / 1000


@dataclass(frozen=True)
class Pgwire(Document):
    """make pgwire's record (bankbench.run.experiments.pg_capture writes it)."""

    document: dict[str, Any] = field(repr=False)
    rate: float  # iterations/s, every level's
    levels: dict[str, dict[str, Any]]  # per level what one request cost: figures, messages to_pg and from_pg


@dataclass(frozen=True)
class Latency(Document):
    """A level's requests over its measured window: summary.json's `overall` (and each label's)."""

    document: dict[str, Any] = field(repr=False)
    requests: int
    errors: int
    error_pct: float | None  # None: no request measured
    throughput_rps: float | None
    p99_ms: float | None


@dataclass(frozen=True)
class LoadgenVerdict(Document):
    """Whether the load generator drove the level's plan (bankbench.load.validity.judge)."""

    document: dict[str, Any] = field(repr=False)
    valid: bool
    reasons: str  # why not, "; "-joined
    offered_pct: float | None = None  # of `planned_rate`: where the plan had arrivals
    planned_rate: float | None = None


@dataclass(frozen=True)
class Efficiency(Document):
    """CPU ms per request of the service and of PostgreSQL (None: no request measured)."""

    document: dict[str, Any] = field(repr=False)
    service_cpu_ms_per_request: float | None = None
    pg_cpu_ms_per_request: float | None = None


@dataclass(frozen=True)
class LevelSummary(Document):
    """A level's summary.json (bankbench.analyse.levels computes it), as a run reads it to judge
    the level: the level, its money check, its requests, the load generator's verdict, its cost."""

    document: dict[str, Any] = field(repr=False)
    level: LevelRecord = field(metadata=record(LevelRecord))
    money_ok: bool
    overall: Latency = field(metadata=record(Latency))
    loadgen: LoadgenVerdict = field(metadata=record(LoadgenVerdict))
    resources: dict[str, Any] | None = None  # None: its metrics not read yet (AWS: at the run's end)
    efficiency: Efficiency = field(default_factory=lambda: Efficiency(document={}), metadata=record(Efficiency))
