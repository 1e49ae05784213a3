"""docker-compose.yml cannot run here (no Docker engine): check it statically instead."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from bankbench import paths
from bankbench.envs import Compose

COMPOSE = paths.ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_every_build_context_and_dockerfile_exists(compose: dict) -> None:
    for name, svc in compose["services"].items():
        if "build" in svc:
            context = paths.ROOT / svc["build"]["context"]
            assert context.is_dir(), name
            assert (context / svc["build"]["dockerfile"]).is_file(), name


def test_services_the_harness_drives(compose: dict) -> None:
    services = compose["services"]
    assert {"postgres", "bank-go", "bank-java", "bank-java-virtual", "jmeter"} <= set(services)
    for name, port in Compose.PORTS.items():
        assert services[f"bank-{name}"]["ports"] == [f"127.0.0.1:{port}:8080"]
    assert services["bank-java"]["environment"]["VIRTUAL_THREADS"] == "false"
    assert services["bank-java-virtual"]["environment"]["VIRTUAL_THREADS"] == "true"


def test_each_service_gets_an_m5_large(compose: dict) -> None:
    for name in ("bank-go", "bank-java", "bank-java-virtual"):
        svc = compose["services"][name]
        assert (svc["cpus"], svc["mem_limit"]) == (2, "8g"), name
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert svc["environment"]["POSTGRES_HOST"] == "postgres"


def test_postgres_uses_the_shared_max_connections_knob(compose: dict) -> None:
    command = compose["services"]["postgres"]["command"]
    assert "max_connections=${PG_MAX_CONNECTIONS:-100}" in command


def test_docker_compose_parses_it_where_available() -> None:
    """`config` needs no engine; on a machine with neither client, the YAML checks above stand."""
    for cmd in (["docker", "compose"], ["docker-compose"]):
        if shutil.which(cmd[0]) and subprocess.run([*cmd, "version"],
                                                   capture_output=True).returncode == 0:
            out = subprocess.run([*cmd, "-f", str(COMPOSE), "config", "-q"],
                                 capture_output=True, text=True)
            assert out.returncode == 0, out.stderr
            return
    assert yaml.safe_load(COMPOSE.read_text())["name"] == "bankbench"
