"""`bankbench soak` for real against the Go service, as `make soak MINUTES=1 SERVICE=go` runs it (its
knobs from the environment), at 80 % of a capacity.toml written here: soak.json and the level's
files, each minute's figures and the trends read back, the money checked at the midpoint and the
end, the page of charts.

Needs the built Go service, JMeter (the warm-up) and Gatling; run it alone on a shared machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from test_tune import capacity_file

from bankbench import cli, paths
from bankbench.analyse import soak_figures, trends
from bankbench.publish import pages
from bankbench.publish.own_run import REPORT_DIR
from bankbench.results import files, soak_record

pytestmark = pytest.mark.integration
CAPACITY = "20261201T000000Z-native-capacity"


class Soaked(NamedTuple):
    run_dir: Path
    stdout: str


@pytest.fixture(scope="module")
def soaked(tmp_path_factory: pytest.TempPathFactory) -> Soaked:
    root = tmp_path_factory.mktemp("runs")
    rates = capacity_file(tmp_path_factory.mktemp("capacities") / "capacity.toml", CAPACITY, "split", {"go": 125})
    knobs = {cli.FROM_MAKE: "1", "MINUTES": "1", "SERVICE": "go"}
    out = subprocess.run([sys.executable, "-m", "bankbench", "soak"], cwd=paths.ROOT, capture_output=True, text=True,
                         env={**os.environ, "BANKBENCH_RUNS": str(root), "BANKBENCH_CAPACITIES": str(rates), **knobs},
                         timeout=900)
    print(out.stdout[-6000:], out.stderr[-3000:])
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = root.glob("*-native-soak")
    return Soaked(run_dir, out.stdout)


def test_soak_json_holds_the_minute_its_trends_and_the_money(soaked: Soaked) -> None:
    soak = soak_record.read(soaked.run_dir)
    assert (soak.minutes, soak.share, soak.placement, list(soak.services)) == (1, 0.8, "split", ["go"])
    assert CAPACITY in soak.rate_source
    go = soak.services["go"]
    assert (go.rate, go.level, go.error) == (100, "go-u125-p95-r1", "")
    (minute,) = go.minutes
    assert minute.minute == 1 and minute.requests > 0 and minute.p99_ms is not None
    assert minute.rss_mb > 0 and minute.heap_mb > 0 and minute.threads > 0 and minute.pool_idle is not None
    assert minute.pg_connections >= 1 and {"client", "transaction"} <= set(minute.relations)
    assert minute.relations["transaction"].total_mb > 0
    assert [(check.at, check.ok) for check in go.money] == [(soak_record.MIDPOINT, True), (soak_record.END, True)]
    assert not {trends.MONEY, trends.RUN, trends.EXIT} & {failure.check for failure in go.failures}


def test_a_one_minute_soak_shows_its_trends_over_ten_second_points_unjudged(soaked: Soaked) -> None:
    go = soak_record.read(soaked.run_dir).services["go"]
    assert {t.figure for t in go.trends} == {*soak_figures.TOLERANCES, *soak_figures.SHOWN}
    rss = go.trend("rss_mb")
    assert (rss.step_s, rss.points, rss.tolerance, rss.rising) == (trends.STEP_S, 6, None, False)
    assert rss.low <= rss.slope_per_h <= rss.high


def test_the_watcher_wrote_beside_the_level_and_told_each_minute(soaked: Soaked) -> None:
    level_dir = files.level_dir(soaked.run_dir, "go-u125-p95-r1")
    assert len(soak_record.read_pg_stats(level_dir)) >= 6 and soak_record.midpoint_money(level_dir)[1].ok
    assert "go-u125-p95-r1 minute 1 of 1: " in soaked.stdout and "money at the midpoint ok" in soaked.stdout
    assert "[soak] go " in soaked.stdout and "p99 ms per minute" in soaked.stdout


def test_its_page_draws_the_minutes(soaked: Soaked) -> None:
    """The run's own page (<run>/report/runs/<run>.md), as the published report's page of it."""
    report, name = soaked.run_dir / REPORT_DIR, pages.page_name(soaked.run_dir)
    page = (report / pages.PAGES_DIR / f"{name}.md").read_text()
    assert page.startswith(f"# Run `{soaked.run_dir.name}`") and "## Over time: make soak" in page
    assert f"charts/{name}-soak-minutes.png" in page and "slope per hour [95 %]" in page
    assert (report / pages.CHARTS_DIR / f"{name}-soak-minutes.png").stat().st_size > 0
    assert soaked.stdout.rstrip().endswith(f"{name}.md")  # the page's path, last
