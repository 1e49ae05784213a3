"""The one JDK: JAVA_HOME, BANK_JAVA_HOME, the PATH, /usr/lib/jvm, in that order; the first JDK
21+ with javac wins, the others are skipped with a note. Fake JDKs: a `release` file and bin/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bankbench import paths
from bankbench.errors import UserError
from bankbench.machine import jdk


def fake_jdk(root: Path, name: str, version: str, javac: bool = True) -> Path:
    home = root / name
    (home / "bin").mkdir(parents=True)
    (home / "release").write_text(f'IMPLEMENTOR="Test"\nJAVA_VERSION="{version}"\n')
    for tool in ("java", "javac") if javac else ("java",):
        (home / "bin" / tool).write_text("#!/bin/sh\n")
        (home / "bin" / tool).chmod(0o755)
    return home


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No JDK anywhere but what a test adds: empty /usr/lib/jvm, no java on the PATH."""
    monkeypatch.setattr(jdk, "JVM_DIR", tmp_path / "jvm")
    (tmp_path / "jvm").mkdir()
    (tmp_path / "path").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    for var in ("JAVA_HOME", "BANK_JAVA_HOME"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def on_path(machine: Path, home: Path) -> None:
    (machine / "path" / "java").symlink_to(home / "bin" / "java")


def test_java_home_comes_first(machine: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(machine, "a", "21.0.8")))
    monkeypatch.setenv("BANK_JAVA_HOME", str(fake_jdk(machine, "b", "25.0.3")))
    fake_jdk(machine / "jvm", "newest", "26")
    assert jdk.java_home() == machine / "a"


def test_bank_java_home_then_path(machine: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path(machine, fake_jdk(machine, "on-path", "21.0.8"))
    monkeypatch.setenv("BANK_JAVA_HOME", str(fake_jdk(machine, "bank", "22")))
    assert jdk.java_home() == machine / "bank"
    monkeypatch.delenv("BANK_JAVA_HOME")
    assert jdk.java_home() == machine / "on-path"


def test_too_old_ones_are_skipped_with_a_note(machine: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine: JAVA_HOME unset, OpenJDK 17 on the PATH, Temurin 25 under /usr/lib/jvm."""
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(machine, "old", "1.8.0_412")))
    on_path(machine, fake_jdk(machine / "jvm", "java-17-openjdk-amd64", "17.0.15"))
    fake_jdk(machine / "jvm", "temurin-21-jdk-amd64", "21.0.8")
    fake_jdk(machine / "jvm", "temurin-25-jdk-amd64", "25.0.3")
    found, notes = jdk.select()
    assert found == jdk.Jdk(machine / "jvm" / "temurin-25-jdk-amd64", "25.0.3", str(jdk.JVM_DIR))
    assert notes == [f"JAVA_HOME {machine / 'old'} skipped: Java 1.8.0_412, 21+ needed",
                     f"PATH {machine / 'jvm' / 'java-17-openjdk-amd64'} skipped: "
                     "Java 17.0.15, 21+ needed"]


def test_a_jre_is_refused_naming_the_package(machine: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(machine, "jre", "25.0.3", javac=False)))
    with pytest.raises(UserError) as err:
        jdk.java_home()
    assert "a JRE without javac" in str(err.value)
    assert "apt-get install openjdk-21-jdk-headless" in str(err.value)


def test_the_makefile_gets_the_home_and_the_notes(machine: Path) -> None:
    old, newest = fake_jdk(machine, "old", "17.0.15"), fake_jdk(machine, "newest", "25.0.3")
    env = {**os.environ, "JAVA_HOME": str(old), "BANK_JAVA_HOME": str(newest),
           "PYTHONPATH": str(paths.ROOT / "harness")}
    out = subprocess.run([sys.executable, "-m", "bankbench.machine.jdk"], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout == f"{newest}\n"
    assert out.stderr == (f"bankbench jdk: note: JAVA_HOME {old} skipped: Java 17.0.15, "
                          "21+ needed\n")
