"""The overload profile: phases parsed and checked, each service's base rate from RATE= or from the
newest capacity run, and a phased level's timeline and verdict (bankbench.analyse.overload) on a
synthetic level whose requests are folded by the histograms' own writer."""

from __future__ import annotations

import argparse
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import fake_records
import pandas as pd
import pytest

from bankbench import paths
from bankbench.analyse import base_rates, levels, overload
from bankbench.bank import processes
from bankbench.commands import plan
from bankbench.commands.plan import with_base_rates
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.measure import manifest
from bankbench.publish import charts, pages, report
from bankbench.results import capacities, files, histograms, runs
from bankbench.results.documents import LevelRecord, Manifest
from bankbench.results.files import SERVICE_METRICS
from bankbench.results.probes import Target

STARTED_MS = 1_795_000_000_000
WARMUP_S = 2
BASE = 10  # iterations/s
PHASES = [[5, 0.5], [5, 2.0], [20, 0.5]]  # seconds 0-4 at 5/s, 5-9 at 20/s, 10-29 at 5/s


# --- the profile ----------------------------------------------------------------------------------

def test_overload_runs_each_service_in_phases_of_its_base_rate() -> None:
    p = profiles.with_rates(profiles.load("overload"), {"go": 400, "java": 300, "java-virtual": 300, "helidon": 300},
                            "a test")
    assert p.phased and p.generator == "gatling" and p.start == "warm"
    assert p.duration_s == sum(seconds for seconds, _ in p.phases)  # the phases are the measured window
    go = profiles.levels(p)[0]
    assert [level.id for level in profiles.levels(p)] == ["go-u400-p95-r1", "java-u300-p95-r1",
                                                          "java-virtual-u300-p95-r1", "helidon-u300-p95-r1"]
    assert go.schedule() == [(p.warmup_s, 200.0), (30, 200.0), (60, 800.0), (60, 200.0)]
    props = go.load_properties()
    assert props["phases"] == f"{p.warmup_s}:200,30:200,60:800,60:200"
    assert (props["rate"], props["arrivals_s"], props["users"]) == (0, 0, 0)
    planned = sum(seconds * rate for seconds, rate in go.schedule())
    assert go.arrivals["window_s"] == p.warmup_s + 150
    assert go.arrivals["rate"] * go.arrivals["window_s"] == pytest.approx(planned)  # what offered() counts
    assert go.expected_s == p.warmup_s + 150 + profiles.OPEN_DRAIN_S
    level = go.as_dict()
    assert level["base_rate"] == {"rate": 400, "source": "a test"}
    assert [phase["rate"] for phase in level["phases"]] == [200, 800, 200]


def test_a_fractional_rate_reaches_gatling_without_an_exponent() -> None:
    p = profiles.with_rates(profiles.load("overload", {"services": ["go"]}), {"go": 93}, "a test")
    assert profiles.levels(p)[0].load_properties()["phases"] == f"{p.warmup_s}:46.5,30:46.5,60:186,60:46.5"


@pytest.mark.parametrize("overrides,message", [
    ({"phases": [[30, 0]]}, "each phase must be"),
    ({"phases": [[0, 2]]}, "each phase must be"),
    ({"phases": [[1.5, 2]]}, "each phase must be"),
    ({"phases": [[30]]}, "each phase must be"),
    ({"generator": "jmeter"}, "phases need the open model and generator gatling"),
    ({"users": [100]}, "not from users"),
])
def test_bad_phases_are_user_errors(overrides: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        profiles.load("overload", overrides)


def test_the_phases_set_the_duration() -> None:
    with pytest.raises(UserError, match="phases set the measured duration"):
        profiles.load("overload", {"duration_s": 30})


def test_a_phased_profile_without_rates_has_no_levels() -> None:
    with pytest.raises(UserError, match="no base rates: pass RATE= or run `make capacity`"):
        profiles.levels(profiles.load("overload"))


# --- the base rate ----------------------------------------------------------------------------------

def add_pass(run: str, placement: str, shipped: dict[str, float], tuned: dict[str, float] | None = None) -> None:
    """One more pass in capacity.toml (the `rates_file` fixture's), as make capacity appends it."""
    capacities.append(capacities.Pass(run, placement, Target(), shipped, tuned or {}))


@pytest.fixture
def rates_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """capacity.toml of two passes, split then service-alone (java held no rate in the latter)."""
    monkeypatch.setattr(paths, "CAPACITIES", tmp_path / "capacity.toml")
    add_pass("20261101T000000Z-native-capacity", "split", {"go": 400, "java": 250})
    add_pass("20261102T000000Z-native-capacity", "service-alone", {"go": 600})
    return paths.CAPACITIES


def test_rate_knob_wins_for_every_service(rates_file: Path) -> None:
    p = with_base_rates(profiles.load("overload", {"services": ["go", "java"]}), 77, "split")
    assert p.rates == {"go": 77, "java": 77} and p.rate_source == "RATE=77, for every service"


def test_the_capacity_of_the_pass_under_the_same_placement(rates_file: Path) -> None:
    p = with_base_rates(profiles.load("overload", {"services": ["go", "java"]}), None, "split")
    assert p.rates == {"go": 400, "java": 250}
    assert p.rate_source == ("the capacity make capacity found (run 20261101T000000Z-native-capacity; "
                             "capacity.toml), CPU placement split")
    assert "20261101T000000Z-native-capacity" in profiles.rates_text(p.rates, p.rate_source)


def test_over_passes_the_geometric_mean_the_first_table_shows(rates_file: Path) -> None:
    for day, rate in (("05", 500), ("06", 450), ("07", 475)):
        add_pass(f"202611{day}T000000Z-native-capacity", "service-alone", {"go": rate})
    p = with_base_rates(profiles.load("overload", {"services": ["go"]}), None, "service-alone")
    assert p.rates == {"go": round((600 * 500 * 450 * 475) ** (1 / 4))}
    assert p.rate_source == ("the capacity make capacity found (4 passes, runs 20261102T000000Z-native-capacity "
                             "to 20261107T000000Z-native-capacity; capacity.toml), CPU placement service-alone")


def test_a_pass_at_the_tuned_settings_gives_the_tuned_rates(rates_file: Path) -> None:
    add_pass("20261104T000000Z-native-capacity", "split", {}, {"go": 900})
    assert with_base_rates(profiles.load("overload", {"services": ["go"]}), None, "split").rates == {"go": 400}
    assert base_rates.rates("split", tuned=True).rates == {"go": 900}


def test_a_service_no_pass_found_a_rate_for_needs_the_knob(rates_file: Path) -> None:
    with pytest.raises(UserError, match=r"no base rate for java .* pass RATE="):
        with_base_rates(profiles.load("overload", {"services": ["go", "java"]}), None, "service-alone")


def test_without_a_pass_under_the_placement_or_the_knob_it_says_what_to_do(rates_file: Path) -> None:
    with pytest.raises(UserError, match=r"run `make capacity CPU_PLACEMENT=shared` first \(it writes "
                                        r"capacity.toml\), or pass RATE="):
        with_base_rates(profiles.load("overload"), None, "shared")


def test_a_malformed_file_names_itself(rates_file: Path) -> None:
    rates_file.write_text("[[pass]]\nrun = 1\n")
    with pytest.raises(UserError, match=r"capacity.toml is malformed"):
        capacities.read()


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(UserError, match=r"base rates must be whole iterations/s > 0 \(go: 0\)"):
        with_base_rates(profiles.load("overload", {"services": ["go"]}), 0, "split")


def test_the_knob_is_refused_for_a_profile_without_phases() -> None:
    with pytest.raises(UserError, match="RATE= is the base rate of a profile with phases"):
        with_base_rates(profiles.load("open"), 50, "split")
    assert with_base_rates(profiles.load("open"), None, "split") == profiles.load("open")


def test_plan_prints_the_base_rates(rates_file: Path, capsys: pytest.CaptureFixture) -> None:
    parser = argparse.ArgumentParser()
    plan.add_arguments(parser)
    plan.main(parser.parse_args(["--profile", "overload", "--service", "go", "--rate", "120"]))
    out = capsys.readouterr().out
    assert "go 120 iterations/s" in out and "go-u120-p95-r1" in out


# --- a phased level, second by second ---------------------------------------------------------------

def make_level(tmp_path: Path, slow_after_s: int = 2, answers_during: tuple[str, ...] = ("200", "503"),
               peak_rss_mb: float = 120.0, service_exit: int | None = None) -> Path:
    """A go level of BASE it/s in PHASES after a WARMUP_S warm-up, one request per iteration,
    each started on its second (iterations spread evenly): 10 ms 200s before the overload; during
    it, in turn each of `answers_during` (200s at 800 ms, 503s at 1 ms); after it, 300 ms 200s for
    `slow_after_s` seconds, then 10 ms. The service holds 50 requests during the overload, 2
    otherwise; its RSS peaks at `peak_rss_mb` there."""
    out = tmp_path / "go-u10-p95-r1"
    out.mkdir(parents=True)
    measure_from_ms = STARTED_MS + 1000 * WARMUP_S
    schedule = [(WARMUP_S, PHASES[0][1] * BASE)] + [(seconds, multiple * BASE) for seconds, multiple in PHASES]
    rows, second = [], -WARMUP_S
    for seconds, rate in schedule:
        for s in range(second, second + seconds):
            for i in range(int(rate)):
                overloaded, after = 5 <= s < 10, s - 10
                code = answers_during[i % len(answers_during)] if overloaded else "200"
                elapsed = (1 if code == "503" else 800) if overloaded else 300 if 0 <= after < slow_after_s else 10
                rows.append({"timeStamp": measure_from_ms + 1000 * s + i * 1000 // int(rate), "elapsed": elapsed,
                             "label": "balance", "responseCode": code, "threadName": f"arrivals-{len(rows)}",
                             "success": code == "200"})
        second += seconds
    samples = pd.DataFrame(rows).astype(histograms.SAMPLE_DTYPES)
    histograms.write(histograms.from_samples(samples, measure_from_ms), out / histograms.FILE)
    ticks = range(-WARMUP_S, 31)
    metrics = pd.DataFrame({"t_ms": [measure_from_ms + 1000 * s + 500 for s in ticks], "service_cpu_pct": 50.0,
                            "service_rss_mb": [peak_rss_mb if 5 <= s < 10 else 40.0 for s in ticks],
                            "pg_cpu_pct": 20.0, "pg_rss_mb": 300.0, "loadgen_cpu_pct": 10.0, "machine_cpu_pct": 40.0})
    metrics.to_csv(out / "metrics.csv", index=False)
    scraped = [(measure_from_ms + 1000 * s + 300, series, value) for s in ticks
               for series, value in (("up", 1), ("concurrent_requests", 50 if 5 <= s < 10 else 2),
                                     ("pool_pending", 40 if 5 <= s < 10 else 0), ("heap_bytes", 30 * 2**20))]
    pd.DataFrame(scraped, columns=["t_ms", "series", "value"]).to_csv(out / SERVICE_METRICS, index=False)
    level = {"service": "go", "users": BASE, "pool": 95, "repeat": 1, "profile": "overload", "model": "open",
             "generator": "jmeter", "arrivals": None,
             "warmup_s": WARMUP_S, "started_ms": STARTED_MS, "measure_from_ms": measure_from_ms,
             "ended_ms": measure_from_ms + 32_000, "service_exit": service_exit,
             "base_rate": {"rate": BASE, "source": "RATE=10, for every service"},
             "phases": [{"seconds": seconds, "multiple": multiple, "rate": multiple * BASE}
                        for seconds, multiple in PHASES]}
    (out / "level.json").write_text(json.dumps(level))
    files.write_money(out, fake_records.BALANCED)
    return out


MANIFEST = {"settings": {"acquire_timeout_ms": 3000, "jvm_options": ["-Xmx1g"], "java_opts": "",
                         "max_concurrent_requests": 1000, "cpu_placement": {"mode": "split", "description": "split"}}}


def test_the_timeline_per_second(tmp_path: Path) -> None:
    line = overload.timeline(make_level(tmp_path))
    frame = line.frame
    assert line.phases == (overload.Phase(0, 5, 0.5, 5.0), overload.Phase(5, 10, 2.0, 20.0),
                           overload.Phase(10, 30, 0.5, 5.0))
    assert line.overload == (5, 10) and line.end_s == 30
    assert frame.index[0] == -WARMUP_S  # the warm-up, before the measured phases
    assert frame.loc[0, "iterations"] == frame.loc[0, "requests"] == 5
    assert frame.loc[5, "requests"] == 20 and frame.loc[5, "answered"] == 20
    assert (line.answers.loc[5, "200"], line.answers.loc[5, "503"]) == (10, 10)
    assert frame.loc[5, "p99_ms"] == 800 and frame.loc[3, "p50_ms"] == 10  # of the 200s only
    assert frame.loc[10, "p99_ms"] == 300 and frame.loc[12, "p99_ms"] == 10
    assert (frame.loc[7, "in_flight"], frame.loc[12, "in_flight"]) == (50, 2)
    assert (frame.loc[7, "pool_pending"], frame.loc[7, "heap_mb"], frame.loc[7, "rss_mb"]) == (40, 30, 120)

def test_a_second_without_a_reading_shows_the_one_before(tmp_path: Path) -> None:
    """The sampler's and the scraper's clocks drift against the seconds: a second may have none."""
    out = make_level(tmp_path)
    metrics = pd.read_csv(out / "metrics.csv")
    metrics[~metrics["t_ms"].between(STARTED_MS + 1000 * (WARMUP_S + 6), STARTED_MS + 1000 * (WARMUP_S + 9))].to_csv(
        out / "metrics.csv", index=False)  # none in seconds 6 to 8
    rss = overload.timeline(out).frame["rss_mb"]
    assert list(rss.loc[5:9].fillna(-1)) == [120, 120, -1, -1, 120]  # one second at the most, not a gap


def test_a_service_that_held_up(tmp_path: Path) -> None:
    found = overload.outcome(make_level(tmp_path), Manifest.of(MANIFEST))
    assert found.misses() == []
    assert (found.refused_pct, found.p99_ok_ms, found.recovery_s) == (50.0, 800.0, 2)
    assert found.answers == ("200", "503") and found.exit is None and found.money_ok
    assert (found.peak_rss_mb, found.bound_mb) == (120.0, 512)  # go: its registry entry's figure, no heap cap


def test_recovery_counts_from_the_overload_end_to_a_steady_p99() -> None:
    p99 = pd.Series({10: 300.0, 11: 20.0, 12: 300.0, 13: 20.0, 14: 20.0, 15: 20.0, 16: 20.0, 17: 20.0, 18: 50})
    assert overload.recovery_s(p99, 10, 18, target_ms=50, steady_s=5) == 3  # 11 alone is not steady
    assert overload.recovery_s(p99, 10, 18, target_ms=50, steady_s=1) == 1
    # A second without 200s is not recovered; 15 to the end (18) is, though shorter than steady_s.
    assert overload.recovery_s(p99.drop(14), 10, 18, target_ms=50, steady_s=5) == 5
    assert overload.recovery_s(p99.drop(14), 10, 18, target_ms=49, steady_s=5) is None  # 18 is over it
    assert overload.recovery_s(pd.Series({10: 300.0, 11: 300.0}), 10, 11) is None


@pytest.mark.parametrize("change,missed", [
    ({"slow_after_s": overload.RECOVERY_MAX_S}, []),  # back under 50 ms just in time
    ({"slow_after_s": overload.RECOVERY_MAX_S + 1}, ["recovery"]),
    ({"slow_after_s": 20}, ["recovery"]),  # not before the last phase ended
    ({"answers_during": ("200", "503", "Non HTTP response code: java.net.SocketTimeoutException")}, ["answers"]),
    ({"answers_during": ("200", "500")}, ["answers"]),
    ({"peak_rss_mb": 600.0}, ["memory"]),
    ({"service_exit": 3}, ["exited"]),
])
def test_what_a_service_that_did_not_hold_up_missed(tmp_path: Path, change: dict, missed: list[str]) -> None:
    assert overload.outcome(make_level(tmp_path, **change), Manifest.of(MANIFEST)).misses() == missed


def test_slow_200s_during_the_overload_miss_the_acquire_timeout(tmp_path: Path) -> None:
    tight = Manifest.of({"settings": {**MANIFEST["settings"], "acquire_timeout_ms": 500}})
    assert overload.outcome(make_level(tmp_path), tight).misses() == ["p99"]


def test_a_jvm_bound_is_its_heap_cap_plus_its_stated_overhead(level_json: Callable[..., dict]) -> None:
    java, small, go = (level_json(service="java"), level_json(service="java", heap_mb=128), level_json())
    bound = overload.memory_bound_mb
    assert bound(LevelRecord.of(java), {"jvm_options": ["-Xms1g", "-Xmx1g"], "java_opts": "-Xmx512m"}) == 512 + 384
    assert bound(LevelRecord.of(small), {"jvm_options": ["-Xmx1g"]}) == 128 + 384
    assert bound(LevelRecord.of(go), {"jvm_options": ["-Xmx1g"]}) == 512


def test_the_harness_knows_a_service_that_exited(tmp_path: Path) -> None:
    """What level.json's service_exit reads (bankbench.run.environments.local)."""
    service = processes.Service("x", ("sh", "-c", "exit 3"))
    died = processes.Running(service, subprocess.Popen(service.command), "http://127.0.0.1:1", tmp_path / "log")
    died.proc.wait()
    running = processes.Running(service, subprocess.Popen(["sleep", "30"]), "http://127.0.0.1:1", tmp_path / "log")
    try:
        assert (died.exit_code(), running.exit_code()) == (3, None)
    finally:
        running.proc.kill()
        running.proc.wait()


def test_a_level_without_phases_is_refused(tmp_path: Path) -> None:
    out = make_level(tmp_path)
    level = json.loads((out / "level.json").read_text())
    (out / "level.json").write_text(json.dumps({**level, "phases": None}))
    with pytest.raises(UserError, match="not a level with phases"):
        overload.timeline(out)


# --- the report ----------------------------------------------------------------------------------------

@pytest.fixture
def overload_run(tmp_path: Path) -> runs.Run:
    """A summarized run of profile overload (with PHASES, for go at BASE) whose one level is
    make_level's, its level.json and manifest written by the harness's own writers."""
    profile = profiles.with_rates(profiles.load("overload", {"services": ["go"], "warmup_s": WARMUP_S,
                                                             "phases": PHASES}),
                                  {"go": BASE}, "RATE=10, for every service")
    run_dir = tmp_path / "20261201T000000Z-native-overload"
    level_dir = make_level(run_dir / "levels")
    written = json.loads((level_dir / "level.json").read_text())
    (level,) = profiles.levels(profile)
    assert (level.id, level.as_dict()["phases"]) == (level_dir.name, written["phases"])
    files.write_level_record(level_dir, runs.level_record(
        level, STARTED_MS, written["ended_ms"], 100, cpu_placement="split", service_exit=None))
    files.write_manifest(run_dir, Manifest.of(manifest.document(
        run_dir.name, "native", profile, {}, {}, MANIFEST["settings"])))
    levels.summarize_run(run_dir)
    return runs.load_run(run_dir)


def test_the_run_page_has_the_table_and_a_chart_per_service(overload_run: runs.Run, tmp_path: Path) -> None:
    (tmp_path / pages.CHARTS_DIR).mkdir()
    section = "\n\n".join(pages.overload_section(overload_run, tmp_path))
    assert section.startswith("## Past capacity\n\nEach service, warm, got arrivals at 0.5x for 5 s, 2x for 5 s, "
                              "0.5x for 20 s of its base rate")
    assert "go 10 iterations/s (RATE=10" in section
    row = next(line for line in section.splitlines() if line.startswith("| go "))
    assert [cell.strip() for cell in row.strip("|").split("|")] == [
        "go", "go-u10-p95-r1", "10", "120", "512", "50.0", "-", "800", "200, 503", "2", "ok", "no", "yes"]
    chart = f"{pages.CHARTS_DIR}/{overload_run.id}-go-u10-p95-r1-overload.png"
    assert f"](../{chart})" in section  # from the page, under runs/
    assert (tmp_path / chart).stat().st_size > 10_000
    assert report.overload_section([]) == []


def test_the_load_generator_is_judged_on_the_arrivals_of_all_phases(overload_run: runs.Run) -> None:
    """Planned: the sum of rate x seconds over the warm-up and the phases, as make_level started them."""
    (row,) = overload_run.summary.to_dict("records")
    planned = WARMUP_S * 5 + sum(seconds * multiple * BASE for seconds, multiple in PHASES)
    assert row["loadgen.planned_iterations"] == row["loadgen.iterations"] == planned
    assert row["loadgen.offered_pct"] == pytest.approx(100, abs=0.5) and row["loadgen.valid"]


def test_the_timeline_chart_shares_its_time_axis_and_marks_the_bounds(tmp_path: Path) -> None:
    line = overload.timeline(make_level(tmp_path))
    figure = charts.overload_timeline(line, 512, overload.RECOVERY_P99_MS)
    rate, latency, held, memory = figure.axes
    assert [text.get_text() for text in rate.get_legend().get_texts()] == ["sent", "answered", "answered 503"]
    assert "target 50 ms" in [text.get_text() for text in latency.get_legend().get_texts()]
    assert [text.get_text() for text in held.get_legend().get_texts()] == [
        "held (the admission limit's count)", "waiting for a connection"]
    assert "bound 512 MB" in [text.get_text() for text in memory.get_legend().get_texts()]
    assert latency.get_shared_x_axes().joined(rate, memory)
    refused = dict(zip(rate.lines[2].get_xdata(), rate.lines[2].get_ydata(), strict=True))
    assert [refused[second] for second in range(4, 11)] == [0, 10, 10, 10, 10, 10, 0]  # 503s, the overload's
    assert memory.get_xlabel() == "time since the first phase began (s)"


def test_the_whole_report_builds_with_an_overload_run(overload_run: runs.Run, tmp_path: Path) -> None:
    out = tmp_path / "report"
    readme = report.build([overload_run.path], out).read_text()
    section = readme.split("## Past capacity", 1)[1].split("\n## ", 1)[0]
    assert f"[`{overload_run.id}`](runs/{overload_run.id}.md) (profile overload)" in section
    assert "| go " in section and ".png" not in section  # the table; the charts are on the page
    page = (out / pages.PAGES_DIR / f"{overload_run.id}.md").read_text()
    assert page.count("## Past capacity") == 1 and f"{overload_run.id}-go-u10-p95-r1-overload.png" in page
