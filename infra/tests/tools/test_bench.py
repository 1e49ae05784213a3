from awsbench import database
from awsbench.bench import Run
from awsbench.results import RunStore
from bankbench import hot


def run_with_two_workers() -> Run:
    return Run(stack={"service_port": 8080}, store=RunStore(None, "results", "20261122T013000Z-aws-sustained"),
               cluster=None, logs=None, workers=["10.42.1.8", "10.42.1.9"])


def test_the_controller_drives_each_workers_share_at_the_service(level):
    command = run_with_two_workers().controller_command(level(users=1000), "10.42.1.20")
    assert command[0] == "controller"
    assert {"users=500", "rate=0", "host=10.42.1.20", "port=8080", "duration=120"} <= set(command[1:])


def test_the_controller_knows_its_workers_and_where_its_results_go(level):
    env = run_with_two_workers().controller_environment(level())
    assert env == {"JMETER_WORKERS": "10.42.1.8,10.42.1.9",
                   "RESULTS_PREFIX": "runs/20261122T013000Z-aws-sustained/levels/go-u1000-p95-r1/raw/"}


def test_contention_levels_start_with_the_hot_accounts(level, monkeypatch):
    run, commands = run_with_two_workers(), []

    def admin(command: list[str], lines: int = 0, attempts: int = 1) -> list[str]:
        commands.append(command)
        return [",".join(map(str, range(1, 11)))][:lines]

    monkeypatch.setattr(run, "admin", admin)
    run.fresh_database(level())
    assert commands == [database.RESET]
    run.fresh_database(level(scenario="contention"))
    assert commands[1:] == [database.RESET, [*database.PSQL, "-c", hot.setup_sql(10)]]


def test_runs_record_the_image_digests_they_ran():
    run = run_with_two_workers()
    task = {"containers": [{"image": "repo/bank-go:latest", "imageDigest": "sha256:abc"}, {"image": "x"}]}
    assert run.record(task) is task and run.images == {"repo/bank-go:latest": "sha256:abc"}
