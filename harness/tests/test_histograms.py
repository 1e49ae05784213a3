"""The histograms a level keeps (bankbench.results.histograms) give the figures its raw samples gave.

fixtures/raw/ holds one committed level as it was before histograms: JMeter's samples, and
`summary-from-samples.json`, the summary that the analysis of summary_version 4 computed from
them (run 20261124T204541Z-native-placement, since replaced by a run from a clean tree: in git's
history as `git show 5a90f514~:results/runs/20261124T204541Z-native-placement/manifest.json`;
java-virtual at 4,000 users, repeat 3: latencies from 0 to 3,730 ms, the article's planned
arrivals).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bankbench.analyse import levels
from bankbench.load import generators
from bankbench.results import compaction, histograms

RAW = Path(__file__).parent / "fixtures" / "raw" / "java-virtual-u4000-p95-r3"
COUNTS = ("requests", "errors", "error_pct", "throughput_rps", "errors_by_status")
LATENCIES = ("mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms")
PRECISION = 1 / 1024  # 3 significant digits: a bucket spans at most this share of its values


@pytest.fixture
def level_dir(tmp_path: Path) -> Path:
    shutil.copytree(RAW, tmp_path / RAW.name)
    compaction.compact(tmp_path / RAW.name)
    return tmp_path / RAW.name


def test_compact_folds_the_samples_and_keeps_them(level_dir: Path) -> None:
    raw = level_dir / generators.LEVEL_SAMPLES["jmeter"]
    assert (level_dir / histograms.FILE).stat().st_size < raw.stat().st_size / 10
    first = (level_dir / histograms.FILE).read_bytes()
    (level_dir / histograms.FILE).unlink()
    compaction.compact(level_dir)
    assert (level_dir / histograms.FILE).read_bytes() == first  # the same samples, the same bytes


def test_summary_from_histograms_is_the_summary_from_samples(level_dir: Path) -> None:
    before = json.loads((level_dir / "summary-from-samples.json").read_text())
    after = levels.level_summary(level_dir)
    assert after["labels"].keys() == before["labels"].keys()
    for name, old, new in [("overall", before["overall"], after["overall"]),
                           *((label, before["labels"][label], after["labels"][label]) for label in before["labels"])]:
        assert {key: new[key] for key in COUNTS} == {key: old[key] for key in COUNTS}, name
        for key in LATENCIES:
            assert new[key] == pytest.approx(old[key], rel=PRECISION, abs=1e-3), (name, key)
            if key != "mean_ms" and old[key] < 2048:  # latencies below 2,048 ms are kept exactly
                assert new[key] == old[key], (name, key)
    assert after["loadgen"] == before["loadgen"]
    assert after["resources"] == before["resources"] and after["efficiency"] == before["efficiency"]
    assert after["seconds_ci"]["throughput_rps"] == before["seconds_ci"]["throughput_rps"]
    for end in ("low", "high"):
        assert after["seconds_ci"]["p99_ms"][end] == pytest.approx(before["seconds_ci"]["p99_ms"][end], rel=PRECISION)


def test_latency_above_the_default_range_widens_it() -> None:
    samples = pd.DataFrame({"timeStamp": [1_000, 1_500, 2_100], "elapsed": [0, 7, 95_000],
                            "label": ["a", "a", "b"], "responseCode": ["200", "200", "Non HTTP response code: x"],
                            "threadName": ["t1", "t1", "t2"], "success": [True, True, False]})
    requests = histograms.from_samples(samples.astype(histograms.SAMPLE_DTYPES), measure_from_ms=1_000)
    assert requests.rows[["second", "label", "ok", "requests", "iterations"]].values.tolist() == [
        [0, "a", True, 2, 1], [1, "b", False, 1, 1]]
    assert requests.rows["end_ms"].tolist() == [1_507, 97_100]
    assert requests.latencies().tolist() == [0, 7, 94_976]  # the lowest value of 95,000's bucket


@pytest.fixture
def samples() -> pd.DataFrame:
    """5,000 random samples over 20 s, 7 to an iteration, latencies below 2,048 ms (kept exactly)."""
    rng = np.random.default_rng(7)
    starts = np.sort(rng.integers(0, 20_000, 5_000))
    return pd.DataFrame({"timeStamp": 1_795_000_000_000 + starts, "elapsed": rng.integers(0, 2_048, 5_000),
                         "label": rng.choice(["balance", "transaction"], 5_000), "responseCode": "200",
                         "threadName": [f"users 1-{i // 7}" for i in range(5_000)],
                         "success": True}).astype(histograms.SAMPLE_DTYPES)


def test_written_histograms_read_back(tmp_path: Path, samples: pd.DataFrame) -> None:
    requests = histograms.from_samples(samples, 1_795_000_005_000)
    histograms.write(requests, tmp_path / histograms.FILE)
    again = histograms.read(tmp_path / histograms.FILE)
    pd.testing.assert_frame_equal(again.rows, requests.rows)
    assert sorted(again.latencies()) == sorted(samples["elapsed"])
    assert again.rows["iterations"].sum() == samples["threadName"].nunique()
    assert (again.seconds() < 0).sum() == (samples["timeStamp"] < 1_795_000_005_000).sum()  # the warm-up

