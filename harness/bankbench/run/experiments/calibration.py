"""The load generator's calibration: what it drives on the run's CPUs, per load.

load.validity judges each level by it. Per load of a run (a user count), what the profile's
generator drives on the run's CPUs against the calibration target (jmeter/calibrate: the plan's
answers at almost no cost). Cached in .run/calibration/ unless other work kept the machine busy
(OTHER_CPU_MAX): it lost CPU to that work, not the plan.

See docs/method.md#a-load-generator-that-is-never-the-bottleneck and
jmeter/README.md#calibration-what-jmeter-can-drive-here."""

import hashlib
import json
import os
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from bankbench import paths
from bankbench.analyse import levels
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.load import gatling, generators, jmeter, validity
from bankbench.load.profiles import GENERATORS, Level
from bankbench.machine.placement import SHARED, Placement
from bankbench.machine.postgres import free_port
from bankbench.measure import manifest, resources
from bankbench.results import files, histograms, runs
from bankbench.results.documents import Calibration, LevelRecord

TARGET = paths.JMETER / "calibrate" / "bin" / "calibrate"  # built by `make build`
CACHE = paths.STATE / "calibration"
OTHER_CPU_MAX = 30  # % of a core used by neither the generator nor the target: beyond, not cached
# A longer level is calibrated over its first MAX_S, as long as an efficiency level measures: the
# generator's pace at a load shows by then, and a soak's half hour of it would double the soak.
MAX_S = 30


def calibrate(levels: list[Level], placement: Placement, run_dir: Path | None = None,
              force: bool = False) -> dict[int, Calibration]:
    """Each load's calibration by user count, cached or measured now, added to `run_dir`'s when
    given. The caller has pinned this process to the load generator's CPUs (pin_harness)."""
    loads = {level.users: _within(level) for level in reversed(levels)}  # the first level of each load
    keys = {users: cache_key(level, placement) for users, level in loads.items()}
    todo = [users for users in loads if force or not (CACHE / f"{keys[users][0]}.json").exists()]
    if todo:
        minutes = sum(loads[users].expected_s + 10 for users in todo) / 60
        name = GENERATORS[levels[0].profile.generator]
        print(f"calibration: {name} against the calibration target for {len(todo)} load(s) (users "
              f"{', '.join(map(str, todo))}), up to {minutes:.1f} min; cached after", flush=True)
    found = {}
    for users in sorted(loads):
        key, inputs = keys[users]
        path = CACHE / f"{key}.json"
        if users not in todo:
            found[users] = Calibration.of(files.read_json(path)["figures"])
        else:
            figures = measure(loads[users], placement, key)
            if figures["other_cpu_mean"] is not None and figures["other_cpu_mean"] > OTHER_CPU_MAX:
                print(f"calibration u{users}: WARNING: other work used {figures['other_cpu_mean']:.0f} % of "
                      "a core meanwhile: not cached, measure again on a quiet machine", flush=True)
            else:
                CACHE.mkdir(parents=True, exist_ok=True)
                files.write_json(path, {"inputs": inputs, "figures": figures})
            found[users] = Calibration.of(figures)
        print(f"calibration u{users}: {describe(found[users])}", flush=True)
    if run_dir is not None:
        record = run_dir / files.CALIBRATION
        before = files.read_json(record)["loads"] if record.exists() else {}
        kept = {**{int(users): figures for users, figures in before.items()},
                **{users: figures.document for users, figures in found.items()}}
        files.write_json(record, {
            "target": str(TARGET.relative_to(paths.ROOT)), "cpu_placement": placement.as_dict(),
            "jmeter_jvm": jmeter.JVM_OPTIONS, "gatling_jvm": gatling.JVM_OPTIONS,
            "loads": {str(users): kept[users] for users in sorted(kept)}})
    return found


def _within(level: Level) -> Level:
    """`level` over MAX_S at most: its duration, and its one phase (a soak's), cut short."""
    p = level.profile
    if p.duration_s <= MAX_S or len(p.phases) > 1:
        return level
    phases = [[min(seconds, MAX_S), multiple] for seconds, multiple in p.phases]
    return replace(level, profile=replace(p, duration_s=MAX_S, phases=phases))


def cache_key(level: Level, placement: Placement) -> tuple[str, dict]:
    """The digest of everything a calibration depends on, and those inputs."""
    machine = manifest.machine()
    generator, files = generators.cache_inputs(level.profile.generator)
    inputs = {
        "load_properties": level.load_properties(),
        "cpu_placement": {"mode": placement.mode, "loadgen": list(placement.loadgen),
                          "service": list(placement.service), "postgres": list(placement.postgres)},
        **generator,
        **{f"sha256 {path.relative_to(paths.ROOT)}": _sha256(path) for path in (*files, TARGET)},
        "machine": {name: machine[name] for name in ("cpu_model", "cores", "memory_gb")},
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:20], inputs


def _sha256(path: Path) -> str:
    if not path.exists():
        raise UserError(f"{path.relative_to(paths.ROOT)} is missing: run `make build jmeter-install`")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def measure(level: Level, placement: Placement, key: str) -> dict:
    """Runs the level's load generator against the calibration target; returns what it achieved."""
    with tempfile.TemporaryDirectory(prefix="bankbench-calibration-") as work:
        out = Path(work)
        run = drive(level, placement, out)
        samples = out / generators.MODULES[level.profile.generator].SAMPLES
        requests = histograms.from_samples(histograms.read_samples(samples), run.measure_from_ms)
        figures = levels.generator_figures(run, requests, files.read_metrics(out))
    # The machine's CPU is in % of all its CPUs, the processes' in % of one core.
    machine, ours = figures["machine_cpu_mean"], (figures["loadgen_cpu_mean"] or 0) + (figures["service_cpu_mean"] or 0)
    other = None if machine is None else round(machine * (os.cpu_count() or 1) - ours, 1)
    return {"users": level.users, "generator": level.profile.generator, **figures, "other_cpu_mean": other,
            "calibrated_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "key": key}


def drive(level: Level, placement: Placement, out: Path) -> LevelRecord:
    """Runs the level's load against the calibration target into `out`; returns its level record."""
    hot = level.profile.hot_accounts if level.profile.scenario == "contention" else 0
    target = processes.Service("calibrate", (str(TARGET),), (("HOT_ACCOUNTS", str(hot)),)).start(
        port=free_port(), pool=1, db_env={}, log=out / "target.log", cpus=placement.service_cpus)
    sampler = resources.Sampler(files.metrics_path(out), resources.Tree(target.pid), resources.Tree(None))
    jm = None
    try:
        sampler.start()
        jm = generators.start(level.profile.generator, {**level.load_properties(), "host": "127.0.0.1",
                                                        "port": target.url.rsplit(":", 1)[1]}, out)
        sampler.watch("loadgen", jm.pid)
        for _ in jm.lines():
            pass
        rc = jm.wait(timeout=level.expected_s + 300)
        ended_ms = int(time.time() * 1000)
    finally:
        sampler.stop()
        if jm:
            jm.stop()
        target.stop()
    if rc != 0 or not jm.sampled() or jm.progress.started_ms is None:
        log = out / generators.MODULES[level.profile.generator].LOG
        raise UserError(f"calibration u{level.users}: {jm.name} failed (exit {rc}):\n" + log.read_text()[-3000:])
    own_cpus = {"loadgen_cpus": len(placement.loadgen)} if placement.mode != SHARED else {}
    return runs.level_record(level, jm.progress.started_ms, ended_ms, 0, **own_cpus)


def brief(figures: Calibration | None) -> str:
    """A calibration in a few words, for the progress lines; "not calibrated" without one."""
    if figures is None:
        return "not calibrated"
    cpu = validity.cpu_text(figures.loadgen_cpu_mean, figures.loadgen_cpus, figures.machine_cpu_mean)
    offered = "" if figures.drives_plan is None else f", offered {figures.offered_pct:.1f} % of the plan"
    return f"{validity.name(figures.generator)} drove {figures.throughput_rps:.0f} req/s{offered} at {cpu}"


def describe(figures: Calibration) -> str:
    """A calibration in a sentence: what the generator drove, offered and used, and what that says."""
    if figures.drives_plan is None and not figures.loadgen_saturated:
        generator = validity.name(figures.generator)
        verdict = f"the users' think time, not {generator}'s CPU, bounds this closed loop"
    elif figures.drives_plan is None:
        verdict = (f"the most this closed loop drives here, a level at {validity.CALIBRATED_SHARE_MAX} % "
                   "of it is invalid")
    else:
        verdict = (f"it drives the planned {figures.planned_rate:g} iterations/s" if figures.drives_plan
                   else f"the planned {figures.planned_rate:g} iterations/s are BEYOND the generator")
    errors = f"; {figures.errors} requests failed against the target" if figures.errors else ""
    return f"{brief(figures)}: {verdict}{errors}"
