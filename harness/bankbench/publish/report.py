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
from bankbench.analyse import (
    capacity_figures as capacity,
    narrative,
    projection,
    repeats,
    runs,
    sensitivity,
    stats,
    summaries,
    timelines,
    tuned,
)
from bankbench.analyse.formatting import markdown, with_interval
from bankbench.analyse.runs import Run
from bankbench.analyse.verdict import Verdict
from bankbench.checks import verify
from bankbench.load import generator, profiles
from bankbench.publish import charts, notebook, tables

CHARTS_DIR = "charts"  # under the report folder, owned by the report: emptied at each build
TITLE = "# bankbench results"
INTRO = """\
Every figure below is computed by `harness/bankbench` from the run folders (see
`results/LAYOUT.md`) only. Latency percentiles come from each level's HdrHistograms (exact below
2,048 ms, within 0.1 % above), over its measured window: requests of the ramp-up and warm-up are
left out. Each figure is the median of the repeats whose
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
The 2018 and 2019 figures are the articles' own (`results/articles.csv`): they came from
other hardware, other versions and their own JMeter plans. Compare the shape, not the numbers."""

PROJECTION_LIMITS = """\
A projection, not a measurement: arithmetic on the CPU time per request measured here
(`harness/bankbench/analyse/projection.py`), with the prices of `infra/instances.csv`. It leaves
out what was not measured. The CPU model: the instances' Xeons are not this machine's CPUs, and no
factor between them is applied. Hyper-threads: a vCPU of m5 and c5d is one of the two threads of
a core, which does less while its sibling is busy, and nothing corrects for it. Latency: a vCPU
kept near 100 % queues requests, so the headroom row says how much of each instance is counted,
and only a run on the instance tells at what use p99 stays under the target. What is not the
service: PostgreSQL (its CPU per request is measured apart and its host is not counted), a load
balancer, the network and storage. Memory: one service process per instance, which must fit
(c5d.large has 4 GiB). Whole instances: the cost per million requests is that of instances kept
busy at the projected rate, and a load that leaves its last instance part idle costs more per
request. Prices: on-demand Linux in one region on the date given; savings plans, spot and
other regions differ. A run on AWS (`make aws-bench`) measures the service on its instance type,
which removes the CPU-model and hyper-thread assumptions for that type: where an `efficiency` run
on AWS is shown, the projection takes its CPU per request, at the highest rate that held the
target, instead of this machine's."""


def build(run_dirs: list[Path] | None, out_dir: Path, execute_notebook: bool = False) -> Path:
    """Renders the report of `run_dirs` (default: the latest run of each profile) into
    `out_dir`: README.md, charts/*.png and, with `execute_notebook`, results.html (built on
    demand, `make report-html`: git ignores it). Returns the README's path."""
    selected = runs.load_runs(run_dirs)
    charts_dir = out_dir / CHARTS_DIR
    shutil.rmtree(charts_dir, ignore_errors=True)  # charts of runs no longer shown
    charts_dir.mkdir(parents=True)
    intro = INTRO + ("\n\nThe same, with the code: `make report-html` writes it as results.html here "
                     "(explore with `results/results.ipynb`).")
    published = runs.read_articles()
    series, single = runs.by_series(selected)
    headline = sensitivity.headline(selected)  # under the title: whether the test bed decides the verdict
    sections = [*crosscheck_sections(single), *environments_sections(single),
                *(capacity_section(run) if capacity.is_capacity_run(run) else run_section(run, published, charts_dir)
                  for run in single),
                *(placement_section(group) for group in series.values())]
    readme = out_dir / "README.md"
    # The verdict and the headline first, then how to read the rest.
    head = [*verdict_sections(single, charts_dir), *tuned_sections(single), *starts_sections(single)]
    readme.write_text("\n\n".join([TITLE, *([f"**{headline}**"] if headline else []), *head, intro, *sections])
                      + "\n")
    if execute_notebook:
        notebook.render_html([run.path for run in selected], out_dir / "results.html")
    return readme


def run_charts(run: Run, timeline_users: int | None = None) -> dict[str, Figure]:
    """Every chart of a run by name; the time charts show `timeline_users` (default the most).

    The charts of the services' own metrics (pool wait, GC, the services over time) are left
    out for a run none of whose levels has them (runs before service_metrics.csv), the errors by
    answer for a run without errors.
    """
    levels = repeats.aggregate_levels(run.summary)
    statuses, names = repeats.error_statuses(run.summary)
    scraped = summaries.has_service_metrics(run.summary)
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
    chosen = timelines.timeline_levels(run.summary, timeline_users)
    over_time = {service: timelines.timeline(run.level_dir(level)) for service, level in chosen.items()}
    figures["timeline"] = charts.latency_over_time(over_time, f"Over time: {', '.join(chosen.values())}")
    own = {service: timelines.service_timeline(run.level_dir(level)) for service, level in chosen.items()}
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


def projection_section(projections: list[projection.Projection], assumptions: projection.Assumptions) -> list[str]:
    """The projected cost on AWS instances of `projections`: a heading, what limits it, the
    figures and what they assume."""
    instances = projection.instances_of(projections)
    return [f"### Projected cost per million requests on {' and '.join(i.type for i in instances)}",
            PROJECTION_LIMITS, markdown(tables.projection(projections, assumptions)),
            markdown(tables.projection_assumptions(assumptions, instances))]


VERDICT = """\
What a request costs, at the latency target: per service, the highest open-model rate (iterations
of the rematch scenario per second, 7 requests each) at which p99 stayed at or under the target
with errors under {errors:g} % and the load delivered (`make capacity`: a search by bisection,
the rate found confirmed by repeats), and at that rate the service's own CPU per request,
PostgreSQL's, the peak RSS with the service's own heap settings, the smallest heap of the sweep
that still held the target and the RSS with it, and the projected price of a million requests.
Each figure is the median over the probes that held the target at that rate, with its 95 %
interval; "missed" names the nearest rate (or heap) that did not hold. ">=" marks a capacity the
load generator capped: at the next rate JMeter could not offer the plan on its CPU
(bankbench.load.generator), so the service holds at least that much; a heap at which the load
generator fell short is undecided, so the smallest heap may be smaller. Measured on this machine
(run `{run}`; CPUs {cpus}): compare the services with each other."""


def verdict_figures(verdict: Verdict) -> dict[str, Figure]:
    """The verdict's charts: CPU per request and p99 against the rate (an efficiency run), RSS
    against the heap limit (a capacity run that swept heaps)."""
    figures = efficiency_charts(verdict.measured, verdict.target_ms) if verdict.measured else {}
    if verdict.searched and not (heaps := capacity.rss_by_heap(verdict.searched)).empty:
        figures["rss-vs-heap"] = charts.rss_vs_heap(heaps)
    return figures


def verdict_sections(selected: list[Run], charts_dir: Path) -> list[str]:
    """The report's head when there are efficiency or capacity runs: the verdict table, the
    charts and the projection (bankbench.analyse.verdict)."""
    verdict = Verdict.of(selected)
    if verdict is None:
        return []
    parts = ["## Verdict: what a request costs"]
    if (run := verdict.searched) is not None:
        errors = capacity.document(run)["target"]["max_error_pct"]
        table = tables.verdict(verdict.found, verdict.projected, verdict.target_ms)
        parts += [markdown(table), VERDICT.format(errors=errors, run=run.id, cpus=cpus(run.manifest))]
    if (run := verdict.measured) is not None:
        parts.append(f"CPU per request and p99 against the offered rate, over the levels of run "
                     f"`{run.id}` (profile {run.profile}) that delivered their rate, the target of "
                     f"{verdict.target_ms:g} ms as a line; its section below has the table.")
    run_id = (verdict.measured or verdict.searched).id
    parts += [_save(figure, charts_dir / f"{run_id}-{name}.png") for name, figure in verdict_figures(verdict).items()]
    if verdict.assumptions is not None:
        parts += projection_section(verdict.projected, verdict.assumptions)
    return ["\n\n".join(parts)]


def tuned_sections(selected: list[Run]) -> list[str]:
    """Each service's capacity at the shipped and at the tuned settings side by side, naming the
    tuned settings (bankbench.analyse.tuned.pairs), where capacity runs of both are shown."""
    found = tuned.pairs(selected)
    if not found:
        return []

    def rate(figure: stats.Figure) -> str:
        return with_interval(figure.value, figure.low, figure.high)

    table = pd.DataFrame([{
        "service": pair.service, "CPUs": pair.placement, "capacity it/s, shipped": pair.shipped.rate_text(),
        "capacity it/s, tuned": pair.tuned.rate_text(), "req/s, shipped": rate(pair.shipped.throughput),
        "req/s, tuned": rate(pair.tuned.throughput), "tuned settings": tuned.settings_text(pair.settings)}
        for pair in found])
    runs_text = "; ".join(sorted({f"`{shipped}` and `{at_tuned}`" for shipped, at_tuned in (p.runs for p in found)}))
    return ["\n\n".join([
        "## Capacity at the shipped and at the tuned settings",
        "Each service's capacity (`make capacity`) with the settings it ships with, and with the settings "
        "`make tune` found at its capacity rate, one knob at a time (`TUNED=1`: its `[tuned.<service>]` table "
        "in profiles.toml, named in the last column; the environment is what it adds to the service's). "
        f"Each is a search of its own, taken at different times (runs {runs_text}): read a difference "
        "smaller than the machine's drift between runs (10-30 % here) as within noise. The verdict above "
        "reads the shipped settings.", markdown(table)])]


def efficiency_charts(run: Run, target_ms: float) -> dict[str, Figure]:
    """CPU per request and p99 vs the offered rate over an efficiency run's valid levels."""
    levels = repeats.aggregate_levels(run.summary)  # the levels the load generator held up in
    return {"cpu-per-request": charts.cpu_per_request(levels), "p99-vs-rate": charts.p99_vs_rate(levels, target_ms)}


def efficiency_table(run: Run) -> list[str]:
    """For a run whose levels offered rates (open model): what a request cost at each."""
    if tables.OFFERED not in run.summary or run.summary[tables.OFFERED].isna().all():
        return []
    return ["### Cost per request at each rate",
            f"Per offered rate: the share of it the load generator offered, the repeats it did not "
            f"hold up in (under {generator.OFFERED_MIN_PCT:g} % of the rate, short of CPU ...: invalid, "
            f"left out of the other figures), then the valid repeats' "
            "figures: CPU milliseconds per request of the service's own processes and of PostgreSQL, "
            "its resident memory; median [95 % interval].", markdown(tables.efficiency(run.summary))]


def capacity_section(run: Run) -> str:
    """A capacity run: its setup, its money check and every probe of its searches."""
    return "\n\n".join([
        f"## Run `{run.id}` (make capacity)",
        f"Each probe is a short open-model level on a warm service (profile `{run.profile}`); "
        f"the verdict above is computed from it.\n\n```text\n{capacity.text(run)}\n```",
        "### Setup", markdown(tables.context(run.manifest)), f"CPUs: {cpus(run.manifest)}.",
        "### Money check", money_text(run),
        "### Probes", markdown(tables.capacity_probes(capacity.document(run))),
    ])


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


def starts_sections(selected: list[Run]) -> list[str]:
    """The headline of a profile run cold, cold with the AOT cache and warm: each service at each
    level under each start, with the question each start answers."""
    questions = "\n".join(f"- **{tables.START_NAMES[start]}**: {about}." for start, about in profiles.STARTS.items())
    sources = {family: ", ".join(f"{tables.START_NAMES[start]} `{run.id}`" for start, run in group.items())
               for family, group in tables.start_runs(selected).items()}
    return [f"## Headline: profile {family}, cold, cold+AOT and warm\n\nThe same levels; what differs "
            f"is what the service has done before its first measured request, and so the question its "
            f"figures answer:\n\n{questions}\n\nMedian [95 % interval] over the repeats; `n/a` where "
            f"a service has no such start (the AOT cache is the JVM's: a binary compiled ahead of time "
            f"has its cold start only). Each start is a run of its own ({sources[family]}): "
            f"services are compared within a run, back to back, while starts compare runs taken at "
            f"different times (the ids give their UTC start). Read a difference between starts "
            f"smaller than the machine's drift between runs (10-30 % on the machine of the "
            f"committed runs) as within noise.\n\n{markdown(table)}"
            for family, table in tables.starts(selected).items()]


def crosscheck_sections(selected: list[Run]) -> list[str]:
    """A profile run with each load generator (make crosscheck), generator next to generator."""
    return [f"## The load generators agree: profile {family}\n\nThe same open-model levels, driven "
            "by JMeter and by Gatling, one run after the other on the same service (`make crosscheck`; "
            "the runs' sections below give each setup). Both send the same requests, extract the same "
            "values and check the same answers (harness/tests/test_generators.py); latencies are whole "
            "milliseconds in both, so a p50 of 0 or 1 ms says only that it is under 1 or 2 ms. Median "
            "[95 % interval] over the repeats; the runs were taken at different times, so read a "
            "difference smaller than the machine's drift between runs as within noise.\n\n" + markdown(table)
            for family, table in tables.crosscheck(selected).items()]


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
        f"{repeats.comparison_table(run.summary)}\n```\n\nSpread between repeats (coefficient of "
        f"variation):\n\n```text\n{repeats.spread_table(run.summary)}\n```",
        *efficiency_table(run),
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


def placement_section(series: list[Run]) -> str:
    """The Markdown of a series over CPU placements (bankbench.analyse.sensitivity): what each
    run gave the processes, the figures, the verdicts and whether they change."""
    first = series[0]
    setups = "\n".join(f"- `{run.id}` (commit {run.manifest.get('git', {}).get('commit', '?')[:12]}): "
                       f"{cpus(run.manifest)}. {narrative.money(run.summary)}"
                       for run in sensitivity.ordered(series))
    return "\n\n".join([
        f"## Placement sensitivity: profile {first.profile} ({first.manifest.get('env', '')})",
        "Does the verdict depend on the test bed? The same levels ran once under each CPU placement, "
        "a run each, one after the other on one machine (series "
        f"`{first.series}`). Within each run the services are compared as everywhere in this report; "
        "the verdict on a figure is the service with the best median together with any within noise "
        "of it (`harness/bankbench/analyse/sensitivity.py`).",
        f"**{sensitivity.sentence(series)}**",
        setups,
        "Median [95 % interval] over the repeats whose money check passed, at the main pool:",
        markdown(tables.placement_figures(series)),
        "The verdict per figure (lowest p99, fewest errors, highest throughput):",
        markdown(tables.placement_verdicts(series)),
    ])


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
    parser.add_argument("--html", dest="notebook", action="store_true",
                        help="also execute the notebook into results.html (make report-html; minutes)")


def main(args: argparse.Namespace) -> int:
    """Builds the report and says where it is."""
    readme = build(args.runs, args.out, execute_notebook=args.notebook)
    print(f"report: {readme}" + (f" and {args.out / 'results.html'}" if args.notebook else ""))
    return 0
