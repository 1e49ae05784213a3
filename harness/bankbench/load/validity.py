"""Whether the load generator, not the service, set a level's figures: the validity gate.

The rules: docs/method.md#a-load-generator-that-is-never-the-bottleneck. A level breaking one is
invalid, says why, and is left out of every median and verdict. Short of CPU: a mean of one-second
samples stays below 100 % even with a full run queue. Offered: iterations (a JMeter thread each)
over the planned window or their starts' span plus an interval where JMeter fell behind; it places
exactly floor(rate x duration) random arrivals: a short count is its doing; each phase too (issue
35). Beyond calibration: what it drove against the near-free target bounds it."""

from collections.abc import Mapping, Sequence
from typing import Protocol

from bankbench.load.profiles import GENERATORS

SATURATED_CPU_PCT = 80  # % of the generator's own CPUs, or of the machine when shared
OFFERED_MIN_PCT = 99  # % of the planned arrival rate
CALIBRATED_SHARE_MAX = 90  # % of the calibration's requests/s, under the sustained model


class Calibrated(Protocol):
    """What the verdict reads of a calibration: bankbench.results.documents.Calibration."""

    @property
    def throughput_rps(self) -> float | None: ...
    @property
    def loadgen_cpu_mean(self) -> float | None: ...
    @property
    def machine_cpu_mean(self) -> float | None: ...
    @property
    def loadgen_cpus(self) -> int | None: ...
    @property
    def loadgen_saturated(self) -> bool: ...
    @property
    def drives_plan(self) -> bool | None: ...
    @property
    def offered_pct(self) -> float | None: ...


class Recorded(Protocol):
    """What the verdict reads of a level: its level.json, bankbench.results.documents.LevelRecord."""

    @property
    def generator(self) -> str: ...
    @property
    def loadgen_cpus(self) -> int | None: ...
    @property
    def loadgen_peers(self) -> Sequence[str]: ...
    @property
    def calibration(self) -> Calibrated | None: ...


def saturated(loadgen_cpu: float | None, loadgen_cpus: int | None, machine_cpu: float | None,
              service_cpu: float | None) -> bool:
    """Whether JMeter was short of CPU; figures are means in % of one core (the machine's in % of
    all), `loadgen_cpus` None where it shared them."""
    if loadgen_cpus:
        return loadgen_cpu is not None and loadgen_cpu >= SATURATED_CPU_PCT * loadgen_cpus
    if machine_cpu is None or loadgen_cpu is None or service_cpu is None:
        return False
    return machine_cpu >= SATURATED_CPU_PCT and loadgen_cpu >= service_cpu


def busy(figures: Mapping[str, float | None], peers: Sequence[str], column: str) -> float | None:
    """The CPU of the generator and its `peers` (PostgreSQL under service-alone), from the keys
    `column` names ("{}_cpu_mean"), in % of one core; None without one."""
    values = [figures.get(column.format(name)) for name in ("loadgen", *peers)]
    measured = [value for value in values if value is not None]
    return None if len(measured) < len(values) else sum(measured)


def cpu_text(loadgen_cpu: float | None, loadgen_cpus: int | None, machine_cpu: float | None,
             with_peers: float | None = None) -> str:
    """JMeter's CPU in words: "62 % of its 1 CPU", with PostgreSQL beside it (`with_peers`, its
    `busy`), or the machine's when it shared the CPUs."""
    if loadgen_cpu is None:
        return "CPU not measured"
    if loadgen_cpus:
        own = f"{loadgen_cpu / loadgen_cpus:.0f} % of its {loadgen_cpus} CPU{'s' if loadgen_cpus > 1 else ''}"
        if with_peers is None:
            return own
        return f"{own}, {with_peers / loadgen_cpus:.0f} % with PostgreSQL beside it"
    return f"{loadgen_cpu:.0f} % of a core, the machine {machine_cpu or 0:.0f} % busy"


def level_cpu_text(level: Recorded, resources: dict) -> str:
    peers = level.loadgen_peers
    return cpu_text(resources["loadgen_cpu_mean"], level.loadgen_cpus, resources["machine_cpu_mean"],
                    busy(resources, peers, "{}_cpu_mean") if peers else None)


def offered(iterations: int, first_ms: float, last_ms: float, rate: float, window_s: float) -> dict:
    """The rate offered against the plan's `rate` over `window_s`, from the first and last start
    (epoch ms)."""
    span_s = (last_ms - first_ms) / 1000 + 1 / rate if iterations else 0.0
    offered_rate = iterations / max(window_s, span_s)
    return {"planned_rate": rate, "offered_rate": round(offered_rate, 3),
            "offered_pct": round(100 * offered_rate / rate, 2), "min_offered_pct": OFFERED_MIN_PCT,
            "iterations": iterations, "planned_iterations": round(rate * window_s)}


def short_of_plan(figures: dict | None) -> bool:
    return figures is not None and figures["offered_pct"] < figures["min_offered_pct"]


def shortfall(figures: dict | None, where: str = "") -> str | None:
    """Why `offered` figures fell below their bar, `where` naming the part of the load."""
    if figures is None or not short_of_plan(figures):
        return None
    return f"offered {figures['offered_pct']:.1f} % of the planned {figures['planned_rate']:g} iterations/s{where}"


def drives_plan(figures: dict) -> bool | None:
    """Whether a calibration offered its planned rate, not short of CPU; None: no planned rate."""
    if figures.get("offered_pct") is None:
        return None
    return not figures["loadgen_saturated"] and not short_of_plan(figures)


def name(generator: str | None) -> str:
    """JMeter for records from before there were two generators."""
    return GENERATORS[generator or "jmeter"]


def beyond_calibration(calibration: Calibrated | None, throughput_rps: float | None,
                       generator: str = "JMeter") -> str | None:
    """Why the calibration says this level asks more than the `generator` can drive, or None."""
    if calibration is None:
        return None
    if calibration.drives_plan is False:
        cpu = cpu_text(calibration.loadgen_cpu_mean, calibration.loadgen_cpus, calibration.machine_cpu_mean)
        return (f"the plan is beyond what {generator} drove against the calibration target (offered "
                f"{calibration.offered_pct:.1f} % of it there, {cpu})")
    ceiling = calibration.throughput_rps
    if calibration.drives_plan is None and calibration.loadgen_saturated and throughput_rps and ceiling \
            and throughput_rps >= ceiling * CALIBRATED_SHARE_MAX / 100:
        return (f"{throughput_rps:.0f} req/s is {100 * throughput_rps / ceiling:.0f} % of the "
                f"{ceiling:.0f} req/s {generator} drove against the calibration target")
    return None


def judge(level: Recorded, resources: dict | None, arrivals: dict | None, throughput_rps: float | None,
          phases: Sequence[dict] = ()) -> dict:
    """`valid`, the `reasons` it is not, the `offered` figures and the calibration's requests/s;
    `resources` is None where not known yet (AWS), `phases` each measured phase's `offered`."""
    reasons = []
    if resources and resources.get("loadgen_saturated"):
        reasons.append(f"{name(level.generator)} short of CPU ({level_cpu_text(level, resources)})")
    phased = [shortfall(phase, f" in phase {n} ({phase['seconds']} s at {phase['multiple']:g}x)")
              for n, phase in enumerate(phases, 1)]
    calibration = level.calibration
    beyond = beyond_calibration(calibration, throughput_rps, name(level.generator))
    reasons += [why for why in (shortfall(arrivals), *phased, beyond) if why]
    return {"valid": not reasons, "reasons": "; ".join(reasons), **(arrivals or {}),
            "calibrated_rps": calibration.throughput_rps if calibration else None}
