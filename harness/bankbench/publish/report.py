"""The results report: results/report/README.md with PNG charts, plus the executed notebook as HTML.

It only reads run folders (results/LAYOUT.md) and writes the report folder; the figures come from
`analysis`, the drawing from `charts`, the tables from `tables`, the sentences from `narrative`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from bankbench import paths
from bankbench.analyse import analysis, narrative, runs
from bankbench.analyse.formatting import markdown
from bankbench.analyse.runs import Run
from bankbench.checks import verify
from bankbench.publish import charts, notebook, tables

CHARTS_DIR = "charts"  # under the report folder, owned by the report: emptied at each build
INTRO = """\
# bankbench results

Every figure below is computed by `harness/bankbench` from the run folders (see
`results/LAYOUT.md`) only. Latency percentiles are exact, over each level's measured window:
samples of the ramp-up and warm-up are left out. Each figure is the median of the repeats whose
money check passed and whose load generator held up, with its 95 % confidence interval in
brackets and as bars in the charts: a bootstrap of the median over the repeats where a level has
at least 3, else over the level's per-second buckets (throughput and p99 only). Two services
differ at a level only when the 95 % interval of the ratio of their figures excludes 1 and, over
repeats, Welch's t-test on the logarithms gives p < 0.05; otherwise the text says "within noise"
(`harness/bankbench/analyse/stats.py`). A level whose money check failed is marked FAILED, one at
which the load generator did not hold up (JMeter short of CPU, an arrival rate offered below the
plan's, or a plan beyond what its calibration drove: `harness/bankbench/load/generator.py`) is
marked INVALID, and both are left out of the medians, charts and comparisons. Each run says which
CPUs the service had; compare services within a run, and absolute figures only with the same
hardware."""
THEN_AND_NOW = """\
The 2018 and 2019 figures are the articles' own (`results/published.csv`): they came from
other hardware, other versions and their own JMeter plans. Compare the shape, not the numbers."""


def build(run_dirs: list[Path] | None, out_dir: Path, execute_notebook: bool = True) -> Path:
    """Renders the report of `run_dirs` (default: the latest run of each profile) into
    `out_dir`: README.md, charts/*.png and, with `execute_notebook`, results.html.
    Returns the README's path."""
    selected = runs.load_runs(run_dirs)
    charts_dir = out_dir / CHARTS_DIR
    shutil.rmtree(charts_dir, ignore_errors=True)  # charts of runs no longer shown
    charts_dir.mkdir(parents=True)
    intro = INTRO
    if execute_notebook:
        intro += "\n\nThe same, with the code: [results.html](results.html) (explore with `results/results.ipynb`)."
    published = runs.read_published()
    sections = [*environments_sections(selected), *(run_section(run, published, charts_dir) for run in selected)]
    readme = out_dir / "README.md"
    readme.write_text("\n\n".join([intro, *sections]) + "\n")
    if execute_notebook:
        notebook.render_html([run.path for run in selected], out_dir / "results.html")
    return readme


def run_charts(run: Run, timeline_users: int | None = None) -> dict[str, Figure]:
    """Every chart of a run by name; the time charts show `timeline_users` (default the most).

    The charts of the services' own metrics (pool wait, GC, the services over time) are left
    out for a run none of whose levels has them (runs before service_metrics.csv), the errors by
    answer for a run without errors.
    """
    levels = analysis.aggregate_levels(run.summary)
    statuses, names = analysis.error_statuses(run.summary)
    scraped = analysis.has_service_metrics(run.summary)
    figures = {
        "latency": charts.latency_percentiles(levels),
        "throughput": charts.throughput(levels),
        "errors": charts.errors(levels),
        **({"errors-by-status": charts.errors_by_status(statuses, names)} if names else {}),
        "resources": charts.resources(levels),
        **({"pool-wait": charts.pool_wait(levels), "gc": charts.gc_time(levels)} if scraped else {}),
    }
    if levels["pool"].nunique() > 1:
        figures["pool"] = charts.pool_sweep(levels)
    chosen = analysis.timeline_levels(run.summary, timeline_users)
    timelines = {service: analysis.timeline(run.level_dir(level)) for service, level in chosen.items()}
    figures["timeline"] = charts.latency_over_time(timelines, f"Over time: {', '.join(chosen.values())}")
    own = {service: analysis.service_timeline(run.level_dir(level)) for service, level in chosen.items()}
    own = {service: timeline for service, timeline in own.items() if timeline is not None}
    if scraped and own:
        figures["service-timeline"] = charts.service_over_time(
            own, f"The services' own metrics over time: {', '.join(chosen[service] for service in own)}")
    return figures


def cpus(manifest: dict) -> str:
    """What CPUs the service had (bankbench.tools.placement), as the manifest recorded it."""
    placement = manifest.get("settings", {}).get("cpu_placement")
    if placement is None and manifest.get("env") == "native":
        return "shared: the load generator, the service and PostgreSQL ran on all CPUs (the run predates CPU placement)"
    if placement is None:
        return f"not recorded ({manifest.get('env')} environment)"
    return placement["description"]


def money_text(run: Run) -> str:
    """The money check of every level: a sentence, and what failed as a table."""
    failures = tables.money_failures(run)
    text = narrative.money(run.summary)
    return text if failures.empty else f"{text}\n\n{markdown(failures.astype(str))}"


def equivalence_text(run: Run) -> str:
    """What `verify` proved before the run's first level (bankbench.checks.verify), as a table."""
    path = run.path / "verify.json"
    if not path.exists():
        return "Not checked: the run predates `make verify`."
    check = json.loads(path.read_text())
    verdict = ("Checked before the first level" if check["ok"] else
               "**FAILED** before the first level") + (
        f" (`make verify`, {check['requests_per_type']} requests per type, pool of one "
        "connection): per request, the statements PostgreSQL ran (pg_stat_statements; a "
        "fingerprint is the digest of the normalized text), their calls, and the transactions "
        "(pg_stat_database). A new connection's own set-up is shown apart.")
    return f"{verdict}\n\n{verify.table(check['results'])}"


def faults_section(run: Run) -> list[str]:
    """The faults struck during the run's levels (CHAOS), with recovery and error burst: a
    heading and a table, or nothing for a run without faults."""
    rows = []
    for level_id in run.summary["level_id"]:
        level = json.loads((run.level_dir(level_id) / "level.json").read_text())
        rows += [{"level": level_id, "fault": f["fault"],
                  "struck at (s)": round((f["at_ms"] - level["started_ms"]) / 1000, 1),
                  "healthy again after (s)": f["recovery_s"], "failed requests": f["errors"],
                  "burst by response code": "; ".join(f"{code}: {b['count']} in {b['duration_s']:g} s"
                                                      for code, b in f["burst"].items())}
                 for f in level.get("faults", [])]
    if not rows:
        return []
    return ["### Faults", "Struck in the measured window (time since the level's start), "
            "marked on the over-time chart; the money check above ran after them.",
            markdown(pd.DataFrame(rows))]


def profiles_section(run: Run, out_dir: Path) -> list[str]:
    """Links to the levels' CPU flame graphs (flamegraph.html, from `make bench PROFILE_CPU=1`),
    relative to the report folder: a heading and a list, or nothing when no level was profiled."""
    links = [f"- [{level_id}]({Path(os.path.relpath(path, out_dir)).as_posix()})"
             for level_id in run.summary["level_id"]
             if (path := run.level_dir(level_id) / "flamegraph.html").is_file()]
    if not links:
        return []
    return ["### CPU profiles",
            "Flame graphs of the service's CPU in the measured window, one per profiled level:",
            "\n".join(links)]


def environments_sections(selected: list[Run]) -> list[str]:
    """A profile run both natively and under compose, environment next to environment."""
    return [f"## Profile {profile} in each environment\n\nThe same plan and levels, run natively "
            "and in containers (the runs' sections below give each setup). Containers add a "
            "bridge network and cgroup limits, and the runs were taken at different times: "
            "compare the services within an environment, and the environments only as a check "
            "that they agree in shape.\n\n" + markdown(table)
            for profile, table in tables.environments(selected).items()]


def run_section(run: Run, published: pd.DataFrame, charts_dir: Path) -> str:
    """The Markdown of one run, its charts saved as PNG files into `charts_dir`."""
    users, labels = tables.labels(run)
    parts = [
        f"## Run `{run.id}` (profile {run.profile})",
        narrative.reading(run.summary),
        "### Setup",
        markdown(tables.context(run.manifest)),
        f"Load model: {run.manifest.get('load_model', 'not recorded')}.",
        f"CPUs: {cpus(run.manifest)}.",
        "### Same database work",
        equivalence_text(run),
        "### Money check",
        money_text(run),
        *faults_section(run),
        "### Side by side",
        f"Throughput in requests/s, latency in ms; median [95 % interval].\n\n```text\n"
        f"{analysis.comparison_table(run.summary)}\n```\n\nSpread between repeats (coefficient of "
        f"variation):\n\n```text\n{analysis.spread_table(run.summary)}\n```",
        "### Charts",
        *(_save(figure, charts_dir / f"{run.id}-{name}.png") for name, figure in run_charts(run).items()),
        *profiles_section(run, charts_dir.parent),
        "### Levels",
        markdown(tables.levels(run.summary)),
        f"### Request labels at {users:,} users",
        markdown(labels),
    ]
    if run.profile == "article":
        parts += ["### Then and now", THEN_AND_NOW, markdown(tables.then_and_now(run.summary, published))]
    return "\n\n".join(parts)


def _save(figure: Figure, path: Path) -> str:
    """Saves a chart and returns its Markdown image link, relative to the report folder."""
    figure.savefig(path)
    return f"![{figure.get_suptitle()}]({path.parent.name}/{path.name})"


# The verb: `bankbench report`.

DEFAULT_OUT = paths.ROOT / "results" / "report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", nargs="+", type=Path, metavar="DIR",
                        help="run folders (default: the latest run of each profile under results/runs/)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                        help="report folder (default: results/report/)")
    parser.add_argument("--no-notebook", dest="notebook", action="store_false",
                        help="do not execute the notebook (no results.html): faster")


def main(args: argparse.Namespace) -> int:
    """Builds the report and says where it is."""
    readme = build(args.runs, args.out, execute_notebook=args.notebook)
    print(f"report: {readme}" + (f" and {args.out / 'results.html'}" if args.notebook else ""))
    return 0
