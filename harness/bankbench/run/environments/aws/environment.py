"""The `aws` environment: a run's levels on ECS, the stack of infra/.

PostgreSQL and the JMeter workers are ECS services, each level a task of the service and one of its
load generator (results through S3), psql the admin task. CloudWatch has the resources minutes
later: metrics.csv is written at close.

See docs/aws.md and infra/README.md#what-it-creates."""

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import boto3

from bankbench import config, registry
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.load import gatling, profiles
from bankbench.load.profiles import Level
from bankbench.results import files
from bankbench.results.documents import Calibration
from bankbench.run.environments import images
from bankbench.run.environments.aws import cloudwatch, database, ecs, tf, workload
from bankbench.run.environments.aws.results import RunStore
from bankbench.run.environments.interface import Options

CONTAINER = "bank"  # the service's container in its task definition (infra/)


@dataclass
class Task:
    cluster: ecs.Cluster
    arn: str
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def exit_code(self) -> int | None:
        """None while it runs, then the container's exit code (-1 when ECS gives none)."""
        task = self.cluster.describe([self.arn])[0]
        if task["lastStatus"] != "STOPPED":
            return None
        code = ecs.exit_codes(task).get(CONTAINER)
        return -1 if code is None else code

    def stop(self) -> None:
        self.cluster.stop([self.arn])


@dataclass
class Window:
    """A level's load, for its resources: where its metrics.csv goes and what to query."""

    out: Path
    service: str
    started_ms: int
    ended_ms: int
    loadgen: str
    loadgen_tasks: int


class Aws:
    name = "aws"
    local_build = False  # the tasks run the pushed images: `make verify` proves the checkout's build

    def __init__(self, opts: Options, run_id: str):
        if opts.series:
            raise UserError(f"not on AWS: the CPU placements {', '.join(opts.profile.placements)} of "
                            f"profile {opts.profile.name} (every role has hosts of its own); run it with ENV=native")
        registry.require_images(opts.profile.services, self.name)
        if opts.profile.start != "cold":  # the warm-up's JMeter and the AOT cache are local
            raise UserError(f"ENV=aws runs cold starts only, not start {opts.profile.start!r}")
        self.stack = stack = tf.require_outputs()
        self.services, self.generator = opts.profile.services, opts.profile.generator
        planned = profiles.levels(opts.profile)
        if self.generator == "jmeter":  # refuse a load that does not split before anything starts
            for level in planned:
                workload.worker_properties(level, stack["jmeter_workers"])
        hours = sum(workload.time_bound_s(level) for level in planned) / 3600
        print(f"aws: {len(planned)} level(s), up to {hours:.1f} h "
              f"(about ${hours * stack['cost_per_hour_usd']:.2f} at most)", flush=True)
        region = stack["region"]
        self.run_id = run_id  # the runner's (bankbench.runid): the run's folder and its S3 prefix
        self.store = RunStore(boto3.client("s3", region_name=region), stack["results_bucket"], run_id)
        self.cluster = ecs.Cluster.of(stack)
        self.logs = boto3.client("logs", region_name=region)
        self.cloudwatch = boto3.client("cloudwatch", region_name=region)
        self.workers: list[str] = []
        self.images: dict[str, str] = {}  # image -> the digest its tasks ran
        self.windows: list[Window] = []
        try:
            self.cluster.scale_services(up=True)
            self.admin(database.READY, attempts=6)  # PostgreSQL's name may not resolve at first
        except BaseException:  # the runner closes only an environment that opened
            self.cluster.stop_everything()
            raise

    def describe(self) -> str:
        return f"aws {self.stack['region']}, {LOADS[self.generator].where.format(**self.stack)}"

    def calibrate(self, planned: list[Level], run_dir: Path) -> dict[int, Calibration]:
        print("calibration: none on AWS (the load generator has hosts of its own); each level is "
              "still judged by its CPU and offered arrival rate", flush=True)
        return {}

    def reset(self) -> None:
        self.admin(database.RESET)

    def start(self, service: str, pool: int, log: Path, extra_env: dict[str, str] | None = None,
              aot: bool = False) -> Task:
        """The service's task; its log stays in CloudWatch (no `extra_env` or `aot` asked here)."""
        # The workers' addresses, again for each level: ECS replaces a worker that died.
        self.workers = self.cluster.service_addresses("jmeter-worker")
        if len(self.workers) != self.stack["jmeter_workers"]:
            raise UserError(f"{len(self.workers)} of {self.stack['jmeter_workers']} JMeter workers are running")
        arn = self.cluster.run(service, "service", "service", CONTAINER, environment=config.settings_env(pool))
        try:
            address = ecs.address(self.record(self.cluster.wait_running(arn)))
        except BaseException:
            self.cluster.stop([arn])
            raise
        return Task(self.cluster, arn, address, self.stack["service_port"])

    def load(self, level: Level, out: Path) -> "TaskLoad":
        return LOADS[level.profile.generator](self, level, out)

    def psql(self, sql: str) -> str:
        return "\n".join(self.admin(database.query(sql), output=True))

    def admin(self, command: list[str], output: bool = False, attempts: int = 1) -> list[str]:
        for _ in range(attempts):
            arn = self.cluster.run("admin", "postgres", "admin", "admin", command=command)
            task = self.record(self.cluster.wait_stopped([arn], 300)[0])
            if ecs.exit_codes(task)["admin"] == 0:
                return database.task_log(self.logs, self.stack["log_groups"]["postgres"], arn) if output else []
        raise UserError(f"psql failed {attempts} time(s): {' '.join(command)}; "
                        f"see the log group {self.stack['log_groups']['postgres']}")

    def record(self, task: dict) -> dict:
        """Notes the image digests a task ran (for the manifest); returns the task."""
        self.images |= {c["image"]: c["imageDigest"] for c in task["containers"] if c.get("imageDigest")}
        return task

    def machine(self) -> dict:
        return {"cloud": "aws", "region": self.stack["region"], "hosts": self.stack["hosts"],
                "jmeter_workers": self.stack["jmeter_workers"]}

    def versions(self, postgresql: str) -> dict[str, str]:
        """The digest of each image that ran and, where this machine has it, the versions inside."""
        found = {"postgresql": postgresql, **{f"image {image}": digest for image, digest in self.images.items()}}
        repositories = self.stack["ecr_repositories"]
        for entry in registry.by_image().values():
            url = repositories.get(entry.image, {}).get("url")  # none for a service added since aws-up
            digest = self.images.get(f"{url}:latest")
            if digest and images.present(f"{url}@{digest}"):
                found |= images.contents(entry, f"{url}@{digest}")
        return found

    def settings(self) -> dict[str, object]:
        return {"cpu_placement": {"mode": "hosts", "description": "each role on hosts of its own"},
                "acquire_timeout_ms": config.acquire_timeout_ms(),
                "max_concurrent_requests": config.max_concurrent_requests(),
                "jvm_options": processes.jvm_options(),
                "service_environment": {name: self.cluster.environment(name) for name in self.services},
                "jmeter_worker_environment": self.cluster.environment("jmeter-worker"),
                "gatling_jvm": gatling.JVM_OPTIONS,
                "postgresql_task": self.stack["postgresql"],
                "metrics_period_s": workload.METRICS_PERIOD_S,
                "load_split": "each JMeter worker runs users/N threads (open model: rate/N); Gatling, one "
                              "task, the whole load",
                "results_s3": f"s3://{self.store.bucket}/runs/{self.store.run_id}/",
                "verify": "not run: the tasks run the pushed images (make verify proves the checkout's build)"}

    def level_settings(self) -> dict[str, object]:
        return {"cpu_placement": "hosts", "metrics_period_s": workload.METRICS_PERIOD_S}

    def close(self) -> None:
        try:
            self.cluster.stop_everything()
        finally:
            for window in self.windows:
                queries = cloudwatch.queries(self.stack, window.service, window.loadgen)
                series = cloudwatch.fetch_when_complete(self.cloudwatch, queries, window.started_ms, window.ended_ms)
                cloudwatch.write(files.metrics_path(window.out), cloudwatch.rows(series, window.loadgen_tasks))
        print(f"aws: the stack still costs ${self.stack['cost_per_hour_usd']:.2f}/h: `make aws-down` when done.")


@dataclass
class TaskLoad:
    """A level's load: a task of the load generator's (a host of its role, the one no JMeter
    worker holds; infra/loadgen.tf) drives the service; its uploader puts the results in S3."""

    family: ClassVar[str]  # its task family
    container: ClassVar[str]  # its generator's container, beside the uploader's
    role: ClassVar[str]  # the command of the image's entrypoint
    where: ClassVar[str]  # where the load runs, for the run's first line (the stack's outputs fill it in)

    env: Aws
    level: Level
    out: Path

    def service_env(self) -> None:
        return None

    def run(self, svc: Task, tag: str, remaining_s: float) -> tuple[int, int]:
        env = self.env
        bound_s = workload.time_bound_s(self.level)
        task = env.cluster.run(self.family, "jmeter", "jmeter", self.container, command=self.command(svc),
                               environment={**self.environment(),
                                            "RESULTS_PREFIX": env.store.raw_prefix(self.level.id)})
        print(f"{tag} {self.level.id}: load running, up to {bound_s} s, "
              f"~{remaining_s / 60:.1f} min left in run", flush=True)
        stopped = env.record(env.cluster.wait_stopped([task], bound_s)[0])
        if ecs.exit_codes(stopped) != {self.container: 0, "upload": 0}:
            raise UserError(f"{self.level.id}: the {self.family} task ended with {ecs.exit_codes(stopped)}; "
                            f"see the log group {env.stack['log_groups']['jmeter']}")
        env.store.download(self.level.id, self.out, self.level.profile.generator)
        started_ms, ended_ms = (int(env.store.raw_text(self.level.id, name)) for name in ("started_ms", "ended_ms"))
        env.windows.append(Window(self.out, self.level.service, started_ms, ended_ms, *self.loadgen()))
        return started_ms, ended_ms

    def command(self, svc: Task) -> list[str]:
        props = {**self.properties(), "host": svc.host, "port": svc.port}
        return [self.role, *(f"{name}={value}" for name, value in props.items())]

    def properties(self) -> dict[str, object]:
        return self.level.load_properties()

    def environment(self) -> dict[str, str]:  # besides RESULTS_PREFIX
        return {}

    def loadgen(self) -> tuple[str, int]:
        """The task family whose CPU is the load generator's, and how many tasks of it ran."""
        return self.family, 1

    def finish(self, window: tuple[int, int]) -> dict[str, object]:
        return {}  # no faults struck (CHAOS is refused), no CPUs of this machine


class ControllerLoad(TaskLoad):
    """JMeter's: the controller drives the stack's workers, each with its share of the load."""

    family, container, role = "jmeter-controller", "jmeter", "controller"
    where = "{jmeter_workers} JMeter workers"

    def properties(self) -> dict[str, object]:
        return workload.worker_properties(self.level, len(self.env.workers))

    def environment(self) -> dict[str, str]:
        return {"JMETER_WORKERS": ",".join(self.env.workers)}

    def loadgen(self) -> tuple[str, int]:
        return "jmeter-worker", len(self.env.workers)

    def finish(self, window: tuple[int, int]) -> dict[str, object]:
        return {"jmeter_workers": len(self.env.workers)}


class GatlingLoad(TaskLoad):
    """Gatling's: one task runs the whole load, with the JVM options of a local run."""

    family, container, role = "gatling", "gatling", "run"
    where = "Gatling on one load generator host"

    def environment(self) -> dict[str, str]:
        return {"GATLING_JVM": gatling.JVM_OPTIONS}


LOADS = {"jmeter": ControllerLoad, "gatling": GatlingLoad}  # a level's load by its generator
