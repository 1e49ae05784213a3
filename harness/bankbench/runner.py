"""Runs a benchmark: for each level a fresh database, the service, JMeter, the checks.

Writes results/runs/<run>/ as results/LAYOUT.md describes, printing a progress line per level.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from bankbench import analysis, chaos, cpuprofile, envs, hot, jmeter, manifest, money, paths, runs, verify
from bankbench.placement import SPLIT, Placement
from bankbench.errors import UserError
from bankbench.metrics import Sampler
from bankbench.scrape import Scraper
from bankbench.pg import SETTINGS_SQL, parse_settings
from bankbench.profiles import LOAD_MODELS, Level, Profile, levels as expand


@dataclass
class Options:
    profile: Profile
    placement: Placement  # the CPUs of the load generator and of the system under test
    pg_max_connections: int | None
    durable: bool
    dashboard: bool = True
    chaos: tuple[str, ...] = ()  # faults struck in each level (bankbench.chaos)
    profile_cpu: bool = False  # a flame graph of the service per level (bankbench.cpuprofile)


def run(opts: Options, env: str = "native") -> Path:
    """Runs every level of the profile; returns the run folder.

    The run is written under `<run>.incomplete` and renamed when its last level is done: an
    interrupted or failed run keeps that name (and says why in incomplete.json), so readers
    never take it for a result (bankbench.runs).
    """
    levels = expand(opts.profile)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    final = paths.RUNS / f"{stamp}-{env}-{opts.profile.name}"
    run_dir = runs.incomplete_dir(final)
    (run_dir / "levels").mkdir(parents=True)
    affinity = os.sched_getaffinity(0)
    opts.placement.pin_harness()  # and so JMeter: the load generator's CPUs
    try:
        where = envs.open_env(env, opts.pg_max_connections, opts.durable, opts.placement)
        try:
            _write_manifest(run_dir, final.name, opts, where)
            # First the proof that the services do the same database work (loud when not).
            verify.run(opts.profile.services, run_dir, run_dir / "verify.json")
            print(f"bankbench: {len(levels)} levels, profile {opts.profile.name} "
                  f"({LOAD_MODELS[opts.profile.model]}), CPUs {opts.placement.describe()} -> {run_dir}")
            for i, level in enumerate(levels, 1):
                _run_level(run_dir / "levels" / level.id, level, where, opts,
                           f"[{i}/{len(levels)}]", _remaining(levels[i - 1:]))
        finally:
            where.close()
    except BaseException as err:  # interrupted (Ctrl-C, SIGTERM) as much as failed
        runs.mark_incomplete(run_dir, f"{type(err).__name__}: {err}")
        raise
    finally:
        os.sched_setaffinity(0, affinity)
    run_dir.rename(final)
    return final


def _remaining(todo: list[Level]) -> float:
    """Seconds left for these levels, counting ~15 s of database reset and start-up each."""
    return sum(level.expected_s + 15 for level in todo)


def _write_manifest(run_dir: Path, run_id: str, opts: Options, where: envs.Env) -> None:
    pg = parse_settings(where.psql(SETTINGS_SQL))
    doc = manifest.document(run_id, where.name, opts.profile, manifest.machine(),
                            where.versions(pg.pop("server_version")), {
        "postgresql": {**pg, "durable": opts.durable},
        "profile_cpu": opts.profile_cpu,
        "cpu_placement": opts.placement.as_dict(),
        **where.service_settings(),
        "jmeter_jvm": jmeter.JVM_OPTIONS})
    (run_dir / "manifest.json").write_text(json.dumps(doc, indent=2) + "\n")


def _run_level(out: Path, level: Level, where: envs.Env, opts: Options, tag: str,
               remaining_s: float) -> None:
    where.reset()
    out.mkdir(parents=True)
    profile = cpuprofile.LevelProfile(level.service, out) if opts.profile_cpu else None
    svc = where.start(level.service, level.pool, out / "service.log",
                      profile.env() if profile else None)
    scraper = Scraper(out / "service_metrics.csv", svc.url, level.service)  # GET /metrics, 1/s
    jm = None
    try:
        if level.profile.scenario == "contention":
            count = level.profile.hot_accounts
            hot.check(where.psql(hot.setup_sql(count)), count)
        props = {**level.jmeter_properties(), "host": "127.0.0.1",
                 "port": svc.url.rsplit(":", 1)[1]}
        sampler = Sampler(out / "metrics.csv", where.measure(svc.pid), where.measure(where.pg_pid()))
        sampler.start()
        scraper.start()
        jm = jmeter.Run(props, out, dashboard=opts.dashboard)
        sampler.watch("loadgen", jm.pid)
        if profile:
            profile.measure(lambda: jm.progress.started_ms, level.measure_offset_s,
                            level.expected_s - level.measure_offset_s)
        injector = chaos.start(opts.chaos, level, where, svc, sampler,
                               lambda: jm.progress.started_ms, out / "service.log")
        _follow(jm, level, tag, remaining_s)
        rc = jm.wait(timeout=level.expected_s + 300)
        if injector:
            injector.finish()  # the service is stopped below: its last restart must be over
        ended_ms = int(time.time() * 1000)
        sampler.stop()
    finally:
        if jm:
            jm.stop()
        if scraper.is_alive():
            scraper.stop()
        svc.stop()
    started_ms = jm.progress.started_ms
    if rc != 0 or not jm.results.exists() or started_ms is None:
        raise UserError(f"JMeter failed (exit {rc}) for {level.id}: see {out / 'jmeter.log'}")
    _compress(jm.results)
    measure_from_ms = started_ms + 1000 * level.measure_offset_s
    if profile:
        profile.render((measure_from_ms, ended_ms), f"{level.id}: CPU of the measured window")
    faults = chaos.record(out, injector)
    check = money.parse(where.psql(paths.MONEY_CHECK.read_text()))
    (out / "money.json").write_text(json.dumps(check, indent=2) + "\n")
    (out / "level.json").write_text(json.dumps(runs.level_document(
        level.as_dict(), started_ms, ended_ms,
        int(parse_settings(where.psql(SETTINGS_SQL))["max_connections"]),
        cpu_placement=opts.placement.mode,
        **({"loadgen_cpus": len(opts.placement.loadgen)} if opts.placement.mode == SPLIT else {}),
        **({"faults": faults} if faults else {})), indent=2) + "\n")
    summary = analysis.level_summary(out, intervals=False)  # the progress line; `summarize` writes summaries
    o = summary["overall"]
    print(f"{tag} {level.id}: {o['requests']} requests measured, {_fig(o['throughput_rps'])} "
          f"req/s, p99 {_fig(o['p99_ms'])} ms, errors {_fig(o['error_pct'], '.2f')}%, "
          f"money {'ok' if check['ok'] else 'FAILED'}", flush=True)
    for fault in faults:
        print(f"{tag} fault {chaos.describe(fault, started_ms)}", flush=True)
    if summary["resources"].get("loadgen_saturated"):
        short = "its own CPUs were" if opts.placement.mode == SPLIT else "the machine was"
        print(f"{tag} WARNING: JMeter was short of CPU ({short} at least "
              f"{analysis.SATURATED_MACHINE_CPU} % busy): the load generator may have limited this "
              "level", flush=True)
    if not check["ok"]:
        raise UserError(f"money check FAILED after {level.id}: {check}")


def _fig(value: float | None, spec: str = ".0f") -> str:
    return "n/a" if value is None else format(value, spec)


def _follow(jm: jmeter.Run, level: Level, tag: str, remaining_s: float) -> None:
    """Prints a progress line each time JMeter reports its totals (every 5 s)."""
    for line in jm.lines():
        if not line.startswith("summary =") or jm.progress.started_ms is None:
            if "error" in line.lower() or "exception" in line.lower():
                print(f"    jmeter: {line}", flush=True)
            continue
        elapsed = time.time() - jm.progress.started_ms / 1000
        pr = jm.progress
        print(f"{tag} {level.id} users={level.users} {elapsed:4.0f}/{level.expected_s} s, "
              f"~{max(remaining_s - elapsed, 0) / 60:.1f} min left in run, "
              f"requests {pr.requests}, errors {pr.errors}, active {pr.active}", flush=True)


def _compress(csv: Path) -> None:
    with open(csv, "rb") as src, gzip.open(csv.with_suffix(".csv.gz"), "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    csv.unlink()
