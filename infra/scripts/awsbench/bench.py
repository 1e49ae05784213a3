"""`bench`: a profile's levels for one service on the stack, level by level as the local harness
runs them (fresh database, service started with the level's pool, JMeter, money check), with the
results copied into results/runs/<run>/ in the same layout, so the report works unchanged."""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import boto3

from awsbench import database, ecs, levels, metrics, tf
from awsbench.results import RAW, RunStore
from bankbench import hot, manifest, paths
from bankbench.errors import UserError
from bankbench.profiles import Profile

ADMIN_ATTEMPTS = 6  # the first reset of a run may come before PostgreSQL's name resolves


@dataclass
class Run:
    """One benchmark run on the stack."""

    stack: dict
    store: RunStore
    cluster: ecs.Cluster
    logs: Any
    workers: list[str] = field(default_factory=list)
    windows: dict[str, tuple[int, int]] = field(default_factory=dict)  # level -> started, ended ms
    images: dict[str, str] = field(default_factory=dict)  # image -> digest it ran

    def level(self, level: dict, tag: str) -> bool:
        """Runs one level; returns whether its money check passed."""
        self.fresh_database(level)
        self.find_workers()
        service = self.cluster.run(level["service"], "service", "service", "bank",
                                   environment={"POSTGRES_CONNECTIONS_SIZE": str(level["pool"])})
        try:
            address = ecs.address(self.record(self.cluster.wait_running(service)))
            controller = self.cluster.run("jmeter-controller", "jmeter", "jmeter", "jmeter",
                                          command=self.controller_command(level, address),
                                          environment=self.controller_environment(level))
            print(f"{tag} {level['id']}: load running, up to {levels.time_bound_s(level)} s", flush=True)
            stopped = self.record(self.cluster.wait_stopped([controller], levels.time_bound_s(level))[0])
        finally:
            self.cluster.stop([service])
        if ecs.exit_codes(stopped) != {"jmeter": 0, "upload": 0}:
            raise UserError(f"{level['id']}: JMeter controller ended with {ecs.exit_codes(stopped)}; "
                            f"see the log group {self.stack['log_groups']['jmeter']}")
        return self.write_level(level)

    def fresh_database(self, level: dict) -> None:
        """A new schema and, for the contention scenario, the hot accounts (bankbench.hot)."""
        self.admin(database.RESET, attempts=ADMIN_ATTEMPTS)
        if level["scenario"] == "contention":
            count = level["jmeter_properties"]["hot_accounts"]
            hot.check(self.admin([*database.PSQL, "-c", hot.setup_sql(count)], lines=1)[0], count)

    def find_workers(self) -> None:
        """The workers' addresses, again for each level: ECS replaces a worker that died."""
        self.workers = self.cluster.service_addresses("jmeter-worker")
        if len(self.workers) != self.stack["jmeter_workers"]:
            raise UserError(f"{len(self.workers)} of {self.stack['jmeter_workers']} JMeter workers are running")

    def controller_command(self, level: dict, address: str) -> list[str]:
        props = {**levels.worker_properties(level, len(self.workers)),
                 "host": address, "port": self.stack["service_port"]}
        return ["controller", *(f"{name}={value}" for name, value in props.items())]

    def controller_environment(self, level: dict) -> dict[str, str]:
        return {"JMETER_WORKERS": ",".join(self.workers),
                "RESULTS_PREFIX": self.store.level_prefix(level["id"]) + RAW}

    def write_level(self, level: dict) -> bool:
        pg_max_connections, check = database.parse_check(self.admin(database.CHECK, lines=2))
        raw = f"levels/{level['id']}/{RAW}"
        started_ms, ended_ms = (int(self.store.get_text(raw + name)) for name in ("started_ms", "ended_ms"))
        self.windows[level["id"]] = (started_ms, ended_ms)
        self.store.put_json(f"levels/{level['id']}/money.json", check)
        self.store.put_json(f"levels/{level['id']}/level.json", levels.level_document(
            level, started_ms, ended_ms, pg_max_connections, len(self.workers)))
        print(f"    {level['id']}: done in {(ended_ms - started_ms) / 1000:.0f} s, "
              f"money {'ok' if check['ok'] else 'FAILED'}", flush=True)
        return bool(check["ok"])

    def admin(self, command: list[str], lines: int = 0, attempts: int = 1) -> list[str]:
        """Runs psql in the admin task; returns the first `lines` lines it printed."""
        for attempt in range(1, attempts + 1):
            arn = self.cluster.run("admin", "postgres", "admin", "admin", command=command)
            task = self.record(self.cluster.wait_stopped([arn], 300)[0])
            if ecs.exit_codes(task)["admin"] == 0:
                return database.task_log(self.logs, self.stack["log_groups"]["postgres"], arn, lines) if lines else []
        raise UserError(f"psql failed {attempts} time(s): {' '.join(command)}; "
                        f"see the log group {self.stack['log_groups']['postgres']}")

    def record(self, task: dict) -> dict:
        """Notes the image digests a task ran (for the manifest); returns the task."""
        for container in task["containers"]:
            if container.get("imageDigest"):
                self.images[container["image"]] = container["imageDigest"]
        return task

    def manifest(self, profile: Profile, planned: list[dict]) -> dict:
        return manifest.document(
            self.store.run_id, "aws", profile,
            machine={"cloud": "aws", "region": self.stack["region"], "hosts": self.stack["hosts"],
                     "jmeter_workers": self.stack["jmeter_workers"]},
            versions={f"image {image}": digest for image, digest in self.images.items()},  # as compose names them
            settings={"levels": [level["id"] for level in planned], "postgresql": self.stack["postgresql"],
                      "cpu_placement": {"mode": "hosts", "description": "each role on hosts of its own"},
                      "metrics_period_s": levels.METRICS_PERIOD_S,
                      "load_split": "each JMeter worker runs users/N threads (open model: rate/N)"})

    def collect_metrics(self, planned: list[dict]) -> None:
        """metrics.csv of every level that ran (CloudWatch has them a few minutes later)."""
        cloudwatch = boto3.client("cloudwatch", region_name=self.stack["region"])
        for level in planned:
            if level["id"] not in self.windows:
                continue
            started, ended = self.windows[level["id"]]
            series = metrics.fetch_when_complete(cloudwatch, metrics.queries(self.stack, level["service"]), started, ended)
            self.store.put_metrics(level["id"], metrics.rows(series, len(self.workers)), metrics.COLUMNS)


def bench(args: argparse.Namespace) -> Path:
    """Runs the levels that the knobs of `make bench` in `args` plan."""
    profile, planned = levels.plan(args)
    services = ", ".join(profile.services)
    stack = tf.require_outputs()
    for level in planned:  # refuse a load that does not split before anything starts
        levels.worker_properties(level, stack["jmeter_workers"])
    run_id = f"{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}-aws-{profile.name}"
    hours = sum(levels.time_bound_s(level) for level in planned) / 3600
    print(f"aws: {len(planned)} level(s) of {profile.name} for {services}, up to {hours:.1f} h "
          f"(about ${hours * stack['cost_per_hour_usd']:.2f} at most) -> results/runs/{run_id}")
    run = Run(stack, RunStore(boto3.client("s3", region_name=stack["region"]), stack["results_bucket"], run_id),
              ecs.Cluster.of(stack), boto3.client("logs", region_name=stack["region"]))
    failed = []
    try:
        run.cluster.scale_services(up=True)
        for i, level in enumerate(planned, 1):
            if not run.level(level, f"[{i}/{len(planned)}]"):
                failed.append(level["id"])
    finally:
        run.cluster.stop_everything()
        run.store.put_json("manifest.json", run.manifest(profile, planned))
    run.collect_metrics(planned)
    return finish(run, failed, stack)


def finish(run: Run, failed: list[str], stack: dict) -> Path:
    """Downloads the run, summarizes it like a local one, and reports money check failures."""
    dest = paths.RUNS / run.store.run_id
    print(f"aws: {run.store.download(dest)} files -> {dest}")
    subprocess.run([sys.executable, "-m", "bankbench", "summarize", str(dest)], check=True)
    print(f"aws: the stack still costs ${stack['cost_per_hour_usd']:.2f}/h: `make aws-down` when done.")
    if failed:
        raise UserError(f"money check FAILED for {', '.join(failed)}")
    return dest
