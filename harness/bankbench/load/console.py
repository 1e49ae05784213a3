"""A load generator's console as the harness follows it: when the load began, its totals.

JMeter and Gatling both print JMeter's console lines (gatling/README.md), so one reader follows
either: when the load began, its totals.

See gatling/README.md#what-it-prints-stdout."""

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bankbench.errors import UserError

# The summariser's lines: "summary +" for the last interval, "summary =" for the totals so far.
INTERVAL = re.compile(r"summary \+.*Active:\s+(\d+)")
TOTAL = re.compile(r"summary =\s+(\d+) in .*?Err:\s+(\d+)")
# "Starting standalone test @ 2026 Nov 22 01:21:50 UTC (1795310510477)": when the load begins.
STARTED = re.compile(r"Starting standalone test @ .*\((\d+)\)")


@dataclass
class Progress:
    started_ms: int | None = None
    requests: int = 0
    errors: int = 0
    active: int = 0


class Driver:
    """One run of a generator: `cmd` in `cwd`, samples to `results`, console to `log` if given."""

    name: str  # the generator's name, for messages (profiles.GENERATORS)

    def __init__(self, cmd: list[str], cwd: Path, results: Path, log: Path | None = None):
        self.results, self.log = results, log
        self.progress = Progress()
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     bufsize=1)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def lines(self):
        """Yields the generator's console lines, updating `progress` from them."""
        assert self.proc.stdout is not None
        with open(self.log or os.devnull, "a") as log:
            for line in self.proc.stdout:
                log.write(line)
                if match := STARTED.search(line):
                    self.progress.started_ms = int(match.group(1))
                elif match := INTERVAL.search(line):
                    self.progress.active = int(match.group(1))
                elif match := TOTAL.search(line):
                    self.progress.requests, self.progress.errors = map(int, match.groups())
                yield line.rstrip("\n")

    def sampled(self) -> bool:
        """Whether the run wrote a sample: a generator whose iterations all died before their
        first request (JMeter's plan on a JDK its script engine cannot compile for) exits 0 too."""
        if not self.results.exists():
            return False
        with open(self.results) as samples:
            samples.readline()  # the header
            return bool(samples.readline())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise UserError(f"{self.name} did not finish within {timeout:.0f} s; killed") from None
