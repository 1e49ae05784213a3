"""Adding a contender is a folder and an entry, in another language too: bank-python
(contract/contender/), neither Go nor Java, registered only in a copy of services.yaml with its
entry.yaml, passes the contract suite next to go and runs the smoke benchmark, the summary and
the report through the unchanged harness."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from bankbench import paths, registry

NAME = "python"
FOLDER = paths.ROOT / "contract" / "contender"

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def contender(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of commands that see bank-python: a copy of the registry with its entry,
    and a runs folder of their own."""
    copy = tmp_path_factory.mktemp("registry") / "services.yaml"
    copy.write_text(paths.SERVICES.read_text() + "\n" + (FOLDER / "entry.yaml").read_text())
    return {**os.environ, "BANKBENCH_SERVICES": str(copy),
            "BANKBENCH_RUNS": str(tmp_path_factory.mktemp("runs"))}


def bankbench(env: dict[str, str], *args: str) -> None:
    """`python -m bankbench ARGS` in `env`, which must succeed; its output's end is printed."""
    out = subprocess.run([sys.executable, "-m", "bankbench", *args], env=env, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=600)
    print(out.stdout[-3000:], out.stderr[-3000:])
    assert out.returncode == 0, out.stderr[-3000:]


def test_only_its_folder_knows_it() -> None:
    assert NAME not in registry.names()
    assert "contract/contender" not in paths.SERVICES.read_text()
    entry = yaml.safe_load((FOLDER / "entry.yaml").read_text())[NAME]
    assert entry["runtime"] == "native" and entry["profiler"] == "none" and "image" not in entry


def cases(names: list[str], service: str) -> set[str]:
    """The test cases of `service` among pytest's `names` (`test_x[go-0]`), its id made `*`."""
    found = set()
    for name in names:
        test, _, params = name.split("::")[-1].partition("[")
        if service in (parts := params.rstrip("]").split("-")):
            found.add(f"{test}[{'-'.join('*' if part == service else part for part in parts)}]")
    return found


def test_contract_suite(contender: dict[str, str], tmp_path: Path) -> None:
    """The required tier and the hardening parts its entry declares, beside go for the tests that
    compare services' answers; go's own cases are only collected (make test's contract suite runs
    them), and the contender must run every one of them."""
    contract = [sys.executable, "-m", "pytest", "contract", "-q", "-p", "no:cacheprovider", "--services", f"go,{NAME}"]
    collected = subprocess.run([*contract, "--collect-only"], env=contender, cwd=paths.ROOT, capture_output=True,
                               text=True, timeout=300).stdout.splitlines()
    go = [node for node in collected if cases([node], "go")]
    assert len(go) >= 90, collected[-20:]
    junit = tmp_path / "contract.xml"
    out = subprocess.run([*contract, f"--junitxml={junit}", *(f"--deselect={node}" for node in go)], env=contender,
                         cwd=paths.ROOT, capture_output=True, text=True, timeout=1200)
    print(out.stdout[-3000:])
    assert out.returncode == 0, out.stdout[-3000:]
    ran = [case.get("name") for case in ET.parse(junit).getroot().iter("testcase") if case.find("skipped") is None]
    assert cases(ran, NAME) == cases(go, "go"), ran


def test_smoke_benchmark_summary_and_report(contender: dict[str, str], tmp_path: Path) -> None:
    bankbench(contender, "bench", "--profile", "smoke", "--service", f"go,{NAME}", "--no-dashboard")
    (run,) = Path(contender["BANKBENCH_RUNS"]).iterdir()
    bankbench(contender, "summarize", str(run))
    levels = {json.loads((level / "level.json").read_text())["service"]: level
              for level in (run / "levels").iterdir()}
    assert set(levels) == {"go", NAME}
    assert json.loads((levels[NAME] / "money.json").read_text())["ok"]
    summary = json.loads((levels[NAME] / "summary.json").read_text())
    assert summary["overall"]["requests"] > 0 and summary["overall"]["error_pct"] == 0
    figures = summary["service_metrics"]  # its /metrics read under its entry's names
    assert figures["pool_max"] > 0 and figures["threads_max"] >= 1, figures
    assert json.loads((run / "verify.json").read_text())["ok"]  # one statement, one transaction
    versions = json.loads((run / "manifest.json").read_text())["versions"]
    assert versions["python"].startswith("3.") and versions["psycopg"] != "unknown"  # its own reader
    bankbench(contender, "report", "--runs", str(run), "--out", str(tmp_path))
    assert run.name in (tmp_path / "README.md").read_text()
    assert NAME in (tmp_path / "runs" / f"{run.name}.md").read_text()  # the run's page
