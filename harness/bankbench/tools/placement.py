"""Which CPUs the benchmark's processes may use: the load generator on its own, the system under
test (the service and PostgreSQL) on the others, like the cloud topology in miniature.

CPU affinity (what `taskset` sets) needs no root and is inherited by every child and thread
created after it is set. The harness pins itself, and so JMeter and everything else it starts, to
the load generator's CPUs, and starts PostgreSQL and the service under `taskset`. A service sees
only its CPUs: Go sizes GOMAXPROCS and the JVM its thread pools and GC threads from the affinity
mask. "shared" leaves every process free to run on every CPU, as a laptop run did before.

The default is the mode whose throughput and p99 varied less between repeats, measured back to
back on the 2-core machine (results/placement/README.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from bankbench.errors import UserError

SPLIT, SHARED = "split", "shared"
MODES = (SPLIT, SHARED)
DEFAULT = SPLIT


@dataclass(frozen=True)
class Placement:
    """The CPUs of the load generator (with the harness) and of the system under test."""

    mode: str
    loadgen: tuple[int, ...]
    sut: tuple[int, ...]

    @property
    def sut_cpus(self) -> tuple[int, ...]:
        """The CPUs to start the system under test on (`taskset`); none when they are shared."""
        return () if self.mode == SHARED else self.sut

    def pin_harness(self) -> None:
        """Puts this process, and what it starts from now on, on the load generator's CPUs."""
        os.sched_setaffinity(0, self.loadgen)

    def describe(self) -> str:
        """One sentence for the report: what the service had."""
        if self.mode == SHARED:
            return (f"shared: the load generator, the service and PostgreSQL all ran on the same "
                    f"{len(self.sut)} CPUs ({_cpu_list(self.sut)})")
        return (f"split: the service and PostgreSQL had CPU {_cpu_list(self.sut)} "
                f"({len(self.sut)} of {len(self.sut) + len(self.loadgen)}) to themselves; the load "
                f"generator (JMeter) and the harness ran on CPU {_cpu_list(self.loadgen)}")

    def as_dict(self) -> dict:
        """What the manifest records."""
        return {"mode": self.mode, "loadgen_cpus": list(self.loadgen), "sut_cpus": list(self.sut),
                "description": self.describe()}


def default_mode() -> str:
    """DEFAULT where this process may use 2 CPUs or more, else shared (nothing to split)."""
    return DEFAULT if len(os.sched_getaffinity(0)) > 1 else SHARED


def plan(mode: str = DEFAULT, cpus: Sequence[int] | None = None) -> Placement:
    """The placement for `mode` over `cpus` (default: those this process may use). "split" gives
    the load generator the first half, rounded down, and the system under test the rest: on 2
    CPUs, one each."""
    if mode not in MODES:
        raise UserError(f"CPU placement must be one of {', '.join(MODES)}, not {mode!r}")
    available = tuple(sorted(os.sched_getaffinity(0) if cpus is None else cpus))
    if mode == SHARED:
        return Placement(SHARED, available, available)
    if len(available) < 2:
        raise UserError(f"CPU placement split needs 2 CPUs, this process may use {len(available)}: "
                        "use CPU_PLACEMENT=shared")
    half = len(available) // 2
    return Placement(SPLIT, available[:half], available[half:])


def taskset(cpus: Sequence[int], command: Sequence[str]) -> list[str]:
    """`command` restricted to `cpus` by `taskset`; as is for no CPUs."""
    return ["taskset", "--cpu-list", _cpu_list(cpus), *command] if cpus else list(command)


def _cpu_list(cpus: Sequence[int]) -> str:
    return ",".join(str(cpu) for cpu in cpus)
