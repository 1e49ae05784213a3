"""A benchmark killed mid-run (real PostgreSQL, Go service, JMeter): the run keeps its
`.incomplete` name with the reason, nothing it started is left running, and the report still
builds from the complete runs, without it; a run whose environment cannot open leaves nothing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from bankbench import config, paths
from bankbench.analyse import levels
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.machine import placement
from bankbench.run import runner
from bankbench.run.environments.interface import Options
from bankbench.run.environments.native import Native

from test_analysis import FIXTURES, RUN_ID


@pytest.mark.integration
def test_a_killed_run_is_marked_incomplete_and_left_out(tmp_path: Path) -> None:
    runs_dir = tmp_path / "runs"
    env = {**os.environ, "BANKBENCH_RUNS": str(runs_dir)}
    bench = subprocess.Popen([sys.executable, "-m", "bankbench", "bench", "--profile", "smoke",
                              "--service", "go", "--no-dashboard"],
                             env=env, cwd=paths.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    assert bench.stdout is not None
    deadline = time.monotonic() + 300
    for line in bench.stdout:  # the level is under load once JMeter reports its totals
        assert time.monotonic() < deadline, "no progress line within 300 s"
        if "go-u4-p95-r1 users=4" in line:
            break
    else:
        raise AssertionError(f"bench ended before its level ran: exit {bench.wait()}")
    bench.send_signal(signal.SIGTERM)
    assert bench.wait(timeout=120) == 130
    (partial,) = runs_dir.iterdir()
    assert partial.name.endswith("-native-smoke.incomplete")
    stopped = json.loads((partial / "incomplete.json").read_text())
    assert "SIGTERM" in stopped["reason"] and stopped["levels_done"] == 0
    left = [p.info["cmdline"] for p in psutil.process_iter(["cmdline"])
            if str(runs_dir) in " ".join(p.info["cmdline"] or [])]
    assert not left, left  # JMeter writes under the run folder: it was stopped

    complete = shutil.copytree(FIXTURES / "runs" / RUN_ID, runs_dir / RUN_ID)
    levels.summarize_run(complete)
    report = subprocess.run([sys.executable, "-m", "bankbench", "report", "--out", str(tmp_path / "report")],
                            env=env, cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    readme = (tmp_path / "report" / "README.md").read_text()
    assert RUN_ID in readme and partial.name.removesuffix(".incomplete") not in readme


def test_an_environment_that_cannot_open_leaves_no_run_folder(tmp_path: Path, monkeypatch) -> None:
    """No PostgreSQL to start (a PG_BINDIR without it): the run fails before it has a folder,
    and gives the harness its CPUs back."""
    monkeypatch.setenv("PG_BINDIR", str(tmp_path))
    monkeypatch.setattr(paths, "RUNS", tmp_path / "runs")
    affinity = os.sched_getaffinity(0)
    opts = Options(profiles.load("smoke"), placement.plan(placement.default_mode()),
                          pg_max_connections=config.max_connections(), durable=True)
    with pytest.raises(UserError, match="PG_BINDIR"):
        runner.run(opts, Native)
    assert not (tmp_path / "runs").exists() and os.sched_getaffinity(0) == affinity
