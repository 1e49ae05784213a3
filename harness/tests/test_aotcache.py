"""JAVA_AOT_CACHE=1: a real training run makes the cache, and the service starts and serves with
it (-XX:AOTMode=on refuses to start when the cache cannot be used)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bankbench import registry
from bankbench.bank import aotcache, processes
from bankbench.machine import jdk


@pytest.mark.integration
@pytest.mark.skipif(jdk.feature(jdk.release_version(jdk.java_home())) < aotcache.MIN_JDK,
                    reason="the AOT cache needs JDK 25")
def test_the_java_variant_runs_with_its_trained_cache(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.setenv(aotcache.SETTING, "1")
    service = processes.get("java")
    cache = next(Path(arg.split("=", 1)[1]) for arg in service.command
                 if arg.startswith("-XX:AOTCache="))
    assert cache.stat().st_size > 1_000_000
    jar = registry.get("java").artifact
    assert str(aotcache.extracted_jar(jar)) in service.command
    assert str(jar) not in service.command
    with processes.local_service(service, 2, log=tmp_path / "java.log") as running:
        assert httpx.get(f"{running.url}/health").status_code == 200


def test_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(aotcache.SETTING, raising=False)
    assert processes.get("java").command[-2:] == ("-jar", str(registry.get("java").artifact))
