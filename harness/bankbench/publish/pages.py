"""A page per run folder of the report, rendered from what `analyse` computed.

A page per run folder of the report (results/report/runs/<page name>.md): its figures and what differs (verdict_tables),
setup, checks, figures, charts and levels; a capacity run's verdict, cost projection and probes; a
make tune run's settings found and every value swept. Pages only render what `analyse` computed.

See docs/method.md#the-report.
"""

import io
import os
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from PIL import Image

from bankbench import paths
from bankbench.analyse import capacity_figures as capacity, overload, projection, repeats, timelines
from bankbench.analyse.capacity_figures import BUDGET_PLACEMENT, NONE_HELD, NOT_ALONE
from bankbench.analyse.findings import Verdict
from bankbench.checks import verify
from bankbench.load import profiles, validity
from bankbench.publish import charts, soak_page, tables, terminal, verdict_tables
from bankbench.publish.formatting import markdown
from bankbench.results import files, soak_record, summaries
from bankbench.results.documents import Manifest
from bankbench.results.probes import Tuning
from bankbench.results.runs import Run

PAGES_DIR = "runs"  # under the report folder, owned by the report: emptied at each build
CHARTS_DIR = "charts"  # likewise
# Charts as PNG with a palette of this many colours: a third of RGBA's bytes, which each rebuild
# adds to git, at no loss a reader sees; Pillow writes no version in them, so rebuilds match.
PNG_COLOURS = 256

THEN_AND_NOW = """\
The 2018 and 2019 figures are the articles' own (`results/articles.csv`): they came from
other hardware, other versions and their own JMeter plans. Compare the shape, not the numbers."""
TUNING = """\
`make tune` probed each service under CPU placement {placement} at {share:.0%} of its capacity at
the shipped settings (the newest `make capacity` run there, named below), changing one knob at a
time: the pool size first, then the knobs of its entry in `services.yaml`, each value in a duel
with the one kept so far (the shipped one first). The two are probed in turn, A B A B A B, each on
a warm process of its own (profile `{profile}`), and scored by the CPU per request of the core the
service shares with PostgreSQL (the service's, every thread, and PostgreSQL's). A candidate is kept
only if it held p99 <= the target and errors under it in most of its probes, and its median CPU per
request is lower than the incumbent's by more than the spread of either's probes (or the incumbent
did not hold the target in most of its). The duels shared
{budget:.0f} minutes; a knob the budget did not reach is named as not searched. A run of some knobs
(`KNOBS=`) starts the others where the newest run that searched them through left them, and goes
on with a knob that run left unfinished (at the same values of the others) from the value it
kept, without the values it judged. `TUNED=1` runs a profile with the settings found
(`[tuned.<service>]` in tuned.toml)."""
PROJECTION_LIMITS = """\
A projection, not a measurement: arithmetic on what was measured here
(`harness/bankbench/analyse/projection.py`), with the prices of `infra/instances.csv`, in two
lines per service. The service's line takes its requests per second per vCPU from its capacity:
the requests/s at the highest rate that held the target while it had a CPU to itself (placement
service-alone), not its CPU time stretched to a whole CPU; where that capacity is a lower bound
("≥": the load generator fell short at the next rate), so is the rate, and the instances and cost
from it are upper bounds ("≤"). PostgreSQL's line, the database work each service causes, takes
1000 / its CPU ms per request at that rate, since it shared its CPU with the load generator and no
capacity of its own was measured: a floor on its instances and cost. It leaves out what was not
measured. The CPU model: the instances' Xeons are not this machine's CPUs, and no factor between
them is applied. Hyper-threads: a vCPU of m5 and c5d is one of the two threads of a core, which
does less while its sibling is busy, and nothing corrects for it. Latency: the service's rate held
the target on this machine, not on the instance; PostgreSQL's vCPUs are counted busy all the time,
where requests queue, and only a run on the instances tells at what use p99 stays under the
target. Not counted: a load balancer, the network and storage. Memory: one service process per
instance, and PostgreSQL with its cache, must each fit in their instance's memory, which is not
checked here. Whole instances: the cost per million requests is that of instances kept busy at the
projected rate, and a load that leaves its last instance part idle costs more per request. Prices:
on-demand Linux in one region on the date given; savings plans, spot and other regions differ. A
run on AWS (`make aws-bench`) measures the service on its instance type, which removes the
CPU-model and hyper-thread assumptions for that type: where an `efficiency` run on AWS is shown,
the projection takes its requests/s and PostgreSQL's CPU per request at the highest rate that held
the target (a lower bound of the capacity: its rates were not searched) instead of this machine's."""
# Why a verdict has no cost projection (Verdict.unprojected), in a line
UNPROJECTED = {
    NOT_ALONE: f"No cost projection: a projection reads a capacity under CPU placement {BUDGET_PLACEMENT} (the "
               "service alone on its CPU), and the capacity run shown ran under another placement, where its "
               "requests/s are not the service's alone.",
    NONE_HELD: "No cost projection: no service held the target.",
}
VERDICT = """\
Per service, the highest open-model rate (iterations of the rematch scenario per second, 7
requests each) at which p99 stayed at or under the target with errors under {errors:g} % and the
load delivered (`make capacity`'s staircase: the rate found is the highest probed twice or more at
which every probe held; the capacity the report ranks is the model's over every probe,
docs/method.md#capacity-the-model), and
at that rate the service's own CPU per request, PostgreSQL's, the peak RSS with the service's own
heap settings, the smallest heap of the sweep that held the target in most of its probes and the
RSS with it, and the projected price of a million requests: the service's from its capacity,
PostgreSQL's from its CPU time (below). Each figure is the median over the probes that held the
target at that rate, with its 95 % interval; "missed at" is the nearest rate above it, which
did not hold, and "heap below" the nearest heap under the smallest, with what its probes said.
"≥" marks a capacity that is a lower bound, and "bound by" what made it one: at the next rate
the load generator could not offer the plan on its CPU (bankbench.load.validity; "beside
PostgreSQL": the CPU they shared was full, the test bed's limit), or no higher rate was tried;
the service holds at least that much, and the price from it is at most the one shown ("≤").
"search" says whether the search ran to its end or what ended it first (the budget, the service's
exit). A heap at which the load generator fell short is undecided, so the smallest heap may be
smaller. Measured on this machine (CPUs {cpus}): compare the services with each other."""
OVERLOAD = """\
Each service, warm, got arrivals at {phases} of its base rate (iterations/s of the {scenario}
scenario: {rates}). It held up if it did not exit, kept its RSS within the memory bound its entry
in `services.yaml` states (over its heap's cap), answered only {allowed}, kept the p99 of its 200s
started during the overload ({overload}) within the acquire timeout ({timeout:,} ms), had that p99
back at or under {target:g} ms within {recovery} s of the overload's end (for {steady} s running)
and lost no money (`harness/bankbench/analyse/overload.py`). "no response": a request that got no
HTTP answer. The charts show each service's level second by second, the generator's warm-up grey
and the overload shaded."""


def under_results(folder: Path) -> str:
    """A run folder's path under results/ (runs/<run id>), or its own name where it is elsewhere."""
    resolved = folder.resolve()
    return resolved.relative_to(paths.RESULTS).as_posix() if resolved.is_relative_to(paths.RESULTS) else folder.name


def page_name(folder: Path) -> str:
    """A run folder's page name and chart prefix: its path under results/ less runs/, / as -."""
    return under_results(folder).removeprefix("runs/").replace("/", "-")


def write(run: Run, out_dir: Path, published: pd.DataFrame, verdict: Verdict | None, notes: list[str],
          title: str | None = None) -> Path:
    """Writes the page of `run` into `out_dir`/runs/, its charts into `out_dir`/charts/; `notes`
    go under the title (default the run id): what the index says of the run."""
    # The verdict's capacity run, or another (say under another placement) with a verdict of its own.
    if run.searched and (own := verdict if verdict is not None and run is verdict.searched
                         else Verdict.of([run])) is not None:
        body = capacity_page(run, own, out_dir)
    elif run.swept:
        body = tuning_page(run)
    else:
        body = run_page(run, published, out_dir, verdict)
    made = "make capacity" if run.searched else "make tune" if run.swept else f"profile {run.profile}"
    head = [f"# Run `{title or run.id}` ({made})",
            "[The report](../README.md): the verdict, and what each question's runs show.", *notes]
    path = out_dir / PAGES_DIR / f"{page_name(run.path)}.md"
    path.write_text("\n\n".join([*head, *body]) + "\n")
    return path


def save(figure: Figure, out_dir: Path, name: str, page_dir: Path) -> str:
    """Saves a chart into `out_dir`/charts/ and returns its Markdown image link from `page_dir`."""
    path = out_dir / CHARTS_DIR / f"{name}.png"
    rendered = io.BytesIO()
    figure.savefig(rendered, format="png")
    with Image.open(rendered) as image:
        palette = image.convert("RGB").quantize(PNG_COLOURS, method=Image.Quantize.MEDIANCUT,
                                                dither=Image.Dither.NONE)
    palette.save(path, optimize=True)
    return f"![{figure.get_suptitle()}]({relative(path, page_dir)})"


def relative(path: Path, start: Path) -> str:
    """`path` relative to the folder `start`, as a link from a page there."""
    return Path(os.path.relpath(path, start)).as_posix()


def run_page(run: Run, published: pd.DataFrame, out_dir: Path, verdict: Verdict | None) -> list[str]:
    """The sections of one run's page, its charts saved as PNG files."""
    users, labels = tables.labels(run)
    unit, page_dir = summaries.load_unit(run.summary), out_dir / PAGES_DIR
    figures = run_charts(run) | (efficiency_charts(run, verdict.target_ms)
                                 if verdict is not None and run is verdict.measured else {})
    name = page_name(run.path)
    parts = [
        *verdict_tables.parts(run.summary, "github"),
        *setup(run),
        "## Same database work", equivalence_text(run),
        "## Money check", money_text(run),
        *faults_section(run),
        *overload_section(run, out_dir),
        *soak_section(run, out_dir),
        "## Side by side",
        f"Throughput in requests/s, latency in ms; median [95 % interval].\n\n```text\n"
        f"{terminal.comparison_table(run.summary)}\n```\n\nSpread between repeats (coefficient of "
        f"variation):\n\n```text\n{terminal.spread_table(run.summary)}\n```",
        *efficiency_table(run),
        "## Charts",
        *(save(figure, out_dir, f"{name}-{chart}", page_dir) for chart, figure in figures.items()),
        *profiles_section(run, page_dir),
        "## Levels",
        markdown(tables.levels(run.summary)
                 .rename(columns={"users": summaries.load_header(run.summary)})),
        f"## Request labels at {users:,} {unit}", markdown(labels),
    ]
    if run.profile == "article":
        parts += ["## Then and now", THEN_AND_NOW, markdown(tables.then_and_now(run.summary, published))]
    return parts


def capacity_page(run: Run, verdict: Verdict, out_dir: Path) -> list[str]:
    """A capacity run's page: what its searches found, what that projects to, and every probe."""
    page_dir, name = out_dir / PAGES_DIR, page_name(run.path)
    figures = {"capacity": charts.capacity(capacity.p99_by_rate(run), verdict.found, verdict.target_ms),
               "rss-vs-heap": charts.rss_vs_heap(capacity.rss_by_heap(run))}
    return [
        f"Each probe is a short open-model level on a warm service (profile `{run.profile}`).",
        "## What the searches found",
        markdown(tables.verdict(verdict.found, verdict.projected, verdict.target_ms)),
        VERDICT.format(errors=capacity.searches(run).target.max_error_pct, cpus=cpus(run.manifest)),
        *(save(figure, out_dir, f"{name}-{chart}", page_dir) for chart, figure in figures.items()),
        *projection_section(verdict),
        *setup(run),
        "## Money check", money_text(run),
        "## Probes", markdown(tables.capacity_probes(capacity.searches(run).shipped)),
    ]


def tuning_page(run: Run) -> list[str]:
    """A make tune run's page: the settings it found, every value it swept, and every probe."""
    doc = Tuning.read(run.path)
    return [
        TUNING.format(profile=run.profile, placement=run.placement, budget=doc.budget_s / 60, share=doc.rate_share),
        "## The settings found", markdown(tables.tuning_settings(doc.services.items())),
        "## Every value swept", markdown(tables.tuning_duels(doc)),
        *setup(run),
        "## Money check", money_text(run),
        "## Probes", markdown(tables.capacity_probes(doc.services)),
    ]


def setup(run: Run) -> list[str]:
    """What the run was measured on, written once per page."""
    model = [] if run.searched else [f"Load model: {run.manifest.load_model or 'not recorded'}."]
    return ["## Setup", markdown(tables.context(run.manifest)), *model, f"CPUs: {cpus(run.manifest)}."]


def run_charts(run: Run, timeline_users: int | None = None) -> dict[str, Figure]:
    """Every chart of a run by name; the time charts show `timeline_users` (default the most)."""
    levels = repeats.aggregate_levels(run.summary)
    statuses, names = repeats.error_statuses(run.summary)
    scraped = summaries.has_service_metrics(run.summary)
    unit = summaries.load_unit(run.summary)
    figures = {
        "latency": charts.latency_percentiles(levels, unit),
        "throughput": charts.throughput(levels, unit),
        "errors": charts.errors(levels, unit),
        **({"errors-by-status": charts.errors_by_status(statuses, names, unit)} if names else {}),
        "resources": charts.resources(levels, unit),
        **({"pool-wait": charts.pool_wait(levels, unit), "gc": charts.gc_time(levels, unit)} if scraped else {}),
        **({"pool": charts.pool_sweep(levels, unit)} if levels["pool"].nunique() > 1 else {}),
    }
    chosen = timelines.timeline_levels(run.summary, timeline_users)
    latency = {service: timelines.timeline(run.level_dir(at)) for service, at in chosen.items()}
    figures["timeline"] = charts.over_time(latency, f"Over time: {', '.join(chosen.values())}",
                                           charts.TIME_PANELS)
    read = {service: timelines.service_timeline(run.level_dir(level)) for service, level in chosen.items()}
    own = {service: timeline for service, timeline in read.items() if timeline is not None}
    if scraped and own:
        figures["service-timeline"] = charts.over_time(
            own, f"The services' own metrics over time: {', '.join(chosen[service] for service in own)}",
            charts.SERVICE_PANELS)
    return figures


def efficiency_charts(run: Run, target_ms: float) -> dict[str, Figure]:
    """CPU per request and p99 vs the offered rate over an efficiency run's valid levels."""
    levels = repeats.aggregate_levels(run.summary)  # the levels the load generator held up in
    return {"cpu-per-request": charts.cpu_per_request(levels), "p99-vs-rate": charts.p99_vs_rate(levels, target_ms)}


def cpus(manifest: Manifest) -> str:
    """What CPUs the service had (bankbench.machine.placement), as the manifest recorded it."""
    return manifest.cpu_placement["description"]


def money_text(run: Run) -> str:
    """The money check of every level: whether it passed, and the levels that failed as a table."""
    failures = tables.money_failures(run)
    if failures.empty:
        return "The money check passed after every level."
    return ("The money check FAILED after the levels below: their figures are left out of every median and "
            f"chart, and the tables show them marked FAILED.\n\n{markdown(failures.astype(str))}")


def equivalence_text(run: Run) -> str:
    """What `verify` proved before the run's first level (bankbench.checks.verify), as a table."""
    check = files.verify(run.path)
    if check is None:
        return ("Not checked: the folder holds no verify.json (the run predates `make verify`, or its "
                "check was not kept).")
    verdict = ("Checked before the first level" if check.ok else
               "**FAILED** before the first level") + (
        f" (`make verify`, {check.requests_per_type} requests per type, pool of one "
        "connection): per request, the statements PostgreSQL ran (pg_stat_statements; a "
        "fingerprint is the digest of the normalized text), their calls, and the transactions "
        "(pg_stat_database). A new connection's own set-up is shown apart.")
    return f"{verdict}\n\n{verify.table(check.results)}"


def projection_section(verdict: Verdict) -> list[str]:
    """The projected cost on AWS instances of the verdict's capacities, or why there is none."""
    heading = "## Projected cost per million requests"
    if verdict.assumptions is None:
        return [heading, UNPROJECTED[verdict.unprojected]] if verdict.unprojected else []
    instances = projection.instances_of(verdict.projected)
    return [f"{heading} on {' and '.join(i.type for i in instances)}", PROJECTION_LIMITS,
            markdown(tables.projection(verdict.projected, verdict.assumptions)),
            markdown(tables.projection_assumptions(verdict.assumptions, instances))]


def efficiency_table(run: Run) -> list[str]:
    """For a run whose levels offered rates (open model): what a request cost at each."""
    if tables.OFFERED not in run.summary or run.summary[tables.OFFERED].isna().all():
        return []
    return ["## Cost per request at each rate",
            f"Per offered rate: the share of it the load generator offered (a repeat under "
            f"{validity.OFFERED_MIN_PCT:g} % of the rate, or with the generator short of CPU ..., is "
            f"INVALID), then CPU milliseconds per request of the service's own processes and of "
            "PostgreSQL, its resident memory; median [95 % interval] over the repeats, or a row per "
            "repeat where some did not count.", markdown(tables.efficiency(run.summary))]


def phases_text(run: Run) -> str:
    """A phased run's phases in words: `0.5x for 30 s, 2x for 60 s, ...`."""
    return ", ".join(f"{multiple:g}x for {seconds} s" for seconds, multiple in run.settings["phases"])


def overload_section(run: Run, out_dir: Path) -> list[str]:
    """A phased run (make overload): whether each service held up past its capacity."""
    if not overload.is_phased_run(run):
        return []
    found = overload.outcomes(run)
    text = OVERLOAD.format(
        phases=phases_text(run), scenario=run.settings["scenario"],
        rates=profiles.rates_text(run.settings["rates"], run.settings["rate_source"]),
        allowed=", ".join(overload.ALLOWED), overload=" and ".join(
            f"{multiple:g}x" for _, multiple in run.settings["phases"] if multiple > 1),
        timeout=found[0].acquire_timeout_ms if found else 0, target=overload.RECOVERY_P99_MS,
        recovery=overload.RECOVERY_MAX_S, steady=overload.STEADY_S)
    bounds, name = {o.level_id: o.bound_mb for o in found}, page_name(run.path)
    return ["## Past capacity", text, markdown(tables.overload(found)),
            *(save(charts.overload_timeline(line, bounds[line.level_id], overload.RECOVERY_P99_MS), out_dir,
                   f"{name}-{line.level_id}-overload", out_dir / PAGES_DIR) for line in overload.timelines(run))]


def soak_section(run: Run, out_dir: Path) -> list[str]:
    """A make soak run: each service's minutes, trends and verdict, and its charts per minute."""
    if not (run.path / soak_record.SOAK_FILE).is_file():
        return []
    soak, name = soak_record.read(run.path), page_name(run.path)
    return ["## Over time: make soak", *soak_page.parts(soak),
            *(save(figure, out_dir, f"{name}-{chart}", out_dir / PAGES_DIR)
              for chart, figure in soak_page.figures(soak).items())]


def faults_section(run: Run) -> list[str]:
    """The faults struck during the run's levels (CHAOS), with recovery and error burst."""
    rows = [{"level": level_id, "fault": f.fault,
             "struck at (s)": round(level.since_start_s(f.at_ms), 1),
             "healthy again after (s)": f.recovery_s, "failed requests": f.errors,
             "burst by response code": "; ".join(f"{code}: {b.count} in {b.duration_s:g} s"
                                                 for code, b in f.burst.items())}
            for level_id in run.summary["level_id"]
            for level in [files.level_record(run.level_dir(level_id))] for f in level.faults]
    return ["## Faults", "Struck in the measured window (time since the level's start), "
            "marked on the over-time chart; the money check above ran after them.",
            markdown(pd.DataFrame(rows))] if rows else []


def profiles_section(run: Run, page_dir: Path) -> list[str]:
    """Links to the levels' CPU flame graphs (flamegraph.html, from `make bench PROFILE_CPU=1`)."""
    links = [f"- [{level_id}]({relative(path, page_dir)})" for level_id in run.summary["level_id"]
             if (path := run.level_dir(level_id) / "flamegraph.html").is_file()]
    return ["## CPU profiles",
            "Flame graphs of the service's CPU in the measured window, one per profiled level:",
            "\n".join(links)] if links else []

