"""What a result was measured on: commit, versions, machine. Stored as manifest.json per run."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import zipfile
from pathlib import Path

import psutil

from bankbench import jdk, jmeter, paths
from bankbench.errors import UserError


def _run(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=paths.ROOT).stdout.strip()
    except OSError:
        return ""


def git() -> dict[str, object]:
    return {"commit": _run("git", "rev-parse", "HEAD"),
            "dirty": bool(_run("git", "status", "--porcelain", "--untracked-files=no"))}


def machine() -> dict[str, object]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.+)", cpuinfo)
    os_release = Path("/etc/os-release")
    pretty = re.search(r'PRETTY_NAME="(.+)"', os_release.read_text()) if os_release.exists() else None
    return {"cpu_model": model.group(1) if model else platform.processor(),
            "cores": os.cpu_count(),
            "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "os": pretty.group(1) if pretty else platform.system(),
            "kernel": platform.release()}


def _go_module_version(module: str) -> str:
    gomod = (paths.ROOT / "bank-go" / "go.mod").read_text()
    match = re.search(rf"{re.escape(module)} (v\S+)", gomod)
    return match.group(1) if match else "unknown"


def _jar_library(prefix: str) -> str:
    """The version of a library bundled in the Spring Boot jar (BOOT-INF/lib/<prefix>-<v>.jar)."""
    if not paths.JAVA_JAR.exists():
        return "unknown"
    with zipfile.ZipFile(paths.JAVA_JAR) as jar:
        for name in jar.namelist():
            if match := re.fullmatch(rf"BOOT-INF/lib/{re.escape(prefix)}-([\d.]+\w*)\.jar", name):
                return match.group(1)
    return "unknown"


def versions(postgresql: str) -> dict[str, str]:
    java = jdk.java_home() / "bin" / "java"
    java_version = subprocess.run([str(java), "-version"], capture_output=True, text=True).stderr
    return {"go": _run("go", "env", "GOVERSION"),
            "jdk": java_version.splitlines()[0] if java_version else "unknown",
            "spring_boot": _jar_library("spring-boot"),
            "pgx": _go_module_version("github.com/jackc/pgx/v5"),
            "hikaricp": _jar_library("HikariCP"),
            "postgresql_jdbc": _jar_library("postgresql"),
            "postgresql": postgresql,
            "jmeter": _jmeter_version()}


def _jmeter_version() -> str:
    try:
        return jmeter.version()
    except UserError:
        return "not installed"
