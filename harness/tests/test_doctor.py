"""`make doctor`: one row per prerequisite, run on the standard library alone (before .venv), and
docs/setup.md's Prerequisites lists the same prerequisites in the same order."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bankbench import paths
from bankbench.machine import doctor


def run_doctor(path: str, *names: str) -> subprocess.CompletedProcess:
    # -S: no site-packages, so a third-party import would fail here as it would before .venv.
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(paths.ROOT / "harness")}
    return subprocess.run([sys.executable, "-S", "-m", "bankbench.machine.doctor", *names], env=env,
                          capture_output=True, text=True, cwd=paths.ROOT)


def row(output: str, name: str) -> list[str]:
    return next(line.split() for line in output.splitlines() if line.split()[1:2] == [name])


def test_a_missing_optional_tool_is_absent_with_its_install_command(
        path_without: Callable[..., str]) -> None:
    out = run_doctor(path_without("terraform"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert row(out.stdout, "terraform")[:3] == ["absent", "terraform", "not"]
    assert "apt-get install terraform" in " ".join(row(out.stdout, "terraform"))
    assert out.stdout.splitlines()[-1] == "doctor: every required prerequisite is here"


def test_a_missing_required_tool_fails_with_its_install_command(
        path_without: Callable[..., str]) -> None:
    out = run_doctor(path_without("go"))
    assert out.returncode == 1
    assert row(out.stdout, "go")[:2] == ["MISSING", "go"]
    assert "https://go.dev/dl" in " ".join(row(out.stdout, "go"))
    assert out.stdout.splitlines()[-1].startswith("doctor: missing go:")


def test_named_checks_are_silent_when_present_and_required(
        path_without: Callable[..., str]) -> None:
    assert run_doctor(os.environ["PATH"], "go").stdout == ""
    out = run_doctor(path_without("go"), "go")
    assert out.returncode == 1
    assert [line.split()[1] for line in out.stdout.splitlines()[1:-1]] == ["go"]


def test_setup_lists_the_same_prerequisites_in_the_same_order() -> None:
    setup = (paths.ROOT / "docs" / "setup.md").read_text()
    prerequisites = setup.split("## Prerequisites", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([\w-]+)` \|", prerequisites, re.MULTILINE)
    assert listed == [p.name for p in doctor.PREREQUISITES]


def test_setup_gives_the_same_install_commands() -> None:
    setup = (paths.ROOT / "docs" / "setup.md").read_text()
    prerequisites = setup.split("## Prerequisites", 1)[1].split("\n## ", 1)[0]
    cells = dict(re.findall(r"^\| `([\w-]+)` \|.*\| (.*) \|$", prerequisites, re.MULTILINE))
    assert {name: cell.replace("`", "") for name, cell in cells.items()} == \
        {p.name: p.how_to_install(None) for p in doctor.PREREQUISITES}


@pytest.mark.parametrize("os_release, key", [
    ('PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_ID="13"\n', "debian13"),
    ('ID=ubuntu\nVERSION_ID="24.04"\n', "ubuntu24.04"),
    ('ID=fedora\nVERSION_ID=41\n', None),
])
def test_the_distribution_is_read_from_os_release(tmp_path: Path, os_release: str,
                                                 key: str | None) -> None:
    (tmp_path / "os-release").write_text(os_release)
    assert doctor.distro(tmp_path / "os-release") == key


def test_install_commands_cover_the_required_prerequisites_only() -> None:
    commands = doctor.install_commands("debian13")
    assert "apt-get install golang-go" in commands
    assert "apt-get install wrk" not in commands  # optional
    assert not any("postgresql" in command for command in commands)  # fetched when absent
    out = run_doctor(os.environ["PATH"], "--install", "debian13")
    assert out.returncode == 0 and out.stdout.splitlines() == commands


def test_a_missing_util_linux_tool_is_named(path_without: Callable[..., str]) -> None:
    out = run_doctor(path_without("taskset"), "util-linux")
    assert out.returncode == 1
    assert row(out.stdout, "util-linux")[:4] == ["MISSING", "util-linux", "no", "taskset"]
