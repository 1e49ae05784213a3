"""CPU placement (bankbench.tools.placement): the split it plans, and real processes started on it:
a PostgreSQL cluster (every backend) and the Go service see only the system under test's CPU."""

from __future__ import annotations

import os

import psutil
import psycopg
import pytest

from bankbench.errors import UserError
from bankbench.system import services
from bankbench.tools import placement
from bankbench.tools.pg import Cluster

CPUS = sorted(os.sched_getaffinity(0))


def test_split_gives_the_load_generator_half_rounded_down() -> None:
    assert placement.plan("split", [0, 1]) == placement.Placement("split", (0,), (1,))
    assert placement.plan("split", [0, 1, 2, 3, 4]) == placement.Placement("split", (0, 1), (2, 3, 4))
    shared = placement.plan("shared", [0, 1])
    assert shared == placement.Placement("shared", (0, 1), (0, 1)) and shared.sut_cpus == ()
    with pytest.raises(UserError, match="needs 2 CPUs"):
        placement.plan("split", [3])
    with pytest.raises(UserError, match="must be one of"):
        placement.plan("half")


def test_taskset_prefixes_only_with_cpus() -> None:
    assert placement.taskset((1, 3), ["postgres"]) == ["taskset", "--cpu-list", "1,3", "postgres"]
    assert placement.taskset((), ["postgres"]) == ["postgres"]


def test_described_for_the_report() -> None:
    text = placement.plan("split", [0, 1]).describe()
    assert text.startswith("split: the service and PostgreSQL had CPU 1 (1 of 2)")
    assert placement.plan("shared", [0, 1]).as_dict()["mode"] == "shared"


@pytest.mark.integration
@pytest.mark.skipif(len(CPUS) < 2, reason="needs 2 CPUs")
def test_the_system_under_test_runs_on_its_cpus(tmp_path) -> None:
    where = placement.plan("split")
    with (Cluster.create(cpus=where.sut_cpus) as cluster,
          services.local_service("go", 2, cluster=cluster, log=tmp_path / "go.log", cpus=where.sut_cpus) as go):
        with psycopg.connect(host="127.0.0.1", port=cluster.port, user="postgres", dbname="bank") as conn:
            backend = psutil.Process(conn.info.backend_pid)  # forked for this connection
            server = psutil.Process(cluster.postmaster_pid())
            for process in (server, *server.children(), backend):
                assert tuple(process.cpu_affinity()) == where.sut, process
        threads = psutil.Process(go.pid).threads()
        assert len(threads) > 1
        assert all(tuple(os.sched_getaffinity(t.id)) == where.sut for t in threads)
