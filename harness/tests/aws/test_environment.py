"""The `aws` environment of the runner, on moto's S3 and CloudWatch Logs (ECS itself cannot run
tasks in an emulator: these tests drive what the environment asks of it and reads back)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import time

import boto3
import pytest
from moto import mock_aws

from bankbench import config, paths, registry, runid
from bankbench.bank import hot
from bankbench.errors import UserError
from bankbench.load import gatling, profiles
from bankbench.machine import placement
from bankbench.machine.postgres import SETTINGS_SQL, Cluster
from bankbench.run import runner
from bankbench.run.environments.aws import database, ecs, tf, workload
from bankbench.run.environments.aws.environment import LOADS, Aws, ControllerLoad, GatlingLoad, Task
from bankbench.run.runner import Options

STACK = {
    "region": "us-east-1", "cluster_name": "bankbench", "jmeter_workers": 2, "service_port": 8080,
    "results_bucket": "results", "cost_per_hour_usd": 0.93,
    "log_groups": {"postgres": "/ecs/bankbench/postgres", "jmeter": "/ecs/bankbench/jmeter"},
    "hosts": {"service": {"instance_type": "m5.large"}}, "postgresql": {"host": "postgres.bankbench.internal"},
    "ecr_repositories": {image: {"url": f"123456789012.dkr.ecr.us-east-1.amazonaws.com/bankbench/{image}"}
                         for image in {entry.image for entry in registry.entries().values()}},
}
TASK = "arn:aws:ecs:us-east-1:123456789012:task/bankbench/0123456789abcdef"
RUN_ID = "20261122T013000Z-aws-smoke"  # the runner names the run (bankbench.runid)


def options(profile: str = "smoke", **overrides) -> Options:
    return Options(profiles.load(profile, overrides), placement.plan(placement.SHARED),
                   pg_max_connections=config.max_connections(), durable=True)


@pytest.fixture
def scaled(monkeypatch) -> list[bool]:
    """The stack's outputs; ECS's scaling and admin tasks recorded instead of done."""
    calls: list[bool] = []
    monkeypatch.setattr(tf, "require_outputs", lambda: STACK)
    monkeypatch.setattr(ecs.Cluster, "scale_services", lambda self, up: calls.append(up))
    monkeypatch.setattr(Aws, "admin", lambda self, command, output=False, attempts=1: [])
    return calls


@pytest.fixture
def aws(scaled) -> Aws:
    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="results")
        env = Aws(options(), RUN_ID)
        env.workers = ["10.42.1.8", "10.42.1.9"]
        yield env


def test_a_load_that_does_not_split_is_refused_before_anything_starts(scaled):
    with mock_aws(), pytest.raises(UserError, match="users=5 does not split over 2"):
        Aws(options(users=[5]), RUN_ID)
    assert scaled == []


def test_a_series_over_cpu_placements_is_refused(scaled):
    """Each role has hosts of its own: a profile's placements mean nothing there."""
    series = dataclasses.replace(options(placements=["split", "shared"]), series="s1")
    with mock_aws(), pytest.raises(UserError, match="not on AWS: the CPU placements split, shared"):
        Aws(series, RUN_ID)
    assert scaled == []


def test_the_controller_drives_each_workers_share_at_the_service(aws):
    level = profiles.levels(profiles.load("smoke", {"users": [1000]}))[0]
    command = ControllerLoad(aws, level, paths.ROOT).command(Task(aws.cluster, TASK, "10.42.1.20", 8080))
    assert command[0] == "controller"
    assert {"users=500", "host=10.42.1.20", "port=8080"} <= set(command[1:])


def test_every_load_generator_of_the_profiles_has_its_task():
    assert set(LOADS) == set(profiles.GENERATORS)


@pytest.fixture
def level_run(aws, monkeypatch):
    """Runs the load of `level` through the stack as ECS would, its task ending with `exit_codes`
    and its uploader having put `uploaded` in S3; returns what was asked of ECS and the window."""

    def run(level, uploaded: dict[str, str], exit_codes: dict[str, int], out):
        asked = {}

        def run_task(self, family, role, group, container, command=None, environment=None):
            asked.update(family=family, role=role, group=group, container=container, command=command,
                         environment=environment)
            return TASK

        monkeypatch.setattr(ecs.Cluster, "run", run_task)
        monkeypatch.setattr(ecs.Cluster, "wait_stopped", lambda self, arns, timeout_s: [
            {"containers": [{"name": name, "exitCode": code} for name, code in exit_codes.items()]}])
        s3 = boto3.client("s3", region_name="us-east-1")
        for name, text in {**uploaded, "started_ms": "1795310510477", "ended_ms": "1795310570477"}.items():
            s3.put_object(Bucket="results", Key=aws.store.raw_prefix(level.id) + name, Body=text.encode())
        load = aws.load(level, out)
        window = load.run(Task(aws.cluster, TASK, "10.42.1.20", 8080), "[1/1]", 60)
        return asked, window, load.finish(window)

    return run


def test_a_gatling_level_runs_its_whole_load_in_the_gatling_task(aws, level_run, tmp_path):
    """One task of Gatling's image (infra/loadgen.tf), not JMeter's controller: the whole rate
    (75 does not split over the 2 workers), the harness's JVM options, its files back as locally."""
    (level,) = profiles.levels(profiles.load("open", {"users": [75], "services": ["go"], "repeat": 1}))
    uploaded = {"gatling.csv": "timeStamp,elapsed\n1,2\n", "gatling.log": "summary"}
    asked, window, extra = level_run(level, uploaded, {"gatling": 0, "upload": 0}, tmp_path)
    assert isinstance(aws.load(level, tmp_path), GatlingLoad)
    assert (asked["family"], asked["container"]) == ("gatling", "gatling")
    assert (asked["role"], asked["group"]) == ("jmeter", "jmeter")  # the load generator's hosts
    assert asked["command"] == ["run", *(f"{k}={v}" for k, v in level.load_properties().items()),
                                "host=10.42.1.20", "port=8080"]
    assert "rate=75" in asked["command"]
    assert asked["environment"] == {"GATLING_JVM": gatling.JVM_OPTIONS,
                                    "RESULTS_PREFIX": f"runs/{aws.store.run_id}/levels/{level.id}/raw/"}
    assert window == (1795310510477, 1795310570477) and extra == {}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gatling.csv.gz", "gatling.log"]
    assert (aws.windows[-1].loadgen, aws.windows[-1].loadgen_tasks) == ("gatling", 1)


def test_a_jmeter_level_runs_in_the_controller_which_drives_the_workers(aws, level_run, tmp_path):
    (level,) = profiles.levels(profiles.load("smoke", {"users": [4], "services": ["go"]}))
    asked, _, extra = level_run(level, {"jmeter.csv": "timeStamp,elapsed\n1,2\n", "jmeter.log": "log"},
                                {"jmeter": 0, "upload": 0}, tmp_path)
    assert (asked["family"], asked["container"], asked["command"][0]) == ("jmeter-controller", "jmeter", "controller")
    assert "users=2" in asked["command"]
    assert asked["environment"] == {"JMETER_WORKERS": "10.42.1.8,10.42.1.9",
                                    "RESULTS_PREFIX": f"runs/{aws.store.run_id}/levels/{level.id}/raw/"}
    assert extra == {"jmeter_workers": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jmeter.csv.gz", "jmeter.log"]
    assert (aws.windows[-1].loadgen, aws.windows[-1].loadgen_tasks) == ("jmeter-worker", 2)


def test_a_load_task_that_failed_stops_the_run(aws, level_run, tmp_path):
    (level,) = profiles.levels(profiles.load("open", {"users": [50], "services": ["go"], "repeat": 1}))
    with pytest.raises(UserError, match="the gatling task ended with"):
        level_run(level, {}, {"gatling": 1, "upload": 0}, tmp_path)


def test_a_gatling_profile_opens_whatever_its_rate(scaled):
    """Gatling takes a level's whole rate: no split over the JMeter workers to refuse."""
    with mock_aws():
        env = Aws(options("open", users=[75]), RUN_ID)
    assert scaled == [True] and env.describe() == "aws us-east-1, Gatling on one load generator host"


def test_the_service_task_gets_the_levels_pool_under_the_services_own_name(aws, monkeypatch):
    """The pool and the acquire timeout, passed (the manifest records the same timeout)."""
    monkeypatch.setenv(config.ACQUIRE_TIMEOUT_MS, "1234")
    monkeypatch.setenv(config.MAX_CONCURRENT_REQUESTS, "321")
    started = {}

    def run(self, family, role, group, container, command=None, environment=None):
        started.update(family=family, environment=environment)
        return TASK

    monkeypatch.setattr(ecs.Cluster, "run", run)
    monkeypatch.setattr(ecs.Cluster, "service_addresses", lambda self, service: ["10.42.1.8", "10.42.1.9"])
    monkeypatch.setattr(ecs.Cluster, "wait_running", lambda self, arn: {"containers": [], "attachments": [
        {"type": "ElasticNetworkInterface", "details": [{"name": "privateIPv4Address", "value": "10.42.1.20"}]}]})
    task = aws.start("go", 7, paths.ROOT / "service.log")
    assert isinstance(task, Task) and task.url == "http://10.42.1.20:8080"
    assert started == {"family": "go", "environment": {config.POOL_SIZE: "7", config.ACQUIRE_TIMEOUT_MS: "1234",
                                                       config.MAX_CONCURRENT_REQUESTS: "321"}}


def test_runs_record_the_image_digests_they_ran(aws):
    task = {"containers": [{"image": "repo/bank-go:latest", "imageDigest": "sha256:abc"}, {"image": "x"}]}
    assert aws.record(task) is task
    assert aws.versions("15.18") == {"postgresql": "15.18", "image repo/bank-go:latest": "sha256:abc"}


def test_levels_and_manifest_say_where_the_load_ran(aws, monkeypatch):
    monkeypatch.setattr(ecs.Cluster, "environment", lambda self, family: {"FAMILY": family})
    monkeypatch.setenv(config.ACQUIRE_TIMEOUT_MS, "1234")
    monkeypatch.setenv(config.MAX_CONCURRENT_REQUESTS, "321")
    assert aws.level_settings() == {"cpu_placement": "hosts", "metrics_period_s": workload.METRICS_PERIOD_S}
    settings = aws.settings()
    assert settings["cpu_placement"]["mode"] == "hosts"
    assert settings["acquire_timeout_ms"] == 1234 and settings["max_concurrent_requests"] == 321  # what start() passes
    assert aws.machine()["jmeter_workers"] == 2 and settings["gatling_jvm"] == gatling.JVM_OPTIONS
    assert settings["service_environment"] == {name: {"FAMILY": name} for name in registry.names()}
    assert settings["results_s3"] == f"s3://results/runs/{aws.store.run_id}/" and "-aws-smoke" in aws.store.run_id


def test_a_run_has_one_id_its_folder_and_its_s3_prefix(scaled, monkeypatch, tmp_path):
    """The runner names the run once, before the stack scales up (minutes): the environment keeps
    the raw results in S3 under the name of the run's folder, which the manifest records."""
    monkeypatch.setattr(paths, "RUNS", tmp_path)
    stamps = iter(["20261122T013000Z", "20261122T013500Z"])  # a second id would be a later one
    monkeypatch.setattr(runid, "stamp", lambda: next(stamps))
    monkeypatch.setattr(Aws, "psql", lambda self, sql: "max_connections|100\nserver_version|15.18")
    monkeypatch.setattr(ecs.Cluster, "environment", lambda self, family: {})
    monkeypatch.setattr(ecs.Cluster, "stop_everything", lambda self: None)
    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="results")
        with runner.Session(options(), Aws) as session:
            opened = session.where
    (run_dir,) = tmp_path.iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert run_dir.name == opened.run_id == opened.store.run_id == manifest["run_id"] == RUN_ID
    assert manifest["settings"]["results_s3"] == f"s3://results/runs/{RUN_ID}/"


def test_the_settings_passed_are_read_from_the_task_definitions():
    with mock_aws():
        client = boto3.client("ecs", region_name="us-east-1")
        arn = client.register_task_definition(family="bankbench-jmeter-worker", containerDefinitions=[{
            "name": "jmeter", "image": "jmeter", "memory": 512,
            "environment": [{"name": "HEAP", "value": "-Xms6g -Xmx6g"}]}])["taskDefinition"]["taskDefinitionArn"]
        cluster = ecs.Cluster(client, {**STACK, "task_definitions": {"jmeter-worker": arn}})
        assert cluster.environment("jmeter-worker") == {"HEAP": "-Xms6g -Xmx6g"}


def test_the_admin_task_output_is_read_from_its_log_up_to_the_end_line(aws):
    logs = boto3.client("logs", region_name="us-east-1")
    group, stream = STACK["log_groups"]["postgres"], "admin/admin/0123456789abcdef"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    now = int(time.time() * 1000)
    logs.put_log_events(logGroupName=group, logStreamName=stream, logEvents=[
        {"timestamp": now + i, "message": m} for i, m in enumerate(["100", "3|1200|1200|0|0", database.END])])
    assert database.task_log(logs, group, TASK, wait_s=0) == ["100", "3|1200|1200|0|0"]


def test_a_log_without_its_end_is_an_error_after_the_wait():
    with mock_aws():
        logs = boto3.client("logs", region_name="us-east-1")
        logs.create_log_group(logGroupName="/ecs/bankbench/postgres")
        with pytest.raises(UserError, match="did not end"):
            database.task_log(logs, "/ecs/bankbench/postgres", TASK, wait_s=0)


@pytest.fixture(scope="module")
def cluster():
    """A real PostgreSQL (the machine's binaries), where the admin task's commands run as in the image."""
    with Cluster.create() as c:
        if not (c.bin / "psql").exists():
            pytest.skip(f"no psql beside the server binaries in {c.bin} (postgres_binaries's package has none)")
        c.reset()
        yield c


def admin(cluster: Cluster, command: list[str], check: bool = True) -> subprocess.CompletedProcess:
    """Runs `command` with the environment the admin task definition (infra/database.tf) gives."""
    env = {**os.environ, "PATH": f"{cluster.bin}:{os.environ['PATH']}", "PGHOST": "127.0.0.1",
           "PGPORT": str(cluster.port), "PGUSER": "postgres", "PGDATABASE": "bank"}
    return subprocess.run(command, env=env, capture_output=True, text=True, check=check)


@pytest.mark.integration
def test_the_admin_task_prints_what_native_psql_gives_then_the_end_line(cluster):
    for sql in (SETTINGS_SQL, paths.MONEY_CHECK.read_text()):
        *rows, end = admin(cluster, database.query(sql)).stdout.splitlines()
        assert end == database.END and "\n".join(rows) == cluster.psql(sql)


@pytest.mark.integration
def test_the_hot_accounts_are_made_by_the_admin_task_as_natively(cluster):
    cluster.reset()
    printed = admin(cluster, database.query(hot.setup_sql(10))).stdout.splitlines()
    hot.check("\n".join(printed[:-1]), 10)


@pytest.mark.integration
def test_sql_that_fails_prints_no_end_line(cluster):
    out = admin(cluster, database.query("SELECT nope"), check=False)
    assert out.returncode != 0 and database.END not in out.stdout
