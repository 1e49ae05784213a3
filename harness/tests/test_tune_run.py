"""`bankbench tune` for real against the Go service, tiny: one knob with two values (the pool, 95
and 8: a copy of the registry without Go's own knobs), one 3 s probe of each in turn, at 80 % of
20 iterations/s of a capacity.toml written here, under split; tuning.json, the levels, tuned.toml,
and the run kept out of the report's runs.

Needs the built Go service, JMeter (the warm-up) and Gatling; run it alone on a shared machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_tune import capacity_file, capacity_run

from bankbench import paths
from bankbench.load import profiles
from bankbench.publish import pages
from bankbench.results import runs

pytestmark = pytest.mark.integration
BUDGET_MIN = 6
CAPACITY = "20261201T000000Z-native-capacity"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, Path]:
    root = tmp_path_factory.mktemp("runs")
    capacity_run(root, CAPACITY, "split", {"go": (20, None)})
    rates = capacity_file(tmp_path_factory.mktemp("capacities") / "capacity.toml", CAPACITY, "split", {"go": 20})
    entries = yaml.safe_load(paths.SERVICES.read_text())
    del entries["go"]["tune"]
    registry_copy = tmp_path_factory.mktemp("registry") / "services.yaml"
    registry_copy.write_text(yaml.safe_dump(entries))
    tuned_file = registry_copy.with_name("tuned.toml")
    out = subprocess.run([sys.executable, "-m", "bankbench", "tune", "--service", "go", "--pools", "8", "--repeat", "1",
                          "--duration", "3", "--warmup", "5", "--budget-min", str(BUDGET_MIN)],
                         env={**os.environ, "BANKBENCH_RUNS": str(root), "BANKBENCH_SERVICES": str(registry_copy),
                              "BANKBENCH_TUNED": str(tuned_file), "BANKBENCH_CAPACITIES": str(rates)},
                         cwd=paths.ROOT, capture_output=True, text=True, timeout=60 * (BUDGET_MIN + 5))
    print(out.stdout[-6000:], out.stderr[-3000:])
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = root.glob("*-native-tune")
    return root, run_dir, out.stdout, tuned_file


def test_the_pool_is_tuned_in_a_duel_below_the_capacity_rate(tuned) -> None:
    _, run_dir, stdout, _ = tuned
    go = json.loads((run_dir / runs.TUNING_FILE).read_text())["services"]["go"]
    assert (go["rate"], go["capacity"], go["run"]) == (16, 20, f"run {CAPACITY}")
    assert [(p["level"], p["knob"], p["value"], p["held"]) for p in go["probes"]] == [
        ("go-u16-p95-r1", "pool", "95", True), ("go-u16-p8-r1", "pool", "8", True)]
    assert all(p["service_cpu_ms"] > 0 and p["pg_cpu_ms"] > 0 for p in go["probes"])
    (pool,) = go["knobs"]
    duel = pool["duels"][0]  # one probe a side cannot win on CPU: no second duel but after a miss
    assert (pool["values"], pool["complete"], duel["incumbent"], duel["candidate"]) == (["95", "8"], True, "95", "8")
    assert go["tuned"] == {"pool": int(pool["chosen"]), "env": {}}
    level = json.loads((run_dir / "levels" / "go-u16-p8-r1" / "level.json").read_text())
    assert (level["pool"], level["profile"], level["loadgen"]["valid"]) == (8, "tune", True)
    # Both processes stay warm: the second turn of the incumbent would find it so.
    assert "[go probe 2] go-u16-p8-r1" in stdout and f"[go] pool: {pool['chosen']}" in stdout


def test_it_writes_the_settings_tuned_runs_with(tuned) -> None:
    _, run_dir, _, tuned_file = tuned
    table = profiles.read_tuned(tuned_file)["go"]
    assert table.found_by == f"make tune, run {run_dir.name} (split), at 16 it/s, capacity 20 of run {CAPACITY}"
    level = profiles.levels(profiles.load("capacity", {"services": ["go"]}, tuned=True, tuned_path=tuned_file))[0]
    assert level.id.endswith("-tuned-r1") and level.pool == table.pool


def test_the_report_leaves_the_tune_run_out(tuned) -> None:
    root = tuned[0]
    assert runs.latest_per_profile(root) == [root / CAPACITY]


def test_its_page_shows_the_settings_found_and_every_duel(tuned, tmp_path: Path) -> None:
    _, run_dir, _, _ = tuned
    (tmp_path / pages.PAGES_DIR).mkdir()
    page = pages.write(runs.load_run(run_dir), tmp_path, runs.read_articles(), None, []).read_text()
    page = " ".join(page.split())  # Markdown's tables pad their cells
    assert page.startswith(f"# Run `{run_dir.name}` (make tune)")
    assert f"| go | 16 it/s (of capacity 20, run {CAPACITY}) | as the settings say |" in page
    duels = page[page.index("## Every value swept"):page.index("## Setup")]
    assert "| go | pool | 8 | 95 |" in duels
