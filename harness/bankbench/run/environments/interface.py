"""What the runner drives in every environment (native, compose, AWS ECS), and a run's options.

See docs/benchmarks.md#how-a-level-runs."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from bankbench.load.profiles import Level, Profile
from bankbench.machine.placement import Placement
from bankbench.results.documents import Calibration


@dataclass
class Options:
    profile: Profile
    placement: Placement  # the CPUs of the load generator, the service and PostgreSQL
    pg_max_connections: int  # passed to the server (AWS: its image's, db/postgresql.conf's)
    durable: bool
    dashboard: bool = True
    chaos: tuple[str, ...] = ()  # faults struck in each level (bankbench.run.experiments.chaos)
    profile_cpu: bool = False  # a flame graph of the service per level (bankbench.measure.cpuprofile)
    series: str = ""  # the runs of one bench over several CPU placements share it (bankbench.results.runs)
    with_tuned: bool = False  # make capacity TUNED=both: shipped and tuned contenders in one pass


class Service(Protocol):
    @property
    def url(self) -> str: ...

    def exit_code(self) -> int | None: ...  # None while it runs
    def stop(self) -> None: ...


# The service an environment starts, which its loads then run against (a process, a container, a task).
ServiceT = TypeVar("ServiceT", bound=Service)
ServiceT_contra = TypeVar("ServiceT_contra", bound=Service, contravariant=True)


class Load(Protocol[ServiceT_contra]):
    """One level's load: service_env() before the service starts, run() while it is up,
    finish() once it has stopped (what level.json adds: the faults struck, the CPUs seen)."""

    def service_env(self) -> dict[str, str] | None: ...
    def run(self, svc: ServiceT_contra, tag: str, remaining_s: float) -> tuple[int, int]: ...  # ms
    def finish(self, window: tuple[int, int]) -> dict[str, object]: ...


class Env(Protocol[ServiceT]):
    """An environment, opened for one run (its options, its id) and closed when the run ends; what
    start() gives, the loads of load() take (the runner, which holds either, types it Env[Any])."""

    name: str
    local_build: bool  # it runs this checkout's build: the run starts with `bankbench verify` of it
    run_id: str  # the run's one id (bankbench.runid): its folder's name, on AWS its S3 prefix too

    def __init__(self, opts: Options, run_id: str) -> None: ...
    def describe(self) -> str: ...  # where the run happens, for its first line

    def calibrate(self, levels: list[Level], run_dir: Path) -> dict[int, Calibration]:
        """Per user count, what the load generator drives (experiments.calibration)."""

    def reset(self) -> None: ...  # a new database with the schema alone: each level starts from it

    def start(self, service: str, pool: int, log: Path, extra_env: dict[str, str] | None,
              aot: bool = False) -> ServiceT:
        """The service with the level's pool; `aot`: from its AOT cache (profile start "aot")."""

    def load(self, level: Level, out: Path) -> Load[ServiceT]: ...
    def psql(self, sql: str) -> str: ...  # the rows as `psql -A -t` prints them
    def machine(self) -> dict: ...

    def versions(self, postgresql: str) -> dict[str, str]:
        """Asked at the start and after the last level (AWS learns the digests from its tasks)."""

    def settings(self) -> dict[str, object]: ...  # what the services and the load ran with
    def level_settings(self) -> Mapping[str, object]: ...  # what level.json adds
    def close(self) -> None: ...
