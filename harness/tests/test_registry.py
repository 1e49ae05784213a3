"""Adding a contender is a registry entry: a throwaway service (the Go binary under another name),
registered in a copy of services.yaml, runs the smoke benchmark, the report and the contract
suite without any other file of the repository knowing it."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from bankbench import paths, registry

from contenders import bankbench, registry_env

NAME = "go-again"

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def contender(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of commands that see the throwaway service."""
    doc = yaml.safe_load(paths.SERVICES.read_text())
    doc[NAME] = {**doc["go"], "port": max(entry["port"] for entry in doc.values()) + 1}
    return registry_env(tmp_path_factory, yaml.safe_dump(doc))


def test_the_repository_does_not_know_it() -> None:
    assert NAME not in registry.names()
    assert NAME not in subprocess.run(["git", "grep", "-l", NAME, "--", ":!harness/tests/test_registry.py"],
                                      cwd=paths.ROOT, capture_output=True, text=True).stdout


def test_smoke_benchmark_and_report(contender: dict[str, str], tmp_path: Path) -> None:
    bankbench(contender, "bench", "--profile", "smoke", "--service", f"go,{NAME}", "--no-dashboard")
    (run,) = Path(contender["BANKBENCH_RUNS"]).iterdir()
    bankbench(contender, "summarize", str(run))
    levels = {json.loads((level / "level.json").read_text())["service"]: level
              for level in (run / "levels").iterdir()}
    assert set(levels) == {"go", NAME}
    assert json.loads((levels[NAME] / "money.json").read_text())["ok"]
    summary = json.loads((levels[NAME] / "summary.json").read_text())
    assert summary["overall"]["requests"] > 0 and summary["overall"]["error_pct"] == 0
    assert summary["service_metrics"]["pool_max"] > 0  # its /metrics read as the Go dialect
    assert json.loads((run / "verify.json").read_text())["ok"]  # the same database work as go
    bankbench(contender, "report", "--runs", str(run), "--out", str(tmp_path), "--no-notebook")
    assert NAME in (tmp_path / "README.md").read_text()


def test_contract_suite(contender: dict[str, str], tmp_path: Path) -> None:
    """Every contract test, and the same answers as go's."""
    junit = tmp_path / "contract.xml"
    out = subprocess.run([sys.executable, "-m", "pytest", "contract", "-q", "-p", "no:cacheprovider",
                          "--services", f"go,{NAME}", f"--junitxml={junit}"], env=contender, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=900)
    print(out.stdout[-3000:])
    assert out.returncode == 0, out.stdout[-3000:]
    ran = [case.get("name") for case in ET.parse(junit).getroot().iter("testcase")
           if case.find("skipped") is None]
    assert sum(f"[{NAME.replace('-', '_')}" in name for name in ran) >= 20, ran
