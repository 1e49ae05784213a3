"""Helpers of the tests that add a contender through a registry copy (test_registry.py,
test_contender.py). A module of its own: harness/tests/aws has a conftest too, so `from conftest
import` would depend on which one pytest imported first."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bankbench import paths


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
