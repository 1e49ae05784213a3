"""A level's own settings (a candidate of `make tune`, TUNED's): they reach the service's process,
after the harness's and before its heap limit, its id names them, and a warm service started
with other settings does not serve it."""

from __future__ import annotations

from bankbench import config, paths, registry
from bankbench.bank import processes
from bankbench.load import profiles
from bankbench.load.profiles import Level
from bankbench.run.experiments import warmup

PROFILE = profiles.load("capacity")


def test_settings_reach_the_service_environment_with_its_heap() -> None:
    level = Level("go", 400, 16, 1, PROFILE, heap_mb=64, settings={"GOGC": "200"}, settings_tag="GOGC200")
    env = processes.get("go", settings=level.service_env()).environment(8080, level.pool, {"POSTGRES_HOST": "db"})
    assert (env["GOGC"], env["GOMEMLIMIT"], env[config.POOL_SIZE], env["POSTGRES_HOST"]) == ("200", "64MiB", "16", "db")
    assert level.id == "go-u400-p16-h64-GOGC200-r1"
    assert {k: level.as_dict()[k] for k in ("settings", "settings_tag", "heap_mb")} == {
        "settings": {"GOGC": "200"}, "settings_tag": "GOGC200", "heap_mb": 64}


def test_a_jvm_gets_its_collector_then_the_heap_after_jvm_options() -> None:
    """Two settings of JAVA_OPTS are options joined in order: the later win on java's command line."""
    level = Level("java", 400, 8, 1, PROFILE, heap_mb=256, settings={"JAVA_OPTS": "-XX:-UseG1GC -XX:+UseSerialGC"},
                  settings_tag="Serial")
    command = processes.get("java", aot=False, settings=level.service_env()).command
    after_file = command[command.index(f"@{paths.JVM_OPTIONS}") + 1:]
    assert after_file[:4] == ("-XX:-UseG1GC", "-XX:+UseSerialGC", "-Xms256m", "-Xmx256m")


def test_shipped_settings_add_nothing() -> None:
    level = Level("go", 400, 95, 1, PROFILE)
    assert level.service_env() == {} and "settings" not in level.as_dict() and level.id == "go-u400-p95-r1"
    assert registry.combine({"A": "1"}, None, {"B": "2"}, {"A": "3"}) == {"A": "1 3", "B": "2"}


class Fake:
    exited: int | None = None
    stopped = False

    def exit_code(self) -> int | None:
        return self.exited

    def stop(self) -> None:
        self.stopped = True


def test_a_warm_service_serves_only_levels_started_alike() -> None:
    kept = warmup.Kept()
    shipped = Level("go", 400, 95, 1, PROFILE)
    kept.hold(shipped, Fake())
    assert kept.get(Level("go", 800, 95, 2, PROFILE))[1] == shipped.id  # another rate: the same process
    assert not kept.get(Level("go", 400, 95, 1, PROFILE, settings={"GOGC": "200"}, settings_tag="GOGC200"))
    assert not kept.get(Level("go", 400, 16, 1, PROFILE))


def test_a_warm_service_that_died_serves_no_more_levels() -> None:
    kept, dead = warmup.Kept(), Fake()
    kept.hold(Level("java-virtual", 700, 95, 1, PROFILE), dead)
    dead.exited = 3  # OutOfMemoryError under the last level's load
    assert not kept.get(Level("java-virtual", 750, 95, 1, PROFILE))


def test_two_warm_services_are_kept_the_one_used_longest_ago_stopped_first() -> None:
    """make tune's duels: the incumbent and a candidate in turn, each warm; the next candidate
    replaces the last one, as the incumbent was used after it."""
    kept = warmup.Kept(2)
    incumbent, first, second = (Level("go", 400, pool, 1, PROFILE) for pool in (95, 8, 16))
    services = {level.pool: Fake() for level in (incumbent, first, second)}
    kept.hold(incumbent, services[95])
    kept.hold(first, services[8])
    assert kept.get(incumbent) and kept.get(first) and kept.get(incumbent)
    kept.make_room()
    kept.hold(second, services[16])
    assert (services[95].stopped, services[8].stopped, services[16].stopped) == (False, True, False)
    kept.stop()
    assert all(service.stopped for service in services.values())
