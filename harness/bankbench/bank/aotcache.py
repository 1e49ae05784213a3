"""The JDK's AOT cache of the Java variants: trained once per variant and jar.

JAVA_AOT_CACHE=1 (JEPs 483, 514, 515): the cache is written by the JVM as a training run (the
service under a short load) exits, once per variant (virtual threads load other classes) and jar
build. It does not cover Spring Boot's nested jars (its own class loader): with it such a service
runs from the jar `jarmode=tools extract` makes; a jar whose libraries lie beside it (its manifest's
Class-Path) runs as built.

See docs/benchmarks.md#cold-cold-with-the-aot-cache-warm and bank-java/README.md."""

import os
import subprocess
import time
import zipfile
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
EXTRACTED = "extracted"  # runnable_jar's folder beside the built jar
# The variant run with these JVM options, logging to the path: processes' (it imports this one).
Training = Callable[[list[str], Path], AbstractContextManager[Any]]


def enabled() -> bool:
    return os.environ.get(SETTING, "") == "1"


def runnable_jar(built: Path) -> Path:
    """The jar that runs with the cache: a Spring Boot jar (BOOT-INF/) extracted beside it, once per
    build; any other jar as built."""
    with zipfile.ZipFile(built) as archive:
        if not any(name.startswith("BOOT-INF/") for name in archive.namelist()):
            return built
    destination = built.parent / EXTRACTED
    jar = destination / built.name
    if not jar.exists() or jar.stat().st_mtime < built.stat().st_mtime:
        out = subprocess.run([str(jdk.java_home() / "bin" / "java"), "-Djarmode=tools", "-jar",
                              str(built), "extract", "--force", "--destination", str(destination)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise UserError(f"extracting {built.name} failed: {out.stderr or out.stdout}")
    return jar


def cache_options(name: str, jar: Path, training: Training) -> list[str]:
    """The JVM options that run `name` with its AOT cache, trained first if older than `jar`."""
    if jdk.feature(version := jdk.release_version(jdk.java_home())) < MIN_JDK:
        raise UserError(f"{SETTING}=1 needs JDK {MIN_JDK}+ (JEP 514/515); this one is {version}")
    build = jar.parent.parent if jar.parent.name == EXTRACTED else jar.parent  # the build's folder
    cache = build / "aot" / f"{name}.aot"
    if not cache.exists() or cache.stat().st_mtime < jar.stat().st_mtime:
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
    return [f"-XX:AOTCache={cache}", "-XX:AOTMode=on"]  # on: refuse to run without it


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
