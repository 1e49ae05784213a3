"""Runs a benchmark in any environment (bankbench.run.env): the load generator's calibration,
then for each level a fresh database, the service, the load, the money check, and the load
generator's verdict.

Writes results/runs/<run>/ as results/LAYOUT.md describes, printing a progress line per level.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from bankbench import paths
from bankbench.analyse import analysis, runs
from bankbench.analyse.rawdata import write_json
from bankbench.checks import verify
from bankbench.errors import UserError
from bankbench.load import generator
from bankbench.load.profiles import LOAD_MODELS, Level, levels as expand
from bankbench.measure import manifest
from bankbench.run import calibration, chaos
from bankbench.run.env import Env, Options
from bankbench.run.native import Native
from bankbench.system import hot, money
from bankbench.tools.pg import SETTINGS_SQL, parse_settings


def run(opts: Options, env: type[Env] = Native) -> Path:
    """Runs every level of the profile in the environment `env` opens; returns the run folder.

    The run is written under `<run>.incomplete` and renamed when its last level is done: an
    interrupted or failed run keeps that name (and says why in incomplete.json), so readers
    never take it for a result (bankbench.analyse.runs).
    """
    levels = expand(opts.profile)
    affinity = os.sched_getaffinity(0)
    try:
        where = env(opts)  # before the run's folder: one that cannot open (no stack, no engine) leaves none
    except BaseException:
        os.sched_setaffinity(0, affinity)
        raise
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    final = paths.RUNS / f"{stamp}-{env.name}-{opts.profile.name}"
    run_dir = runs.incomplete_dir(final)
    try:
        try:
            (run_dir / "levels").mkdir(parents=True)
            pg = parse_settings(where.psql(SETTINGS_SQL))
            _write_manifest(run_dir, final.name, opts, where, pg)
            if where.local_build:  # first the proof that they do the same database work (loud when not)
                verify.run(opts.profile.services, run_dir, run_dir / "verify.json")
            print(f"bankbench: {len(levels)} levels, profile {opts.profile.name} "
                  f"({LOAD_MODELS[opts.profile.model]}) in {where.describe()} -> {run_dir}")
            calibrated = where.calibrate(levels, run_dir)
            for i, level in enumerate(levels, 1):
                _run_level(run_dir / "levels" / level.id, level, where, int(pg["max_connections"]),
                           calibrated.get(level.users), f"[{i}/{len(levels)}]", _remaining(levels[i - 1:]))
            _write_manifest(run_dir, final.name, opts, where, pg)  # with the versions of what ran (aws)
        finally:
            where.close()
    except BaseException as err:  # interrupted (Ctrl-C, SIGTERM) as much as failed
        runs.mark_incomplete(run_dir, f"{type(err).__name__}: {err}")
        raise
    finally:
        os.sched_setaffinity(0, affinity)  # the local environments pin the harness
    run_dir.rename(final)
    return final


def _remaining(todo: list[Level]) -> float:
    """Seconds left for these levels, counting ~15 s of database reset and start-up each."""
    return sum(level.expected_s + 15 for level in todo)


def _write_manifest(run_dir: Path, run_id: str, opts: Options, where: Env, pg: dict[str, str]) -> None:
    doc = manifest.document(run_id, where.name, opts.profile, where.machine(),
                            where.versions(pg["server_version"]), {
        "postgresql": {**{k: v for k, v in pg.items() if k != "server_version"}, "durable": opts.durable},
        "profile_cpu": opts.profile_cpu,
        **where.settings()})
    (run_dir / "manifest.json").write_text(json.dumps(doc, indent=2) + "\n")


def _run_level(out: Path, level: Level, where: Env, pg_max_connections: int, calibrated: dict | None,
               tag: str, remaining_s: float) -> None:
    where.reset()
    out.mkdir(parents=True)
    load = where.load(level, out)
    svc = where.start(level.service, level.pool, out / "service.log", load.service_env())
    try:
        if level.profile.scenario == "contention":
            count = level.profile.hot_accounts
            hot.check(where.psql(hot.setup_sql(count)), count)
        started_ms, ended_ms = load.run(svc, tag, remaining_s)
    finally:
        svc.stop()
    faults = load.finish((started_ms, ended_ms))
    check = money.parse(where.psql(paths.MONEY_CHECK.read_text()))
    (out / "money.json").write_text(json.dumps(check, indent=2) + "\n")
    document = runs.level_document(level.as_dict(), started_ms, ended_ms, pg_max_connections,
                                   **where.level_settings(), **({"faults": faults} if faults else {}),
                                   **({"calibration": calibrated} if calibrated else {}))
    write_json(out / "level.json", document)
    verdict = _print_level(out, level, tag, check, faults, started_ms)
    write_json(out / "level.json", {**document, "loadgen": verdict})  # as judged when the level ended
    if not check["ok"]:
        raise UserError(f"money check FAILED after {level.id}: {check}")


def _print_level(out: Path, level: Level, tag: str, check: dict, faults: list[dict], started_ms: int) -> dict:
    """The level's line of figures (`summarize` writes the summaries) with the load generator's
    verdict, and its faults; returns the verdict (bankbench.load.generator)."""
    summary = analysis.level_summary(out, intervals=False, resources=(out / "metrics.csv").exists())
    o, verdict, used = summary["overall"], summary["loadgen"], summary.get("resources")
    details = [f"calibration: {calibration.brief(summary['level'].get('calibration'))}"]
    if verdict["valid"]:
        cpu = generator.cpu_text(used["loadgen_cpu_mean"], summary["level"].get("loadgen_cpus"),
                                 used["machine_cpu_mean"]) if used else "CPU figures when the run ends"
        offered = "" if verdict.get("offered_pct") is None else \
            f", offered {verdict['offered_pct']:.1f} % of {verdict['planned_rate']:g} iterations/s"
        details.insert(0, f"JMeter {cpu}{offered}")
    judged = "ok" if verdict["valid"] else f"INVALID: {verdict['reasons']}"
    print(f"{tag} {level.id}: {o['requests']} requests measured, {_fig(o['throughput_rps'])} "
          f"req/s, p99 {_fig(o['p99_ms'])} ms, errors {_fig(o['error_pct'], '.2f')}%, "
          f"money {'ok' if check['ok'] else 'FAILED'}; load generator {judged} ({'; '.join(details)})", flush=True)
    for fault in faults:
        print(f"{tag} fault {chaos.describe(fault, started_ms)}", flush=True)
    return verdict


def _fig(value: float | None, spec: str = ".0f") -> str:
    return "n/a" if value is None else format(value, spec)
