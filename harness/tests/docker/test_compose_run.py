"""The Docker path for real, where an engine answers (`make test` runs this folder then, and says
so when none does): the images, their health checks, a compose smoke benchmark, JMeter and
Gatling in compose.

Needs the images of docker-compose.yml (`make images`, which `make test` runs first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bankbench import config, paths, registry, runid
from bankbench.load import generators, profiles
from bankbench.machine import placement
from bankbench.run.environments import composefile
from bankbench.run.environments.compose import Compose
from bankbench.run.environments.interface import Options

pytestmark = [pytest.mark.integration, pytest.mark.skipif(
    subprocess.run(["docker", "info"], capture_output=True).returncode != 0,
    reason="no Docker engine answers")]

COMPOSE = ["docker", "compose", "-f", str(paths.COMPOSE)]


def docker(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=check)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make bench ENV=compose PROFILE=smoke`, its progress shown as it goes (pytest -s)."""
    runs = tmp_path_factory.mktemp("runs")
    out = subprocess.run([sys.executable, "-m", "bankbench", "bench", "--env", "compose",
                          "--profile", "smoke", "--no-dashboard"],
                         env={**os.environ, "BANKBENCH_RUNS": str(runs)}, cwd=paths.ROOT, timeout=1200)
    assert out.returncode == 0
    (run_dir,) = runs.iterdir()
    summarized = subprocess.run([sys.executable, "-m", "bankbench", "summarize", str(run_dir)],
                                cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    assert summarized.returncode == 0, summarized.stderr[-3000:]
    return run_dir


def test_compose_smoke_run_is_complete(smoke: Path) -> None:
    assert smoke.name.endswith("-compose-smoke")
    levels = sorted(p.name for p in (smoke / "levels").iterdir())
    assert levels == sorted(f"{s}-u4-p{config.DEFAULT_POOL_SIZE}-r1" for s in registry.names())
    for level in (smoke / "levels").iterdir():
        assert json.loads((level / "money.json").read_text())["ok"], level
        summary = json.loads((level / "summary.json").read_text())
        assert summary["overall"]["requests"] > 0 and summary["overall"]["error_pct"] == 0, level
        # Sampled from the containers' processes, as the host sees them.
        resources = summary["resources"]
        assert resources["service_cpu_mean"] > 0 and resources["pg_rss_mean_mb"] > 0, level


def test_manifest_has_the_images_and_the_versions_inside_them(smoke: Path) -> None:
    manifest = json.loads((smoke / "manifest.json").read_text())
    versions = manifest["versions"]
    images = {composefile.image_name(entry) for entry in registry.entries().values()}
    for image in images | {composefile.postgres_image()}:
        assert versions[f"image {image}"] == docker("image", "inspect", "--format", "{{.Id}}", image).stdout.strip()
    # Inside the images, not the host: the image's JDK, the server of the postgres image.
    java_image = composefile.image_name(registry.get("java"))
    image_java = docker("run", "--rm", "--entrypoint", "java", java_image, "-version").stderr
    assert versions["jdk"] == image_java.splitlines()[0]
    assert versions["go"].startswith("go1.") and versions["pgx"].startswith("v5.")
    assert "unknown" not in versions.values()
    assert manifest["settings"]["cpu_placement"]["mode"] == placement.default_mode()


def test_containers_get_their_cpus_and_report_healthy() -> None:
    """Under service-alone PostgreSQL and the service get CPUs apart (cpuset)."""
    two = len(os.sched_getaffinity(0)) > 1
    where = placement.plan(placement.SERVICE_ALONE if two else placement.SHARED)
    affinity = os.sched_getaffinity(0)
    opts = Options(profiles.load("smoke"), where, pg_max_connections=config.max_connections(), durable=True)
    env = Compose(opts, runid.run_id(Compose.name, "smoke"))
    os.sched_setaffinity(0, affinity)  # the environment pins the harness to the load generator's CPUs
    try:
        container = env.start("go", config.DEFAULT_POOL_SIZE, Path("/dev/null"))
        for service, cpus in (("postgres", where.postgres_cpus), (container.service, where.service_cpus)):
            cid = env.run("ps", "--quiet", service)
            state = json.loads(docker("inspect", cid).stdout)[0]
            assert state["HostConfig"]["CpusetCpus"] == ",".join(map(str, cpus)), service
            assert state["State"]["Health"]["Status"] == "healthy", service
    finally:
        env.close()


def test_postgres_is_not_ready_while_its_set_up_server_runs() -> None:
    """The image's init server (no TCP) must not pass the health check: the official image's
    socket `pg_isready` did, so a service could connect to a database about to restart."""
    script = ("initdb -D /tmp/d -U postgres >/dev/null && "
              "pg_ctl -D /tmp/d -w -s -o \"-c listen_addresses=''\" start && "
              "psql -X -q -U postgres -d postgres -c 'CREATE DATABASE bank' && "
              "psql -X -q -U postgres -d bank -f /bankbench/schema.sql && "
              "if bankbench-ready; then echo ready; else echo not-ready; fi")
    out = docker("run", "--rm", "--user", "postgres", "--entrypoint", "bash", composefile.postgres_image(),
                 "-c", script)
    assert out.stdout.split()[-1] == "not-ready", out.stdout + out.stderr


@pytest.mark.parametrize("generator,properties", [
    ("jmeter", ("users=2", "duration=3", "rampup=1", "warmup=0")),
    ("gatling", ("rate=5", "arrivals_s=2", "drain_s=5")),
])
def test_each_load_generator_runs_inside_compose(tmp_path: Path, generator: str,
                                                 properties: tuple[str, ...]) -> None:
    """As docker-compose.yml documents it, results in a mounted folder: JMeter's plan, and the
    Gatling image the aws environment runs, each with its samples and start line."""
    service = composefile.service_name("go")
    subprocess.run([*COMPOSE, "up", "--detach", "--wait", service], check=True, capture_output=True)
    try:
        out = subprocess.run([*COMPOSE, "--profile", generator, "run", "--rm", "-e", "RESULTS_DIR=/out",
                              "-v", f"{tmp_path}:/out", generator, "run", f"host={service}", *properties],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    finally:
        subprocess.run([*COMPOSE, "down", "--volumes"], capture_output=True)
    assert (tmp_path / "exit_code").read_text().strip() == "0"
    assert int((tmp_path / "started_ms").read_text()) > 0
    lines = (tmp_path / generators.MODULES[generator].SAMPLES).read_text().splitlines()
    assert len(lines) > 10 and ",200," in lines[1]
