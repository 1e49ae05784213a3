"""make soak's files: soak.json and what its watcher writes beside each level.

Per results/LAYOUT.md: soak.json in the run folder, each service's figures per minute, trends and
verdict as typed records; and what its watcher writes beside each level's own files while the load
runs: PostgreSQL's connections and table sizes (pg_stats.csv, long form as service_metrics.csv: the
tables are the schema's, not known here) and the money check at the midpoint (money_midpoint.json;
the level's money.json is the one at the end).

See results/LAYOUT.md#soakjson."""

import csv
import dataclasses
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import pandas as pd

from bankbench.bank.money import Check
from bankbench.results import files, versions

SOAK_FILE = "soak.json"
PG_STATS = "pg_stats.csv"
PG_STATS_DTYPES = {"t_ms": "int64", "series": "string", "value": "float64"}
MIDPOINT_MONEY = "money_midpoint.json"
MIDPOINT, END = "midpoint", "end"  # when a money check ran
# pg_stats.csv's series: client backends (all, running a statement, idle), then <table>.<part> per table.
PG_CONNECTIONS, PG_ACTIVE, PG_IDLE = "connections", "connections_active", "connections_idle"


@dataclass(frozen=True)
class Relation:
    """One table's sizes in MB: its rows (pg_relation_size), its indexes, all (pg_total_relation_size)."""

    table_mb: float
    index_mb: float
    total_mb: float


RELATION_PARTS = tuple(f.name for f in dataclasses.fields(Relation))
TOTAL_PART = "total_mb"


def relation_series(table: str, part: str) -> str:
    return f"{table}.{part}"


def relations(sample: pd.Series) -> dict[str, Relation]:
    """Each table's sizes in one row of `read_pg_stats` (NaN: a part not sampled)."""
    tables = sorted({str(name).rsplit(".", 1)[0] for name in sample.index if "." in str(name)})
    return {table: Relation(*(float(sample.get(relation_series(table, part), float("nan")))
                              for part in RELATION_PARTS)) for table in tables}


@dataclass(frozen=True)
class Minute:
    """One minute of the measured window (1: the first); None where nothing measured it."""

    minute: int
    requests: int
    throughput_rps: float | None
    p50_ms: float | None
    p99_ms: float | None
    error_pct: float | None
    errors_by_status: dict[str, int]
    rss_mb: float | None  # means over the minute's samples from here on
    heap_mb: float | None
    gc_pct: float | None  # of wall time spent in GC pauses
    threads: float | None  # goroutines, or live JVM threads
    pool_active: float | None
    pool_idle: float | None
    pg_connections: float | None  # client backends, the watcher's own left out
    pg_active: float | None  # of them running a statement
    relations: dict[str, Relation] = field(default_factory=dict)  # at the minute's last sample


@dataclass(frozen=True)
class Trend:
    """A figure's least-squares slope per hour with its 95 % interval, over `points` spaced
    `step_s` apart; `tolerance`: the bound its upper end must stay under (None: shown, not judged)."""

    figure: str  # a Minute field: rss_mb, pool_active ...
    slope_per_h: float | None  # None: too few points
    low: float | None
    high: float | None
    points: int
    step_s: int
    tolerance: float | None = None
    onset_minute: int | None = None  # from this minute on it stayed above its first minute's value

    @property
    def rising(self) -> bool:
        """Judged, and its upward trend is not ruled out within the tolerance."""
        return self.tolerance is not None and self.high is not None and not self.high < self.tolerance


@dataclass(frozen=True)
class MoneyCheck:
    """The money check (bankbench.bank.money) at the midpoint, under load, or at the end."""

    at: str  # MIDPOINT or END
    minute: int | None  # the minute of the measured window it ran in
    ok: bool
    figures: dict[str, int]


@dataclass(frozen=True)
class Failure:
    """What a service missed and the minute it missed it in (None: no one minute, e.g. a run that failed)."""

    check: str  # p99, errors, the trend's figure, money, load generator, run
    minute: int | None
    value: float | None = None  # the minute's p99 or error %, the trend's upper bound
    count: int = 1  # the minutes it missed in (p99, errors)


@dataclass(frozen=True)
class Watched:
    """One service's soak: its level, the rate it was offered, and what the soak found."""

    service: str
    level: str
    rate: float  # iterations/s in the measured window
    minutes: tuple[Minute, ...] = ()
    trends: tuple[Trend, ...] = ()
    money: tuple[MoneyCheck, ...] = ()
    failures: tuple[Failure, ...] = ()
    error: str = ""  # why the level did not run through ("": it did)

    @property
    def passed(self) -> bool:
        return not self.failures

    def trend(self, figure: str) -> Trend | None:
        return next((found for found in self.trends if found.figure == figure), None)

    @property
    def judged_trends(self) -> bool:
        """Whether any trend was judged (a soak too short has its trends shown only)."""
        return any(found.tolerance is not None for found in self.trends)


@dataclass(frozen=True)
class Soak:
    """soak.json: the soak's settings and each service's `Watched`, in the order they ran."""

    minutes: int
    share: float | None  # of each service's capacity; None: at RATE=, the same for all
    rate_source: str
    placement: str
    p99_ms: float
    max_error_pct: float
    tolerances: dict[str, float]  # per judged trend figure, per hour
    services: dict[str, Watched] = field(default_factory=dict)


def write(run_dir: Path, soak: Soak) -> None:
    files.write_record(run_dir, SOAK_FILE, versions.stamped(dataclasses.asdict(soak), versions.SOAK))


def read(run_dir: Path) -> Soak:
    return _read(Soak, files.record(run_dir, SOAK_FILE, versions.SOAK))


def _read(kind: Any, value: Any) -> Any:
    """`value` (parsed JSON) as `kind`: dataclasses field by field, tuples and dicts of them."""
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = get_type_hints(kind)
        return kind(**{f.name: _read(hints[f.name], value[f.name]) for f in dataclasses.fields(kind)
                       if f.name in value})
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):  # X | None
        return None if value is None else _read(next(arg for arg in args if arg is not type(None)), value)
    if origin is tuple:
        return tuple(_read(args[0], item) for item in value)
    if origin is dict:
        return {key: _read(args[1], item) for key, item in value.items()}
    return value


def append_pg_stats(level_dir: Path, t_ms: int, figures: dict[str, float]) -> None:
    """Appends one sample of PostgreSQL's figures (series -> value) to the level's pg_stats.csv."""
    path = level_dir / PG_STATS
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.writer(f)
        if new:
            writer.writerow(PG_STATS_DTYPES)
        writer.writerows([t_ms, series, f"{value:.6g}"] for series, value in figures.items())


def read_pg_stats(level_dir: Path) -> pd.DataFrame:
    """A row per sample: `t_ms`, then a column per series (empty: the watcher wrote none)."""
    if not (level_dir / PG_STATS).exists():
        return pd.DataFrame({"t_ms": pd.Series(dtype="int64")})
    long = files.read_csv(level_dir / PG_STATS, PG_STATS_DTYPES)
    wide = long.pivot_table(index="t_ms", columns="series", values="value", aggfunc="last")
    return wide.rename_axis(columns=None).reset_index()


def write_midpoint_money(level_dir: Path, at_ms: int, check: Check) -> None:
    files.write_json(level_dir / MIDPOINT_MONEY, {"at_ms": at_ms, **check.document})


def midpoint_money(level_dir: Path) -> tuple[int, Check] | None:
    """When the check at the midpoint ran (ms) and what it found; None where none ran."""
    path = level_dir / MIDPOINT_MONEY
    if not path.exists():
        return None
    document = files.read_json(path)
    return int(document["at_ms"]), Check.of(document)
