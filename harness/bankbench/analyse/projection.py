"""The projection of a measured capacity onto AWS instances: their price per request.

What a service's measured capacity, and PostgreSQL's CPU time per request, would mean on the
AWS instances of infra/instances.csv: a projection, not a measurement. Two lines per service, the
service's cost and its database work's apart: the service's requests/s per vCPU are its capacity
over the CPUs it had to itself, not its CPU time extrapolated; PostgreSQL's are 1000 / its CPU ms
per request, for no capacity of its own was measured. Figures are monotone in the measured one.

See docs/benchmarks.md#what-a-request-costs and infra/README.md#what-it-creates."""

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import NamedTuple, get_type_hints

from bankbench import paths
from bankbench.analyse import estimates
from bankbench.results.runs import Run

AWS = "aws"  # the manifest's env of a run on AWS
SERVICE, DATABASE = "service", "PostgreSQL"  # a projection's line: whose work it prices
AT_LEAST, AT_MOST = "≥", "≤"  # Span.bound: the true figure is at least, at most this one
FLIPPED = {"": "", AT_LEAST: AT_MOST, AT_MOST: AT_LEAST}  # a bound through a falling function


class Span(NamedTuple):
    """A figure and its 95 % interval (NaN ends: none), and whether it is only a bound."""

    value: float
    low: float
    high: float
    bound: str = ""  # AT_LEAST or AT_MOST where the figure bounds the true one; "": an estimate

    @classmethod
    def of(cls, figure: estimates.Figure, bound: str = "") -> "Span":
        return cls(figure.value, figure.low, figure.high, bound)

    def through(self, function: Callable[[float], float], falling: bool = False) -> "Span":
        """Through a monotone `function`, `falling` if it falls (a lower bound gives an upper)."""
        bound = FLIPPED[self.bound] if falling else self.bound
        if math.isnan(self.low) or math.isnan(self.high):
            return Span(function(self.value), math.nan, math.nan, bound)
        ends = (function(self.low), function(self.high))
        return Span(function(self.value), min(ends), max(ends), bound)


@dataclass(frozen=True)
class Instance:
    """A row of infra/instances.csv, each field's type reading its text (`catalog`)."""

    type: str
    vcpus: int
    memory_gib: float
    threads_per_core: int
    processor: str
    region: str
    usd_per_hour: float
    price_date: str
    price_source: str


def catalog(path: Path = paths.INSTANCES) -> dict[str, Instance]:
    kinds = get_type_hints(Instance)  # each field's class, which reads it from its CSV text
    with path.open(newline="") as file:
        return {row["type"]: Instance(*(kinds[field.name](row[field.name]) for field in fields(Instance)))
                for row in csv.DictReader(file)}


@dataclass(frozen=True)
class Alike:
    """Instance types of the same vCPUs and price, which the projection cannot tell apart."""

    types: tuple[Instance, ...]
    vcpus: int
    usd_per_hour: float

    @property
    def name(self) -> str:
        return ", ".join(instance.type for instance in self.types)


def alike(instances: Sequence[Instance]) -> list[Alike]:
    """`instances` grouped by vCPUs and price, in the order each group first appears."""
    groups: dict[tuple[int, float], list[Instance]] = {}
    for instance in instances:
        groups.setdefault((instance.vcpus, instance.usd_per_hour), []).append(instance)
    return [Alike(tuple(group), *key) for key, group in groups.items()]


@dataclass(frozen=True)
class Basis:
    """Where the figures were measured: a run and its machine, from its manifest."""

    run_id: str
    cpu_model: str
    cpus: int
    service_cpus: int  # the CPUs the service had: its placement's, on AWS its host's vCPUs
    placement: str  # how the CPUs were shared among the roles, as the manifest describes it
    instance_type: str = ""  # on AWS: the service's host

    @classmethod
    def of(cls, run: Run, instances: dict[str, Instance]) -> "Basis":
        machine = run.manifest.machine
        placement = run.manifest.cpu_placement
        if run.manifest.env == AWS:
            host = instances[machine["hosts"]["service"]["instance_type"]]
            return cls(run.id, host.processor, host.vcpus, host.vcpus, f"the service on its own {host.type}",
                       host.type)
        cores = machine.get("cores", 0)
        return cls(run.id, machine.get("cpu_model", "unknown CPU"), cores, len(placement["service_cpus"]),
                   placement["description"])


def preferred(runs: Sequence[Run]) -> Run:
    """The newest AWS run of `runs` where there is one, else the newest run."""
    return max(runs, key=lambda run: (run.manifest.env == AWS, run.id))


@dataclass(frozen=True)
class Assumptions:
    """What every projection of one basis takes as given (publish.tables.projection_assumptions)."""

    basis: Basis
    target_ms: float
    searched: bool = True  # the figures at the capacity, else at the highest offered rate that held
    load_rps: float = 10_000  # the load whose instances and hourly cost the report projects
    headroom: float = 1.0  # none: every vCPU a line may use counted, a floor on instances and cost


@dataclass(frozen=True)
class Projection:
    """One line (SERVICE or DATABASE) of one service on one group of alike instance types."""

    service: str
    line: str
    on: Alike
    measured: Span  # SERVICE: requests/s on the basis's service CPUs; DATABASE: CPU ms per request
    rps_per_vcpu: Span
    rps_per_instance: Span
    instances: Span  # for the assumptions' load
    usd_per_hour: Span  # those instances
    usd_per_million: Span


def instances_of(projections: Sequence[Projection]) -> list[Instance]:
    """The instance types of `projections`, each once, in their order."""
    return list({i.type: i for p in projections for i in p.on.types}.values())


def from_capacity(service: str, rps: Span, on: Alike, assumptions: Assumptions) -> Projection:
    """The service's line from `rps`: its requests/s at its capacity on the basis's service CPUs."""
    cpus = assumptions.basis.service_cpus
    return _project(service, SERVICE, rps, rps.through(lambda measured: measured / cpus), on, assumptions)


def from_cpu_time(service: str, cpu_ms: Span, on: Alike, assumptions: Assumptions) -> Projection:
    """PostgreSQL's line for `service` from `cpu_ms`, its CPU milliseconds per request."""
    return _project(service, DATABASE, cpu_ms, cpu_ms.through(lambda ms: 1000 / ms, falling=True), on, assumptions)


def _project(service: str, line: str, measured: Span, per_vcpu: Span, on: Alike,
             assumptions: Assumptions) -> Projection:
    per_instance = per_vcpu.through(lambda rps: rps * on.vcpus * assumptions.headroom)
    needed = per_instance.through(lambda rps: math.ceil(assumptions.load_rps / rps) if rps > 0 else math.nan,
                                  falling=True)
    return Projection(
        service, line, on, measured, per_vcpu, per_instance, needed,
        needed.through(lambda count: count * on.usd_per_hour),
        per_instance.through(lambda rps: on.usd_per_hour / (rps * 3600 / 1e6), falling=True))
