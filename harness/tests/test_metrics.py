"""The resource samplers on real processes: a process tree (native) and a cgroup (compose)."""

from __future__ import annotations

import os
import time

from bankbench.measure.resources import Cgroup, Tree


def _busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_cgroup_counts_the_cpu_of_a_process_in_it() -> None:
    """This process's own cgroup: the CPU it burns shows up, memory is that of the group."""
    group, tree = Cgroup(os.getpid()), Tree(os.getpid())
    group.sample(1.0), tree.sample(1.0)
    start = time.monotonic()
    _busy(0.3)
    dt = time.monotonic() - start
    (group_cpu, group_mb), (tree_cpu, _) = group.sample(dt), tree.sample(dt)
    # Judged in CPU seconds, not percent: on a busy machine the 0.3 s of CPU
    # take longer than 0.3 s of wall time, and the percentage falls with it.
    tree_seconds, group_seconds = tree_cpu * dt / 100, group_cpu * dt / 100
    assert 0.25 <= tree_seconds <= 0.5  # this process's busy loop, at clock-tick resolution
    assert group_seconds >= tree_seconds * 0.9  # the group holds this process, and maybe others
    assert group_mb > 0
