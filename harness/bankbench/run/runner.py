"""Runs a benchmark's levels in an environment (environments.interface) into results/runs/<run>/.

See docs/benchmarks.md#how-a-level-runs."""

import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from bankbench import paths, registry, runid
from bankbench.analyse import levels
from bankbench.bank import hot, money
from bankbench.checks import verify
from bankbench.errors import UserError
from bankbench.load import validity
from bankbench.load.profiles import LOAD_MODELS, Level, levels as expand, rates_text
from bankbench.machine.postgres import SETTINGS_SQL, parse_settings
from bankbench.measure import manifest
from bankbench.results import compaction, documents, files, runs
from bankbench.results.documents import Calibration, LevelRecord, LoadgenVerdict, Manifest
from bankbench.run.environments.interface import Env, Options, Service
from bankbench.run.environments.native import Native
from bankbench.run.experiments import calibration, chaos, warmup


def run(opts: Options, env: type[Env[Any]] = Native) -> Path:
    """Runs every level of the profile in the environment `env` opens; returns the run folder."""
    levels = expand(opts.profile)
    with Session(opts, env) as session:
        print(f"bankbench: {len(levels)} levels, profile {opts.profile.name} "
              f"({LOAD_MODELS[opts.profile.model]}) in {session.where.describe()} -> {session.run_dir}")
        if opts.profile.phased:
            print(f"bankbench: base rates {rates_text(opts.profile.rates, opts.profile.rate_source)}", flush=True)
        calibrated = session.where.calibrate(levels, session.run_dir)
        for i, level in enumerate(levels, 1):
            session.run_level(level, f"[{i}/{len(levels)}]", remaining(levels[i - 1:]), calibrated.get(level.users))
    return session.final


class Session:
    """A run folder written one run_level() at a time under `<run>.incomplete`, renamed when the
    `with` block ends without an error: an interrupted or failed run is never taken for a result."""

    def __init__(self, opts: Options, env: type[Env[Any]] = Native, warm_processes: int = 1):
        self.opts, self.env, self.warm_processes = opts, env, warm_processes

    def __enter__(self) -> "Session":
        opts, env = self.opts, self.env
        self.affinity = os.sched_getaffinity(0)
        self.final = paths.RUNS / runid.run_id(env.name, opts.profile.name)
        try:
            # Before the run's folder: one that cannot open (no stack, no engine) leaves none.
            self.where = env(opts, self.final.name)
        except BaseException:
            os.sched_setaffinity(0, self.affinity)
            raise
        self.run_dir = runs.incomplete_dir(self.final)
        warm = opts.profile.start == "warm" and not (opts.chaos or opts.profile_cpu)
        self.kept = warmup.Kept(self.warm_processes) if warm else None
        try:
            (self.run_dir / files.LEVELS).mkdir(parents=True)
            self.pg = parse_settings(self.where.psql(SETTINGS_SQL))
            self._write_manifest()
            if self.where.local_build:  # the proof that they do the same database work, loud if not
                verify.run(opts.profile.services, self.run_dir, self.run_dir / files.VERIFY)
        except BaseException as err:
            self._close(err)
            raise
        return self

    def run_level(self, level: Level, tag: str, remaining_s: float, calibrated: Calibration | None = None,
                  watch: Callable[[Service], AbstractContextManager] | None = None) -> Path:
        """Runs `level` into levels/<its id>/ (returned); `calibrated`: its load's calibration; `watch`:
        what watches the service while the load runs, after its warm-up (make soak's watcher)."""
        out, where, kept = files.level_dir(self.run_dir, level.id), self.where, self.kept
        out.mkdir(parents=True)
        load = where.load(level, out)
        started: dict[str, object]  # how the service started: warm from an earlier level, warmed up
        if kept and (warm := kept.get(level)):
            where.psql(paths.EMPTY_TABLES.read_text())
            svc, started = warm[0], {"warm_since": warm[1]}
        else:
            if kept:
                kept.make_room()
            where.reset()
            svc = where.start(level.service, level.pool, out / files.SERVICE_LOG,
                              registry.combine(load.service_env(), level.service_env()) or None,
                              aot=level.profile.start == "aot")
            started = {}
            if kept:
                kept.hold(level, svc)
        try:
            if level.profile.start == "warm" and "warm_since" not in started:
                started["warmup"] = warmup.warm_up(where, svc, level, out, tag)
            if level.profile.scenario == "contention":
                count = level.profile.hot_accounts
                hot.check(where.psql(hot.setup_sql(count)), count)
            with watch(svc) if watch else nullcontext():
                started_ms, ended_ms = load.run(svc, tag, remaining_s)
        finally:
            if not kept:
                svc.stop()
        extra = load.finish((started_ms, ended_ms))
        check = money.parse(where.psql(paths.MONEY_CHECK.read_text()))
        files.write_money(out, check)
        record = runs.level_record(level, started_ms, ended_ms, int(self.pg["max_connections"]),
                                   **where.level_settings(), **started, **extra,
                                   **({"calibration": calibrated.document} if calibrated else {}))
        compaction.compact(out, record)
        verdict = _print_level(out, level, record, tag, check)
        # Written once, with the load generator's verdict as the level ended.
        files.write_level_record(out, LevelRecord.of({**record.document, "loadgen": verdict.document}))
        if not check.ok:
            raise UserError(f"money check FAILED after {level.id}: {check}")
        return out

    def __exit__(self, kind: type | None, err: BaseException | None, _tb: object) -> None:
        try:
            if err is None:
                self._write_manifest()  # with the versions of what ran (aws)
        except BaseException as failed:
            self._close(failed)
            raise
        self._close(err)
        if err is None:
            self.run_dir.rename(self.final)

    def _close(self, err: BaseException | None) -> None:
        """Stops what runs, closes the environment, restores our CPUs; after `err` marks the run."""
        try:
            try:
                if self.kept:
                    self.kept.stop()
            finally:
                self.where.close()
        finally:
            if err is not None:
                runs.mark_incomplete(self.run_dir, f"{type(err).__name__}: {err}")
            os.sched_setaffinity(0, self.affinity)

    def _write_manifest(self) -> None:
        opts, where, pg = self.opts, self.where, self.pg
        doc = manifest.document(self.final.name, where.name, opts.profile, where.machine(),
                                where.versions(pg["server_version"]), {
            "postgresql": {**{k: v for k, v in pg.items() if k != "server_version"}, "durable": opts.durable},
            "profile_cpu": opts.profile_cpu,
            **({"series": opts.series} if opts.series else {}),
            **({documents.WITH_TUNED: True} if opts.with_tuned else {}),
            **where.settings()})
        files.write_manifest(self.run_dir, Manifest.of(doc))


def remaining(todo: list[Level]) -> float:
    """Seconds left: ~15 s of reset and start-up per level, a warm-up per service and repeat."""
    warmups = {(level.service, level.repeat) for level in todo if level.profile.start == "warm"}
    return sum(level.expected_s + 15 for level in todo) + warmup.MAX_S * len(warmups)


def _print_level(out: Path, level: Level, record: LevelRecord, tag: str, check: money.Check) -> LoadgenVerdict:
    """Prints the level's figures, the load generator's verdict (returned) and its faults."""
    summary = levels.judged(out, resources=files.has_metrics(out), level=record)
    o, verdict, used = summary.overall, summary.loadgen, summary.resources
    details = [f"calibration: {calibration.brief(record.calibration)}"]
    if verdict.valid:
        cpu = validity.level_cpu_text(record, used) if used else "CPU figures when the run ends"
        offered = "" if verdict.offered_pct is None or verdict.planned_rate is None else \
            f", offered {verdict.offered_pct:.1f} % of {verdict.planned_rate:g} iterations/s"
        details.insert(0, f"{validity.name(record.generator)} {cpu}{offered}")
    judged = "ok" if verdict.valid else f"INVALID: {verdict.reasons}"
    print(f"{tag} {level.id}: {o.requests} requests measured, {_fig(o.throughput_rps)} "
          f"req/s, p99 {_fig(o.p99_ms)} ms, errors {_fig(o.error_pct, '.2f')}%, "
          f"money {'ok' if check.ok else 'FAILED'}; load generator {judged} ({'; '.join(details)})", flush=True)
    for fault in record.faults:
        print(f"{tag} fault {chaos.describe(fault, record.started_ms)}", flush=True)
    return verdict


def _fig(value: float | None, spec: str = ".0f") -> str:
    return "n/a" if value is None else format(value, spec)
