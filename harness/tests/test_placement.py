"""CPU placement (bankbench.machine.placement): the CPUs each mode plans on 2, 3 and 4 CPUs, and
real processes started on them: a PostgreSQL cluster (every backend) and the Go service each see
only their CPUs; a native smoke level under service-alone records what the kernel applied."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys

import pandas as pd
import psutil
import psycopg
import pytest

from bankbench import paths
from bankbench.analyse import levels
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.machine import placement
from bankbench.machine.placement import SERVICE_ALONE, SHARED, SPLIT, Placement
from bankbench.machine.postgres import Cluster

CPUS = sorted(os.sched_getaffinity(0))


@pytest.mark.parametrize(("cpus", "first", "rest"), [
    ([0, 1], (0,), (1,)),
    ([0, 1, 2], (0,), (1, 2)),
    ([4, 5, 6, 7], (4, 5), (6, 7)),
])
def test_each_mode_on_2_3_and_4_cpus(cpus: list[int], first: tuple, rest: tuple) -> None:
    """The load generator takes the first half (rounded down), the service the rest; PostgreSQL
    goes with the service under split and with the load generator under service-alone."""
    assert placement.plan(SPLIT, cpus) == Placement(SPLIT, first, rest, rest)
    alone = placement.plan(SERVICE_ALONE, cpus)
    assert alone == Placement(SERVICE_ALONE, first, rest, first)
    assert not set(alone.service_cpus) & set(alone.postgres_cpus)
    assert alone.loadgen_peers == ("pg",) and placement.plan(SPLIT, cpus).loadgen_peers == ()
    shared = placement.plan(SHARED, cpus)
    assert shared == Placement(SHARED, tuple(cpus), tuple(cpus), tuple(cpus))
    assert shared.service_cpus == shared.postgres_cpus == ()  # no taskset, no cpuset


def test_one_cpu_only_shares_and_unknown_modes_are_refused() -> None:
    for mode in (SPLIT, SERVICE_ALONE):
        with pytest.raises(UserError, match=f"{mode} needs 2 CPUs"):
            placement.plan(mode, [3])
    assert placement.plan(SHARED, [3]).loadgen == (3,)
    with pytest.raises(UserError, match="must be one of split, service-alone, shared"):
        placement.plan("half")


def test_taskset_prefixes_only_with_cpus() -> None:
    assert placement.taskset((1, 3), ["postgres"]) == ["taskset", "--cpu-list", "1,3", "postgres"]
    assert placement.taskset((), ["postgres"]) == ["postgres"]


def test_described_for_the_report() -> None:
    assert placement.plan(SPLIT, [0, 1]).describe().startswith(
        "split: the service and PostgreSQL had CPU 1 (1 of 2) to themselves")
    assert placement.plan(SERVICE_ALONE, [0, 1, 2]).describe() == (
        "service-alone: the service had CPU 1,2 (2 of 3) to itself; PostgreSQL, the load generator "
        "and the harness shared CPU 0")
    assert placement.plan(SHARED, [0, 1]).as_dict() == {
        "mode": "shared", "loadgen_cpus": [0, 1], "service_cpus": [0, 1], "postgres_cpus": [0, 1],
        "description": "shared: the load generator, the service and PostgreSQL all ran on the same 2 CPUs (0,1)"}


def test_the_load_generator_beside_postgresql_is_short_when_their_cpu_is_full() -> None:
    """JMeter at 50 % of its one CPU is short under service-alone when PostgreSQL takes 40 % of it,
    not under split, where PostgreSQL is elsewhere."""
    window = pd.DataFrame({"service_cpu_pct": [90.0], "service_rss_mb": [1.0], "pg_cpu_pct": [40.0],
                           "pg_rss_mb": [1.0], "loadgen_cpu_pct": [50.0], "machine_cpu_pct": [90.0]})
    assert levels.resource_stats(window, 1, ("pg",))["loadgen_saturated"] is True
    assert levels.resource_stats(window, 1)["loadgen_saturated"] is False
    assert levels.resource_stats(window.assign(pg_cpu_pct=20.0), 1, ("pg",))["loadgen_saturated"] is False


def test_allowed_reads_what_the_kernel_applied() -> None:
    assert _expand(placement.allowed(os.getpid())) == ",".join(map(str, CPUS))
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert placement.allowed(gone.pid) == ""


@pytest.mark.integration
@pytest.mark.skipif(len(CPUS) < 2, reason="needs 2 CPUs")
def test_postgresql_and_the_service_run_on_their_cpus(tmp_path) -> None:
    where = placement.plan(SERVICE_ALONE)
    with (Cluster.create(cpus=where.postgres_cpus) as cluster,
          processes.local_service("go", 2, cluster=cluster, log=tmp_path / "go.log", cpus=where.service_cpus) as go):
        with psycopg.connect(host="127.0.0.1", port=cluster.port, user="postgres", dbname="bank") as conn:
            backend = psutil.Process(conn.info.backend_pid)  # forked for this connection
            server = psutil.Process(cluster.postmaster_pid())
            for process in (server, *server.children(), backend):
                with contextlib.suppress(psutil.NoSuchProcess):  # a worker that has just exited
                    assert tuple(process.cpu_affinity()) == where.postgres, process
        threads = psutil.Process(go.pid).threads()
        assert len(threads) > 1
        assert all(tuple(os.sched_getaffinity(t.id)) == where.service for t in threads)


@pytest.mark.integration
@pytest.mark.skipif(len(CPUS) < 2, reason="needs 2 CPUs")
def test_a_smoke_level_under_service_alone_records_the_cpus_it_ran_on(tmp_path) -> None:
    """A real level (PostgreSQL, Go, JMeter): level.json has the CPUs the kernel allowed each
    process while the load ran, the service's apart from PostgreSQL's and JMeter's."""
    out = subprocess.run([sys.executable, "-m", "bankbench", "bench", "--profile", "smoke", "--service", "go",
                          "--cpu-placement", SERVICE_ALONE, "--no-dashboard"],
                         env={**os.environ, "BANKBENCH_RUNS": str(tmp_path)}, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    (run_dir,) = tmp_path.iterdir()
    planned = json.loads((run_dir / "manifest.json").read_text())["settings"]["cpu_placement"]
    assert planned["mode"] == SERVICE_ALONE
    level = json.loads((run_dir / "levels" / "go-u4-p95-r1" / "level.json").read_text())
    as_listed = {name: ",".join(map(str, planned[f"{name}_cpus"])) for name in ("service", "postgres", "loadgen")}
    assert {name: _expand(cpus) for name, cpus in level["cpus_allowed"].items()} == as_listed
    assert (level["cpu_placement"], level["loadgen_cpus"], level["loadgen_peers"]) == (
        SERVICE_ALONE, len(CPUS) // 2, ["pg"])


def _expand(listed: str) -> str:
    """A kernel CPU list ("0-2,5") as the comma list of its CPUs ("0,1,2,5")."""
    cpus = []
    for part in listed.split(","):
        low, _, high = part.partition("-")
        cpus += range(int(low), int(high or low) + 1)
    return ",".join(map(str, cpus))
