"""JAVA_AOT_CACHE=1: a real training run makes the cache, and the service starts and serves with
it (-XX:AOTMode=on refuses to start when the cache cannot be used)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import httpx
import pytest

from bankbench import registry
from bankbench.bank import aotcache, processes
from bankbench.machine import jdk

# A service per JVM image (java-virtual runs java's): a Spring Boot jar, run extracted, and a thin
# jar, run as built.
JVM_BUILDS = [entry.name for entry in registry.by_image().values() if entry.runtime == "jvm"]


@pytest.mark.integration
@pytest.mark.untimed
@pytest.mark.skipif(jdk.feature(jdk.release_version(jdk.java_home())) < aotcache.MIN_JDK,
                    reason="the AOT cache needs JDK 25")
@pytest.mark.parametrize("name", JVM_BUILDS)
def test_a_jvm_service_runs_with_its_trained_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                   name: str) -> None:
    monkeypatch.setenv(aotcache.SETTING, "1")
    service = processes.get(name)
    cache = next(Path(arg.split("=", 1)[1]) for arg in service.command
                 if arg.startswith("-XX:AOTCache="))
    assert cache.stat().st_size > 1_000_000
    jar = registry.get(name).artifact
    assert cache.parent == jar.parent / "aot"  # in the build's folder, which git ignores
    assert str(aotcache.runnable_jar(jar)) in service.command
    with processes.local_service(service, 2, log=tmp_path / f"{name}.log") as running:
        assert httpx.get(f"{running.url}/health").status_code == 200


def test_only_a_jar_with_nested_jars_is_extracted(tmp_path: Path) -> None:
    """Spring Boot's classes and libraries sit in BOOT-INF/, which the cache cannot read: such a jar
    is extracted. A jar whose libraries lie beside it runs as built."""
    thin = tmp_path / "thin.jar"
    with zipfile.ZipFile(thin, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nClass-Path: libs/a-1.0.jar\n")
    assert aotcache.runnable_jar(thin) == thin
    assert not (tmp_path / aotcache.EXTRACTED).exists()


def test_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(aotcache.SETTING, raising=False)
    assert processes.get("java").command[-2:] == ("-jar", str(registry.get("java").artifact))
