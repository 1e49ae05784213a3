"""The many-connections client against a real Go service on a real PostgreSQL, scaled down."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bankbench.bank import processes
from bankbench.checks import connections


@pytest.mark.integration
def test_connections_held_and_answered(tmp_path: Path) -> None:
    with processes.local_service("go", 5, log=tmp_path / "go.log") as proc:
        ids = [httpx.post(f"{proc.url}/client/new/10").json()["id"] for _ in range(3)]
        # 8 s: past the longest first wait (THINK_S), so that every connection sends.
        got = connections.run(int(proc.url.rsplit(":", 1)[1]), proc.pid, ids, 300, 8)
    assert (got["opened"], got["open_peak"], got["connect_failed"]) == (300, 300, {})
    assert got["answered"] >= 300 and set(got["answers_by_status"]) == {"200"}
    assert got["dropped_by_service"] == {} and got["service_alive"]
    assert got["rss_peak_mb"] > 0 and got["threads_peak"] > 0
