"""The services under test as services.yaml lists them: the one place that names them.

It says all the harness needs to know of each; no other module special-cases a service by name or
language. BANKBENCH_SERVICES points at another registry (the tests add a contender with it).

See docs/api.md#adding-a-service."""

import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from bankbench import paths
from bankbench.errors import UserError

RUNTIMES = ("native", "jvm")  # how the artifact is started (services.yaml)
PROFILERS = ("pprof", "jfr", "none")
VERSION_READERS = ("go-build", "jar", "command")
HARDENING = ("hostile", "pool-limits", "faults", "overload")  # the parts of the contract's hardening tier
CLASSES = ("standard library", "micro-framework", "full-stack framework")  # TechEmpower's platform, micro, full
STANDARD_LIBRARY, MICRO_FRAMEWORK, FULL_STACK = CLASSES


@dataclass(frozen=True)
class Entry:
    """One service of the registry (services.yaml explains the fields)."""

    name: str
    build: str
    artifact: Path
    runtime: str
    versions: dict
    profiler: str
    metrics: dict[str, str]  # key of api/metrics.yaml -> selector, resolved from the dialect
    port: int
    framework: str = ""  # what serves its HTTP, in words: `net/http`, `Spring Boot MVC, virtual threads`
    kind: str = ""  # `class` in services.yaml: one of CLASSES
    image: str | None = None
    dockerfile: str | None = None
    environment: dict[str, str] = field(default_factory=dict)
    hardening: tuple[str, ...] = ()  # the parts of the hardening tier it passes
    heap: dict[str, str] | None = None  # {variable, value}: how its heap is set (a template of {mb})
    memory_mb: int | None = None  # RSS beyond its heap's cap (in all if uncapped), MB: overload's
    # make tune's knobs beyond the pool: knob -> {value's name -> its environment}, shipped first.
    tune: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)

    def memory_bound_mb(self, heap_cap_mb: float | None) -> float | None:
        """The most memory it may use, its heap capped at `heap_cap_mb`; None: no bound stated."""
        return None if self.memory_mb is None else self.memory_mb + (heap_cap_mb or 0)

    def heap_env(self, mb: int) -> dict[str, str]:
        if not self.heap:
            raise UserError(f"{self.name}: its entry in {path().name} has no `heap`: its heap cannot be set")
        return {self.heap["variable"]: self.heap["value"].format(mb=mb)}


@dataclass(frozen=True)
class Settings:
    """A service's pool and what it adds to its environment, as make tune finds them: a
    [tuned.<service>] table of tuned.toml, a tuning.json record's `tuned`, a TUNED run's manifest."""

    pool: int
    env: dict[str, str] = field(default_factory=dict)  # JAVA_OPTS after jvm.options, GOGC ...
    found_by: str = ""  # tuned.toml's: the tune run that found them, and where it tuned

    @classmethod
    def of(cls, table: object, where: str) -> "Settings":
        """`table` as TOML or JSON hold it; one of other keys or types is refused, naming `where`."""
        if not (isinstance(table, dict) and {"pool", "env"} <= set(table) <= {"pool", "env", "found_by"}
                and isinstance(table["pool"], int) and table["pool"] > 0 and isinstance(table["env"], dict)
                and all(isinstance(value, str) for value in (*table["env"].values(), table.get("found_by", "")))):
            raise UserError(f"{where} needs `pool`, a whole number above 0, and `env`, a table of strings, and "
                            "may have `found_by`, a string, and nothing else")
        return cls(**table)


def combine(*envs: dict[str, str] | None) -> dict[str, str]:
    """Environments in order; a variable set twice joins its values (JAVA_OPTS: the later win)."""
    pairs = [pair for env in envs for pair in (env or {}).items()]
    return {name: " ".join(value for key, value in pairs if key == name) for name, _ in pairs}


def path() -> Path:
    return Path(os.environ.get("BANKBENCH_SERVICES", paths.SERVICES))


def entries() -> dict[str, Entry]:
    """Name -> entry, in the registry's order."""
    return _load(path())


def framework_trios(services: Collection[str]) -> list[tuple[str, str, str]]:
    """Of `services`, each (standard library, micro-framework, full stack) whose micro-framework
    and full stack share a runtime, so that their ratio is the framework's part of the gap alone."""
    listed = {name: entry for name, entry in entries().items() if name in services}
    of = {kind: [entry for entry in listed.values() if entry.kind == kind] for kind in CLASSES}
    return [(standard.name, micro.name, full.name) for full in of[FULL_STACK] for micro in of[MICRO_FRAMEWORK]
            if micro.runtime == full.runtime for standard in of[STANDARD_LIBRARY]]


def by_image() -> dict[str, Entry]:
    """Image -> the first entry that runs it (java-virtual runs java's); none for native-only."""
    found: dict[str, Entry] = {}
    for entry in entries().values():
        if entry.image:
            found.setdefault(entry.image, entry)
    return found


def require_images(services: list[str], where: str) -> None:
    """Refuses, in one message, the `services` that have no image for a container environment."""
    if native_only := [name for name in services if not get(name).image]:
        raise UserError(f"{', '.join(native_only)}: no image in {path().name}, so ENV={where} cannot "
                        "run it (it runs natively only)")


def names() -> tuple[str, ...]:
    return tuple(entries())


def get(name: str) -> Entry:
    try:
        return entries()[name]
    except KeyError:
        raise UserError(f"unknown service {name!r}: choose from {', '.join(names())} "
                        f"({path().name})") from None


@cache
def metric_series(source: Path = paths.METRICS) -> tuple[dict[str, dict], dict[str, dict[str, str]]]:
    """api/metrics.yaml: (key -> its description, dialect -> {key: selector})."""
    try:
        doc = yaml.safe_load(source.read_text())
        return doc["series"], doc["dialects"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as err:
        raise UserError(f"cannot read the metric series {source}: {err}") from None


def _metrics(declared: str | dict) -> dict[str, str]:
    """A service's metric names: a dialect of api/metrics.yaml, or its own names over an optional
    `dialect` (bank-python: go's and its own); every series that is not optional must be named."""
    series, dialects = metric_series()
    own = {"dialect": declared} if isinstance(declared, str) else dict(declared)
    base = own.pop("dialect", None)
    if base is not None and base not in dialects:
        raise ValueError(f"metrics dialect {base!r} is not one of {', '.join(dialects)}")
    names = {**(dialects.get(base, {}) if base is not None else {}), **own}
    if unknown := set(names) - set(series):
        raise ValueError(f"metrics names unknown series {sorted(unknown)}")
    if missing := [key for key, about in series.items() if key not in names and not about.get("optional")]:
        raise ValueError(f"metrics does not name {missing}")
    return {key: names[key] for key in series if names.get(key)}


def _knobs(declared: object) -> dict[str, dict[str, dict[str, str]]]:
    """An entry's `tune`: each knob's values by name, each the environment it sets."""
    if not isinstance(declared, dict) or not all(
            isinstance(values, dict) and values and all(re.fullmatch(r"[A-Za-z0-9]+", str(value))
                                                        and isinstance(env, dict) for value, env in values.items())
            for values in declared.values()):
        raise ValueError("tune needs knobs of values named with letters and digits, each an environment")
    return {str(knob): {str(value): {str(k): str(v) for k, v in env.items()} for value, env in values.items()}
            for knob, values in declared.items()}


def _entry(name: str, fields: dict) -> Entry:
    fields = {("kind" if key == "class" else key): value for key, value in fields.items()}
    entry = Entry(name=name, **{**fields, "artifact": paths.ROOT / fields["artifact"],
                                "metrics": _metrics(fields["metrics"]),
                                "hardening": tuple(fields.get("hardening", ())),
                                "environment": {k: str(v) for k, v in fields.get("environment", {}).items()},
                                "tune": _knobs(fields.get("tune", {}))})
    for key, allowed in (("runtime", RUNTIMES), ("profiler", PROFILERS)):
        if getattr(entry, key) not in allowed:
            raise ValueError(f"{key} must be one of {allowed}")
    if entry.kind and entry.kind not in CLASSES:
        raise ValueError(f"class must be one of {CLASSES}")
    if entry.versions.get("reader") not in VERSION_READERS:
        raise ValueError(f"versions needs a reader in {VERSION_READERS}")
    if unknown := set(entry.hardening) - set(HARDENING):
        raise ValueError(f"hardening parts {sorted(unknown)} are not among {HARDENING}")
    if entry.heap is not None and (set(entry.heap) != {"variable", "value"} or "{mb}" not in entry.heap["value"]):
        raise ValueError("heap needs a variable and a value with {mb} in it")
    if entry.memory_mb is not None and not (isinstance(entry.memory_mb, int) and entry.memory_mb > 0):
        raise ValueError("memory_mb must be a whole number of MB > 0")
    if bool(entry.image) != bool(entry.dockerfile):
        raise ValueError("image and dockerfile go together")
    return entry


@cache
def _load(source: Path) -> dict[str, Entry]:
    try:
        doc = yaml.safe_load(source.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise UserError(f"cannot read the service registry {source}: {err}") from None
    result = {}
    for name, fields in doc.items():
        try:
            result[name] = _entry(name, fields)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise UserError(f"{source}: service {name!r} is malformed ({err}); services.yaml "
                            "explains the fields") from None
    return result
