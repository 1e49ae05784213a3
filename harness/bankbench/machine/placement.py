"""Which CPUs the benchmark's processes may use: the load generator (JMeter, with the harness),
the service and PostgreSQL, like the cloud topology in miniature.

CPU affinity (what `taskset` sets) needs no root and is inherited by every child and thread
created after it is set. The harness pins itself, and so JMeter and everything else it starts, to
the load generator's CPUs, and starts PostgreSQL and the service under `taskset` on theirs. A
service sees only its CPUs: Go sizes GOMAXPROCS and the JVM its thread pools and GC threads from
the affinity mask.

The modes, over the CPUs this process may use, cut into a first half (rounded down) and the rest:
- "split": the load generator on the first half, the service and PostgreSQL on the rest;
- "service-alone": the service alone on the rest, PostgreSQL with the load generator on the
  first half. The service has the same CPUs as under split: only PostgreSQL moves;
- "shared": every process free to run on every CPU, as a laptop run did before.
On 2 CPUs: CPU 0 and CPU 1; on 3: CPU 0, and CPUs 1-2; on 4: CPUs 0-1 and 2-3.

The default is the mode whose throughput and p99 varied less between repeats, measured back to
back on the 2-core machine (results/placement/README.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bankbench.errors import UserError

SPLIT, SERVICE_ALONE, SHARED = "split", "service-alone", "shared"
MODES = (SPLIT, SERVICE_ALONE, SHARED)
DEFAULT = SPLIT
POSTGRES = "pg"  # PostgreSQL's name in the resource samples (bankbench.measure.resources)


@dataclass(frozen=True)
class Placement:
    """The CPUs of the load generator (with the harness), of the service and of PostgreSQL."""

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
        """The CPUs to start PostgreSQL on (`taskset`, cpuset); none when they are shared."""
        return () if self.mode == SHARED else self.postgres

    @property
    def loadgen_peers(self) -> tuple[str, ...]:
        """The measured processes (as the resource samples name them) that run on the load
        generator's CPUs beside it, when it has CPUs of its own: whether it was short of CPU
        depends on them too (bankbench.results.levels)."""
        return (POSTGRES,) if postgres_beside_loadgen(self.mode) else ()

    def pin_harness(self) -> None:
        """Puts this process, and what it starts from now on, on the load generator's CPUs."""
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
    """Whether PostgreSQL runs on the load generator's own CPUs under `mode`."""
    return mode == SERVICE_ALONE


def default_mode() -> str:
    """DEFAULT where this process may use 2 CPUs or more, else shared (nothing to split)."""
    return DEFAULT if len(os.sched_getaffinity(0)) > 1 else SHARED


def plan(mode: str = DEFAULT, cpus: Sequence[int] | None = None) -> Placement:
    """The placement for `mode` over `cpus` (default: those this process may use): module doc."""
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
    """`mode` if it is one of MODES, else a UserError that lists them."""
    if mode not in MODES:
        raise UserError(f"CPU placement must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def taskset(cpus: Sequence[int], command: Sequence[str]) -> list[str]:
    """`command` restricted to `cpus` by `taskset`; as is for no CPUs."""
    return ["taskset", "--cpu-list", _cpu_list(cpus), *command] if cpus else list(command)


def allowed(pid: int) -> str:
    """The CPUs process `pid` may run on, as the kernel lists them (`Cpus_allowed_list` of
    /proc/<pid>/status: "1", "0-3"; a container's cpuset shows there too); "" once it has
    exited (what failed says so itself)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return ""
    return next(line.split(":", 1)[1].strip() for line in status.splitlines()
                if line.startswith("Cpus_allowed_list:"))


def _cpu_list(cpus: Sequence[int]) -> str:
    return ",".join(str(cpu) for cpu in cpus)
