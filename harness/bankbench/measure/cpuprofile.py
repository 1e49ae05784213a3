"""A CPU profile of one benchmark level (PROFILE_CPU=1), drawn as a flame graph.

Drawn in the level's folder: pprof fetched from the service's own loopback port (PPROF_ADDR) for the
measured window; JFR started through JDK_JAVA_OPTIONS (the command line stays as it is) and cut to
the window when drawn.

See docs/benchmarks.md#inside-the-services."""

import threading
import time
from collections.abc import Callable
from pathlib import Path

from bankbench import registry
from bankbench.errors import UserError
from bankbench.machine.postgres import free_port
from bankbench.measure import flamegraph


class LevelProfile:
    """Records the CPU profile of the service of one level into `out`."""

    def __init__(self, service: str, out: Path):
        self.kind = registry.get(service).profiler
        if self.kind not in flamegraph.KINDS:
            raise UserError(f"PROFILE_CPU=1: {service} has no CPU profiler (profiler: {self.kind} "
                            "in its registry entry)")
        self.out = out
        self.recording = out / f"cpu.{self.kind}"
        self.pprof_addr = f"127.0.0.1:{free_port()}"
        self.fetcher: threading.Thread | None = None
        self.error: Exception | None = None

    def env(self) -> dict[str, str]:
        """What the service's environment needs for the profile to be recorded."""
        if self.kind == "pprof":
            return {"PPROF_ADDR": self.pprof_addr}
        return {"JDK_JAVA_OPTIONS": " ".join(flamegraph.java_options(self.recording, cpu_time=True))}

    def measure(self, started_ms: Callable[[], int | None], offset_s: int, seconds: int) -> None:
        """pprof: fetches, in the background, the `seconds` from `offset_s` after the load started
        (`started_ms()`, None until it has). JFR records all along: render() cuts the window."""
        if self.kind != "pprof":
            return

        def fetch() -> None:
            while (started := started_ms()) is None:
                time.sleep(0.2)
            time.sleep(max(started / 1000 + offset_s - time.time(), 0))
            try:
                flamegraph.fetch_go_profile(self.pprof_addr, seconds, self.recording)
            except Exception as err:  # reported by render(), after the level's own figures
                self.error = err

        self.fetcher = threading.Thread(target=fetch, daemon=True)
        self.fetcher.start()

    def render(self, window_ms: tuple[int, int], title: str) -> Path:
        """Draws the measured window, once the service has stopped (the JVM writes JFR at exit)."""
        if self.fetcher:
            self.fetcher.join()
        if self.error:
            raise self.error
        window = (window_ms[0] / 1000, window_ms[1] / 1000) if self.kind == "jfr" else None
        return flamegraph.render(self.recording, self.out / "flamegraph.html", self.kind,
                                 title=title, window=window)
