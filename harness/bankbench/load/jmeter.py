"""JMeter 5.6.3 in CLI mode, as installed by jmeter-maven-plugin (`make jmeter-install`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.tools import jdk

SETTINGS = paths.JMETER / "bankbench.properties"
# A level's raw samples as kept in its folder, gzipped; git ignores them (results/LAYOUT.md): the
# analysis reads the histograms folded from them (bankbench.load.histograms).
LEVEL_SAMPLES = "jmeter.csv.gz"
# JMeter's JVM options (JMETER_JVM overrides): those of JMeter's own launcher (bin/jmeter: G1
# with short pauses, a metaspace bound), with a fixed heap large enough for thousands of threads
# (Xms = Xmx: no resizing under load) and a small stack each. The GC is named so that it does not
# change with the CPUs JMeter sees (one under CPU placement split would pick the serial GC).
JVM_OPTIONS = os.environ.get("JMETER_JVM", "-Xms4g -Xmx4g -Xss256k -XX:MaxMetaspaceSize=256m "
                             "-XX:+UseG1GC -XX:MaxGCPauseMillis=100 -XX:G1ReservePercent=20")
# Three INFO lines per JMeter thread (started, done, finished), and the article and open models
# start a thread per iteration: 30,000 synchronous log writes at 10,000 users.
LOG_LEVELS = ("-Lorg.apache.jmeter.threads.JMeterThread=WARN",)
# The summariser's lines (summariser.* in jmeter/bankbench.properties): "summary +" for the last
# interval, with "Active: N", and "summary =" for the totals so far.
INTERVAL = re.compile(r"summary \+.*Active:\s+(\d+)")
TOTAL = re.compile(r"summary =\s+(\d+) in .*?Err:\s+(\d+)")
# "Starting standalone test @ 2026 Nov 22 01:21:50 UTC (1795310510477)": when the load begins.
STARTED = re.compile(r"Starting standalone test @ .*\((\d+)\)")


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
    """The java that runs JMeter: that of the one JDK (bankbench.tools.jdk), 21 or newer. On the
    same plan at the article's largest arrival rate JDK 25 used about a tenth less CPU than the
    machine's default JDK 17 (jmeter/README.md)."""
    return str(jdk.java_home() / "bin" / "java")


def version() -> str:
    _, jar = installation()
    return jar.removeprefix("ApacheJMeter-").removesuffix(".jar")


@dataclass
class Progress:
    started_ms: int | None = None
    requests: int = 0
    errors: int = 0
    active: int = 0


class Run:
    """One JMeter run of the plan: results CSV, log and HTML dashboard into `out`."""

    def __init__(self, properties: dict[str, object], out: Path, dashboard: bool = True):
        home, jar = installation()
        out.mkdir(parents=True, exist_ok=True)
        self.results = out / "jmeter.csv"
        cmd = [java(), *JVM_OPTIONS.split(),
               "-jar", str(home / "bin" / jar), "-n", "-t", str(paths.PLAN), "-q", str(SETTINGS), *LOG_LEVELS,
               "-l", str(self.results), "-j", str(out / "jmeter.log"),
               *(f"-J{k}={v}" for k, v in properties.items())]
        if dashboard:
            cmd += ["-e", "-o", str(out / "dashboard")]
        self.progress = Progress()
        self.proc = subprocess.Popen(cmd, cwd=home / "bin", stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def lines(self):
        """Yields JMeter's console lines, updating `progress` from them."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if match := STARTED.search(line):
                self.progress.started_ms = int(match.group(1))
            elif match := INTERVAL.search(line):
                self.progress.active = int(match.group(1))
            elif match := TOTAL.search(line):
                self.progress.requests, self.progress.errors = map(int, match.groups())
            yield line.rstrip("\n")

    def stop(self) -> None:
        """Ends a JMeter still running (the level was interrupted); nothing if it is done."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise UserError(f"JMeter did not finish within {timeout:.0f} s; killed") from None
