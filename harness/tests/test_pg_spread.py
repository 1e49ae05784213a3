"""make pg-spread (bankbench.run.experiments.pg_spread) on a real PostgreSQL with pgbench: each
connection count probed in turn at the rate, with PostgreSQL's figures per statement."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bankbench.errors import UserError
from bankbench.machine import postgres_binaries
from bankbench.run.experiments import pg_spread


@pytest.mark.integration
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="PostgreSQL and pgbench on a CPU each")
@pytest.mark.skipif(postgres_binaries.pgbench() is None, reason="no pgbench (make doctor)")
def test_each_count_runs_the_rate_and_reads_postgresql_per_statement(tmp_path: Path) -> None:
    shown: list[dict] = []
    rows = pg_spread.run([1, 8], rounds=1, seconds=2 * pg_spread.SETTLE_S + 3, workdir=tmp_path,
                         progress=shown.append)
    assert shown == rows
    assert [(row["round"], row["clients"]) for row in rows] == [(1, 1), (1, 8)]
    assert pg_spread.rate() == 250 * 7  # make pgwire's 250 iterations/s of 7 statements
    for row in rows:
        assert row["statements_per_s"] == pytest.approx(pg_spread.rate(), rel=0.05)
        assert row["latency_ms"] > 0
        assert row["pg_backend_user_ms"] > 0 and row["pg_backend_system_ms"] > 0
        assert row["pg_voluntary_switches"] > 0


def test_a_pgbench_that_ends_early_is_told_at_once() -> None:
    """A probe whose pgbench exits at once (refused, a bad script) fails with its output then, not
    after the probe's seconds."""
    began = time.monotonic()
    with pytest.raises(UserError, match="pgbench failed: refused"):
        pg_spread._probe(["sh", "-c", "echo refused; exit 1"], port=1, seconds=60)
    assert time.monotonic() - began < 5
