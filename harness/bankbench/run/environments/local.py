"""What native and compose share: the load and the samplers on this machine.

What native and compose share: the load generator is calibrated and runs here on the placement's
CPUs; the service and PostgreSQL are sampled, /metrics scraped, faults and CPU profiles taken.

See docs/benchmarks.md#how-a-level-runs and docs/benchmarks.md#cpu-placement."""

import gzip
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, Required, TypedDict

from bankbench import config
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.load import gatling, generators, jmeter, validity
from bankbench.load.console import Driver
from bankbench.load.profiles import Level
from bankbench.machine.placement import SHARED, allowed
from bankbench.measure import cpuprofile, manifest
from bankbench.measure.resources import Measured, Sampler
from bankbench.measure.scrape import Scraper
from bankbench.results import files
from bankbench.results.documents import Calibration
from bankbench.run.environments.interface import Options, Service
from bankbench.run.experiments import calibration, chaos


class LocalService(Service, Protocol):
    """A service on this machine: a process (native) or a container (compose), its main process `pid`."""

    @property
    def pid(self) -> int: ...


class LevelSettings(TypedDict, total=False):
    """What level.json adds of the placement: the generator's CPUs and peers, unless it shared them."""

    cpu_placement: Required[str]
    loadgen_cpus: int
    loadgen_peers: list[str]


class Local:
    """Opening one pins the harness, so the load generator, to its CPUs; the runner undoes it. Native
    and Compose give what is theirs: PostgreSQL's pid, how to measure a pid, versions, Java's settings."""

    name: str
    local_build = True
    measure: Callable[[int], Measured]  # what the sampler measures of a pid

    def __init__(self, opts: Options, run_id: str):
        self.opts, self.run_id, self.placement = opts, run_id, opts.placement
        self.placement.pin_harness()
        self._versions: dict[str, str] | None = None
        self.calibration: dict[int, Calibration] = {}

    def versions(self, postgresql: str) -> dict[str, str]:
        """Read once: the build and the images do not change during a run."""
        if self._versions is None:
            self._versions = self.read_versions(postgresql)
        return self._versions

    def describe(self) -> str:
        return f"{self.name}, CPUs {self.placement.describe()}"

    def pg_pid(self) -> int:
        raise NotImplementedError

    def read_versions(self, postgresql: str) -> dict[str, str]:
        raise NotImplementedError

    def java_settings(self) -> dict[str, object]:
        raise NotImplementedError

    def calibrate(self, levels: list[Level], run_dir: Path) -> dict[int, Calibration]:
        found = calibration.calibrate(levels, self.placement, run_dir)
        self.calibration.update(found)
        return found

    def load(self, level: Level, out: Path) -> "LocalLoad":
        return LocalLoad(self, level, out)

    def machine(self) -> dict:
        return manifest.machine()

    def settings(self) -> dict[str, object]:
        return {"cpu_placement": self.placement.as_dict(),
                "acquire_timeout_ms": config.acquire_timeout_ms(),
                "max_concurrent_requests": config.max_concurrent_requests(),
                "jvm_options": processes.jvm_options(), **self.java_settings(),
                "jmeter_jvm": jmeter.JVM_OPTIONS, "gatling_jvm": gatling.JVM_OPTIONS}

    def level_settings(self) -> LevelSettings:
        where = self.placement
        if where.mode == SHARED:
            return {"cpu_placement": where.mode}
        settings: LevelSettings = {"cpu_placement": where.mode, "loadgen_cpus": len(where.loadgen)}
        if where.loadgen_peers:
            settings["loadgen_peers"] = list(where.loadgen_peers)
        return settings


class LocalLoad:
    def __init__(self, where: Local, level: Level, out: Path):
        self.where, self.level, self.out = where, level, out
        profile_cpu = where.opts.profile_cpu
        self.profile = cpuprofile.LevelProfile(level.service, out) if profile_cpu else None
        self.injector: chaos.Injector | None = None
        self.cpus_allowed: dict[str, str] = {}
        self.service_exit: int | None = None  # the service's exit status, had it exited by the load's end

    def service_env(self) -> dict[str, str] | None:
        return self.profile.env() if self.profile else None

    def run(self, svc: LocalService, tag: str, remaining_s: float) -> tuple[int, int]:
        level, out, where, opts = self.level, self.out, self.where, self.where.opts
        props = {**level.load_properties(), "host": "127.0.0.1", "port": svc.url.rsplit(":", 1)[1]}
        scraper = Scraper(files.scrapes_path(out), svc.url, level.service)  # GET /metrics, 1/s
        sampler = Sampler(files.metrics_path(out), where.measure(svc.pid), where.measure(where.pg_pid()))
        jm = None
        try:
            sampler.start()
            scraper.start()
            jm = generators.start(level.profile.generator, props, out, dashboard=opts.dashboard)
            sampler.watch("loadgen", jm.pid)
            # What the kernel applied, not what was asked: the proof of the placement.
            self.cpus_allowed = {"service": allowed(svc.pid), "postgres": allowed(where.pg_pid()),
                                 "loadgen": allowed(jm.pid)}
            if self.profile:
                # Up to the last arrival: the service stops once the load has drained, which may be
                # soon after it, and a profile still being recorded then is lost.
                self.profile.measure(lambda: jm.progress.started_ms, level.measure_offset_s, level.measured_s)
            self.injector = chaos.start(opts.chaos, level, where, svc, sampler,
                                        lambda: jm.progress.started_ms, out / files.SERVICE_LOG)
            self.follow(jm, sampler, tag, remaining_s)
            rc = jm.wait(timeout=level.expected_s + 300)
            if self.injector:
                self.injector.finish()  # the service is stopped next: its last restart must be over
            self.service_exit = svc.exit_code()  # before the harness stops it: did it die under the load?
            ended_ms = int(time.time() * 1000)
            sampler.stop()
        finally:
            if jm:
                jm.stop()
            if scraper.is_alive():
                scraper.stop()
        started_ms = jm.progress.started_ms
        if rc != 0 or not jm.sampled() or started_ms is None:
            raise UserError(f"{jm.name} failed (exit {rc}) for {level.id}: see its log in {out}")
        csv, gz = jm.results, jm.results.with_suffix(".csv.gz")
        with open(csv, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst)
        csv.unlink()
        return started_ms, ended_ms

    def follow(self, jm: Driver, sampler: Sampler, tag: str, remaining_s: float) -> None:
        """Prints a progress line, with the verdict so far, each time the generator reports."""
        level = self.level
        for line in jm.lines():
            if not line.startswith("summary =") or jm.progress.started_ms is None:
                if "error" in line.lower() or "exception" in line.lower():
                    print(f"    {jm.name.lower()}: {line}", flush=True)
                continue
            elapsed = time.time() - jm.progress.started_ms / 1000
            pr = jm.progress
            print(f"{tag} {level.id} users={level.users} {elapsed:4.0f}/{level.expected_s} s, "
                  f"~{max(remaining_s - elapsed, 0) / 60:.1f} min left in run, "
                  f"requests {pr.requests}, errors {pr.errors}, active {pr.active}; "
                  f"{self.generator_so_far(sampler, jm)}", flush=True)

    def generator_so_far(self, sampler: Sampler, jm: Driver) -> str:
        """The load generator's verdict so far: its CPU since the load began, its calibration."""
        cal = self.where.calibration.get(self.level.users)
        settings = self.where.level_settings()
        loadgen_cpus = settings.get("loadgen_cpus")
        means = sampler.means(jm.progress.started_ms or 0)
        reasons = [why for why in (validity.beyond_calibration(cal, None, jm.name),) if why]
        if means is None:
            cpu = "CPU not measured yet"
        else:
            peers = settings.get("loadgen_peers", ())
            busy = validity.busy(means, peers, "{}_cpu_pct")
            cpu = validity.cpu_text(means["loadgen_cpu_pct"], loadgen_cpus, means["machine_cpu_pct"],
                                     busy if peers else None)
            if validity.saturated(busy, loadgen_cpus, means["machine_cpu_pct"], means["service_cpu_pct"]):
                reasons.insert(0, f"{jm.name} short of CPU")
        verdict = f"INVALID so far: {'; '.join(reasons)}" if reasons else "ok so far"
        return f"load generator {verdict} ({jm.name} {cpu}; calibration: {calibration.brief(cal)})"

    def finish(self, window: tuple[int, int]) -> dict[str, object]:
        """The flame graph, and what level.json adds (null service_exit: it ran throughout)."""
        if self.profile:
            measure_from_ms = window[0] + 1000 * self.level.measure_offset_s
            self.profile.render((measure_from_ms, window[1]), f"{self.level.id}: CPU of the measured window")
        faults = chaos.record(self.out, self.injector)
        return {"cpus_allowed": self.cpus_allowed, "service_exit": self.service_exit,
                **({"faults": faults} if faults else {})}
