"""Gatling 3.15, the open model's load generator: the simulation of gatling/ (`make gatling-install`
builds it and its classpath), run on the project's JDK outside Maven (gatling/README.md)."""

from __future__ import annotations

import os
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.load import jmeter
from bankbench.load.console import Driver
from bankbench.machine import jdk

HOME = paths.ROOT / "gatling"
CLASSES, CLASSPATH = HOME / "target" / "classes", HOME / "target" / "classpath.txt"
SIMULATION = "bankbench.BankSimulation"
# Gatling's JVM (GATLING_JVM overrides): a fixed heap, no resizing under load; the opens that
# Gatling 3.15 needs on JDK 25 ("Run crashed: module java.base does not open java.lang" without),
# and native access for Netty's transport.
JVM_OPTIONS = os.environ.get("GATLING_JVM", "-Xms1g -Xmx1g -XX:+UseParallelGC")
OPENS = ("--add-opens", "java.base/java.lang=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED")
SAMPLES, LOG = "gatling.csv", "gatling.log"  # a run's samples and console, in its folder
# Its JVM's GC log, in the same folder, with wall-clock time: a pause of Gatling's own shows as
# seconds without arrivals (issue 35), and lines up with them there.
GC_LOG = "gatling-gc.log"


def classpath() -> str:
    """The simulation's classes and Gatling's jars, as `make gatling-install` wrote them."""
    if not CLASSPATH.exists():
        raise UserError("Gatling is not built: run `make gatling-install`")
    jars = CLASSPATH.read_text().strip()
    if not Path(jars.split(":", 1)[0]).exists():  # the local Maven repository was wiped
        raise UserError("Gatling's jars are gone from the Maven repository: run `make gatling-install` again")
    return f"{CLASSES}:{jars}"


def version() -> str:
    """Gatling's version, from its jar on the classpath."""
    for jar in classpath().split(":"):
        name = Path(jar).name
        if name.startswith("gatling-core-") and name.endswith(".jar"):
            return name.removeprefix("gatling-core-").removesuffix(".jar")
    return "unknown"


class Run(Driver):
    """One Gatling run of the simulation: its samples and console into `out`."""

    name = "Gatling"

    def __init__(self, properties: dict[str, object], out: Path):
        out.mkdir(parents=True, exist_ok=True)
        results = out / SAMPLES
        cmd = [jmeter.java(), *OPENS, *JVM_OPTIONS.split(), gc_log_option(out),
               *(f"-D{k}={v}" for k, v in {**properties, "samples": results}.items()),
               "-cp", classpath(), "io.gatling.app.Gatling", "-s", SIMULATION, "-rf", str(out / "gatling"), "-nr"]
        super().__init__(cmd, HOME, results, log=out / LOG)


def gc_log_option(out: Path) -> str:
    """The JVM option that writes Gatling's GC log into `out` (its collector and heap untouched)."""
    return f"-Xlog:gc*:file={out / GC_LOG}:time,uptime,level,tags"


def cache_inputs() -> tuple[dict[str, object], tuple[Path, ...]]:
    """What a calibration of Gatling depends on besides the load, and the files it reads."""
    sources = tuple(sorted((HOME / "src" / "main").rglob("*.*")))
    return ({"gatling": version(), "gatling_options": [*OPENS, *JVM_OPTIONS.split()],
             "java": [jmeter.java(), jdk.release_version(jdk.java_home())]}, (HOME / "pom.xml", *sources))
