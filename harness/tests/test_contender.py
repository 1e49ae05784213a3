"""Adding a contender is a folder and an entry, also in another language: bank-python
(contract/contender/), registered only in a copy of services.yaml with its entry.yaml, passes the
contract suite next to go and runs the smoke benchmark through the unchanged harness."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bankbench import paths, registry
from bankbench.measure import scrape
from bankbench.system import services

from contenders import bankbench, registry_env

NAME = "python"
FOLDER = paths.ROOT / "contract" / "contender"
# The keys of api/metrics.md whose series have Python's names in bank-python (its README), and
# those names; its other series have the go dialect's names, which its registry entry declares.
PYTHON_SERIES = {"gc_pauses": "python_gc_collections_total",
                 "gc_pause_seconds": "python_gc_duration_seconds_sum",
                 "heap_bytes": "process_resident_memory_bytes",
                 "threads": "python_threads"}
# The test of the contract suite that requires the go dialect's names for every key: the keys
# above are checked by test_every_series_exists here instead.
GO_NAMES_TEST = f"contract/test_metrics.py::test_every_documented_series_exists[{NAME}]"


@pytest.fixture(scope="module")
def contender(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of commands that see bank-python: the registry and its entry."""
    return registry_env(tmp_path_factory,
                        paths.SERVICES.read_text() + "\n" + (FOLDER / "entry.yaml").read_text())


def test_only_the_tests_know_it() -> None:
    assert NAME not in registry.names()
    assert "contract/contender" not in paths.SERVICES.read_text()


@pytest.fixture
def running(contender: dict[str, str], monkeypatch: pytest.MonkeyPatch,
            tmp_path: Path) -> Iterator[str]:
    monkeypatch.setenv("BANKBENCH_SERVICES", contender["BANKBENCH_SERVICES"])
    with services.local_service(NAME, 4, log=tmp_path / "service.log") as proc:
        yield proc.url


@pytest.mark.integration
def test_every_series_exists(running: str) -> None:
    """Every key of api/metrics.md: the go dialect's name, or Python's for the runtime."""
    httpx.get(f"{running}/client/1/balance")
    text = httpx.get(f"{running}/metrics").text
    wanted = {key: selector for key, selector in scrape.selectors(NAME).items() if key not in PYTHON_SERIES}
    wanted |= {key: scrape.parse_selector(name) for key, name in PYTHON_SERIES.items()}
    got = scrape.values(text, wanted)
    assert set(wanted) <= set(got), set(wanted) - set(got)
    assert got["pool_max"] == 4 and got["threads"] >= 1 and got["heap_bytes"] > 0
    names = {s.name for family in text_string_to_metric_families(text) for s in family.samples}
    assert not any(name.startswith(("go_", "jvm_")) for name in names)  # no borrowed runtime names


@pytest.mark.integration
def test_contract_suite(contender: dict[str, str], tmp_path: Path) -> None:
    """Every contract test next to go (the same answers as go's), but the one that wants go's
    names for the runtime series."""
    junit = tmp_path / "contract.xml"
    out = subprocess.run([sys.executable, "-m", "pytest", "contract", "-q", "-p", "no:cacheprovider",
                          "--services", f"go,{NAME}", f"--deselect={GO_NAMES_TEST}",
                          f"--junitxml={junit}"], env=contender, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=1200)
    print(out.stdout[-3000:])
    assert out.returncode == 0, out.stdout[-3000:]
    ran = [case.get("name") for case in ET.parse(junit).getroot().iter("testcase")
           if case.find("skipped") is None]

    def cases(service: str) -> set[str]:
        return {name.replace(f"[{service}", "[") for name in ran if f"[{service}" in name}
    assert cases(NAME) == cases("go") - {"test_every_documented_series_exists[]"}, ran
    assert len(cases(NAME)) >= 90


@pytest.mark.integration
def test_smoke_benchmark(contender: dict[str, str]) -> None:
    bankbench(contender, "bench", "--profile", "smoke", "--service", NAME, "--no-dashboard")
    (run,) = Path(contender["BANKBENCH_RUNS"]).iterdir()
    bankbench(contender, "summarize", str(run))
    (level,) = (run / "levels").iterdir()
    assert json.loads((level / "money.json").read_text())["ok"]
    summary = json.loads((level / "summary.json").read_text())
    assert summary["overall"]["requests"] > 0 and summary["overall"]["error_pct"] == 0
    assert summary["service_metrics"]["pool_max"] > 0  # its /metrics read as the go dialect
    assert json.loads((run / "verify.json").read_text())["ok"]  # one statement, one transaction
