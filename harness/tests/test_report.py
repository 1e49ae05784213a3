"""The report, its charts, tables, sentences and the notebook, built from the fixture run.

The notebook really executes (papermill, the venv's python3 kernel), once for the module.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.artist import Artist
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from PIL import Image

from bankbench import cli, registry
from bankbench.analyse import levels, repeats
from bankbench.publish import charts, formatting, pages, report, tables, verdict_tables
from bankbench.results import runs
from bankbench.results.files import SERVICE_METRICS

from test_analysis import FIXTURES, RUN_ID, check_golden

# Every chart of the fixture run, in order (no pool sweep: one pool size).
CHARTS = ["latency", "throughput", "errors", "errors-by-status", "resources", "pool-wait", "gc",
          "timeline", "service-timeline"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture run, summarized (readers refuse a run that is not)."""
    copied = shutil.copytree(FIXTURES / "runs" / RUN_ID, tmp_path_factory.mktemp("runs") / RUN_ID)
    levels.summarize_run(copied)
    return copied


@pytest.fixture(scope="module")
def run(run_dir: Path) -> runs.Run:
    return runs.load_run(run_dir)


@pytest.fixture(scope="module")
def built(run_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report folder, notebook executed."""
    out = tmp_path_factory.mktemp("report")
    for owned, stale in (("charts", "stale.png"), ("runs", "stale.md")):
        (out / owned).mkdir()
        (out / owned / stale).write_text("from an earlier build")
    report.build([run_dir], out, execute_notebook=True)
    return out


@pytest.mark.integration
@pytest.mark.untimed
def test_a_page_per_run_with_its_sections_and_charts(built: Path) -> None:
    assert [p.name for p in (built / "runs").iterdir()] == [f"{RUN_ID}.md"]  # the stale page gone
    page = (built / "runs" / f"{RUN_ID}.md").read_text()
    for heading in (f"# Run `{RUN_ID}` (profile article)", "## Setup", "## Money check", "## Side by side",
                    "## Charts", "## Levels", "## Request labels at 10,000 users", "## Then and now"):
        assert page.count(f"{heading}\n") == 1, heading
    images = re.findall(r"!\[[^\]]+\]\(\.\./(charts/[^)]+\.png)\)", page)
    assert len(images) == len(CHARTS)  # no pool sweep here
    assert sorted(p.name for p in (built / "charts").iterdir()) == sorted(Path(i).name for i in images)
    with Image.open(built / images[0]) as chart:  # a palette: a third of the bytes each rebuild adds to git
        assert chart.mode == "P" and len(chart.getcolors() or ()) <= pages.PNG_COLOURS
    assert "other hardware" in page and "Fixture CPU 2.0 GHz, 2 cores" in page
    assert "| java-u4000-p95-r1 |" in page  # the failed money check, with what it found
    readme = (built / "README.md").read_text()
    assert f"[`{RUN_ID}`](runs/{RUN_ID}.md)" in readme and "## Setup" not in readme


@pytest.mark.integration
@pytest.mark.untimed
def test_notebook_executed_to_html(built: Path) -> None:
    html = (built / "results.html").read_text()
    assert html.count("data:image/png;base64") >= 6  # the run's charts and the explore cell's
    assert "Then and now" in html and "java-u4000-p95-r1" in html
    # A failing cell fails the build (papermill raises); warnings would show as stderr outputs.
    assert 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    assert not list(built.glob("*.tmp"))


def test_levels_table_golden(run: runs.Run) -> None:
    table = tables.levels(run.summary)
    # java at 4,000 users: r1 failed its money check, r3 was invalid: a row per repeat, no median of r2 alone
    java = table[(table["service"] == "java") & (table["users"] == 4000)]
    assert java[["repeats", "p50 ms", "load generator"]].values.tolist() == [
        ["r1 FAILED", "32", "ok"], ["r2", "63", "ok"],
        ["r3 INVALID", "10", "INVALID: JMeter short of CPU (180 % of a core, the machine 95 % busy)"]]
    go = table[(table["service"] == "go")].set_index("users")
    assert go["repeats"].to_dict() == {4000: "2 of 2", 10000: "1 of 1"}
    assert go["errors by status"].to_dict() == {4000: "503: 1", 10000: "503: 2; assertion: 1; no response: 1"}
    check_golden("levels.md", formatting.markdown(table) + "\n")


def test_labels_table(run: runs.Run) -> None:
    users, table = tables.labels(run)
    assert users == 10000
    go = table[(table["service"] == "go") & (table["label"] == "transaction")].iloc[0]
    assert (go["p50 ms"], go["err %"]) == ("220", "40.0")  # 40, 80, ..., 400 ms; 4 errors of 10


def test_then_and_now_shows_published_figures_verbatim(run: runs.Run) -> None:
    table = tables.then_and_now(run.summary, runs.read_articles()).set_index(["users", "service"])
    go = table.loc[(10000, "go")]
    assert (go["2018 original mean ms"], go["2018 original err %"],
            go["2019 rematch p99 ms"]) == ("46504", "39.30", "9")
    assert (go["this run mean ms"], go["this run err %"]) == ("210", "20.0")
    assert "2018 original p99 ms" not in table  # the 2018 article published no p99


def test_a_page_opens_on_its_figures_and_what_differs(run: runs.Run) -> None:
    """The fixture's figures (publish.verdict_tables): java at 4,000 users has one repeat that
    counts (r1 FAILED its money check, r3 INVALID); at 10,000 users java's p99 is told apart."""
    lines = verdict_tables.text(run.summary).splitlines()
    assert "  4,000  java        119 [96-120]               722            320  1 of 3 repeats counted" in lines
    assert " 10,000  p99 ms          java      go       1.33 [1.07-1.67]×  yes" in lines
    assert " 10,000  CPU ms/request  java      go                   1.01×  untold: no interval" in lines


def test_charts_label_axes_and_keep_service_colours(run: runs.Run) -> None:
    figures = pages.run_charts(run)
    assert list(figures) == CHARTS
    for name, figure in figures.items():
        assert figure.get_suptitle(), name
        for ax in figure.axes:
            assert ax.get_ylabel() or ax.get_title(), name
        assert figure.axes[-1].get_xlabel(), name
        if name == "errors-by-status":  # a panel per service, titled in its colour
            assert [(ax.get_title(), to_hex(ax.title.get_color())) for ax in figure.axes] == [
                (service, charts.COLOURS[registry.names().index(service)].lower()) for service in ("go", "java")]
            continue
        entries = legend_entries(figure)
        assert {"go", "java"} <= set(entries), name
        for service in ("go", "java"):
            assert to_hex(entries[service].get_color()) == charts.COLOURS[registry.names().index(service)].lower(), name
    assert figures["latency"].axes[0].get_yscale() == "linear"  # 47-396 ms: less than LOG_RANGE


def test_errors_by_status_chart_stacks_the_answers(run: runs.Run) -> None:
    figure = charts.errors_by_status(*repeats.error_statuses(run.summary))
    go = figure.axes[0]
    assert legend_entries(figure).keys() == {"503", "assertion", "no response"}
    # go at 10,000 users (the second bar of each answer): 10 % 503, then 5 % and 5 % on top.
    tops = [bar.get_y() + bar.get_height() for bar in go.patches[1::2]]
    assert tops == [10.0, 15.0, 20.0]
    assert go.get_ylim()[1] >= 20.0 and figure.axes[1].get_ylim() == go.get_ylim()  # shared, fits all
    assert to_hex(go.patches[0].get_facecolor()) == charts.STATUS_COLOURS["503"].lower()


def test_service_over_time_shows_the_chosen_levels(run: runs.Run) -> None:
    figure = pages.run_charts(run)["service-timeline"]
    assert "go-u10000-p95-r1, java-u10000-p95-r1" in figure.get_suptitle()
    throughput, pool = figure.axes[:2]
    assert [line.get_linestyle() for line in pool.get_lines()] == ["-", "--", "-", "--"]  # active, waiting
    assert set(throughput.get_lines()[0].get_ydata()[1:7]) == {100.0}  # the service's own request counter


def test_a_run_without_service_metrics_has_no_such_charts(run_dir: Path, tmp_path: Path) -> None:
    old = shutil.copytree(run_dir, tmp_path / RUN_ID)
    for path in old.glob(f"levels/*/{SERVICE_METRICS}"):
        path.unlink()
    levels.summarize_run(old, force=True)
    figures = pages.run_charts(runs.load_run(old))
    assert list(figures) == [name for name in CHARTS if name not in ("pool-wait", "gc", "service-timeline")]


def test_cpu_profiles_are_linked(run_dir: Path, tmp_path: Path) -> None:
    copied = shutil.copytree(run_dir, tmp_path / "runs" / RUN_ID)
    assert pages.profiles_section(runs.load_run(copied), tmp_path / "report") == []
    (copied / "levels" / "java-u10000-p95-r1" / "flamegraph.html").write_text("<html></html>")
    heading, _, links = pages.profiles_section(runs.load_run(copied), tmp_path / "report")
    assert heading == "## CPU profiles"
    assert links == f"- [java-u10000-p95-r1](../runs/{RUN_ID}/levels/java-u10000-p95-r1/flamegraph.html)"


def legend_entries(figure: Figure) -> dict[str, Artist]:
    """Every legend entry of a figure (axes and figure legends): label -> handle."""
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend()] + figure.legends
    return {text.get_text(): handle for legend in legends
            for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)}


def test_pool_sweep_marks_max_connections() -> None:
    summary = pd.DataFrame({
        "service": ["go", "go", "java", "java"], "users": 1000, "pool": [50, 200, 50, 200],
        "repeat": 1, "model": "sustained", "money_ok": True, "loadgen.valid": True, "pg_max_connections": 100,
        "overall.throughput_rps": [900.0, 300.0, 850.0, 200.0], "overall.error_pct": [0.0, 40.0, 0.0, 55.0],
    })
    figure = charts.pool_sweep(repeats.aggregate_levels(summary))
    throughput = figure.axes[0]
    assert [line.get_xdata()[0] for line in throughput.get_lines() if line.get_linestyle() == "--"] == [100]
    assert "PostgreSQL max_connections = 100" in legend_entries(figure)
    assert throughput.get_xlabel().startswith("pool size")


def test_summarize_command(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    """Its tables, then the run's verdict as two tables and the path of its page, last."""
    assert cli.main(["summarize", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "go req/s" in out and out.index("go req/s") < out.index("What differs at 95 %")
    assert out.rstrip().splitlines()[-1].strip().endswith(".md")


def test_report_command_without_notebook(run_dir: Path, tmp_path: Path) -> None:
    assert cli.main(["report", "--runs", str(run_dir), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "README.md").exists() and not (tmp_path / "results.html").exists()


def test_same_database_work_section(run_dir: Path, tmp_path: Path) -> None:
    """The report shows what `verify` proved before the run, or says it was not checked."""
    from test_verify import faithful

    copied = shutil.copytree(run_dir, tmp_path / RUN_ID)
    assert pages.equivalence_text(runs.load_run(copied)) == (
        "Not checked: the folder holds no verify.json (the run predates `make verify`, or its check was not kept).")
    (copied / "verify.json").write_text(json.dumps(
        {"requests_per_type": 20, "ok": True, "problems": [], "results": {"go": faithful()}}))
    text = pages.equivalence_text(runs.load_run(copied))
    assert text.startswith("Checked before the first level (`make verify`, 20 requests per type")
    assert "| go        | transfer_insufficient_funds |      422 |" in text


def test_a_profile_run_in_two_environments_is_shown_side_by_side(run_dir: Path, tmp_path: Path) -> None:
    """`make bench ENV=compose` then `make report`: the compose run next to the native one."""
    root = tmp_path / "runs"
    native = shutil.copytree(run_dir, root / RUN_ID)
    compose_id = RUN_ID.replace("-native-", "-compose-")
    compose = shutil.copytree(run_dir, root / compose_id)
    manifest = json.loads((compose / "manifest.json").read_text())
    (compose / "manifest.json").write_text(json.dumps({**manifest, "run_id": compose_id, "env": "compose"}))
    assert runs.latest_per_profile(root) == [compose, native]  # one per environment, by name
    text = report.build(runs.latest_per_profile(root), tmp_path / "report").read_text()
    section = text.split(f"## Profile {manifest['profile']} in each environment", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| go ")]
    assert [row.split("|")[4].strip() for row in rows[:2]] == ["compose", "native"]
    assert f"(runs/{compose_id}.md)" in text and f"(runs/{RUN_ID}.md)" in text
    assert sorted(p.name for p in (tmp_path / "report" / "runs").iterdir()) == [f"{compose_id}.md", f"{RUN_ID}.md"]


@pytest.mark.integration
@pytest.mark.untimed
def test_cold_aot_and_warm_runs_make_the_headline(run_dir: Path, tmp_path: Path) -> None:
    """Runs of article, article-aot and article-warm: one headline table, each start's figures
    side by side, n/a where a service has no such start (Go has no AOT cache)."""
    root = tmp_path / "runs"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    stamp = RUN_ID.rsplit("-", 1)[0]  # the fixture's time and environment
    for start, profile in (("cold", "article"), ("aot", "article-aot"), ("warm", "article-warm")):
        run_id = f"{stamp}-{profile}"
        copy = shutil.copytree(run_dir, root / run_id)
        settings = {**manifest["settings"], "profile": {"name": profile, "start": start, "placements": ["split"],
                                                        "base": None if start == "cold" else "article"}}
        (copy / "manifest.json").write_text(json.dumps({**manifest, "run_id": run_id, "profile": profile,
                                                        "settings": settings}))
        if start == "aot":  # the Java variants only
            summary = pd.read_csv(copy / "summary.csv")
            summary[summary["service"] != "go"].to_csv(copy / "summary.csv", index=False)
    # A placement experiment over the article's levels, cold, without Go: not a start of its own.
    run_id = f"{stamp}-placement"
    copy = shutil.copytree(root / f"{stamp}-article-aot", root / run_id)
    (copy / "manifest.json").write_text(json.dumps({
        **manifest, "run_id": run_id, "profile": "placement",
        "settings": {**manifest["settings"], "series": "s1", "profile": {"name": "placement", "base": "article"}}}))
    (table,) = tables.starts(runs.load_runs(runs.latest_per_profile(root))).values()
    assert list(table.columns[:8]) == ["users", "service", "repeats cold", "repeats cold+AOT", "repeats warm",
                                       "p99 ms cold", "p99 ms cold+AOT", "p99 ms warm"]
    go = table[table["service"] == "go"].iloc[0]
    assert go["p99 ms cold+AOT"] == "n/a" and go["p99 ms cold"] == go["p99 ms warm"] != "n/a"
    assert (go["repeats cold"], go["repeats cold+AOT"]) == ("2 of 2", "n/a")
    text = report.build(runs.latest_per_profile(root), tmp_path / "report").read_text()
    assert text.index("## ") == text.index("## Cold vs warm")  # the first question, after the first screen
    assert "a service in steady state" in text and "![p99 vs users by start" in text[:text.index("## ")]
    first = text[:text.index("## ")].splitlines()
    assert len(first) <= 60 and first[0].startswith("# ")
    assert any(line.startswith("| go ") and "n/a: not a JVM" in line for line in first)


@pytest.mark.integration
@pytest.mark.untimed
def test_crosscheck_runs_show_the_generators_side_by_side(run_dir: Path, tmp_path: Path) -> None:
    """Runs of crosscheck (JMeter) and crosscheck-gatling: one table, each generator's p50, p99,
    errors and rate next to the other's, in a section of its own."""
    root = tmp_path / "runs"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    stamp = RUN_ID.rsplit("-", 1)[0]
    for generator, profile in (("jmeter", "crosscheck"), ("gatling", "crosscheck-gatling")):
        run_id = f"{stamp}-{profile}"
        copy = shutil.copytree(run_dir, root / run_id)
        settings = {**manifest["settings"], "profile": {"name": profile, "generator": generator, "start": "warm",
                                                        "base": None if generator == "jmeter" else "crosscheck"}}
        (copy / "manifest.json").write_text(json.dumps({**manifest, "run_id": run_id, "profile": profile,
                                                        "settings": settings}))
    selected = runs.load_runs(runs.latest_per_profile(root))
    assert tables.starts(selected) == {}  # one start: not a headline of starts
    (table,) = tables.crosscheck(selected).values()
    assert list(table.columns) == ["users", "service", "repeats JMeter", "repeats Gatling", "p50 ms JMeter",
                                   "p50 ms Gatling", "p99 ms JMeter", "p99 ms Gatling", "err % JMeter", "err % Gatling",
                                   "req/s JMeter", "req/s Gatling"]
    assert (table["p99 ms JMeter"] == table["p99 ms Gatling"]).all()  # the same fixture under both
    text = report.build(runs.latest_per_profile(root), tmp_path / "report").read_text()
    assert "## The load generators agree: profile crosscheck" in text
