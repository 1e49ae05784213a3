"""What a measured CPU time per request would mean on the AWS instances of infra/instances.csv:
a projection, not a measurement.

From the service's own CPU milliseconds per request (its processes only, PostgreSQL apart) and
its 95 % interval, for each instance type:

- requests per second per vCPU = 1000 / CPU ms per request;
- requests per second per instance = that x the instance's vCPUs x the headroom (the share of
  its vCPUs the service may use while holding its latency target);
- instances for a load = the load / requests per second per instance, rounded up;
- cost per million requests = the instance's price per hour / the millions of requests it serves
  in an hour at that rate (the whole instances a load needs cost as much or more).

Each figure is monotone in the CPU time, so its interval is the figure at the interval's ends
(swapped where the figure falls as the CPU time grows). What the projection assumes is data
(`Assumptions.rows`), printed beside it: the CPU model and hyper-threads of the measured machine
against the instance's, no correction for either unless measured, linear scaling with vCPUs, the
headroom. A run measured on AWS (manifest `env` "aws") is preferred wherever there is one
(`preferred`): its CPU was measured in the vCPUs of the service's own instance type.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from bankbench import paths
from bankbench.analyse import stats
from bankbench.analyse.runs import Run

AWS = "aws"  # the manifest's env of a run on AWS
LOAD_RPS = 10_000  # the load whose instances and hourly cost the report projects
HEADROOM = 1.0  # no headroom: the vCPUs run at 100 %, a floor on instances and cost


class Span(NamedTuple):
    """A figure and its 95 % interval (NaN ends: none)."""

    value: float
    low: float
    high: float

    @classmethod
    def of(cls, figure: stats.Figure) -> Span:
        return cls(figure.value, figure.low, figure.high)

    def through(self, function: Callable[[float], float]) -> Span:
        """The figure `function` makes of this one, whose interval is `function` at the ends:
        `function` must be monotone."""
        if math.isnan(self.low) or math.isnan(self.high):
            return Span(function(self.value), math.nan, math.nan)
        ends = (function(self.low), function(self.high))
        return Span(function(self.value), min(ends), max(ends))


@dataclass(frozen=True)
class Instance:
    """A row of infra/instances.csv."""

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
    """The instance types of `path` by name."""
    with path.open(newline="") as file:
        return {row["type"]: Instance(row["type"], int(row["vcpus"]), float(row["memory_gib"]),
                                      int(row["threads_per_core"]), row["processor"], row["region"],
                                      float(row["usd_per_hour"]), row["price_date"], row["price_source"])
                for row in csv.DictReader(file)}


@dataclass(frozen=True)
class Basis:
    """Where the CPU per request was measured: a run and its machine, from its manifest."""

    run_id: str
    cpu_model: str
    cpus: int
    instance_type: str = ""  # on AWS: the service's host

    @classmethod
    def of(cls, run: Run, instances: dict[str, Instance]) -> Basis:
        machine = run.manifest.get("machine", {})
        if run.manifest.get("env") == AWS:
            host = instances[machine["hosts"]["service"]["instance_type"]]
            return cls(run.id, host.processor, host.vcpus, host.type)
        return cls(run.id, machine.get("cpu_model", "unknown CPU"), machine.get("cores", 0))


def preferred(runs: Sequence[Run]) -> Run:
    """The newest AWS run of `runs` where there is one, else the newest run (ids start with the
    UTC time)."""
    return max(runs, key=lambda run: (run.manifest.get("env") == AWS, run.id))


@dataclass(frozen=True)
class Assumptions:
    """What every projection of one basis takes as given; `rows` says it for the report."""

    basis: Basis
    measured_at: str  # the level the CPU per request comes from, e.g. "at the capacity for p99 <= 50 ms"
    load_rps: float = LOAD_RPS
    headroom: float = HEADROOM

    def rows(self, instances: Sequence[Instance]) -> list[tuple[str, str]]:
        basis = self.basis
        where = (f"on AWS, the service on an {basis.instance_type} ({basis.cpu_model})" if basis.instance_type
                 else f"on {basis.cpu_model}, {basis.cpus} CPUs as the kernel saw them")
        headroom = ("none: every vCPU busy all the time, so a floor on instances and cost (the latency "
                    "at that load is not known)" if self.headroom == 1
                    else f"the service uses {self.headroom:.0%} of each instance's vCPUs")
        return [
            ("a projection", "computed from CPU time, not measured on these instances"),
            ("measured", f"run {basis.run_id}, {where}"),
            ("CPU per request", f"the service's own processes, PostgreSQL apart, {self.measured_at}"),
            *((f"CPU of {instance.type}", self._cpu_model(instance)) for instance in instances),
            ("hyper-threads", self._hyper_threads(instances)),
            ("scaling", "one service process per instance, its work spread over all vCPUs linearly; "
                        "PostgreSQL, the load balancer and the network are not counted"),
            ("headroom", headroom),
            ("load", f"{self.load_rps:,.0f} requests/s"),
            *((f"price of {instance.type}", f"${instance.usd_per_hour}/hour on demand, Linux, "
                                            f"{instance.region}, as of {instance.price_date} "
                                            f"({instance.price_source})") for instance in instances),
        ]

    def _cpu_model(self, instance: Instance) -> str:
        if instance.type == self.basis.instance_type:
            return f"{instance.processor}: measured on it"
        return (f"{instance.processor}; no correction from {self.basis.cpu_model}: a CPU ms measured "
                "there is taken to be a vCPU ms here (not measured)")

    def _hyper_threads(self, instances: Sequence[Instance]) -> str:
        shared = ", ".join(f"{i.type}: {i.threads_per_core} per core" for i in instances if i.threads_per_core > 1)
        if self.basis.instance_type:
            return (f"measured in the vCPUs of an {self.basis.instance_type}, each one hyper-thread "
                    f"({shared}): no correction")
        return (f"a vCPU is one hyper-thread of a core ({shared}), which does less while its sibling is "
                "busy; no correction (not measured): where the measured CPUs were whole cores, the "
                "projection is optimistic by what a hyper-thread loses")


@dataclass(frozen=True)
class Projection:
    """One service on one instance type, each figure with its interval."""

    service: str
    instance: Instance
    cpu_ms: Span
    rps_per_vcpu: Span
    rps_per_instance: Span
    instances: Span  # for the assumptions' load
    usd_per_hour: Span  # those instances
    usd_per_million: Span


def instances_of(projections: Sequence[Projection]) -> list[Instance]:
    """The instance types of `projections`, each once, in their order."""
    return list({p.instance.type: p.instance for p in projections}.values())


def project(service: str, cpu_ms: Span, instance: Instance, assumptions: Assumptions) -> Projection:
    """`service`, measured at `cpu_ms` CPU milliseconds per request, on `instance` (module doc)."""
    per_vcpu = cpu_ms.through(lambda ms: 1000 / ms)
    per_instance = per_vcpu.through(lambda rps: rps * instance.vcpus * assumptions.headroom)
    needed = per_instance.through(lambda rps: math.ceil(assumptions.load_rps / rps) if rps > 0 else math.nan)
    return Projection(
        service, instance, cpu_ms, per_vcpu, per_instance, needed,
        needed.through(lambda count: count * instance.usd_per_hour),
        per_instance.through(lambda rps: instance.usd_per_hour / (rps * 3600 / 1e6)),
    )
