"""The analysis library on the fixture run (tests/fixtures/make_fixture.py says how it is made).

Expected figures are computed by hand from the fixture's rules: measured latencies are
`scale * (i + 1)` ms for i = 0..19, one sample every 500 ms from measure_from_ms; pandas'
default (linear) quantile puts percentile q at position 19q of the sorted values.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from bankbench.analyse import levels, repeats, service_metrics, timelines
from bankbench.errors import UserError
from bankbench.publish import terminal
from bankbench.results import histograms, summaries
from bankbench.results.files import SERVICE_METRICS

FIXTURES = Path(__file__).parent / "fixtures"
RUN_ID = "20261122T013000Z-native-article"
GOLDEN = FIXTURES / "golden"
UPDATE_GOLDEN = os.environ.get("BANKBENCH_UPDATE_GOLDEN") == "1"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A writable copy of the fixture run (summaries are written into it)."""
    return shutil.copytree(FIXTURES / "runs" / RUN_ID, tmp_path / RUN_ID)


def check_golden(name: str, text: str) -> None:
    """Compares with tests/fixtures/golden/<name>; BANKBENCH_UPDATE_GOLDEN=1 rewrites it."""
    path = GOLDEN / name
    if UPDATE_GOLDEN:
        path.write_text(text)
    assert text == path.read_text()


def test_summarize_level_overall(run_dir: Path) -> None:
    # go-u4000-p95-r1: scale 5 -> 5, 10, ..., 100 ms; errors at i = 7 and 15.
    summary = levels.summarize_level(run_dir / "levels" / "go-u4000-p95-r1")
    assert summary["overall"] == {
        "requests": 20,  # the 6 warm-up samples (900 ms, 2 errors) are left out
        "errors": 2,
        "error_pct": 10.0,
        "throughput_rps": 2.083,  # 20 / 9.6 s: the last sample starts at +9.5 s and lasts 100 ms
        "mean_ms": 52.5,
        "p50_ms": 52.5,  # position 9.5: between 50 and 55
        "p90_ms": 90.5,  # position 17.1: 90 + 0.1 * 5
        "p95_ms": 95.25,  # position 18.05: 95 + 0.05 * 5
        "p99_ms": 99.05,  # position 18.81: 95 + 0.81 * 5
        "max_ms": 100.0,
        "errors_by_status": {"503": 2},  # the warm-up's 503s are left out too
    }
    assert summary["money_ok"] is True
    assert summary["level"]["users"] == 4000


def test_summarize_level_labels(run_dir: Path) -> None:
    summary = levels.summarize_level(run_dir / "levels" / "go-u4000-p95-r1")
    balance, transaction = summary["labels"]["balance"], summary["labels"]["transaction"]
    # balance: even i -> 5, 15, ..., 95; transaction: odd i -> 10, 20, ..., 100 with both errors.
    assert (balance["requests"], balance["errors"], balance["mean_ms"]) == (10, 0, 50.0)
    assert (balance["p50_ms"], balance["p90_ms"], balance["p99_ms"]) == (50.0, 86.0, 94.1)
    assert (transaction["errors"], transaction["error_pct"], transaction["p99_ms"]) == (2, 20.0, 99.1)
    # Labels share the level's window: their throughputs add up to the overall one.
    assert balance["throughput_rps"] == transaction["throughput_rps"] == 1.042


def test_summarize_level_resources(run_dir: Path) -> None:
    resources = levels.summarize_level(run_dir / "levels" / "go-u4000-p95-r1")["resources"]
    # Window rows t = 2..12 s: service CPU 100..200, RSS 300..320, PG CPU 40..60; the 999s outside.
    assert resources == {
        "service_cpu_mean": 150.0, "service_cpu_max": 200.0,
        "service_rss_mean_mb": 310.0, "service_rss_max_mb": 320.0,
        "pg_cpu_mean": 50.0, "pg_cpu_max": 60.0,
        "pg_rss_mean_mb": 500.0, "pg_rss_max_mb": 500.0,
        "loadgen_cpu_mean": 30.0, "loadgen_cpu_max": 30.0,
        "machine_cpu_mean": 60.0, "loadgen_saturated": False,
    }


def test_errors_by_status(run_dir: Path) -> None:
    summary = levels.summarize_level(run_dir / "levels" / "go-u10000-p95-r1")
    # i = 1, 3, 5, 7 failed: 503s, a 200 whose body failed an assertion, a refused connection.
    assert summary["overall"]["errors_by_status"] == {"503": 2, "assertion": 1, "no response": 1}
    assert list(summary["overall"]["errors_by_status"]) == ["503", "assertion", "no response"]
    assert summary["labels"]["transaction"]["errors_by_status"] == summary["overall"]["errors_by_status"]
    assert summary["labels"]["balance"]["errors_by_status"] == {}


def test_error_kinds() -> None:
    assert [levels.error_kind(code) for code in ("503", "500", "422", "200", "204", "", None,
            "Non HTTP response code: org.apache.http.NoHttpResponseException")] == [
        "503", "500", "422", "assertion", "assertion", "no response", "no response", "no response"]
    assert sorted(["no response", "503", "assertion", "422"], key=summaries.status_order) == [
        "422", "503", "assertion", "no response"]


def test_summarize_level_service_metrics(run_dir: Path) -> None:
    block = levels.summarize_level(run_dir / "levels" / "go-u4000-p95-r1")["service_metrics"]
    # make_fixture.py's rules, scale 5: JMeter's window t = 2..11 s (its last sample ends at
    # 11 s), the scrape at 7 s failed; counters from the scrape at 2 s to the one at 11 s.
    assert block == {
        "scrapes": 9, "scrapes_failed": 1,
        "requests": 900.0, "throughput_rps": 100.0,  # 100 t
        "requests_by_status": {"200": 893.0, "503": 7.0},  # 503s from t = 5 s: 0 before, then t - 4
        "pool_max": 95.0, "pool_active_mean": 90.0, "pool_active_max": 90.0,
        "pool_pending_mean": 4.444, "pool_pending_max": 9.0,  # 0..9 without the failed 5
        "pool_acquires": 450.0, "pool_acquire_mean_ms": 0.5,  # 0.025 s * 9 over 50 * 9
        "pool_timeouts": 7.0, "pool_created": 1.0,
        "gc_pauses": 27.0, "gc_pauses_per_s": 3.0, "gc_seconds_per_s": 0.01, "gc_pct": 1.0,
        "heap_mean_mb": 108.889, "heap_max_mb": 118.0, "threads_mean": 24.444, "threads_max": 29.0,
    }


def test_service_metrics_count_counter_resets() -> None:
    # A restart at t = 3 s: the counter fell from 300 to 40; it gained 100 + 100 + 40 + 60.
    frame = pd.DataFrame({"t_ms": [0, 1000, 2000, 3000, 4000], "up": 1.0,
                          "requests": [100.0, 200.0, 300.0, 40.0, 100.0]})
    assert service_metrics.increase(frame, "requests") == 300.0
    assert service_metrics.window_stats(frame, 0, 4000)["throughput_rps"] == 75.0
    assert service_metrics.per_second(frame)["requests_per_s"].tolist()[1:] == [100.0, 100.0, 40.0, 60.0]


def test_a_level_without_service_metrics_has_no_block(run_dir: Path) -> None:
    level_dir = run_dir / "levels" / "go-u4000-p95-r1"
    (level_dir / SERVICE_METRICS).unlink()  # a level of a run before them
    summary = levels.summarize_level(level_dir)
    assert "service_metrics" not in summary and summary["overall"]["requests"] == 20
    assert timelines.service_timeline(level_dir) is None


def test_saturation_makes_a_level_invalid_and_failed_money(run_dir: Path) -> None:
    busy = levels.summarize_level(run_dir / "levels" / "java-u4000-p95-r3")
    assert busy["resources"]["loadgen_saturated"] is True  # machine 95 %, generator 180 >= 150
    assert busy["loadgen"] == {"valid": False, "calibrated_rps": None,
                               "reasons": "JMeter short of CPU (180 % of a core, the machine 95 % busy)"}
    assert levels.summarize_level(run_dir / "levels" / "go-u10000-p95-r1")["loadgen"]["valid"] is True
    assert levels.summarize_level(run_dir / "levels" / "java-u4000-p95-r1")["money_ok"] is False


def test_summary_json_is_what_is_returned(run_dir: Path) -> None:
    level_dir = run_dir / "levels" / "java-u10000-p95-r1"
    summary = levels.summarize_level(level_dir)
    assert json.loads((level_dir / "summary.json").read_text()) == summary


def test_empty_window_has_no_figures(run_dir: Path) -> None:
    level_dir = run_dir / "levels" / "go-u4000-p95-r1"
    level = json.loads((level_dir / "level.json").read_text())
    level["measure_from_ms"] = level["ended_ms"] + 60_000  # after every request and metric
    (level_dir / "level.json").write_text(json.dumps(level))
    requests = histograms.read(level_dir / histograms.FILE)  # its seconds, counted from there
    histograms.write(histograms.Histograms(requests.rows.assign(second=requests.rows["second"] - 100)),
                     level_dir / histograms.FILE)
    summary = levels.summarize_level(level_dir)
    assert summary["overall"]["requests"] == 0
    assert summary["overall"]["p99_ms"] is None and summary["overall"]["throughput_rps"] is None
    assert summary["labels"] == {}
    assert summary["resources"]["service_cpu_mean"] is None
    assert summary["resources"]["loadgen_saturated"] is False


def test_missing_input_is_a_user_error(run_dir: Path) -> None:
    (run_dir / "levels" / "go-u4000-p95-r1" / "metrics.csv").unlink()
    with pytest.raises(UserError, match=r"metrics\.csv"):
        levels.summarize_level(run_dir / "levels" / "go-u4000-p95-r1")


def test_summarize_run_writes_summary_csv(run_dir: Path) -> None:
    frame = levels.summarize_run(run_dir)
    assert frame["level_id"].tolist() == [
        "go-u4000-p95-r1", "go-u4000-p95-r2", "go-u10000-p95-r1",
        "java-u4000-p95-r1", "java-u4000-p95-r2", "java-u4000-p95-r3", "java-u10000-p95-r1",
    ]
    assert "load_properties" not in frame  # nested level.json values stay in level.json
    assert {"service", "users", "pool", "repeat", "overall.p99_ms", "resources.pg_cpu_mean",
            "money_ok", "loadgen.valid", "loadgen.reasons", "service_metrics.gc_pct"} <= set(frame.columns)
    # Nested blocks flattened, a status a level did not have at 0.
    assert frame["overall.errors_by_status.503"].tolist() == [2, 0, 2, 0, 1, 0, 1]
    assert frame["overall.errors_by_status.assertion"].tolist() == [0, 0, 1, 0, 0, 0, 0]
    assert frame["service_metrics.requests_by_status.503"].eq(7).all()
    assert frame[summaries.VALID].tolist() == [True] * 5 + [False, True]
    assert frame["loadgen.reasons"].tolist()[4:6] == [
        "", "JMeter short of CPU (180 % of a core, the machine 95 % busy)"]
    assert json.loads((run_dir / "summary.json").read_text()) == {
        "summary_version": summaries.SUMMARY_VERSION, "levels": 7}
    pd.testing.assert_frame_equal(summaries.read_summary(run_dir), frame)


def test_readers_refuse_runs_not_summarized_by_this_version(run_dir: Path) -> None:
    with pytest.raises(UserError, match="has not been summarized: run `make summarize RUN="):
        summaries.read_summary(run_dir)
    levels.summarize_run(run_dir)
    (run_dir / "summary.json").write_text(json.dumps({"summary_version": 2}))
    with pytest.raises(UserError, match=f"of version 2, this harness reads version {summaries.SUMMARY_VERSION}"):
        summaries.read_summary(run_dir)


def test_summarize_run_recomputes_older_summaries(run_dir: Path) -> None:
    levels.summarize_run(run_dir)
    level_dir = run_dir / "levels" / "go-u4000-p95-r1"
    older = json.loads((level_dir / "summary.json").read_text())
    del older["summary_version"], older["overall"]["errors_by_status"]  # as a summary before version 2
    (level_dir / "summary.json").write_text(json.dumps(older))
    assert levels.summarize_run(run_dir).loc[0, "overall.errors_by_status.503"] == 2
    assert summaries.is_fresh(level_dir)
    newer = (level_dir / "summary.json").stat().st_mtime + 10
    os.utime(level_dir / SERVICE_METRICS, (newer, newer))  # an optional input, newer
    assert not summaries.is_fresh(level_dir)


def test_error_statuses_in_percent(run_dir: Path) -> None:
    figures, names = repeats.error_statuses(levels.summarize_run(run_dir))
    assert names == ["503", "assertion", "no response"]
    go = figures.set_index(["service", "users"]).loc[("go", 10000)]
    assert (go["503"], go["assertion"], go["no response"]) == (10.0, 5.0, 5.0)  # of 20 requests
    assert figures.set_index(["service", "users"]).loc[("go", 4000), "503"] == 5.0  # median of 10 and 0


def test_summarize_run_reuses_fresh_summaries(run_dir: Path) -> None:
    levels.summarize_run(run_dir)
    level_dir = run_dir / "levels" / "go-u4000-p95-r1"
    stale = json.loads((level_dir / "summary.json").read_text())
    stale["overall"]["p99_ms"] = -1.0  # a marker: reused as long as summary.json is newest
    (level_dir / "summary.json").write_text(json.dumps(stale))
    assert levels.summarize_run(run_dir).loc[0, "overall.p99_ms"] == -1.0
    assert levels.summarize_run(run_dir, force=True).loc[0, "overall.p99_ms"] == 99.05
    (level_dir / "summary.json").write_text(json.dumps(stale))
    os.utime(level_dir / "money.json")  # an input newer than the summary: recomputed
    assert levels.summarize_run(run_dir).loc[0, "overall.p99_ms"] == 99.05


def test_summarize_run_without_levels(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no levels"):
        levels.summarize_run(tmp_path)


def test_aggregate_repeats_leaves_failed_money_checks_and_invalid_levels_out(run_dir: Path) -> None:
    summary = levels.summarize_run(run_dir)
    aggregated = repeats.aggregate_levels(summary).set_index(["service", "users"])
    go, java = aggregated.loc[("go", 4000)], aggregated.loc[("java", 4000)]
    # go: medians of r1 (scale 5) and r2 (scale 4): p50 52.5 and 42. Two repeats: p50 has no
    # interval, p99 that of the repeats' seconds (2 samples a second, scale * (i + 1) ms).
    assert go["overall.p50_ms"] == 47.25 and pd.isna(go["overall.p50_ms.low"])
    assert go["overall.p99_ms.low"] < go["overall.p99_ms"] < go["overall.p99_ms.high"]
    assert (go["repeats"], go["failed"], go["interval"]) == (2, 0, "seconds")
    # java: r1 (scale 3) failed its money check, r3 (scale 1) was invalid: only r2 (scale 6,
    # p50 63) counts.
    assert (java["overall.p50_ms"], java["repeats"], java["failed"], java["invalid"]) == (63.0, 3, 1, 1)
    assert aggregated["pg_max_connections"].eq(100).all()


def synthetic(rows: list[tuple[str, int, int, int, float, bool]], valid: bool = True) -> pd.DataFrame:
    """A summary frame from (service, users, pool, repeat, throughput, money_ok) rows, all
    `valid` by the load generator's verdict."""
    frame = pd.DataFrame(rows, columns=["service", "users", "pool", "repeat", "overall.throughput_rps", "money_ok"])
    return frame.assign(**{"overall.p50_ms": 1.0, "overall.p99_ms": 2.0, "overall.error_pct": 0.0,
                           "pg_max_connections": 100, "model": "article", summaries.VALID: valid})


def test_comparison_table_marks_failed_and_shows_pools() -> None:
    summary = synthetic([
        ("go", 100, 10, 1, 900.0, True), ("go", 100, 10, 2, 1100.0, True), ("go", 100, 10, 3, 1000.0, True),
        ("java", 100, 10, 1, 800.0, False),
        ("go", 100, 200, 1, 50.0, True), ("java", 100, 200, 1, 60.0, True),
    ])
    lines = terminal.comparison_table(summary).splitlines()
    assert lines[0].split()[:3] == ["users", "pool", "go"]
    assert "1000 [900-1100]" in lines[2] and "r1 800 FAILED" in lines[2]
    assert lines[3].split()[:6] == ["100", "200", "1", "of", "1", "50.0"]
    invalid = synthetic([("go", 100, 10, 1, 900.0, True)], valid=False)
    assert "INVALID" in terminal.comparison_table(pd.concat([summary, invalid], ignore_index=True)).splitlines()[2]


def test_main_pool_prefers_the_servable_pool_on_a_tie() -> None:
    sweep = synthetic([("go", 100, pool, 1, 1.0, True) for pool in (10, 50, 95, 200)])
    assert repeats.main_pool(sweep) == 95
    assert repeats.main_pool(synthetic([("go", 100, 10, 1, 1.0, True)] * 2 + [("go", 100, 95, 1, 1.0, True)])) == 10


def test_comparison_table_golden(run_dir: Path) -> None:
    check_golden("comparison.txt", terminal.comparison_table(levels.summarize_run(run_dir)) + "\n")


def test_timeline(run_dir: Path) -> None:
    timeline = timelines.timeline(run_dir / "levels" / "go-u4000-p95-r1")
    frame = timeline.frame.set_index("t_s")
    assert timeline.warmup_end_s == 2.0
    assert frame.loc[0.0, "requests_per_s"] == 4  # warm-up samples at 0, 300, 600, 900 ms
    assert frame.loc[0.0, "errors_per_s"] == 2
    assert (frame.loc[2.0, "p50_ms"], frame.loc[2.0, "p99_ms"]) == (7.5, 9.95)  # 5 and 10 ms
    assert frame.index.max() == 11.0


def test_timeline_levels_prefer_passed_repeats(run_dir: Path) -> None:
    summary = levels.summarize_run(run_dir)
    assert timelines.timeline_levels(summary) == {"go": "go-u10000-p95-r1", "java": "java-u10000-p95-r1"}
    assert timelines.timeline_levels(summary, users=4000) == {"go": "go-u4000-p95-r1", "java": "java-u4000-p95-r2"}


def test_label_summary(run_dir: Path) -> None:
    labels = summaries.label_summary(run_dir, levels.summarize_run(run_dir))
    assert len(labels) == 14
    row = labels[(labels["level_id"] == "go-u4000-p95-r1") & (labels["label"] == "transaction")].iloc[0]
    assert (row["errors"], row["p50_ms"]) == (2, 55.0)
