"""The services under test, as services.yaml lists them: the one place that names them.

BANKBENCH_SERVICES points at another registry (the tests use it to add a contender without
touching the repository's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from bankbench import paths
from bankbench.errors import UserError

RUNTIMES = ("native", "jvm")
METRICS = ("go", "java")  # the dialects of /metrics that api/metrics.md maps


@dataclass(frozen=True)
class Entry:
    """One service of the registry (services.yaml explains the fields)."""

    name: str
    build: str
    artifact: Path
    runtime: str
    metrics: str
    image: str
    dockerfile: str
    port: int
    environment: dict[str, str] = field(default_factory=dict)


def path() -> Path:
    return Path(os.environ.get("BANKBENCH_SERVICES", paths.SERVICES))


def entries() -> dict[str, Entry]:
    """Name -> entry, in the registry's order."""
    return _load(path())


def by_image() -> dict[str, Entry]:
    """Image -> the first entry that runs it: entries may share one (java-virtual runs java's)."""
    found: dict[str, Entry] = {}
    for entry in entries().values():
        found.setdefault(entry.image, entry)
    return found


def names() -> tuple[str, ...]:
    return tuple(entries())


def get(name: str) -> Entry:
    try:
        return entries()[name]
    except KeyError:
        raise UserError(f"unknown service {name!r}: choose from {', '.join(names())} "
                        f"({path().name})") from None


@cache
def _load(source: Path) -> dict[str, Entry]:
    try:
        doc = yaml.safe_load(source.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise UserError(f"cannot read the service registry {source}: {err}") from None
    result = {}
    for name, fields in doc.items():
        try:
            entry = Entry(name=name, **{**fields, "artifact": paths.ROOT / fields["artifact"],
                                        "environment": {k: str(v) for k, v in fields.get("environment", {}).items()}})
        except (KeyError, TypeError) as err:
            raise UserError(f"{source}: service {name!r} is malformed ({err})") from None
        if entry.runtime not in RUNTIMES or entry.metrics not in METRICS:
            raise UserError(f"{source}: service {name!r} needs runtime in {RUNTIMES} and metrics in {METRICS}")
        result[name] = entry
    return result
