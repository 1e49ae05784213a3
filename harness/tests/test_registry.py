"""The registry (services.yaml): what each entry says is read as one fact, a malformed entry is
refused with one line, and no module of the harness names a service or a language the registry
describes."""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import pytest
import yaml

from bankbench import paths, registry
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.measure import manifest

ENTRY = {"build": "true", "artifact": "bin/x", "runtime": "native", "profiler": "none",
         "versions": {"reader": "command", "command": "x --versions"}, "port": 9000}


def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **fields) -> registry.Entry:
    copy = tmp_path / "services.yaml"
    copy.write_text(yaml.safe_dump({"x": {**ENTRY, **fields}}))
    monkeypatch.setenv("BANKBENCH_SERVICES", str(copy))
    return registry.get("x")


def test_a_dialect_or_own_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = load(tmp_path, monkeypatch, metrics={"dialect": "go", "threads": "x_threads"})
    assert entry.metrics["threads"] == "x_threads"
    assert entry.metrics["pool_max"] == registry.metric_series()[1]["go"]["pool_max"]
    assert entry.image is None and entry.hardening == ()


@pytest.mark.parametrize("fields,complaint", [
    ({"metrics": "cobol"}, "dialect 'cobol'"),
    ({"metrics": {"dialect": "go", "typo": "x"}}, "unknown series"),
    ({"metrics": {"requests": "x"}}, "does not name"),
    ({"metrics": "go", "profiler": "perf"}, "profiler"),
    ({"metrics": "go", "runtime": "wasm"}, "runtime"),
    ({"metrics": "go", "versions": {"reader": "guess"}}, "reader"),
    ({"metrics": "go", "hardening": ["chaos"]}, "hardening"),
    ({"metrics": "go", "image": "x"}, "image and dockerfile"),
    ({"metrics": "go", "colour": "blue"}, "colour"),
    ({"metrics": "go", "class": "enterprise"}, "class must be one of"),
    ({"metrics": "go", "heap": {"variable": "X", "value": "64"}}, "heap needs a variable and a value with {mb}"),
    ({"metrics": "go", "memory_mb": "512 MB"}, "memory_mb must be a whole number"),
    ({"metrics": "go", "memory_mb": 0}, "memory_mb must be a whole number"),
    ({"metrics": "go", "tune": {"GOGC": {"GOGC-100": {"GOGC": "100"}}}}, "tune needs knobs of values named"),
    ({"metrics": "go", "tune": {"GOGC": {}}}, "tune needs knobs"),
    ({"metrics": "go", "tune": {"GOGC": ["100"]}}, "tune"),
])
def test_malformed_entries_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       fields: dict, complaint: str) -> None:
    with pytest.raises(UserError, match=rf"service 'x' is malformed.*{re.escape(complaint)}"):
        load(tmp_path, monkeypatch, **fields)


def test_container_environments_refuse_native_only_services(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    load(tmp_path, monkeypatch, metrics="go")
    with pytest.raises(UserError, match=r"x: no image .* ENV=compose"):
        registry.require_images(["x"], "compose")


def test_no_module_special_cases_a_service_or_runtime() -> None:
    """What a service is and does is the registry's to say: no module of the harness compares a
    service's name with one of ours, and only the module that starts services reads its runtime
    (how to start it is what the runtime says)."""
    pattern = r"""(==|!=| in) *\(?["'](go|java|java-virtual)["']|\.runtime\b"""
    found = subprocess.run(["git", "grep", "-n", "-E", pattern,
                            "--", "harness/bankbench/*.py", ":!harness/bankbench/registry.py",
                            ":!harness/bankbench/bank/processes.py"],
                           cwd=paths.ROOT, capture_output=True, text=True).stdout
    assert found == "", found


def test_a_heap_limit_is_set_as_the_entry_says() -> None:
    """The heap sweep's setting comes from the entry: an environment variable, and for a JVM
    JAVA_OPTS after bank-java/jvm.options, so its -Xmx wins over the file's."""
    native = registry.get("go")
    assert native.heap_env(64) == {"GOMEMLIMIT": "64MiB"}
    assert ("GOMEMLIMIT", "64MiB") in processes.get("go", settings=native.heap_env(64)).env
    jvm = processes.get("java", aot=False, settings=registry.get("java").heap_env(256)).command
    assert jvm[jvm.index(f"@{paths.JVM_OPTIONS}") + 1:][:2] == ("-Xms256m", "-Xmx256m")


def test_a_service_without_a_heap_cannot_be_swept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load(tmp_path, monkeypatch, metrics="go").heap is None
    with pytest.raises(UserError, match="no `heap`"):
        registry.get("x").heap_env(64)


def test_the_jar_reader_finds_the_libraries_a_jar_runs_with(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Nested in it, as Spring Boot packs them, or beside it, as its manifest's Class-Path names
    them (a thin jar's libs/; the manifest wraps its lines at 72 bytes)."""
    entry = load(tmp_path, monkeypatch, metrics="go", runtime="jvm",
                 versions={"reader": "jar", "libraries": {"pool": "HikariCP", "driver": "postgresql",
                                                          "web": "helidon-webserver"}})
    fat, thin = tmp_path / "fat.jar", tmp_path / "thin.jar"
    with zipfile.ZipFile(fat, "w") as jar:
        jar.writestr("BOOT-INF/lib/HikariCP-7.1.0.jar", b"")
        jar.writestr("BOOT-INF/lib/postgresql-42.7.14.jar", b"")
    with zipfile.ZipFile(thin, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nClass-Path: libs/helidon-webserver-4.\r\n"
                     " 5.0.jar libs/HikariCP-7.1.0.jar\r\nMain-Class: x.Main\r\n")
    assert manifest.build_versions(entry, fat, ["true"]) == {
        "jdk": "unknown", "pool": "7.1.0", "driver": "42.7.14", "web": "unknown"}
    assert manifest.build_versions(entry, thin, ["true"]) == {
        "jdk": "unknown", "pool": "7.1.0", "driver": "unknown", "web": "4.5.0"}
