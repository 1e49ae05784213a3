"""Gatling, the open model's load generator: its simulation run on the project's JDK.

Gatling 3.15: the simulation of gatling/ (`make gatling-install` builds it and its classpath), run
on the project's JDK outside Maven (gatling/README.md).

See gatling/README.md#run and docs/benchmarks.md#two-load-generators."""

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
# Gatling's JVM (GATLING_JVM overrides): a fixed heap, the opens JDK 25 needs (gatling/README.md).
JVM_OPTIONS = os.environ.get("GATLING_JVM", "-Xms1g -Xmx1g -XX:+UseParallelGC")
OPENS = ("--add-opens", "java.base/java.lang=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED")
SAMPLES, LOG = "gatling.csv", "gatling.log"  # a run's samples and console, in its folder


def classpath() -> str:
    """The simulation's classes and Gatling's jars, as `make gatling-install` wrote them."""
    if not CLASSPATH.exists():
        raise UserError("Gatling is not built: run `make gatling-install`")
    jars = CLASSPATH.read_text().strip()
    if not Path(jars.split(":", 1)[0]).exists():  # the local Maven repository was wiped
        raise UserError("Gatling's jars are gone from the Maven repository: run `make gatling-install` again")
    return f"{CLASSES}:{jars}"


def version() -> str:
    names = (Path(jar).name for jar in classpath().split(":"))
    return next((name.removeprefix("gatling-core-").removesuffix(".jar") for name in names
                 if name.startswith("gatling-core-") and name.endswith(".jar")), "unknown")


class Run(Driver):
    """One Gatling run of the simulation: its samples and console into `out`."""

    name = "Gatling"

    def __init__(self, properties: dict[str, object], out: Path):
        out.mkdir(parents=True, exist_ok=True)
        results = out / SAMPLES
        # Its GC log, in wall-clock time: a pause of Gatling's lines up with seconds of no arrivals.
        gc_log = f"-Xlog:gc*:file={out / 'gatling-gc.log'}:time,uptime,level,tags"
        cmd = [jmeter.java(), *OPENS, *JVM_OPTIONS.split(), gc_log,
               *(f"-D{k}={v}" for k, v in {**properties, "samples": results}.items()),
               "-cp", classpath(), "io.gatling.app.Gatling", "-s", SIMULATION, "-rf", str(out / "gatling"), "-nr"]
        super().__init__(cmd, HOME, results, log=out / LOG)


def cache_inputs() -> tuple[dict[str, object], tuple[Path, ...]]:
    sources = tuple(sorted((HOME / "src" / "main").rglob("*.*")))
    return ({"gatling": version(), "gatling_options": [*OPENS, *JVM_OPTIONS.split()],
             "java": [jmeter.java(), jdk.release_version(jdk.java_home())]}, (HOME / "pom.xml", *sources))
