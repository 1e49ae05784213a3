"""docker-compose.yml, checked statically on every machine (harness/tests/docker runs it where an
engine answers)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from bankbench import config, paths, registry
from bankbench.run.environments import composefile

COMPOSE = paths.COMPOSE


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_every_build_context_and_dockerfile_exists(compose: dict) -> None:
    for name, svc in compose["services"].items():
        if "build" in svc:
            context = paths.ROOT / svc["build"]["context"]
            assert context.is_dir(), name
            assert (context / svc["build"]["dockerfile"]).is_file(), name


def test_the_committed_services_are_those_of_the_registry() -> None:
    assert composefile.render(COMPOSE.read_text()) == COMPOSE.read_text(), "run `make compose-file`"


def test_services_the_harness_drives(compose: dict) -> None:
    services = compose["services"]
    assert {"postgres", "jmeter", *map(composefile.service_name, registry.names())} <= set(services)
    for entry in registry.entries().values():
        svc = services[composefile.service_name(entry.name)]
        assert svc["ports"] == [f"127.0.0.1:{entry.port}:{config.DEFAULT_PORT}"]
        assert svc["image"] == composefile.image_name(entry)
        assert {k: svc["environment"][k] for k in entry.environment} == entry.environment
        assert (svc["cpus"], svc["mem_limit"]) == (2, "8g"), "an m5.large each"
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert svc["environment"]["POSTGRES_HOST"] == "postgres"


def test_each_image_is_built_once_from_its_dockerfile(compose: dict) -> None:
    """java-virtual runs java's image: building it twice made two images of one jar."""
    builds = [svc for svc in compose["services"].values() if "build" in svc]
    assert len({svc["image"] for svc in builds}) == len(builds)
    for entry in registry.entries().values():
        (built,) = [svc for svc in builds if svc["image"] == composefile.image_name(entry)]
        assert built["build"]["dockerfile"] == entry.dockerfile


def test_every_image_builds_without_docker_hub_when_told(compose: dict) -> None:
    """Each Dockerfile takes its base images as arguments (public ones by default), and compose
    passes the names of `make offline-images` through."""
    names = set(compose["x-base-images"])
    for svc in compose["services"].values():
        if "build" in svc:
            dockerfile = (paths.ROOT / svc["build"]["dockerfile"]).read_text()
            froms = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("FROM ")]
            assert froms and all(f.startswith("${") and f[2:-1] in names for f in froms), froms
            assert svc["build"]["args"] == compose["x-base-images"]


def test_the_services_own_defaults_apply_unless_the_caller_sets_them(compose: dict) -> None:
    """A null value: compose takes the caller's environment (the harness sets the pool
    settings), or leaves the variable unset."""
    for name in map(composefile.service_name, registry.names()):
        environment = compose["services"][name]["environment"]
        assert all(environment[setting] is None for setting in config.NOT_INHERITED)
        assert config.PORT not in environment


def test_a_new_service_gets_its_block(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    registry_copy = tmp_path / "services.yaml"
    doc = yaml.safe_load(paths.SERVICES.read_text())
    registry_copy.write_text(yaml.safe_dump({**doc, "go-contender": {**doc["go"], "port": 8099}}))
    monkeypatch.setenv("BANKBENCH_SERVICES", str(registry_copy))
    services = yaml.safe_load(composefile.render(COMPOSE.read_text()))["services"]
    assert services["bank-go-contender"]["ports"] == ["127.0.0.1:8099:8080"]
    assert services["bank-go-contender"]["image"] == services["bank-go"]["image"]
    assert "build" not in services["bank-go-contender"]  # go's image, built once


def test_postgres_uses_the_shared_max_connections_knob(compose: dict) -> None:
    """The harness's value, else db/postgresql.conf's, for a start by hand."""
    command = compose["services"]["postgres"]["command"]
    assert f"max_connections=${{PG_MAX_CONNECTIONS:-{config.max_connections()}}}" in command


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


def test_no_container_asks_for_more_cpus_than_a_2_core_machine_has(compose: dict) -> None:
    """Docker refuses a `cpus` above the host's count: the jmeter service once asked for 4."""
    assert all(svc.get("cpus", 0) <= 2 for svc in compose["services"].values())


def test_env_compose_says_what_is_missing(path_without, tmp_path) -> None:
    """Without docker, or with a docker whose compose plugin is missing, ENV=compose stops
    before doing anything, saying what to install."""
    bench = [sys.executable, "-m", "bankbench", "bench", "--env", "compose", "--profile", "smoke"]
    env = {**os.environ, "PATH": path_without("docker"), "BANKBENCH_RUNS": str(tmp_path)}
    out = subprocess.run(bench, env=env, cwd=paths.ROOT, capture_output=True, text=True)
    assert out.returncode != 0 and "ENV=compose needs Docker: no `docker` command" in out.stderr
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "docker").write_text('#!/bin/sh\n[ "$1" = info ] && exit 0\n'
                                 'echo "unknown command: docker $1" >&2; exit 1\n')
    (fake / "docker").chmod(0o755)
    out = subprocess.run(bench, env={**env, "PATH": f"{fake}:{env['PATH']}"}, cwd=paths.ROOT,
                         capture_output=True, text=True)
    assert out.returncode != 0 and "compose v2 plugin" in out.stderr
    assert not list(tmp_path.glob("*-compose-smoke*"))  # no run was started


def test_the_dockerfiles_agree_on_each_base_image_default(compose: dict) -> None:
    """A base image argument declared in several Dockerfiles (the JDK of the Java service and of
    JMeter) has one default: the public images of a build are one set."""
    defaults: dict[str, set[str]] = {}
    for svc in compose["services"].values():
        if "build" in svc:
            for line in (paths.ROOT / svc["build"]["dockerfile"]).read_text().splitlines():
                if line.startswith("ARG ") and line[4:].split("=")[0] in compose["x-base-images"]:
                    name, default = line[4:].split("=", 1)
                    defaults.setdefault(name, set()).add(default)
    assert defaults and all(len(values) == 1 for values in defaults.values()), defaults
