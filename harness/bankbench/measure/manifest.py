"""What a result was measured on: the run's manifest.json.

Commit, versions, machine, settings, stored as manifest.json per run; `document` builds it in every
environment (results/LAYOUT.md), and bankbench.results.files stamps its schema version as it writes it.

See results/LAYOUT.md#manifestjson."""

import json
import os
import platform
import re
import shlex
import subprocess
import zipfile
from dataclasses import asdict
from pathlib import Path
from types import ModuleType

import psutil

from bankbench import paths, registry
from bankbench.errors import UserError
from bankbench.load import gatling, jmeter
from bankbench.load.profiles import LOAD_MODELS, Profile
from bankbench.machine import jdk


def document(run_id: str, env: str, profile: Profile, machine: dict, versions: dict,
             settings: dict) -> dict:
    """manifest.json: the run, the commit, what ran where, the profile's then `settings`."""
    settings = {"profile": asdict(profile), "users": profile.users, "pools": profile.pools,
                "repeat": profile.repeat, "services": profile.services, **settings}
    return {"run_id": run_id, "env": env, "profile": profile.name,
            "created_utc": run_id.split("-", 1)[0], "git": git(), "machine": machine,
            "versions": versions, "settings": settings, "load_model": LOAD_MODELS[profile.model]}


def _run(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=paths.ROOT).stdout.strip()
    except OSError:
        return ""


def git() -> dict[str, object]:
    # results/ is what runs write (a report, the run before in a series): not what this run runs.
    return {"commit": _run("git", "rev-parse", "HEAD"),
            "dirty": bool(_run("git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!results"))}


def machine() -> dict[str, object]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.+)", cpuinfo)
    os_release = Path("/etc/os-release")
    pretty = re.search(r'PRETTY_NAME="(.+)"', os_release.read_text()) if os_release.exists() else None
    return {"cpu_model": model.group(1) if model else platform.processor(), "cores": os.cpu_count(),
            "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "os": pretty.group(1) if pretty else platform.system(), "kernel": platform.release()}


def _go_build(entry: registry.Entry, binary: Path, _java: list[str]) -> dict[str, str]:
    """The Go and the entry's `modules` a binary was built with (`go version -m`)."""
    info = _run("go", "version", "-m", str(binary))
    go = re.match(r"\S+: (go\S+)", info)
    deps = dict(re.findall(r"^\s+dep\s+(\S+)\s+(\S+)", info, re.MULTILINE))
    return {"go": go.group(1) if go else "unknown",
            **{key: deps.get(module, "unknown") for key, module in entry.versions.get("modules", {}).items()}}


def _jar(entry: registry.Entry, built: Path, java: list[str]) -> dict[str, str]:
    """`java -version`'s first line and the entry's `libraries` among the jar's own (_libraries)."""
    java_version = subprocess.run([*java, "-version"], capture_output=True, text=True).stderr
    found = dict.fromkeys(entry.versions.get("libraries", {}), "unknown")
    for name in _libraries(built) if built.exists() else ():
        for key, prefix in entry.versions["libraries"].items():
            if match := re.fullmatch(rf"{re.escape(prefix)}-([\d.]+\w*)\.jar", name):
                found[key] = match.group(1)
    return {"jdk": java_version.splitlines()[0] if java_version else "unknown", **found}


def _libraries(built: Path) -> list[str]:
    """The file names of the jars a jar runs with: those nested in it (Spring Boot's BOOT-INF/lib/)
    and those its manifest's Class-Path names beside it (a thin jar's libs/, as Helidon builds it)."""
    with zipfile.ZipFile(built) as jar:
        nested = [name for name in jar.namelist() if name.startswith("BOOT-INF/lib/")]
        manifest = jar.read("META-INF/MANIFEST.MF").decode() if "META-INF/MANIFEST.MF" in jar.namelist() else ""
    class_path = re.search(r"^Class-Path: (.*(?:\r?\n .*)*)", manifest, re.MULTILINE)
    listed = re.sub(r"\r?\n ", "", class_path.group(1)).split() if class_path else []
    return [name.rsplit("/", 1)[-1] for name in [*nested, *listed]]


def _command(entry: registry.Entry, _artifact: Path, _java: list[str]) -> dict[str, str]:
    """What the entry's `command` prints: a JSON object of versions."""
    try:
        return {str(k): str(v) for k, v in json.loads(_run(*shlex.split(entry.versions["command"]))).items()}
    except (json.JSONDecodeError, AttributeError):
        return {f"{entry.name} versions": "unknown"}


READERS = {"go-build": _go_build, "jar": _jar, "command": _command}  # registry.VERSION_READERS


def build_versions(entry: registry.Entry, artifact: Path, java: list[str]) -> dict[str, str]:
    """The versions in one service's build `artifact`; `java` runs the JVM a jar runs on."""
    return READERS[entry.versions["reader"]](entry, artifact, java)


def versions(postgresql: str) -> dict[str, str]:
    """The versions of what runs natively: the services' builds, JDK, PostgreSQL, generators."""
    found: dict[str, str] = {}
    builds = {entry.artifact: entry for entry in registry.entries().values()}  # java-virtual: java's jar
    for entry in builds.values():
        found |= build_versions(entry, entry.artifact, [str(jdk.java_home() / "bin" / "java")])
    return {**found, "postgresql": postgresql, "jmeter": jmeter_version(), "gatling": generator_version(gatling)}


def jmeter_version() -> str:
    return generator_version(jmeter)


def generator_version(module: ModuleType) -> str:
    """A load generator's version (bankbench.load.jmeter or .gatling), or that it is not installed."""
    try:
        return module.version()
    except UserError:
        return "not installed"
