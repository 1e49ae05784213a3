"""Profiles and levels: parsing profiles.toml, overrides, the level matrix, TUNED's tables."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from bankbench.errors import UserError
from bankbench.load import profiles


@pytest.mark.parametrize("name", ["smoke", "local", "pool", "article", "article-aot", "article-warm", "placement",
                                  "sustained", "open", "efficiency", "capacity", "tune"])
def test_every_profile_loads(name: str) -> None:
    p = profiles.load(name)
    assert p.users and p.pools and p.model in profiles.MODELS


def test_article_is_the_articles_ladder() -> None:
    p = profiles.load("article")
    assert p.users == [1000, 2000, 4000, 6000, 8000, 10000]
    assert (p.rampup_s, p.model) == (60, "article")
    props = profiles.levels(p)[0].load_properties()
    assert (props["loops"], props["rampup"], props["rate"]) == (1, 60, 0)


def test_measured_window_starts_after_rampup_and_warmup_but_article_has_no_rampup_to_skip() -> None:
    article, sustained = (profiles.levels(profiles.load(n))[0] for n in ("article", "sustained"))
    assert article.measure_offset_s == article.profile.warmup_s == 0
    assert sustained.measure_offset_s == sustained.profile.rampup_s + sustained.profile.warmup_s
    # An open model's drain is at most: the measured window (a CPU profile's) ends at the last arrival.
    capacity = profiles.levels(profiles.load("capacity"))[0]
    assert (capacity.measured_s, sustained.measured_s) == (capacity.profile.duration_s, sustained.profile.duration_s)


def test_overrides_win_and_none_is_ignored() -> None:
    p = profiles.load("sustained", {"users": [1000], "pools": [10, 95], "repeat": None,
                                    "services": ["java"]})
    assert [lv.id for lv in profiles.levels(p)] == [f"java-u1000-p{pool}-r{r}" for r in (1, 2, 3) for pool in (10, 95)]


def test_published_profiles_repeat_three_times_smoke_once() -> None:
    assert {name: profiles.load(name).repeat for name in ("local", "article", "sustained", "open", "smoke")} == {
        "local": 3, "article": 3, "sustained": 3, "open": 3, "smoke": 1}


def test_matrix_order_and_repeats() -> None:
    """The services take turns at each point, each repeat sweeping the matrix once."""
    p = profiles.load("smoke", {"users": [1, 2], "repeat": 2, "services": ["go", "java"]})
    ids = [lv.id for lv in profiles.levels(p)]
    assert ids == ["go-u1-p95-r1", "java-u1-p95-r1", "go-u2-p95-r1", "java-u2-p95-r1",
                   "go-u1-p95-r2", "java-u1-p95-r2", "go-u2-p95-r2", "java-u2-p95-r2"]


def test_open_model_turns_users_into_a_rate() -> None:
    level = profiles.levels(profiles.load("open"))[0]
    props = level.load_properties()
    assert (props["users"], props["rate"]) == (0, level.users)
    assert props["arrivals_s"] == level.profile.warmup_s + level.profile.duration_s


def test_sustained_duration_covers_rampup_warmup_and_measure() -> None:
    p = profiles.load("sustained")
    props = profiles.levels(p)[0].load_properties()
    assert props["duration"] == p.rampup_s + p.warmup_s + p.duration_s
    assert props["loops"] == -1


@pytest.mark.parametrize("overrides,message", [
    ({"users": [0]}, "users must be positive"),
    ({"pools": []}, "pools must be positive"),
    ({"scenario": "nope"}, "scenario must be one of"),
    ({"duration_s": 0}, "duration_s must be positive"),
    ({"start": "lukewarm"}, "start must be one of"),
    ({"start": "aot", "services": ["go", "java"]}, "go has no AOT cache"),
])
def test_bad_values_are_user_errors(overrides: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        profiles.load("local", overrides)


def test_unknown_profile_and_unknown_key(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="unknown profile"):
        profiles.load("nope")
    bad = tmp_path / "p.toml"
    bad.write_text('[defaults]\n[profiles.x]\nmodel = "open"\nusers = [1]\ncolour = "red"\n')
    with pytest.raises(UserError, match="colour"):
        profiles.load("x", path=bad)


def test_a_profile_over_a_base_is_its_levels_started_otherwise() -> None:
    article, warm, aot = (profiles.load(name) for name in ("article", "article-warm", "article-aot"))
    assert (article.start, warm.start, aot.start) == ("cold", "warm", "aot")
    assert warm.base == aot.base == "article"
    for over in (warm, aot):
        assert (over.users, over.rampup_s, over.duration_s, over.model) == (
            article.users, article.rampup_s, article.duration_s, article.model)
    assert aot.services == ["java", "java-virtual", "helidon"]  # every JVM of services.yaml
    assert profiles.load("smoke", {"start": "aot"}).services == aot.services
    assert profiles.levels(warm)[0].as_dict()["start"] == "warm"


def test_warm_levels_run_a_service_through_its_levels_in_each_repeat() -> None:
    p = profiles.load("smoke", {"users": [1, 2], "repeat": 2, "services": ["go", "java"], "start": "warm"})
    assert [lv.id for lv in profiles.levels(p)] == [
        "go-u1-p95-r1", "go-u2-p95-r1", "java-u1-p95-r1", "java-u2-p95-r1",
        "go-u1-p95-r2", "go-u2-p95-r2", "java-u1-p95-r2", "java-u2-p95-r2"]


def test_a_base_must_exist_and_be_a_root(tmp_path: Path) -> None:
    chained = tmp_path / "p.toml"
    chained.write_text('[profiles.a]\nmodel = "open"\nusers = [1]\n'
                       '[profiles.b]\nbase = "a"\n[profiles.c]\nbase = "b"\n[profiles.d]\nbase = "x"\n')
    for name in ("c", "d"):
        with pytest.raises(UserError, match="must be a profile without a base"):
            profiles.load(name, path=chained)


def test_int_list() -> None:
    assert profiles.int_list("1000, 4000") == [1000, 4000]
    assert profiles.int_list("") is None
    with pytest.raises(UserError):
        profiles.int_list("10,x")


TABLES = """
[tuned.go]
pool = 16
env = { GOGC = "200", GOMEMLIMIT = "64MiB" }
found_by = "make tune, run 20261201T000000Z-native-tune"
"""


def with_tables(tmp_path: Path, tables: str = TABLES) -> Path:
    """A tuned.toml of these tables."""
    path = tmp_path / "tuned.toml"
    path.write_text(tables)
    return path


def test_tuned_levels_run_at_their_tables_settings(tmp_path: Path) -> None:
    """TUNED=1: each service at the pool and environment of its [tuned.<service>] table, recorded in
    the profile (the manifest's) and in each level; without it the same file runs as shipped."""
    path = with_tables(tmp_path)
    tuned = profiles.load("capacity", {"services": ["go"], "users": [100]}, tuned=True, tuned_path=path)
    level = profiles.levels(tuned)[0]
    assert (level.id, level.pool, level.service_env()) == (
        "go-u100-p16-tuned-r1", 16, {"GOGC": "200", "GOMEMLIMIT": "64MiB"})
    assert level.as_dict()["settings_tag"] == "tuned"
    assert json.loads(json.dumps(asdict(tuned)))["tuned"] == {"go": {
        "pool": 16, "env": {"GOGC": "200", "GOMEMLIMIT": "64MiB"},
        "found_by": "make tune, run 20261201T000000Z-native-tune"}}
    shipped = profiles.levels(profiles.load("capacity", {"services": ["go"], "users": [100]}))[0]
    assert (shipped.id, shipped.service_env(), shipped.profile.tuned) == ("go-u100-p95-r1", {}, {})


def test_tuned_needs_a_table_for_every_service_it_runs(tmp_path: Path) -> None:
    path = with_tables(tmp_path)
    missing = r"no \[tuned.<service>\] table for java, java-virtual, helidon: run `make tune`"
    with pytest.raises(UserError, match=missing):
        profiles.load("capacity", tuned=True, tuned_path=path)
    with pytest.raises(UserError, match=r"no .* table for go"):
        profiles.load("capacity", {"services": ["go"]}, tuned=True, tuned_path=tmp_path / "none.toml")


def test_tuned_sets_the_pool_itself(tmp_path: Path) -> None:
    path = with_tables(tmp_path)
    for name, overrides in (("capacity", {"services": ["go"], "pools": [95]}), ("pool", {"services": ["go"]})):
        with pytest.raises(UserError, match="runs each service at its tuned pool"):
            profiles.load(name, overrides, tuned=True, tuned_path=path)


@pytest.mark.parametrize("table", ['pool = "16"\nenv = {}', "pool = 16", 'pool = 0\nenv = {}',
                                   'pool = 16\nenv = { GOGC = 200 }', 'pool = 16\nenv = {}\nheap = 64',
                                   'pool = 16\nenv = {}\nfound_by = 3'])
def test_a_malformed_table_is_refused(tmp_path: Path, table: str) -> None:
    path = with_tables(tmp_path, f"\n[tuned.go]\n{table}\n")
    with pytest.raises(UserError, match=r"\[tuned.go\] needs `pool`"):
        profiles.load("capacity", {"services": ["go"]}, tuned=True, tuned_path=path)
