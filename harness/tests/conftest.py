"""Shared fixtures of the harness tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bankbench import registry


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


@pytest.fixture
def level_json() -> Callable[..., dict]:
    """level_json(**keys): a level.json's document with the keys every one has (a go level's
    minute, JMeter's, no arrivals planned), `keys` over them."""
    return lambda **keys: {"service": "go", "started_ms": 0, "measure_from_ms": 0, "ended_ms": 60_000,
                           "generator": "jmeter", "arrivals": None, **keys}
