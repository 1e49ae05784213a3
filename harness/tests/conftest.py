"""Shared fixtures of the harness tests."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bankbench import paths, registry


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--services", default=",".join(registry.names()),
                     help="comma list of the services the smoke benchmark runs (default: all)")


@pytest.fixture(scope="module")
def path_without(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., str]:
    """path_without("pg_config", ...): a PATH that has every command of this one but those, as a
    new machine without them would (a directory of links to the others)."""
    def make(*hidden: str) -> str:
        links = tmp_path_factory.mktemp("bin")
        for directory in filter(os.path.isdir, os.environ["PATH"].split(os.pathsep)):
            for command in Path(directory).iterdir():
                link = links / command.name
                if command.name not in hidden and os.access(command, os.X_OK) \
                        and not os.path.lexists(link):
                    link.symlink_to(command)
        return str(links)
    return make


def registry_env(tmp_path_factory: pytest.TempPathFactory, registry_text: str) -> dict[str, str]:
    """The environment of commands that see `registry_text` as the registry, and their own runs
    folder: a contender added without the repository knowing it."""
    copy = tmp_path_factory.mktemp("registry") / "services.yaml"
    copy.write_text(registry_text)
    return {**os.environ, "BANKBENCH_SERVICES": str(copy),
            "BANKBENCH_RUNS": str(tmp_path_factory.mktemp("runs"))}


def bankbench(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """`python -m bankbench ARGS` in `env`, which must succeed; its output's end is printed."""
    out = subprocess.run([sys.executable, "-m", "bankbench", *args], env=env, cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=600)
    print(out.stdout[-3000:], out.stderr[-3000:])
    assert out.returncode == 0, out.stderr[-3000:]
    return out
