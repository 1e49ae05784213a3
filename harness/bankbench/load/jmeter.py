"""JMeter 5.6.3 in CLI mode, as installed by jmeter-maven-plugin (`make jmeter-install`).

See jmeter/README.md."""

import json
import os
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.load.console import Driver
from bankbench.machine import jdk

SETTINGS = paths.JMETER / "bankbench.properties"
SAMPLES, LOG = "jmeter.csv", "jmeter.log"  # a run's samples and log, in its folder
# JMeter's JVM (JMETER_JVM overrides; jmeter/README.md), its GC named so that it does not change
# with the CPUs JMeter sees (under CPU placement split the JVM would pick the serial GC).
JVM_OPTIONS = os.environ.get("JMETER_JVM", "-Xms4g -Xmx4g -Xss256k -XX:MaxMetaspaceSize=256m "
                             "-XX:+UseG1GC -XX:MaxGCPauseMillis=100 -XX:G1ReservePercent=20")
# Three INFO lines per thread, a thread per iteration: 30,000 synchronous writes at 10,000 users.
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
    """The one JDK's java (bankbench.machine.jdk): JDK 25 costs JMeter a tenth less CPU than 17."""
    return str(jdk.java_home() / "bin" / "java")


def version() -> str:
    return installation()[1].removeprefix("ApacheJMeter-").removesuffix(".jar")


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
    return ({"jmeter": version(), "jmeter_options": [*JVM_OPTIONS.split(), *LOG_LEVELS],
             "java": [java(), jdk.release_version(jdk.java_home())]}, (SETTINGS, paths.PLAN))
