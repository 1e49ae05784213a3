"""The results report: results/report/README.md and its charts, from the run folders.

The index opens on the verdict and its table, then a short section per question linking to the
runs' pages (runs/), with PNG charts (charts/). It only reads run folders (results/LAYOUT.md): the
same runs rebuild the same bytes.

See docs/method.md#the-report.
"""

import argparse
import os
import re
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from bankbench import config, paths
from bankbench.analyse import (
    at_rate,
    capacity_figures,
    capacity_model,
    estimates,
    overload,
    paired,
    request_cost,
    sensitivity,
    tuned,
)
from bankbench.analyse.findings import Findings, Verdict, p99_by_start
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.publish import charts, notebook, own_run, pages, soak_page, tables
from bankbench.publish.formatting import count, figure_text, markdown, significant
from bankbench.publish.tables import START_NAMES
from bankbench.results import files, runs, soak_record
from bankbench.results.runs import Run

DEFAULT_OUT = paths.ROOT / "results" / "report"
# The verdict in words: written by hand once, from the published runs, and shown on their report's
# first screen between these markers (harness/tests/test_verdict.py checks its figures).
VERDICT = paths.RESULTS / "verdict.md"
VERDICT_START = "<!-- results/verdict.md, written by hand: edit it there -->"
VERDICT_END = "<!-- end of results/verdict.md -->"
LINK = re.compile(r"\]\(([^)\s#]*)(#[^)\s]*)?\)")
TITLE = "# bankbench: Go and Java on one bank service"
NOT_LISTED = "not in results/published.csv"
# The index's questions, by the key tables.QUESTIONS gives the first table's columns: their headings.
QUESTIONS = {"starts": "Cold vs warm", "capacity": "Capacity and cost", "request": "What one request costs",
             "tuned": "Capacity at the shipped and at the tuned settings", "memory": "Memory",
             "overload": "Past capacity", "common": "At one rate: CPU, memory and cost",
             "soak": "Over time: make soak"}
METHOD = """\
Every figure is computed by `harness/bankbench` from the run folders (`results/LAYOUT.md`) only.
Latency percentiles come from each level's HdrHistograms (exact below 2,048 ms, within 0.1 %
above), over its measured window: requests of the ramp-up and warm-up are left out. Each figure
is the median of the repeats whose money check passed and whose load generator held up, with its
95 % confidence interval in brackets and as bars or bands in the charts: a bootstrap of the
median over the repeats where a level has at least 3 (over 3, their range), else over the level's per-second buckets
(throughput and p99 only). Two services differ at a level only when the 95 % interval of the
ratio of their figures excludes 1 (over repeats, of their geometric means, by Welch's t on the
logarithms); otherwise the text says "within noise" (`harness/bankbench/analyse/estimates.py`). A level
whose money check failed is marked FAILED, one at which the load generator did not hold up (short
of CPU, an arrival rate offered below the plan's, or a plan beyond what its calibration drove:
`harness/bankbench/load/validity.py`) is marked INVALID. The tables' `repeats` column says how
many of a level's repeats count (`3 of 3`): a level with a repeat that does not count has no
median there but a row (or an entry) per repeat, each marked; the charts and comparisons leave
such repeats out, and the text says how many repeats a median is over where some were left out.
Where the load generator was the limit of a closed loop (the sustained model), a throughput reads
`>= N (load generator)` (a hollow marker in the charts): the service served at least that, and no
smaller level is called its peak. Each run's page says which CPUs the service had; compare services within
a run, and absolute figures only with the same hardware. `make report` rebuilds this folder from
the runs; `make report-html` adds the same as results.html, with the code (explore with
`results/results.ipynb`)."""


def build(run_dirs: list[Path] | None, out_dir: Path, execute_notebook: bool = False,
          beside: list[Path] | None = None) -> Path:
    """Renders the report of `run_dirs` (default: the published runs) into `out_dir`; returns the
    README's path. The folders `beside` them (default: with the published runs, the experiments
    results/published.csv lists) get a page and a row in the index, and no say in its figures."""
    selected = runs.load_runs(run_dirs)
    if beside is None:
        beside = runs.kept_beside() if run_dirs is None else []
    kept = [runs.load_run(path) for path in beside]
    unique_pages([*selected, *kept])
    for owned in (pages.CHARTS_DIR, pages.PAGES_DIR):  # pages and charts of folders no longer shown go
        shutil.rmtree(out_dir / owned, ignore_errors=True)
        (out_dir / owned).mkdir(parents=True)
    series, single = runs.by_series(selected)
    findings = Findings.of(selected)
    verdict = findings.verdict
    notes = {run.id: [f"One run of the series `{run.series}` over CPU placements: "
                      f"[the verdict under each placement](../README.md#{anchor('Placement sensitivity')})."]
             for group in series.values() for run in group}
    articles, why = runs.read_articles(), runs.listed()
    # pages.write's arguments a page: pickled together, `run is verdict.searched` holds in workers.
    pages_of: list[tuple[Run, Path, pd.DataFrame, Verdict | None, list[str], str | None]] = [
        (run, out_dir, articles, verdict, notes.get(run.id, []), None) for run in selected]
    pages_of += [(run, out_dir, articles, None, kept_notes(run, why, out_dir),
                  pages.under_results(run.path)) for run in kept]
    with ProcessPoolExecutor(os.cpu_count()) as pool:  # each page and its charts are its own: the CPUs share them
        list(pool.map(pages.write, *zip(*pages_of, strict=True)))
    readme = out_dir / "README.md"
    sections = [
        *first_screen(findings, out_dir, verdict_block(out_dir) if run_dirs is None else None),
        *starts_section(selected, findings),
        *capacity_section(findings, verdict, out_dir, [run for run in single if run.searched]),
        *common_rate_section(findings),
        *request_cost_section(selected),
        *tuned_sections(single, findings.passes, ranking(findings, "tuned")),
        *memory_section(findings, verdict, out_dir),
        *(placement_section(group) for group in series.values()),
        *reliability_section(selected),
        equivalence_section(selected),
        *side_by_side_sections(single),
        "## Method\n\n" + METHOD,
        runs_section(selected, kept, why),
    ]
    readme.write_text("\n\n".join(sections) + "\n")
    if execute_notebook:
        notebook.render_html([run.path for run in selected], out_dir / "results.html")
    return readme


def anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as -."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def unique_pages(shown: list[Run]) -> None:
    """Refuses folders that would share a page (pages.page_name): one would overwrite the other."""
    names = [pages.page_name(run.path) for run in shown]
    if clash := sorted({name for name in names if names.count(name) > 1}):
        folders = [str(run.path) for run in shown if pages.page_name(run.path) in clash]
        raise UserError(f"these run folders would share a page runs/{clash[0]}.md: {', '.join(folders)}")


def page_link(run: Run, text: str | None = None) -> str:
    return f"[{text or f'`{run.id}`'}]({pages.PAGES_DIR}/{pages.page_name(run.path)}.md)"


def kept_notes(run: Run, why: dict[Path, str], out_dir: Path) -> list[str]:
    """Under a kept folder's title: why it is kept, and a link to its experiment's README."""
    readme = paths.RESULTS / pages.under_results(run.path).split("/")[0] / "README.md"
    told = (f" [Its README]({pages.relative(readme, out_dir / pages.PAGES_DIR)}) says what the experiment "
            "asks and what it found." if run.path.resolve().is_relative_to(paths.RESULTS) and readme.is_file()
            else "")
    return [f"An experiment's folder, kept beside the runs the report reads: "
            f"{why.get(run.path.resolve(), NOT_LISTED)}.{told}"]


def verdict_block(out_dir: Path) -> str:
    """results/verdict.md without its title and comments, between the markers, its relative links
    made relative to out_dir (a link into the report reads as one into out_dir's copy of it; into
    its index, as an anchor)."""
    text = re.sub(r"<!--.*?-->\n*", "", re.sub(r"\A# .*\n+", "", VERDICT.read_text()), flags=re.DOTALL)

    def moved(m: re.Match) -> str:
        path, fragment = m.group(1), m.group(2) or ""
        if not path or "://" in path:
            return m.group(0)
        target = (VERDICT.parent / path).resolve()
        if target.is_relative_to(DEFAULT_OUT.resolve()):  # into the report: the same file of this one
            inside = target.relative_to(DEFAULT_OUT.resolve()).as_posix()
            return f"]({fragment})" if inside == "README.md" and fragment else f"]({inside}{fragment})"
        return f"]({os.path.relpath(target, out_dir.resolve())}{fragment})"

    return f"{VERDICT_START}\n\n{LINK.sub(moved, text).strip()}\n\n{VERDICT_END}"


def first_screen(f: Findings, out_dir: Path, told: str | None = None) -> list[str]:
    """The title, the verdict (`told`: the published runs' only; else the hardware in a line), the
    first table and its legend, the headline chart."""
    if not f.services:
        return [TITLE, *filter(None, [told]), "None of the runs shown is a start of the articles' plan or a "
                "capacity search, whose figures the verdict reads: each run's figures are on its page "
                f"([Runs](#{anchor('Runs')}))."]
    table = tables.first(f, link=lambda header, question: f"[{header}](#{anchor(QUESTIONS[question])})")
    parts = [TITLE, told or machine(f), markdown(table), legend(f)]
    if not (split := tables.framework_and_runtime(f)).empty:
        parts += ["Each full-stack framework's gap to the standard library's service, split in two: its runtime "
                  "(the micro-framework on the same runtime over the standard library's) and its framework (the "
                  "full stack over the micro-framework); the two factors multiply to the gap, each with its 95 % "
                  "interval.", markdown(split)]
    parts.append(markdown(tables.sources(f, page_link)))
    if f.start_runs:
        figure = charts.starts(p99_by_start(f.start_runs), START_NAMES)
        parts.append(pages.save(figure, out_dir, "headline", out_dir))
    return parts


def machine(f: Findings) -> str:
    """The hardware in a line, where no verdict written by hand opens the page."""
    return (f"Measured on one machine ({f.cores or '?'} cores, {f.cpu_model or 'CPU not recorded'}) shared by the "
            "load generator, the services and PostgreSQL: compare the services with each other, not with other "
            "hardware.")


def legend(f: Findings) -> str:
    """What the first table's brackets are over, in at most 100 words (test_conclusions)."""
    def over(counts: set[int]) -> str:  # `3`, `2/3` where cells differ
        return "/".join(map(str, sorted(counts))) or "its"

    p99 = over({cell.of for start in ("warm", "cold", "aot") for cell in f.p99[start].values() if cell.of})
    starts = over({cell.of for cells in f.startup.values() for cell in cells.values() if cell.of})
    capacity = (f"capacity at p99 ≤ {f.target_ms:g} ms over {len(f.passes.runs)} passes ({capacity_model.ACROSS}), "
                "each pass's from all its probes" if f.passes
                else f"capacity at p99 ≤ {f.target_ms:g} ms from the rate that held to the next, which missed")
    per = f"; req/s: it/s × {f.requests_per_iteration:.3g} requests per iteration" if f.requests_per_iteration else ""
    rate = (f"at {f.common_rate:,} it/s (CPU: service + PostgreSQL per request; $/M req: that CPU time priced on "
            f"{at_rate.priced_on()})") if f.common_rate else "at one rate"
    return (f"Cells: the median [95 % interval]: p99 over {p99} repeats, start-up over {starts} processes (start to "
            f"first 200), {capacity}{per}; RSS, CPU and cost over the repeats {rate}. A repeat counts where its "
            "money check passed and the load generator kept up: `(n of N)` where some did not. Headers link to "
            "sections.")


def ranking(f: Findings, question: str) -> str:
    """The section's rankings (tables.rankings) as Markdown; empty where nothing is ranked."""
    table = tables.rankings(f, question)
    return "" if table.empty else markdown(table)


def starts_section(selected: list[Run], f: Findings) -> list[str]:
    """Cold vs warm: the rankings, and per profile family the p99 of each level under each start."""
    families = runs.by_start(selected)
    if not families:
        return []
    parts = [f"## {QUESTIONS['starts']}",
             "The same levels under each start, a run each; what differs is what the service has done "
             "before its first measured request, and so the question its figures answer. The starts "
             "compare runs taken at different times: read a difference smaller than the machine's drift "
             "between runs (10-30 % on the machine of the committed runs) as within noise. p99 in ms, "
             "median [95 % interval: over 3 repeats, their range]; each run's page has its throughput, errors "
             "and every level.", *filter(None, [ranking(f, "starts")])]
    for family, table in tables.starts(selected, tables.STARTS_P99).items():
        starts = "\n".join(f"- **{START_NAMES[start]}** ({page_link(run)}): {profiles.STARTS[start]}."
                           for start, run in families[family].items())
        parts += [f"Profile {family}:\n\n{starts}", markdown(table)]
    if f.startup:
        parts += [f"Start-up, the time from a process's start to its first 200 on GET /health (which asks the "
                  f"database): `make startup`, record `results/startup/{f.startup_stamp}.json`, each service "
                  "started again and again on the CPUs it has under the default placement. Seconds, median "
                  "[95 % interval] over the processes started.", markdown(tables.startup(f))]
    return parts


def tuned_sections(selected: list[Run], passes: paired.Passes | None = None, ranking: str = "") -> list[str]:
    """The settings make tune found for each service and, over make capacity's `passes` where they
    probed them, each one's capacity at the shipped and the tuned settings, and their `ranking`."""
    swept = tuned.found(selected)
    passes = passes if passes and passes.tuned else None
    if not swept and not passes:
        return []
    parts = [f"## {QUESTIONS['tuned']}"]
    if swept:
        parts += ["The settings `make tune` found for each service at its capacity rate, one knob at a time (how "
                  "it chose, and every value it swept: its run's page; a run of some knobs starts the others where "
                  "an earlier run left them and names it, or names them as not searched), and those `TUNED=1` "
                  "runs with (`[tuned.<service>]` in tuned.toml, which says why where they differ).",
                  markdown(tables.tuning_settings([(service, record) for _, service, record in swept],
                                                  [page_link(run) for run, _, _ in swept], profiles.read_tuned()))]
        effects = tables.knob_effects(swept)
        if not effects.empty and (effects["effect [95 % interval]"] != "-").any():
            parts += ["Each value's first duel against the value kept so far: its effect on the CPU per request "
                      "of the core the service shares with PostgreSQL (candidate / incumbent - 1, below 0 a cut) "
                      "with its 95 % interval (Hodges-Lehmann, Mann-Whitney), and the smallest cut that duel could "
                      "have detected at 80 % power from its own probes' spread "
                      "([method](../../docs/method.md#a-duels-effect-and-power)); a value that won is duelled "
                      "again and kept only if it wins that one too.",
                      markdown(effects)]
    if not passes:
        return ["\n\n".join([*parts, "No capacity at the tuned settings is shown yet: `make capacity TUNED=both` "
                                      "probes them beside the shipped ones."])]
    settings = passes.runs[-1].manifest.with_tuned
    table = pd.DataFrame([{
        "service": service, "capacity it/s, shipped": figure_text(shipped.figure, count),
        "capacity it/s, tuned": figure_text(passes.tuned[service].figure, count),
        "tuned / shipped": figure_text(estimates.ratio(shipped.figure, passes.tuned[service].figure),
                                       significant) + "×",
        "tuned settings": tables.settings_text(settings[service])
        + (" (the shipped ones)" if profiles.is_shipped(service, settings[service]) else "")}
        for service, shipped in passes.shipped.items() if service in passes.tuned])
    return ["\n\n".join([
        *parts,
        f"Over the passes of `make capacity TUNED=both` under {passes.placement} "
        f"({', '.join(page_link(run) for run in passes.runs)}), each service was probed at the settings it ships "
        "with and at its `[tuned.<service>]` table in tuned.toml (the last column; the environment is what it "
        "adds to the service's), every contender in turn at each rate; a service whose tuned settings are its "
        "shipped ones was probed once. Iterations/s, each pass's capacity from every probe (the rate held with "
        f"probability 0.5), their geometric mean [95 % interval]; tuned / shipped, the ratio within each pass "
        f"over the passes: {capacity_model.ACROSS}.", markdown(table), *filter(None, [ranking])])]


def capacity_section(f: Findings, verdict: Verdict | None, out_dir: Path, searched: list[Run]) -> list[str]:
    """Capacity and cost, and what the other capacity runs among `searched` found."""
    if verdict is None:
        return []
    heading = f"## {QUESTIONS['capacity']}"
    efficiency = (f" CPU per request and p99 against the offered rate over a wider range: "
                  f"{page_link(verdict.measured)} (profile {verdict.measured.profile}).") if verdict.measured else ""
    if verdict.searched is None:
        return [heading, f"No capacity run yet (`make capacity`).{efficiency}"]
    run = verdict.searched
    figure = charts.capacity(capacity_figures.p99_by_rate(run), verdict.found, verdict.target_ms)
    passes = (f" The ranking rests on the passes of `make capacity` under {f.passes.placement} "
              f"({', '.join(page_link(other) for other in f.passes.runs)}), each probing the services in turn at each "
              "rate, so that the machine's drift fell on all alike, and confirming each rate found with a level of "
              f"{'/'.join(map(str, f.passes.long_s))} s (whether it held: below); the CPU per request beside it is "
              "the service's and PostgreSQL's at that level.") if f.passes else ""
    return [heading,
            f"`make capacity` searched, per service, the highest open-model rate (iterations/s of the "
            f"7-request scenario) at which p99 stayed at or under {verdict.target_ms:g} ms with errors "
            f"under {capacity_figures.searches(run).target.max_error_pct:g} %, each probe a short level on a "
            f"warm service (CPUs {pages.cpus(run.manifest)}). Where the load generator fell short at the next "
            "rate, the capacity is its ceiling, a lower bound of the service's (\"≥\"; \"beside PostgreSQL\": "
            "the CPU they shared was full, and the verdict then ranks the services by their capacity under "
            f"split).{passes} The cost below is projected for each service from its capacity and, a line of its "
            "own, for PostgreSQL from its CPU time per request there. The run's page has every probe, the CPU "
            f"of PostgreSQL, and what the cost projection assumes and leaves out: "
            f"{page_link(run)}.{efficiency} What each camp objects to in benchmarks like this one (warm-up, "
            "the collector and heap, pool sizes, virtual threads' carriers, Go's GOGC), and the figure that "
            "answers each: [docs/objections.md](../../docs/objections.md).",
            *filter(None, [ranking(f, "capacity")]),
            *(passes_tables(f.passes) if f.passes and f.passes.fits else []),
            pages.save(figure, out_dir, "capacity", out_dir),
            *([markdown(tables.projection(verdict.projected, verdict.assumptions))] if verdict.assumptions
              else filter(None, [pages.UNPROJECTED.get(verdict.unprojected)])),
            "What each capacity run shown found, iterations/s: per service the rate found (`≥`: a lower bound) "
            "and the next, which missed; what made a rate a lower bound and what ended a search before its end, "
            "with the services concerned. Each run's page has every probe.",
            markdown(tables.capacity_runs([run, *(o for o in searched if o is not run)], page_link))]


def common_rate_section(f: Findings) -> list[str]:
    """Every service at one rate: CPU per request, peak RSS and cost per million (analyse.at_rate)."""
    if f.verdict is None or f.verdict.measured is None:
        return []
    heading, run = f"## {QUESTIONS['common']}", f.verdict.measured
    if f.common_rate is None:
        return [heading, f"The efficiency run {page_link(run)} has no rate at which every service held p99 ≤ "
                         f"{f.target_ms:g} ms: no common rate to compare them at."]
    requests = f" ({f.common_rate * f.requests_per_iteration:,.0f} requests/s)" if f.requests_per_iteration else ""
    return [heading,
            "CPU per request falls as the rate rises (fixed per-second costs, scrapes, GC, JIT and pollers, spread "
            "over more requests), so the stacks are compared at one rate: the highest of the efficiency run "
            f"{page_link(run)} at which every service held p99 ≤ {f.target_ms:g} ms with errors under 0.1 %, "
            f"{f.common_rate:,} it/s{requests}, on warm services (CPUs {pages.cpus(run.manifest)}). Per service, "
            "the median [95 % interval] over its repeats. The cost is that CPU time priced on "
            f"{at_rate.priced_on()} (the service's host, then PostgreSQL's, on-demand prices of "
            "[infra/instances.csv](../../infra/instances.csv)) at full use of their vCPUs: a floor, with no "
            "headroom and no load balancer; the capacity section's projection prices capacity instead.",
            markdown(tables.at_one_rate(f)), *filter(None, [ranking(f, "common")])]


def passes_tables(passes: paired.Passes) -> list[str]:
    """Each pass's capacities with its A/A control, then over the passes the contenders beside."""
    parts = ["Each pass, iterations/s: every contender's capacity from all of its probes there, the rate held "
             f"with probability 0.5 [95 % interval], by {capacity_model.WITHIN}; `>`: it never missed (or the fit "
             "lies above every rate it was probed at), `<`: it never held. The A/A control is one service entered "
             "twice under two names, same build and settings: a pass whose A/A interval excludes 1 failed, and "
             "stays shown.", markdown(tables.capacity_passes(passes))]
    beside = tables.capacity_beside(passes)
    if not beside.empty:
        parts += [f"Over the passes ({capacity_model.ACROSS}), each contender entered beside a service, against "
                  f"it: the A/A twin, and each pool beside the shipped {config.DEFAULT_POOL_SIZE}; last, how often "
                  "the A/A control failed, with the rate's exact 95 % interval (Clopper-Pearson).",
                  markdown(beside)]
    if passes.long_held:
        parts += ["The longer level that confirmed each rate found, in each pass: whether it held the target "
                  "(where it missed, the capacity there held only the short probes).",
                  markdown(tables.long_levels(passes))]
    return parts


def memory_section(f: Findings, verdict: Verdict | None, out_dir: Path) -> list[str]:
    """Memory: RSS against the heap limit at each service's capacity rate."""
    if verdict is None or verdict.searched is None or (
            heaps := capacity_figures.rss_by_heap(verdict.searched)).empty:
        return []
    return [f"## {QUESTIONS['memory']}",
            "At each service's capacity rate, `make capacity` swept the heap limit down (GOMEMLIMIT, -Xmx) "
            "to the smallest that still held the target: a heap held where most of its probes held, "
            "missed where most missed, and is undecided where the load generator fell short. The peak "
            f"RSS at each heap, and with the service's own settings as a line ({page_link(verdict.searched)}).",
            *filter(None, [ranking(f, "memory")]),
            pages.save(charts.rss_vs_heap(heaps), out_dir, "memory", out_dir),
            markdown(tables.heaps(verdict.found))]


def placement_section(series: list[Run]) -> str:
    """A series over CPU placements (bankbench.analyse.sensitivity): whether the verdict changes."""
    first = series[0]
    links = ", ".join(page_link(run, run.placement) for run in sensitivity.ordered(series))
    return "\n\n".join([
        "## Placement sensitivity",
        f"Does the verdict depend on the test bed? The levels of profile {first.profile} ran once "
        f"under each CPU placement, a run each, one after the other on one machine (series "
        f"`{first.series}`: {links}). The verdict on a figure is the best service by what the factors "
        "compare (over repeats, the geometric mean) together with any within noise of it "
        "(`harness/bankbench/analyse/sensitivity.py`); it changes where "
        "two placements name a different winner. A verdict where the load generator did not hold up in some "
        "repeat is marked, and left out of the change (`n/a`: fewer than two placements judged it).",
        markdown(tables.placement_verdicts(series)),
        "Median [95 % interval] over the repeats at the main pool, or a row per repeat where some did not count:",
        markdown(tables.placement_figures(series)),
    ])


def request_cost_section(selected: list[Run]) -> list[str]:
    """What one request costs PostgreSQL and the service at the same rate (make pgwire)."""
    run = request_cost.newest(selected)
    if run is None:
        return []
    return [f"## {QUESTIONS['request']}",
            f"Each service at the same rate in turn, PostgreSQL's port captured ({page_link(run)}, CPUs "
            f"{pages.cpus(run.manifest)}): the CPU each request took in the service and in PostgreSQL (split "
            "into its backends' user and system time and its other processes'), the machine's softirq time "
            "(the kernel's loopback TCP work, charged to no process), the backends that served, how few of "
            "them ran half the statements and how often a statement went to the backend of the one before, "
            "PostgreSQL's context switches and the protocol messages it was sent, per request, the median "
            "over the run's repeats (PostgreSQL's CPU of each repeat beside it). The same statements cost "
            "PostgreSQL more CPU when they go to many backends in turn, each cold when its turn comes, than "
            "to a few that stay warm: platform Java's pool keeps each Tomcat thread its own connection, and "
            "Tomcat takes its threads in turn. Why, with PostgreSQL alone at the same rate over 2, 16 and 95 "
            "connections (`make pg-spread`), and what else was tried: "
            "[docs/request-cost.md](../../docs/request-cost.md).",
            markdown(tables.request_cost(request_cost.per_service(run)))]


def reliability_section(selected: list[Run]) -> list[str]:
    """Reliability: past capacity (make overload) and over time (make soak), a subsection each."""
    parts = [*overload_section(selected), *soak_section(selected)]
    return ["## Reliability", *parts] if parts else []


def overload_section(selected: list[Run]) -> list[str]:
    """Past capacity: per phased run (make overload), whether each service held up."""
    found = [run for run in selected if overload.is_phased_run(run)]
    if not found:
        return []
    parts = [f"### {QUESTIONS['overload']}"]
    for run in found:
        parts += [f"Does each service hold up past its capacity? {page_link(run)} (profile {run.profile}) offered "
                  f"each warm service {pages.phases_text(run)} of its base rate "
                  f"({profiles.rates_text(run.settings['rates'], run.settings['rate_source'])}). Its page says "
                  "what holding up asks and shows each service second by second.",
                  markdown(tables.overload(overload.outcomes(run)))]
    return parts


def soak_section(selected: list[Run]) -> list[str]:
    """Over time: per make soak run, each service's minutes, trends and verdict, and its page."""
    soaked = [run for run in selected if (run.path / soak_record.SOAK_FILE).is_file()]
    if not soaked:
        return []
    parts = [f"### {QUESTIONS['soak']}",
             "Does each service stay as it started? Each warm service for minutes at a share of its capacity: "
             "its p99 and errors per minute, the trends of its RSS and pool use per hour with their 95 % "
             "intervals, and the money checked at the midpoint, under load, and at the end. Each run's page "
             "has the rule, every trend and the charts per minute "
             "([docs/benchmarks.md](../../docs/benchmarks.md#endurance-make-soak))."]
    for run in soaked:
        parts += [page_link(run), soak_page.table(soak_record.read(run.path), "github")]
    return parts


def equivalence_section(selected: list[Run]) -> str:
    """Whether every run did the same database work (make verify) and kept the money right: per
    check, how many of the runs shown passed, and each other run with what it found."""
    checks = {run.id: files.verify(run.path) for run in selected}
    unverified = [(run, "FAILED" if checks[run.id] else "not checked (it predates `make verify`)")
                  for run in selected if not ((check := checks[run.id]) and check.ok)]
    money = [(run, f"FAILED after {', '.join(failed)}") for run in selected
             if (failed := tables.failed_money(run.summary))]
    table = pd.DataFrame([{"check": check, "runs passed": f"{len(selected) - len(others)} of {len(selected)}",
                           "not passed": "; ".join(f"{page_link(run)}: {why}" for run, why in others) or "-"}
                          for check, others in (("`make verify` before the first level", unverified),
                                                ("money check after every level", money))])
    return ("## Equivalence\n\nBefore the first level of a run, `make verify` proves that every service runs "
            "the same statements per request, in the same transactions (pg_stat_statements and pg_stat_database, "
            "a table per run on its page); after every level, the money check sums the balances, and a level "
            "whose check failed is left out of every figure.\n\n" + markdown(table))


def side_by_side_sections(selected: list[Run]) -> list[str]:
    """A profile run with each load generator (make crosscheck), and natively and under compose."""
    return [*(f"## The load generators agree: profile {family}\n\nThe same open-model levels, driven "
              "by JMeter and by Gatling, one run after the other on the same service (`make crosscheck`; "
              "the runs' pages give each setup). Both send the same requests, extract the same values and "
              "check the same answers (harness/tests/test_generators.py); latencies are whole "
              "milliseconds in both, so a p50 of 0 or 1 ms says only that it is under 1 or 2 ms. Median "
              "[95 % interval] over the repeats; the runs were taken at different times, so read a "
              "difference smaller than the machine's drift between runs as within noise.\n\n" + markdown(table)
              for family, table in tables.crosscheck(selected).items()),
            *(f"## Profile {profile} in each environment\n\nThe same plan and levels, run natively "
              "and in containers (the runs' pages give each setup). Containers add a bridge network and "
              "cgroup limits, and the runs were taken at different times: compare the services within "
              "an environment, and the environments only as a check that they agree in shape.\n\n"
              + markdown(table) for profile, table in tables.environments(selected).items())]


def runs_section(selected: list[Run], kept: list[Run], why: dict[Path, str]) -> str:
    """Every run shown and every folder kept beside them, with its page and `why` it is kept."""
    rows = pd.DataFrame([{"run": page_link(run), "profile": run.profile,
                          "why it is kept": why.get(run.path.resolve(), NOT_LISTED)} for run in selected])
    beside = pd.DataFrame([{"folder": page_link(run, f"`{pages.under_results(run.path)}`"),
                            "profile": run.profile, "why it is kept": why.get(run.path.resolve(), NOT_LISTED)}
                           for run in kept])
    return "\n\n".join([
        "## Runs",
        "Each run shown has a page; `results/published.csv` lists the runs kept in the repository and why.",
        markdown(rows),
        *(["Experiments kept beside them, a page each (with a link to the README that explains the "
           "experiment):", markdown(beside)] if kept else []),
    ])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", nargs="+", type=Path, metavar="DIR",
                        help="run folders (default: the runs results/published.csv lists under results/runs/)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                        help="report folder (default: results/report/)")
    parser.add_argument("--html", dest="notebook", action="store_true",
                        help="also execute the notebook into results.html (make report-html; minutes)")
    parser.add_argument("--publish", type=Path, metavar="RUN",
                        help="first list the run folder RUN in results/published.csv, and keep it in git "
                             "(make publish; bankbench.publish.own_run)")
    parser.add_argument("--why", default="", help="with --publish: why the run is kept, for results/published.csv")


def main(args: argparse.Namespace) -> int:
    """Builds the report (after listing the run to --publish); says where, and what it left out."""
    to_add = own_run.publish(args.publish, args.why) if args.publish else ""
    readme = build(args.runs, args.out, execute_notebook=args.notebook)
    print(f"report: {readme}" + (f" and {args.out / 'results.html'}" if args.notebook else ""))
    if to_add:
        print(f"published {args.publish}; to commit it: {to_add}")
    if args.runs is None and (left := runs.unpublished()) and runs.published():
        print(f"not shown, as results/published.csv does not list them: {', '.join(p.name for p in left)} "
              "(make publish RUN=<folder> WHY=... lists one, or choose: make report RUNS=...)")
    return 0
