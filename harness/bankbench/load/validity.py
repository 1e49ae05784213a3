"""Whether the load generator, not the service, set a level's figures: the rules that the level's
progress and closing lines, level.json, the summaries and the calibration all apply. A level that
breaks one is invalid: it says why, and its figures are left out of every median and verdict
(bankbench.results.levels).

- Short of CPU (`saturated`): with CPUs of its own (CPU placement split), JMeter used at least
  SATURATED_CPU_PCT % of them on average (under service-alone, where PostgreSQL runs on them
  too, JMeter and PostgreSQL together: `busy`, and the verdict's words say both); sharing them
  with the service, the machine was that busy and JMeter used at least as much CPU as the
  service: the machine was full and JMeter took a large share of it. (A mean of one-second
  samples stays below 100 % even with a full run queue.)
- Offered less than planned (`offered`): the article and open models plan an arrival rate
  (bankbench.load.profiles.Level.arrivals). There every iteration is a JMeter thread of its own,
  so the iterations are the distinct thread names of the results (in JMeter's distributed mode
  each worker prefixes them with its host), each starting with its thread's first sample. The
  rate offered is their count over the planned window, or over the span of their starts plus
  one planned interval where that took longer (JMeter fell behind). Below OFFERED_MIN_PCT % of
  the planned rate the level did not get the load it names. The open model's random arrivals
  need no allowance: JMeter places exactly floor(rate x duration) of them in the window, at random
  times (its PoissonArrivalsRamp), so a short count is the generator's doing. A level with phases
  (profile overload, Gatling) is held to the same bar in each measured phase too, on the
  iterations started within its seconds against its rate: an average over the level hides a
  phase in which the generator stalled (issue 35).
- Beyond calibration (`beyond_calibration`): the calibration
  (bankbench.run.experiments.calibration) ran the same plan with the same properties on the same
  CPUs against a target that costs almost nothing. A planned rate that JMeter did not offer there,
  or offered short of CPU, is more than it can drive here. The sustained model plans no rate (a
  closed loop): where JMeter ran short of CPU in calibration, a level whose throughput reached
  CALIBRATED_SHARE_MAX % of the requests/s it drove there had the generator at its ceiling. (Where
  it did not, its users' think time bounded the calibration, and a service that keeps up with it is
  doing well.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from bankbench.load.profiles import GENERATORS

SATURATED_CPU_PCT = 80  # % of the generator's own CPUs, or of the machine when shared
OFFERED_MIN_PCT = 99  # % of the planned arrival rate
CALIBRATED_SHARE_MAX = 90  # % of the calibration's requests/s, under the sustained model


class Recorded(Protocol):
    """What the verdict reads of a level: its level.json, bankbench.results.documents.LevelRecord."""

    @property
    def generator(self) -> str: ...
    @property
    def loadgen_cpus(self) -> int | None: ...
    @property
    def loadgen_peers(self) -> Sequence[str]: ...
    @property
    def calibration(self) -> dict | None: ...


def saturated(loadgen_cpu: float | None, loadgen_cpus: int | None, machine_cpu: float | None,
              service_cpu: float | None) -> bool:
    """Whether JMeter was short of CPU (see the module doc). CPU figures are means in % of one
    core (the machine's in % of all); `loadgen_cpus` is how many it had to itself, None when
    it shared them."""
    if loadgen_cpus:
        return loadgen_cpu is not None and loadgen_cpu >= SATURATED_CPU_PCT * loadgen_cpus
    return (None not in (machine_cpu, loadgen_cpu, service_cpu)
            and machine_cpu >= SATURATED_CPU_PCT and loadgen_cpu >= service_cpu)


def busy(figures: Mapping[str, float | None], peers: Sequence[str], column: str) -> float | None:
    """The CPU the generator's CPUs spent, in % of one core: the generator's and that of the
    processes beside it there (`peers`, level.json's `loadgen_peers`: PostgreSQL under
    service-alone), from the `figures` whose keys `column` names ("{}_cpu_mean"); None without one."""
    values = [figures.get(column.format(name)) for name in ("loadgen", *peers)]
    return None if None in values else sum(values)


def cpu_text(loadgen_cpu: float | None, loadgen_cpus: int | None, machine_cpu: float | None,
             with_peers: float | None = None) -> str:
    """JMeter's CPU in words: "62 % of its 1 CPU", then how busy those CPUs were with PostgreSQL
    beside it where it was (`with_peers`, its `busy`: what `saturated` is given then), or of the
    machine when it shared the CPUs."""
    if loadgen_cpu is None:
        return "CPU not measured"
    if loadgen_cpus:
        own = f"{loadgen_cpu / loadgen_cpus:.0f} % of its {loadgen_cpus} CPU{'s' if loadgen_cpus > 1 else ''}"
        if with_peers is None:
            return own
        return f"{own}, {with_peers / loadgen_cpus:.0f} % with PostgreSQL beside it"
    return f"{loadgen_cpu:.0f} % of a core, the machine {machine_cpu or 0:.0f} % busy"


def level_cpu_text(level: Recorded, resources: dict) -> str:
    """`cpu_text` of a level from its summary's `resources`."""
    peers = level.loadgen_peers
    return cpu_text(resources["loadgen_cpu_mean"], level.loadgen_cpus, resources["machine_cpu_mean"],
                    busy(resources, peers, "{}_cpu_mean") if peers else None)


def offered(iterations: int, first_ms: float, last_ms: float, arrivals: dict | None) -> dict | None:
    """The arrival rate the generator offered against the plan's (see the module doc), from the
    `iterations` of the whole load and the earliest and latest of their starts (epoch ms); None
    where the level plans no rate."""
    if not arrivals:
        return None
    rate, window_s = arrivals["rate"], arrivals["window_s"]
    planned = rate * window_s
    span_s = (last_ms - first_ms) / 1000 + 1 / rate if iterations else 0.0
    offered_rate = iterations / max(window_s, span_s)
    return {"planned_rate": rate, "offered_rate": round(offered_rate, 3),
            "offered_pct": round(100 * offered_rate / rate, 2),
            "min_offered_pct": OFFERED_MIN_PCT,
            "iterations": iterations, "planned_iterations": round(planned)}


def short_of_plan(figures: dict | None) -> bool:
    """Whether `offered` figures fell below their bar."""
    return figures is not None and figures["offered_pct"] < figures["min_offered_pct"]


def shortfall(figures: dict | None, where: str = "") -> str | None:
    """Why `offered` figures fell below their bar, in words, `where` naming the part of the load
    they are of; None where they did not."""
    if not short_of_plan(figures):
        return None
    return f"offered {figures['offered_pct']:.1f} % of the planned {figures['planned_rate']:g} iterations/s{where}"


def drives_plan(figures: dict) -> bool | None:
    """From a calibration's figures (`offered` and the resources' `loadgen_saturated`): whether
    JMeter offered the planned rate without running short of CPU; None where the level plans
    no rate."""
    if figures.get("offered_pct") is None:
        return None
    return not figures["loadgen_saturated"] and not short_of_plan(figures)


def name(generator: str | None) -> str:
    """A load generator's name (profiles.GENERATORS); JMeter for records from before there were two."""
    return GENERATORS[generator or "jmeter"]


def beyond_calibration(calibration: dict | None, throughput_rps: float | None, generator: str = "JMeter") -> str | None:
    """Why the calibration says this level asks more than the `generator` can drive, or None."""
    if not calibration:
        return None
    if calibration["drives_plan"] is False:
        cpu = cpu_text(calibration["loadgen_cpu_mean"], calibration["loadgen_cpus"], calibration["machine_cpu_mean"])
        return (f"the plan is beyond what {generator} drove against the calibration target (offered "
                f"{calibration['offered_pct']:.1f} % of it there, {cpu})")
    ceiling = calibration["throughput_rps"]
    if calibration["drives_plan"] is None and calibration["loadgen_saturated"] and throughput_rps and ceiling \
            and throughput_rps >= ceiling * CALIBRATED_SHARE_MAX / 100:
        return (f"{throughput_rps:.0f} req/s is {100 * throughput_rps / ceiling:.0f} % of the "
                f"{ceiling:.0f} req/s {generator} drove against the calibration target")
    return None


def judge(level: Recorded, resources: dict | None, arrivals: dict | None, throughput_rps: float | None,
          phases: Sequence[dict] = ()) -> dict:
    """The verdict on a level: `valid`, the `reasons` it is not ("" when it is), the `offered`
    figures and the calibration's requests/s. `level` is level.json (its `calibration` where the
    run was calibrated, `loadgen_cpus` under CPU placement split); `resources` the summary's
    CPU figures, None where they are not known yet (AWS, before its run ends); `phases` the
    `offered` figures of each measured phase of a level with phases, in order, each with its
    `seconds` and `multiple`."""
    reasons = []
    if resources and resources.get("loadgen_saturated"):
        reasons.append(f"{name(level.generator)} short of CPU ({level_cpu_text(level, resources)})")
    shortfalls = [shortfall(arrivals)] + [
        shortfall(phase, f" in phase {n} ({phase['seconds']} s at {phase['multiple']:g}x)")
        for n, phase in enumerate(phases, 1)]
    reasons += [why for why in shortfalls if why]
    calibration = level.calibration
    if beyond := beyond_calibration(calibration, throughput_rps, name(level.generator)):
        reasons.append(beyond)
    return {"valid": not reasons, "reasons": "; ".join(reasons), **(arrivals or {}),
            "calibrated_rps": calibration["throughput_rps"] if calibration else None}
