"""A real smoke benchmark: real PostgreSQL, services, JMeter. `make test` runs it for every
service, `make check` for the Go service alone (`--services go`, a single level).

Needs the built services and JMeter (`make build jmeter-install`, which both do first).
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from bankbench import config, paths, registry
from bankbench.results import histograms
from bankbench.results.files import SERVICE_METRICS

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def services(pytestconfig: pytest.Config) -> list[str]:
    """The services of the run: --services, else every one of services.yaml."""
    return pytestconfig.getoption("--services").split(",")


class Smoke(NamedTuple):
    run_dir: Path
    stdout: str  # bench's, then summarize --verdict's: what make bench prints
    stderr: str
    status: tuple[str, str]  # `git status` of results/ before the run and after


def results_status() -> str:
    """What `git status` says of results/ (the rest of the tree may be edited meanwhile)."""
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "results"],
                          cwd=paths.ROOT, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory, services: list[str]) -> Smoke:
    """The run, then `summarize --verdict` on it, as make bench does."""
    runs = tmp_path_factory.mktemp("runs")
    before = results_status()
    out = subprocess.run([sys.executable, "-m", "bankbench", "bench", "--profile", "smoke",
                          "--service", ",".join(services), "--profile-cpu"],
                         env={**os.environ, "BANKBENCH_RUNS": str(runs)}, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=600)
    print(out.stdout[-5000:], out.stderr[-5000:])
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    summarized = subprocess.run([sys.executable, "-m", "bankbench", "summarize", "--verdict", str(run_dir)],
                                cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    print(summarized.stdout, summarized.stderr[-5000:])
    assert summarized.returncode == 0, summarized.stderr[-3000:]
    return Smoke(run_dir, out.stdout + summarized.stdout, out.stderr + summarized.stderr, (before, results_status()))


def test_run_folder_layout(smoke, services: list[str]) -> None:
    run_dir = smoke.run_dir
    assert run_dir.name.endswith("-native-smoke")
    levels = sorted(p.name for p in (run_dir / "levels").iterdir())
    assert levels == sorted(f"{s}-u4-p{config.DEFAULT_POOL_SIZE}-r1" for s in services)
    assert (run_dir / "calibration.json").exists()
    for level in (run_dir / "levels").iterdir():
        for name in ("level.json", "jmeter.csv.gz", histograms.FILE, "metrics.csv", SERVICE_METRICS,
                     "service.log.gz", "money.json", "summary.json", "flamegraph.html", "dashboard/index.html"):
            assert (level / name).exists(), level / name


def test_manifest_records_the_context(smoke) -> None:
    manifest = json.loads((smoke[0] / "manifest.json").read_text())
    assert manifest["run_id"] == smoke[0].name  # the final name, not the one it was written under
    placement = manifest["settings"]["cpu_placement"]  # the default: split where there are 2 CPUs
    assert placement["mode"] == ("split" if len(os.sched_getaffinity(0)) > 1 else "shared")
    if placement["mode"] == "split":
        assert not set(placement["loadgen_cpus"]) & set(placement["service_cpus"])
        assert placement["postgres_cpus"] == placement["service_cpus"]
    assert set(manifest["versions"]) >= {"go", "jdk", "spring_boot", "pgx", "hikaricp",
                                         "postgresql", "jmeter"}
    assert manifest["versions"]["jmeter"] == "5.6.3"
    assert "unknown" not in manifest["versions"].values()
    assert manifest["settings"]["postgresql"]["max_connections"] == str(config.max_connections())
    assert manifest["settings"]["acquire_timeout_ms"] == config.acquire_timeout_ms()
    assert manifest["settings"]["max_concurrent_requests"] == config.max_concurrent_requests()
    assert manifest["machine"]["cores"] >= 1 and len(manifest["git"]["commit"]) in (0, 40)


def test_no_errors_and_money_conserved(smoke) -> None:
    for level in (smoke[0] / "levels").iterdir():
        assert json.loads((level / "money.json").read_text())["ok"]
        assert json.loads((level / "level.json").read_text())["service_exit"] is None  # it ran throughout
        with gzip.open(level / "jmeter.csv.gz", "rt") as f:
            rows = list(csv.DictReader(f))
        assert rows, level
        failures = [r for r in rows if r["success"] != "true"]
        assert not failures, failures[:3]
        assert {r["label"] for r in rows} == {"create client", "balance", "transaction"}
        kept = histograms.read(level / histograms.FILE)  # every sample, folded
        assert kept.rows["requests"].sum() == len(rows) and kept.rows["ok"].all()


def test_metrics_sampled_every_second(smoke) -> None:
    for level in (smoke[0] / "levels").iterdir():
        with open(level / "metrics.csv") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) >= 5
        assert max(float(r["service_cpu_pct"]) for r in rows) > 0
        assert max(float(r["pg_rss_mb"]) for r in rows) > 0
        assert max(float(r["loadgen_cpu_pct"]) for r in rows) > 0


def test_the_services_own_metrics_agree_with_jmeter(smoke) -> None:
    for level in (smoke[0] / "levels").iterdir():
        summary = json.loads((level / "summary.json").read_text())
        own, seen = summary["service_metrics"], summary["overall"]
        assert own["pool_max"] == config.DEFAULT_POOL_SIZE and own["pool_timeouts"] == 0, level
        assert set(own["requests_by_status"]) == {"200"}, own["requests_by_status"]
        # Counted by the service between two scrapes, by JMeter over its samples: close, not equal.
        assert 0.7 < own["throughput_rps"] / seen["throughput_rps"] < 1.3, (own, seen)
        assert own["threads_mean"] > 0  # (a JVM publishes GC pauses from its first one on)


def test_a_flame_graph_per_level(smoke) -> None:
    hot = {"native": "bank-go/store", "jvm": "bankbench"}  # by runtime: the Go build or a JVM
    for level in (smoke[0] / "levels").iterdir():
        service = json.loads((level / "level.json").read_text())["service"]
        assert hot[registry.get(service).runtime] in (level / "flamegraph.html").read_text(), level


def test_progress_and_verdict_printed(smoke, services: list[str]) -> None:
    stdout = smoke.stdout
    assert f"[1/{len(services)}]" in stdout and f"[{len(services)}/{len(services)}]" in stdout
    assert "money ok" in stdout and f"This machine's verdict on run {smoke.run_dir.name}" in stdout
    for service in services:
        assert service in stdout


def test_the_run_ends_with_its_verdict_and_page(smoke, services: list[str]) -> None:
    """What make bench ends with (bankbench.publish.own_run): the verdict in at most 100 columns,
    a line per service, and the path of the run's page; no library's warning anywhere; and
    results/ as git had it (the published report is not rebuilt)."""
    lines = smoke.stdout.rstrip("\n").splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("This machine's verdict on run"))
    verdict, (told, page) = lines[start:-2], lines[-2:]
    assert max(map(len, verdict)) <= 100, verdict
    assert sum(line.endswith("1 of 1 repeat counted") for line in verdict) == len(services), verdict
    table = [line for line in verdict if line.endswith("counted")]
    assert not re.search(r"\b\d+\.00\b", "\n".join(table)), table  # whole milliseconds as whole numbers
    assert "What differs at 95 %" in "\n".join(verdict)  # the services' factors, or that none can be told
    assert told == "Its page, with every figure and chart:"
    assert (paths.ROOT / page.strip()).is_file() and \
        (paths.ROOT / page.strip()).resolve().is_relative_to(smoke.run_dir.resolve() / "report"), page
    warned = [line for line in (smoke.stdout + smoke.stderr).splitlines() if "Warning" in line]
    assert not warned, warned
    before, after = smoke.status
    assert after == before


def test_the_load_generator_was_calibrated_and_judged(smoke) -> None:
    """The calibration before the first level, its figures in level.json with the load
    generator's verdict, both in the progress lines. The smoke profile's think time keeps JMeter's
    closed loop well inside its CPU: the think time bounds the calibration, and each level is
    valid."""
    run_dir, stdout = smoke.run_dir, smoke.stdout
    calibration = json.loads((run_dir / "calibration.json").read_text())["loads"]["4"]
    assert calibration["throughput_rps"] > 0 and calibration["errors"] == 0, calibration
    assert calibration["drives_plan"] is None  # the sustained model plans no arrival rate
    assert not calibration["loadgen_saturated"], calibration
    for level in (run_dir / "levels").iterdir():
        document = json.loads((level / "level.json").read_text())
        assert document["calibration"] == calibration
        summary = json.loads((level / "summary.json").read_text())
        assert document["loadgen"]["valid"] == summary["loadgen"]["valid"], (document["loadgen"], summary["loadgen"])
        assert summary["loadgen"]["valid"] and not summary["loadgen"]["reasons"], summary["loadgen"]
    assert stdout.index("calibration u4: JMeter drove") < stdout.index("[1/")
    assert "; load generator " in stdout and "calibration: JMeter drove" in stdout


def test_verify_ran_first_and_passed(smoke, services: list[str]) -> None:
    """The run starts with the proof that the services do the same database work."""
    run_dir, stdout = smoke.run_dir, smoke.stdout
    check = json.loads((run_dir / "verify.json").read_text())
    assert check["ok"], check["problems"]
    assert set(check["results"]) == set(services)
    assert stdout.index("verify:") < stdout.index(f"[1/{len(services)}]")

