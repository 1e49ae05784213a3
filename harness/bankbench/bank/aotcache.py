"""The JDK's AOT cache for the Java variants (JAVA_AOT_CACHE=1): classes loaded and linked ahead
of time (JEP 483) and method profiles from a training run (JEP 515), made in one step by the
JVM itself (JEP 514, JDK 25: -XX:AOTCacheOutput writes the cache when the training run exits).

Spring Boot's nested jars are read by its own class loader, which the cache does not cover, so
with the cache the service runs from the jar extracted by Spring Boot's `jarmode=tools extract`
(its manifest lists the dependencies in lib/ on the class path), Spring Boot's recommended
layout for it; without, from the jar as built. The training
run is the service itself serving a short mixed load on a throwaway database, once per variant
(virtual threads load other classes), and again whenever the jar is rebuilt.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx

from bankbench.errors import UserError
from bankbench.machine import jdk

SETTING = "JAVA_AOT_CACHE"  # make variable and environment: 1 runs the Java variants with it
MIN_JDK = 25
TRAINING_S = 20
TRAINING_CLIENTS = 8
# Starts the variant with the given JVM options (before -jar) on a throwaway database, logging to
# the path, and stops it on exit: bankbench.bank.processes.local_service, passed in because
# that module imports this one.
Training = Callable[[list[str], Path], AbstractContextManager[Any]]


def enabled() -> bool:
    return os.environ.get(SETTING, "") == "1"


def extracted_jar(built: Path) -> Path:
    """The service's jar extracted beside it (once per build): what runs with the cache."""
    destination = built.parent / "extracted"
    jar = destination / built.name
    if not jar.exists() or jar.stat().st_mtime < built.stat().st_mtime:
        java = jdk.java_home() / "bin" / "java"
        out = subprocess.run([str(java), "-Djarmode=tools", "-jar", str(built),
                              "extract", "--force", "--destination", str(destination)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise UserError(f"extracting {built.name} failed: {out.stderr or out.stdout}")
    return jar


def cache_options(name: str, jar: Path, training: Training) -> list[str]:
    """The JVM options that run the variant `name` with its AOT cache, made first by a
    `training` run when missing or older than its extracted `jar`."""
    if jdk.feature(jdk.release_version(jdk.java_home())) < MIN_JDK:
        raise UserError(f"{SETTING}=1 needs JDK {MIN_JDK}+ (JEP 514/515); this one is "
                        f"{jdk.release_version(jdk.java_home())}")
    cache = jar.parent.parent / "aot" / f"{name}.aot"
    if not cache.exists() or cache.stat().st_mtime < jar.stat().st_mtime:
        _train(cache, training)
    return [f"-XX:AOTCache={cache}", "-XX:AOTMode=on"]  # on: refuse to run without it


def _train(cache: Path, training: Training) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.unlink(missing_ok=True)
    log = cache.with_suffix(".training.log")
    log.unlink(missing_ok=True)
    print(f"bankbench: training run for {cache.name} ({TRAINING_S} s of load), log {log}",
          flush=True)
    with training([f"-XX:AOTCacheOutput={cache}"], log) as running:
        _load(running.url)
        running.stop(timeout=300)  # SIGTERM: the JVM writes the cache as it exits
    if not cache.exists() or cache.stat().st_size == 0:
        raise UserError(f"the training run wrote no AOT cache: see {log}")


def _load(url: str) -> None:
    """Every endpoint, from TRAINING_CLIENTS clients for TRAINING_S seconds."""
    end = time.monotonic() + TRAINING_S

    def client_loop(_: int) -> None:
        http = httpx.Client(base_url=url, timeout=10)
        ids = [http.post("/client/new/1000000").json()["id"] for _ in range(2)]
        while time.monotonic() < end:
            http.get(f"/client/{ids[0]}/balance")
            http.post("/transaction",
                      json={"from_client_id": ids[0], "to_client_id": ids[1], "amount": 1})
            ids.reverse()

    with ThreadPoolExecutor(TRAINING_CLIENTS) as pool:
        list(pool.map(client_loop, range(TRAINING_CLIENTS)))
