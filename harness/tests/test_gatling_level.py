"""A real open-model level with Gatling, the open-model profiles' load generator: real
PostgreSQL, the Go service, Gatling calibrated against the calibration target, then the level,
its samples folded into histograms and judged as JMeter's are.

Needs the built services, the calibration target and Gatling (`make build gatling-install`,
which `make test` does first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bankbench import paths
from bankbench.load import generators
from bankbench.results import histograms

pytestmark = pytest.mark.integration
RATE = 20  # iterations/s: a fraction of what Gatling drives on one core


@pytest.fixture(scope="module")
def level(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    runs = tmp_path_factory.mktemp("runs")
    out = subprocess.run([sys.executable, "-m", "bankbench", "bench", "--profile", "open", "--service", "go",
                          "--users", str(RATE), "--repeat", "1", "--warmup", "3", "--duration", "5"],
                         env={**os.environ, "BANKBENCH_RUNS": str(runs)}, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=600)
    print(out.stdout[-5000:], out.stderr[-5000:])
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    (level_dir,) = (run_dir / "levels").iterdir()
    return level_dir, out.stdout


def test_gatling_drove_the_level(level: tuple[Path, str]) -> None:
    level_dir, stdout = level
    document = json.loads((level_dir / "level.json").read_text())
    assert document["generator"] == "gatling" and document["load_properties"]["rate"] == RATE
    assert document["calibration"]["generator"] == "gatling"  # measured now, or cached by an earlier run
    assert "calibration: Gatling drove" in stdout
    assert f"{level_dir.name}: " in stdout and "load generator ok (Gatling" in stdout
    assert (level_dir / generators.LEVEL_SAMPLES["gatling"]).exists() and (level_dir / "gatling.log").exists()


def test_its_samples_are_folded_and_judged_as_jmeters(level: tuple[Path, str]) -> None:
    level_dir, _ = level
    requests = histograms.read(level_dir / histograms.FILE)
    document = json.loads((level_dir / "level.json").read_text())
    assert set(requests.rows["label"]) == {"create client", "balance", "transaction"}
    assert requests.rows["ok"].all() and set(requests.rows["status"]) == {"200"}
    assert requests.rows["iterations"].sum() == RATE * (3 + 5)  # every planned arrival, warm-up included
    assert requests.rows["requests"].sum() == 7 * requests.rows["iterations"].sum()  # the rematch scenario
    assert document["loadgen"]["valid"] and document["loadgen"]["offered_pct"] >= 99
