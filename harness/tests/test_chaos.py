"""Chaos during a benchmark: a real smoke level of the Go service with PostgreSQL restarted and the
service killed mid-window (real PostgreSQL, service and JMeter), and the burst arithmetic."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bankbench import paths
from bankbench.analyse import levels, timelines
from bankbench.errors import UserError
from bankbench.publish import pages
from bankbench.results import bursts, runs
from bankbench.run.experiments import chaos


@pytest.fixture(scope="module")
def level(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out_runs = tmp_path_factory.mktemp("runs")
    out = subprocess.run([sys.executable, "-m", "bankbench", "bench", "--profile", "smoke",
                          "--service", "go", "--chaos", "pg-restart,service-kill", "--no-dashboard"],
                         env={**os.environ, "BANKBENCH_RUNS": str(out_runs)}, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=600)
    print(out.stdout[-5000:], out.stderr[-5000:])
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = out_runs.iterdir()
    return run_dir / "levels" / "go-u4-p95-r1", out.stdout


@pytest.mark.integration
def test_faults_struck_in_the_window_and_recovered(level) -> None:
    level_dir, stdout = level
    info = json.loads((level_dir / "level.json").read_text())
    faults = json.loads((level_dir / "chaos.json").read_text())
    assert faults == info["faults"]
    assert [f["fault"] for f in faults] == ["pg-restart", "service-kill"]
    for fault in faults:
        assert info["measure_from_ms"] < fault["at_ms"] < info["ended_ms"]
        assert 0 < fault["recovery_s"] < chaos.RECOVERY_TIMEOUT_S
        assert fault["errors"] == sum(b["count"] for b in fault["burst"].values())
    assert faults[0]["recovered_ms"] <= faults[1]["at_ms"]
    assert stdout.count("fault pg-restart at") == 1 and "fault service-kill at" in stdout
    assert info["service_exit"] is None  # the kill was the harness's: the service it restarted ran on


@pytest.mark.integration
def test_money_conserved_after_the_faults(level) -> None:
    assert json.loads((level[0] / "money.json").read_text())["ok"]


@pytest.mark.integration
def test_report_marks_the_faults(level) -> None:
    levels.summarize_run(level[0].parent.parent)
    run = runs.load_run(level[0].parent.parent)
    (heading, _, table) = pages.faults_section(run)
    assert heading == "## Faults" and "pg-restart" in table and "service-kill" in table
    assert [f[0] for f in timelines.timeline(level[0]).faults] == ["pg-restart", "service-kill"]


def test_bursts_counted_per_code_until_the_next_fault(tmp_path: Path) -> None:
    rows = ["timeStamp,elapsed,label,responseCode,threadName,success",
            "1000,1,balance,200,t1,true",      # before the first fault
            "2000,1,balance,503,t1,false",     # first fault: 503 x2 over 0.5 s
            "2500,1,balance,503,t1,false",
            "2600,1,balance,200,t1,false",     # a failed assertion: counted under 200
            "3000,1,balance,Non HTTP response code: refused,t1,false",  # second fault from here
            "9000,1,balance,503,t1,false"]     # after recovery + grace: nobody's
    csv = tmp_path / "jmeter.csv.gz"
    with gzip.open(csv, "wt") as f:
        f.write("\n".join(rows) + "\n")
    records = [{"fault": "pg-restart", "at_ms": 2000, "recovered_ms": 2800, "recovery_s": 0.8},
               {"fault": "service-kill", "at_ms": 3000, "recovered_ms": 3500, "recovery_s": 0.5}]
    first, second = bursts.with_bursts(records, csv)
    assert first["errors"] == 3 and first["burst"] == {"200": {"count": 1, "duration_s": 0.0},
                                                       "503": {"count": 2, "duration_s": 0.5}}
    assert second["errors"] == 1 and list(second["burst"]) == ["Non HTTP response code: refused"]


def test_unknown_fault_refused() -> None:
    assert chaos.parse("pg-restart,,service-kill") == ("pg-restart", "service-kill")
    assert chaos.parse("") == ()
    with pytest.raises(UserError, match="unknown fault disk-full"):
        chaos.parse("disk-full")
