"""JMeter 5.6.3 in CLI mode, as installed by jmeter-maven-plugin (`make jmeter-install`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.load.console import Driver
from bankbench.machine import jdk

SETTINGS = paths.JMETER / "bankbench.properties"
SAMPLES, LOG = "jmeter.csv", "jmeter.log"  # a run's samples and log, in its folder
# JMeter's JVM options (JMETER_JVM overrides): those of JMeter's own launcher (bin/jmeter: G1
# with short pauses, a metaspace bound), with a fixed heap large enough for thousands of threads
# (Xms = Xmx: no resizing under load) and a small stack each. The GC is named so that it does not
# change with the CPUs JMeter sees (one under CPU placement split would pick the serial GC).
JVM_OPTIONS = os.environ.get("JMETER_JVM", "-Xms4g -Xmx4g -Xss256k -XX:MaxMetaspaceSize=256m "
                             "-XX:+UseG1GC -XX:MaxGCPauseMillis=100 -XX:G1ReservePercent=20")
# Three INFO lines per JMeter thread (started, done, finished), and the article and open models
# start a thread per iteration: 30,000 synchronous log writes at 10,000 users.
LOG_LEVELS = ("-Lorg.apache.jmeter.threads.JMeterThread=WARN",)


def installation() -> tuple[Path, str]:
    """The JMeter directory and runtime jar that the Maven plugin laid out."""
    config = paths.JMETER / "target" / "config.json"
    if not config.exists():
        raise UserError("JMeter is not installed: run `make jmeter-install`")
    conf = json.loads(config.read_text())["configurations"][0]
    home = Path(conf["jmeterDirectoryPath"])
    if not (home / "bin" / conf["runtimeJarName"]).exists():
        raise UserError(f"JMeter at {home} is incomplete: run `make jmeter-install` again")
    return home, conf["runtimeJarName"]


def java() -> str:
    """The java that runs JMeter: that of the one JDK (bankbench.machine.jdk), 21 or newer. On the
    same plan at the article's largest arrival rate JDK 25 used about a tenth less CPU than the
    machine's default JDK 17 (jmeter/README.md)."""
    return str(jdk.java_home() / "bin" / "java")


def version() -> str:
    _, jar = installation()
    return jar.removeprefix("ApacheJMeter-").removesuffix(".jar")


class Run(Driver):
    """One JMeter run of the plan: results CSV, log and HTML dashboard into `out`."""

    name = "JMeter"

    def __init__(self, properties: dict[str, object], out: Path, dashboard: bool = True):
        home, jar = installation()
        out.mkdir(parents=True, exist_ok=True)
        results = out / SAMPLES
        cmd = [java(), *JVM_OPTIONS.split(),
               "-jar", str(home / "bin" / jar), "-n", "-t", str(paths.PLAN), "-q", str(SETTINGS), *LOG_LEVELS,
               "-l", str(results), "-j", str(out / LOG),
               *(f"-J{k}={v}" for k, v in properties.items())]
        if dashboard:
            cmd += ["-e", "-o", str(out / "dashboard")]
        super().__init__(cmd, home / "bin", results)


def cache_inputs() -> tuple[dict[str, object], tuple[Path, ...]]:
    """What a calibration of JMeter depends on besides the load, and the files it reads."""
    return ({"jmeter": version(), "jmeter_options": [*JVM_OPTIONS.split(), *LOG_LEVELS],
             "java": [java(), jdk.release_version(jdk.java_home())]}, (SETTINGS, paths.PLAN))
