"""CPU placement: which CPUs the load generator, the service and PostgreSQL may use.

The load generator is JMeter, with the harness. The CPUs are set by CPU affinity (inherited by
children and threads; Go and the JVM size their pools by it). The modes cut this process's CPUs into
a first half (rounded down) and the rest: "split" (load generator first, service and PostgreSQL
rest), "service-alone" (PostgreSQL first), "shared" (all on all).

See docs/benchmarks.md#cpu-placement."""

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bankbench.errors import UserError

SPLIT, SERVICE_ALONE, SHARED = "split", "service-alone", "shared"
MODES = (SPLIT, SERVICE_ALONE, SHARED)
DEFAULT = SPLIT  # it varied less between repeats (results/placement/)
POSTGRES = "pg"  # PostgreSQL's name in the resource samples (bankbench.measure.resources)


@dataclass(frozen=True)
class Placement:
    mode: str
    loadgen: tuple[int, ...]
    service: tuple[int, ...]
    postgres: tuple[int, ...]

    @property
    def service_cpus(self) -> tuple[int, ...]:
        """The CPUs to start the service on (`taskset`, cpuset); none when they are shared."""
        return () if self.mode == SHARED else self.service

    @property
    def postgres_cpus(self) -> tuple[int, ...]:
        return () if self.mode == SHARED else self.postgres

    @property
    def loadgen_peers(self) -> tuple[str, ...]:
        """Measured processes on the load generator's CPUs: its CPU shortage counts theirs too."""
        return (POSTGRES,) if postgres_beside_loadgen(self.mode) else ()

    def pin_harness(self) -> None:
        os.sched_setaffinity(0, self.loadgen)

    def describe(self) -> str:
        """One sentence for the report: what the service had."""
        total = len(set(self.loadgen) | set(self.service))
        if self.mode == SHARED:
            return (f"shared: the load generator, the service and PostgreSQL all ran on the same "
                    f"{total} CPUs ({_cpu_list(self.service)})")
        if self.mode == SERVICE_ALONE:
            return (f"service-alone: the service had CPU {_cpu_list(self.service)} ({len(self.service)} "
                    f"of {total}) to itself; PostgreSQL, the load generator and the harness "
                    f"shared CPU {_cpu_list(self.loadgen)}")
        return (f"split: the service and PostgreSQL had CPU {_cpu_list(self.service)} "
                f"({len(self.service)} of {total}) to themselves; the load generator and the "
                f"harness ran on CPU {_cpu_list(self.loadgen)}")

    def as_dict(self) -> dict:
        """What the manifest records."""
        return {"mode": self.mode, "loadgen_cpus": list(self.loadgen), "service_cpus": list(self.service),
                "postgres_cpus": list(self.postgres), "description": self.describe()}


def postgres_beside_loadgen(mode: str) -> bool:
    return mode == SERVICE_ALONE


def default_mode() -> str:
    """DEFAULT where this process may use 2 CPUs or more, else shared (nothing to split)."""
    return DEFAULT if len(os.sched_getaffinity(0)) > 1 else SHARED


def plan(mode: str = DEFAULT, cpus: Sequence[int] | None = None) -> Placement:
    """The placement for `mode` (module doc) over `cpus`, by default those this process may use."""
    check(mode)
    available = tuple(sorted(os.sched_getaffinity(0) if cpus is None else cpus))
    if mode == SHARED:
        return Placement(SHARED, available, available, available)
    if len(available) < 2:
        raise UserError(f"CPU placement {mode} needs 2 CPUs, this process may use {len(available)}: "
                        "use CPU_PLACEMENT=shared")
    first, rest = available[:len(available) // 2], available[len(available) // 2:]
    return Placement(mode, first, rest, first if mode == SERVICE_ALONE else rest)


def check(mode: str) -> str:
    if mode not in MODES:
        raise UserError(f"CPU placement must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def taskset(cpus: Sequence[int], command: Sequence[str]) -> list[str]:
    return ["taskset", "--cpu-list", _cpu_list(cpus), *command] if cpus else list(command)


def allowed(pid: int) -> str:
    """The CPUs `pid` may use per /proc/<pid>/status ("0-3", a container's cpuset); "" if gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return ""
    return next(line.split(":", 1)[1].strip() for line in status.splitlines()
                if line.startswith("Cpus_allowed_list:"))


def _cpu_list(cpus: Sequence[int]) -> str:
    return ",".join(str(cpu) for cpu in cpus)
