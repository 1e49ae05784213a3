"""`bankbench tune` for real against the Go service, tiny: one knob with two values (the pool, 95
and 8: a copy of the registry without Go's own knobs), one 3 s probe each, at 20 iterations/s of
a capacity run written here, with GOMEMLIMIT at its heap, under one CPU placement; tuning.json,
the levels, the table it prints, and the run kept out of the report's runs.

Needs the built Go service, JMeter (the warm-up) and Gatling; run it alone on a shared machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_profiles import shipped_profiles
from test_tune import capacity_run

from bankbench import paths
from bankbench.load import profiles
from bankbench.publish import pages
from bankbench.results import runs

pytestmark = pytest.mark.integration
BUDGET_MIN = 6
CAPACITY = "20261201T000000Z-native-capacity"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("runs")
    capacity_run(root, CAPACITY, "split", {"go": (20, 64)})
    entries = yaml.safe_load(paths.SERVICES.read_text())
    del entries["go"]["tune"]
    registry_copy = tmp_path_factory.mktemp("registry") / "services.yaml"
    registry_copy.write_text(yaml.safe_dump(entries))
    out = subprocess.run([sys.executable, "-m", "bankbench", "tune", "--service", "go", "--pools", "8", "--repeat", "1",
                          "--duration", "3", "--warmup", "5", "--cpu-placement", "split",
                          "--budget-min", str(BUDGET_MIN)],
                         env={**os.environ, "BANKBENCH_RUNS": str(root), "BANKBENCH_SERVICES": str(registry_copy)},
                         cwd=paths.ROOT, capture_output=True, text=True, timeout=60 * (BUDGET_MIN + 5))
    print(out.stdout[-6000:], out.stderr[-3000:])
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = root.glob("*-native-tune")
    return root, run_dir, out.stdout


def test_the_pool_is_swept_at_the_capacity_rate_with_the_heap_found(tuned) -> None:
    _, run_dir, stdout = tuned
    go = json.loads((run_dir / runs.TUNING_FILE).read_text())["services"]["go"]
    assert (go["rate"], go["heap_mb"], go["run"]) == (20, 64, CAPACITY)
    assert [(p["level"], p["knob"], p["value"], p["held"]) for p in go["probes"]] == [
        ("go-u20-p95-h64-r1", "pool", "95", True), ("go-u20-p8-h64-r1", "pool", "8", True)]
    (pool,) = go["knobs"]
    assert (pool["knob"], pool["values"], pool["complete"]) == ("pool", ["95", "8"], True)
    assert go["tuned"] == {"pool": int(pool["chosen"]), "env": {"GOMEMLIMIT": "64MiB"}}
    level = json.loads((run_dir / "levels" / "go-u20-p8-h64-r1" / "level.json").read_text())
    assert (level["pool"], level["heap_mb"], level["profile"], level["loadgen"]["valid"]) == (8, 64, "tune", True)
    assert "[go probe 2] go-u20-p8-h64-r1" in stdout and f"[go] pool: {pool['chosen']} (" in stdout


def test_it_prints_the_table_tuned_runs_with(tuned, tmp_path: Path) -> None:
    _, run_dir, stdout = tuned
    table = stdout[stdout.index("[tuned.go]"):]
    assert table.startswith(f"[tuned.go]  # make tune, run {run_dir.name}, at 20 it/s of {CAPACITY}\n")
    copy = tmp_path / "profiles.toml"
    copy.write_text(shipped_profiles() + "\n" + table)
    level = profiles.levels(profiles.load("capacity", {"services": ["go"]}, path=copy, tuned=True))[0]
    assert level.id.endswith("-tuned-r1") and level.service_env() == {"GOMEMLIMIT": "64MiB"}


def test_the_report_leaves_the_tune_run_out(tuned) -> None:
    root = tuned[0]
    assert runs.latest_per_profile(root) == [root / CAPACITY]


def test_its_page_shows_the_settings_found_and_every_value_swept(tuned, tmp_path: Path) -> None:
    _, run_dir, _ = tuned
    (tmp_path / pages.PAGES_DIR).mkdir()
    page = pages.write(runs.load_run(run_dir), tmp_path, runs.read_articles(), None, []).read_text()
    page = " ".join(page.split())  # Markdown's tables pad their cells
    assert page.startswith(f"# Run `{run_dir.name}` (make tune)")
    assert f"| go | 20 it/s (capacity of {CAPACITY}) | 64 MB (from {CAPACITY}) |" in page
    values = page[page.index("## Every value swept"):page.index("## Setup")]
    assert "| go | pool | 95 |" in values and "| go | pool | 8 |" in values and "1 of 1" in values
