"""The verdict's sensitivity to the CPU placement (bankbench.analyse.sensitivity): a series of
runs, one per placement, as `bench` makes it (one per placement, sharing a series), as readers
find it (runs.latest_per_profile, runs.newest), its verdicts on synthetic runs, and its section and
headline in the report built from copies of the fixture run."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import fake_records
import pandas as pd
import pytest

from bankbench import cli
from bankbench.analyse import levels, sensitivity
from bankbench.commands import bench
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.publish import report, tables
from bankbench.results import runs, summaries
from bankbench.results.documents import Manifest
from bankbench.results.runs import Run

from test_analysis import FIXTURES, RUN_ID
from test_estimates import NOISE, synthetic_run


def placed(summary: pd.DataFrame, mode: str, series: str = "s1") -> Run:
    """A synthetic run of a series under CPU placement `mode`."""
    manifest = {"run_id": f"run-{mode}", "profile": "placement",
                "settings": {"cpu_placement": {"mode": mode, "description": f"{mode}: ..."}, "series": series}}
    return Run(Path(mode), Manifest.of(manifest), summary)


def bench_args(*argv: str) -> argparse.Namespace:
    return cli.parser(["bench", *argv]).parse_args(["bench", *argv])


def test_the_placement_profile_is_the_articles_4k_and_10k_under_three_placements() -> None:
    placement, article = profiles.load("placement"), profiles.load("article")
    assert placement.users == [4000, 10000] and placement.repeat == 3
    assert placement.placements == ["split", "service-alone", "shared"] and article.placements == []
    assert (placement.model, placement.rampup_s, placement.duration_s) == (article.model, article.rampup_s,
                                                                           article.duration_s)


def test_profiles_refuse_unknown_placements_and_bases(tmp_path: Path) -> None:
    bad = tmp_path / "profiles.toml"
    bad.write_text('[profiles.a]\ndescription = "a"\nmodel = "open"\nusers = [1]\nrepeat = 1\nscenario = "rematch"\n'
                   'hot_accounts = 2\nthink_ms = 0\nrampup_s = 0\nwarmup_s = 0\nduration_s = 1\nplacements = ["half"]\n'
                   '[profiles.b]\nbase = "nowhere"\n')
    with pytest.raises(UserError, match="unknown placements"):
        profiles.load("a", path=bad)
    with pytest.raises(UserError, match="base 'nowhere' must be a profile without a base"):
        profiles.load("b", path=bad)


def test_bench_plans_a_run_per_placement_sharing_a_series() -> None:
    planned = bench.options(bench_args("--profile", "placement"))
    assert [opts.placement.mode for opts in planned] == ["split", "service-alone", "shared"]
    assert len({opts.series for opts in planned}) == 1 and planned[0].series.endswith("-placement")
    assert all(opts.profile.placements == ["split", "service-alone", "shared"] for opts in planned)
    (alone,) = bench.options(bench_args("--profile", "smoke", "--cpu-placement", "service-alone"))
    assert alone.placement.mode == "service-alone" and alone.series == ""  # one run: no series
    with pytest.raises(UserError, match="must be one of"):
        bench.options(bench_args("--profile", "smoke", "--cpu-placement", "split,half"))


def test_readers_take_the_newest_series_whole(tmp_path: Path) -> None:
    def made(name: str, profile: str, series: str = "") -> Path:
        (tmp_path / name).mkdir()
        settings = {"series": series} if series else {}
        (tmp_path / name / "manifest.json").write_text(json.dumps(fake_records.manifest(name, profile, **settings)))
        return tmp_path / name

    old = made("20260101T000000Z-native-placement", "placement", "old")
    article = made("20260102T000000Z-native-article", "article")
    first, second = (made(f"2026010{i}T000000Z-native-placement", "placement", "new") for i in (3, 4))
    assert old not in runs.latest_per_profile(tmp_path)
    assert runs.latest_per_profile(tmp_path) == [article, first, second]
    assert runs.newest(tmp_path) == [first, second]
    made("20260105T000000Z-native-article", "article")
    assert runs.newest(tmp_path) == [tmp_path / "20260105T000000Z-native-article"]


def test_the_same_verdict_under_every_placement() -> None:
    series = [placed(synthetic_run({"go": 2.0, "java": 1.0}, NOISE[i % 2]), mode)
              for i, mode in enumerate(("shared", "split", "service-alone"))]
    found = sensitivity.verdicts(series)
    assert [v.placement for v in found][::3] == ["split", "service-alone", "shared"]  # MODES order
    assert sensitivity.changes(found) == []
    verdicts = tables.placement_verdicts(series)
    assert verdicts.columns.tolist() == ["users", "figure", "split", "service-alone", "shared", "changes"]
    assert verdicts.drop(columns="users").values.tolist() == [
        ["p99 ms", "go", "go", "go", "no"], ["err %", "all 0", "all 0", "all 0", "no"],
        ["req/s", "go", "go", "go", "no"]]
    assert tables.placement_verdicts(series[:1])["changes"].tolist() == ["n/a"] * 3  # one placement: nothing to compare


def test_a_verdict_that_changes_with_the_placement_is_told() -> None:
    series = [placed(synthetic_run({"go": 2.0, "java": 1.0}), "split"),
              placed(synthetic_run({"go": 1.0, "java": 1.0}, NOISE[1]), "service-alone"),
              placed(synthetic_run({"go": 1.0, "java": 2.0}), "shared")]
    assert [(c.users, c.figure) for c in sensitivity.changes(sensitivity.verdicts(series))] == [
        (2000, "p99 ms"), (2000, "req/s")]
    verdicts = tables.placement_verdicts(series).set_index("figure")
    assert verdicts.columns.tolist() == ["users", "split", "service-alone", "shared", "changes"]
    assert verdicts.loc["p99 ms"].tolist() == verdicts.loc["req/s"].tolist() == [
        "2,000", "go", "within noise", "java", "yes"]
    assert verdicts.loc["err %", "changes"] == "no"
    figures = tables.placement_figures(series)
    assert figures[["placement", "service"]].values.tolist()[:2] == [["split", "go"], ["split", "java"]]
    assert figures["req/s"].iloc[0] == "2000 [1940-2060]" and figures["repeats"].iloc[0] == "3 of 3"


def test_a_tie_that_only_changes_shape_is_no_change() -> None:
    """Go and java tied ahead of java-virtual under split, all three tied under shared: neither
    names a winner, so the verdict does not change (what the article plan's fixed req/s gives)."""
    series = [placed(synthetic_run({"go": 1.0, "java": 1.0, "java-virtual": 0.5}), "split"),
              placed(synthetic_run({"go": 1.0, "java": 1.0, "java-virtual": 1.0}, NOISE[1]), "shared")]
    assert sensitivity.changes(sensitivity.verdicts(series)) == []
    p99 = tables.placement_verdicts(series).set_index("figure").loc["p99 ms"].tolist()
    assert p99 == ["2,000", "go or java (within noise)", "within noise", "no"]
    series[1] = placed(synthetic_run({"go": 2.0, "java": 1.0, "java-virtual": 1.0}), "shared")  # now go wins
    p99 = tables.placement_verdicts(series).set_index("figure").loc["p99 ms"].tolist()
    assert p99 == ["2,000", "go or java (within noise)", "go", "yes"]


def test_a_verdict_where_the_load_generator_did_not_hold_up_is_marked_and_left_out() -> None:
    short = synthetic_run({"go": 1.0, "java": 2.0}).assign(**{summaries.VALID: False})
    series = [placed(synthetic_run({"go": 2.0, "java": 1.0}), "split"), placed(short, "shared")]
    assert sensitivity.changes(sensitivity.verdicts(series)) == []
    p99 = tables.placement_verdicts(series).set_index("figure").loc["p99 ms"].tolist()
    assert p99 == ["2,000", "go", "n/a (load generator invalid)", "n/a"]  # left out: one placement judged it
    figures = tables.placement_figures(series)
    assert figures["repeats"].tolist()[2:] == ["r1 INVALID", "r2 INVALID", "r3 INVALID"] * 2  # a row each
    assert figures["req/s"].tolist()[2:5] == ["970", "1000", "1030"]  # go's, under a planned rate: no bound


def test_the_report_shows_a_series_in_a_section_of_its_own(tmp_path: Path) -> None:
    """Two copies of the fixture run as a series; in one, java's p99 a hundred times higher: the
    verdict at 10,000 users changes, which the section says (at 4,000 users the load generator did
    not hold up in one repeat: left out); the first screen, without a start run, has no verdict."""
    root = tmp_path / "runs"
    for i, mode in enumerate(("split", "service-alone")):
        copied = shutil.copytree(FIXTURES / "runs" / RUN_ID, root / RUN_ID.replace("0130", f"013{i + 1}"))
        manifest = json.loads((copied / "manifest.json").read_text())
        manifest["run_id"] = copied.name
        manifest["settings"] |= {"series": "s1", "cpu_placement": {"mode": mode, "description": f"{mode}: CPUs"}}
        (copied / "manifest.json").write_text(json.dumps(manifest))
        summary = levels.summarize_run(copied)
        if mode == "service-alone":
            java = summary["service"] == "java"
            for column in ("overall.p99_ms", "seconds_ci.p99_ms.low", "seconds_ci.p99_ms.high"):
                summary.loc[java, column] *= 100
            summary.to_csv(copied / "summary.csv", index=False)
    readme = report.build(runs.latest_per_profile(root), tmp_path / "report").read_text()
    pages = sorted(p.name for p in (tmp_path / "report" / "runs").iterdir())
    assert pages == [f"{RUN_ID.replace('0130', f'013{i}')}.md" for i in (1, 2)]  # a page per run of the series
    first_screen = readme[:readme.index("\n## ")]
    assert first_screen.startswith(f"{report.TITLE}\n\nNone of the runs shown is a start of the articles' plan")
    section = readme.split("## Placement sensitivity", 1)[1]
    rows = {tuple(cells[:2]): cells[2:] for line in section.splitlines() if line.startswith("| ")
            for cells in [[cell.strip() for cell in line.strip("|").split("|")]]}
    assert rows["10,000", "p99 ms"] == ["java", "go", "yes"]  # the verdict changes at 10,000 users
    assert rows["4,000", "p99 ms"][2] == "n/a"  # at 4,000 the load generator did not hold up: left out
    assert all(cell.endswith("(load generator invalid)") for cell in rows["4,000", "p99 ms"][:2])
    assert "[service-alone](runs/20261122T013200Z-native-article.md)" in section
    assert "|  10,000 | service-alone | java      |     1 of 1 | 29715 [24000-30000] |    5.00 | 2.04 [2.00-2.04] |" \
        in section
