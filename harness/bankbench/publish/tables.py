"""Report tables as DataFrames of text, for the notebook and the Markdown pages.

Report tables as DataFrames of text, shown as is in the notebook, as Markdown in the README.
Figures read `median [low-high]` beside a `repeats` column of how many repeats count (`2 of 3`); a
level where some repeat does not count shows each repeat's figure instead, marked.

See docs/method.md#how-to-read-the-figures.
"""

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd

from bankbench import config, registry
from bankbench.analyse import (
    at_rate,
    capacity_figures,
    capacity_model,
    estimates,
    paired,
    repeats,
    sensitivity,
)
from bankbench.analyse.capacity_figures import MISSED, Capacity, Probed
from bankbench.analyse.findings import Cell, Findings, gaps
from bankbench.analyse.overload import RECOVERY_P99_MS, Outcome, Refusals
from bankbench.analyse.projection import (
    AT_LEAST,
    AT_MOST,
    DATABASE,
    SERVICE,
    Assumptions,
    Instance,
    Projection,
)
from bankbench.load.profiles import GENERATORS
from bankbench.publish import formatting
from bankbench.publish.formatting import (
    REPEATS,
    bounded,
    count,
    figure_text,
    number,
    significant,
    whole,
)
from bankbench.results import files, summaries
from bankbench.results.documents import NOT_RECORDED, Manifest
from bankbench.results.probes import Duel, Search, Tuned, Tuning, Turn
from bankbench.results.runs import Run, by_start
from bankbench.results.startup_record import AOT, COLD

# latency_stats figure -> (header, format), in the order the tables show them
# Percentiles are whole ms (JMeter and Gatling record ms), as the first table prints them.
LATENCY = {"requests": ("requests", count), "throughput_rps": ("req/s", number),
           "mean_ms": ("mean ms", number), "p50_ms": ("p50 ms", count),
           "p90_ms": ("p90 ms", count), "p99_ms": ("p99 ms", count),
           "max_ms": ("max ms", count), "error_pct": ("err %", number)}
RESOURCES = {"resources.service_cpu_mean": ("CPU mean %", number),
             "resources.service_cpu_max": ("CPU max %", number),
             "resources.service_rss_mean_mb": ("RSS mean MB", number),
             "resources.service_rss_max_mb": ("RSS max MB", number)}
LEVEL_COLUMNS = {f"overall.{name}": spec for name, spec in LATENCY.items()} | RESOURCES
THEN_AND_NOW = {"mean_ms": "mean ms", "p99_ms": "p99 ms", "error_pct": "err %"}
# What a projection's line rests on -> (its unit, format)
MEASURED = {SERVICE: ("req/s", count), DATABASE: ("CPU ms/request", significant)}
# Projection figure -> (header, format); "{load}" is the assumptions' load
PROJECTED = {"rps_per_vcpu": ("projected req/s per vCPU", count),
             "instances": ("projected instances for {load} req/s", count),
             "usd_per_hour": ("projected $/hour for them", significant),
             "usd_per_million": ("projected $ per 1M requests", significant)}
OFFERED = "loadgen.offered_pct"  # summary.csv: the share of the planned arrival rate JMeter offered
HEADLINE = {f"overall.{name}": LATENCY[name] for name in ("p99_ms", "error_pct", "throughput_rps")}
STARTS_P99 = {"overall.p99_ms": LATENCY["p99_ms"]}  # the index's table of the starts
CROSSCHECK = {f"overall.{name}": LATENCY[name] for name in ("p50_ms", "p99_ms", "error_pct", "throughput_rps")}
# What a request costs at each rate of an efficiency run: summary.csv column -> (header, format)
EFFICIENCY = {OFFERED: ("offered %", number), "overall.throughput_rps": ("req/s", number),
              "overall.p99_ms": ("p99 ms", count), "overall.error_pct": ("err %", number),
              "efficiency.service_cpu_ms_per_request": ("CPU ms/request", significant),
              "efficiency.pg_cpu_ms_per_request": ("PostgreSQL CPU ms/request", significant),
              "resources.service_rss_mean_mb": ("RSS mean MB", number),
              "resources.service_rss_max_mb": ("RSS peak MB", number)}
NOT_MEASURED = Cell(missing="no make startup yet")
# The first table's columns: what each shows -> the question (report section) that explains it
QUESTIONS = {"startup": "starts", "startup_aot": "starts", "warm": "starts", "cold": "starts", "aot": "starts",
             "rps": "capacity", "capacity": "capacity", "rss": "common", "cpu": "common", "cost": "common"}
NO_COMMON_RATE = Cell(missing="no efficiency run yet")
START_NAMES = {"cold": "cold", "aot": "cold+AOT", "warm": "warm"}  # profiles.STARTS, as the report names them


def levels(summary: pd.DataFrame) -> pd.DataFrame:
    """Per level: LEVEL_COLUMNS, errors by status and the load generator's verdict (`_rows`)."""
    keys, statuses = ["service", *repeats.row_keys(summary)], summaries.status_columns(summary)
    aggregated = repeats.aggregate_repeats(summary, [*LEVEL_COLUMNS, *statuses])
    aggregated = aggregated.sort_values(keys, key=summaries.sort_key).reset_index(drop=True)
    table = _text(aggregated, keys, LEVEL_COLUMNS)
    table.insert(table.columns.get_loc(LATENCY["error_pct"][0]) + 1, "errors by status",
                 _by_status(aggregated, statuses))
    table["load generator"] = _generator(summary, aggregated)
    return _rows(table, keys)


def _generator(summary: pd.DataFrame, aggregated: pd.DataFrame) -> pd.Series:
    """`ok`, or for a level shown repeat by repeat a list of `ok` or `INVALID: <reasons>`."""
    keys = list(summaries.LEVEL_KEYS)
    verdict = summary.set_index([*keys, "repeat"])[[summaries.VALID, "loadgen.reasons"]]

    def cell(row: pd.Series) -> str | list[str]:
        if not formatting.listed(row):
            return "ok"
        each = [verdict.loc[(*row[keys], repeat)] for repeat, _ in row["verdicts"]]
        return ["ok" if valid else f"INVALID: {why}" for valid, why in each]

    return aggregated.apply(cell, axis=1)


def _by_status(aggregated: pd.DataFrame, columns: list[str]) -> pd.Series:
    """`503: 12; assertion: 1`: failed requests by status ("-": none); `listed`: one per repeat."""
    medians = {column: formatting.spread_column(aggregated, column, count) for column in columns}

    def joined(texts: dict[str, str]) -> str:
        return "; ".join(f"{column.removeprefix(summaries.ERRORS_BY_STATUS)}: {text}"
                         for column, text in texts.items()) or "-"

    def cell(i: int) -> str | list[str]:
        row = aggregated.loc[i]
        if not formatting.listed(row):
            return joined({column: medians[column][i] for column in columns
                           if any(value > 0 for value in row[f"{column}.each"])})
        return [joined({column: count(row[f"{column}.each"][k]) for column in columns
                        if row[f"{column}.each"][k] > 0}) for k in range(len(row["verdicts"]))]

    return pd.Series([cell(i) for i in aggregated.index], index=aggregated.index, dtype=object)


def labels(run: Run) -> tuple[int, pd.DataFrame]:
    """The largest user count at the main pool, and the per-label figures of its levels."""
    per_label = summaries.label_summary(run.path, run.summary)
    at_pool = per_label[per_label["pool"] == repeats.main_pool(run.summary)]
    users = int(at_pool["users"].max())
    aggregated = repeats.aggregate_repeats(at_pool[at_pool["users"] == users], list(LATENCY),
                                            keys=["service", "label"])
    return users, _rows(_text(aggregated, ["service", "label"], LATENCY), ["service", "label"])


def environments(runs: list[Run]) -> dict[str, pd.DataFrame]:
    """Per profile run in more than one environment (native, compose...): a row per environment."""
    columns = {f"overall.{name}": LATENCY[name] for name in ("throughput_rps", "p99_ms", "error_pct")}
    columns["resources.service_cpu_mean"] = RESOURCES["resources.service_cpu_mean"]
    keys, tables = ["service", "users", "pool", "env"], {}
    for profile in dict.fromkeys(run.profile for run in runs):
        group = [run for run in runs if run.profile == profile]
        if len({run.manifest.env for run in group}) > 1:
            aggregated = pd.concat([repeats.aggregate_repeats(run.summary, list(columns))
                                    .assign(env=run.manifest.env) for run in group],
                                   ignore_index=True)
            tables[profile] = _rows(_text(aggregated, keys, columns), keys)
    return tables


def starts(runs: list[Run], columns: dict = HEADLINE) -> dict[str, pd.DataFrame]:
    """For each family of `runs.by_start`: `columns` of each start side by side, `n/a` where a
    service has no such start (Go has no AOT cache: its cold start is the AOT figure)."""
    return {family: side_by_side(group, columns, START_NAMES)
            for family, group in by_start(runs).items()}


def crosscheck(runs: list[Run]) -> dict[str, pd.DataFrame]:
    """Per family run with both generators in one environment: CROSSCHECK of each's newest run."""
    by_family: dict[tuple[str, str], dict[str, Run]] = {}
    for run in runs:
        by_family.setdefault((run.family, run.manifest.env), {})[run.generator] = run
    return {family: side_by_side({name: group[name] for name in GENERATORS if name in group},
                                 CROSSCHECK, GENERATORS)
            for (family, _env), group in by_family.items() if len(group) > 1}


def side_by_side(group: dict[str, Run], columns: dict, names: dict[str, str]) -> pd.DataFrame:
    """Per users and service, REPEATS and `columns` of each run of `group` (headed by `names` of its
    key) next to one another; `n/a` where a run has no such level."""
    texts = {key: _text(repeats.aggregate_repeats(run.summary, list(columns)), ["users", "service"], columns,
                        each_row=False).set_index(["users", "service"]) for key, run in group.items()}
    keys = sorted(set().union(*(text.index for text in texts.values())),
                  key=lambda key: (key[0], summaries.service_order(key[1])))
    return pd.DataFrame(keys, columns=["users", "service"]).assign(**{
        f"{header} {names[key]}": [texts[key][header].get(level, "n/a") for level in keys]
        for header in [REPEATS, *(header for header, _ in columns.values())] for key in group})


def _text(aggregated: pd.DataFrame, keys: list[str], columns: dict, each_row: bool = True) -> pd.DataFrame:
    """Key columns, REPEATS, a text column per figure (lists of repeats' cells with `each_row`)."""
    aggregated = aggregated.sort_values(keys, key=summaries.sort_key).reset_index(drop=True)
    table = aggregated[keys].copy()
    table[REPEATS] = formatting.counted(aggregated, each_row)
    for column, (header, fmt) in columns.items():
        table[header] = formatting.spread_column(aggregated, column, fmt, each_row)
    return table


def _rows(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """`_text` with a row per repeat of each group where some repeat does not count."""
    return table.explode([column for column in table if column not in keys], ignore_index=True)


def efficiency(summary: pd.DataFrame) -> pd.DataFrame:
    """Per service and offered rate: EFFICIENCY, as `_rows` shows them."""
    keys = ["service", "users"]
    figures = repeats.aggregate_repeats(summary, list(EFFICIENCY), keys=keys)
    return _rows(_text(figures, keys, EFFICIENCY), keys).rename(columns={"users": "offered it/s"})


def first(f: Findings, link: Callable[[str, str], str] = lambda header, _question: header) -> pd.DataFrame:
    """The report's first table, a row per service: its capacity in requests/s and iterations/s at
    the latency target, p99 warm and cold, start-up, and at one common rate its peak RSS, CPU per
    request with PostgreSQL's and that CPU time's cost per million requests (the legend says which
    rate and instances: headers short enough for the first screen). `link` makes a header from its
    text and its QUESTIONS key."""
    _, where = f.first_capacity
    headers = {
        "rps": "req/s" + (f" ({where})" if where else ""),
        "capacity": "it/s" + (f" ({where})" if where else ""),
        **{start: f"p99 ms {START_NAMES[start]}" for start in ("warm", "cold", "aot")},
        "startup": "start-up ms cold", "startup_aot": "start-up ms cold+AOT",
        "rss": "RSS MB", "cpu": "CPU ms/req", "cost": "$/M req",
    }
    table = pd.DataFrame([{"service": service, **{key: _cell(cell, fmt) for key, (cell, fmt) in cells.items()}}
                          for service, cells in first_cells(f).items()], columns=["service", *headers])
    return table.rename(columns={key: link(header, QUESTIONS[key]) if key in QUESTIONS else header
                                 for key, header in headers.items()})


def first_cells(f: Findings) -> dict[str, dict[str, tuple[Cell, formatting.Format]]]:
    """Per service, the first table's figures by QUESTIONS key, each with its format."""
    shown, _ = f.first_capacity
    startup = {key: f.startup.get(start, {}) for key, start in (("startup", COLD), ("startup_aot", AOT))}
    common = {key: f.at_rate.get(column, {}) for key, column in (("rss", at_rate.RSS), ("cpu", at_rate.CPU),
                                                                 ("cost", at_rate.USD))}
    return {service: {"rps": (_scaled(shown[service], f.requests_per_iteration), count),
                      "capacity": (shown[service], count),
                      **{start: (f.p99[start][service], count) for start in ("warm", "cold", "aot")},
                      **{key: (_scaled(cells.get(service, NOT_MEASURED), 1000), count)
                         for key, cells in startup.items()},
                      **{key: (cells.get(service, NO_COMMON_RATE), fmt)
                         for (key, cells), fmt in zip(common.items(), (count, significant, significant), strict=True)}}
            for service in f.services}


def _stack(service: str) -> str:
    """`Spring Boot MVC (full-stack framework)`: its framework and its class, as services.yaml says."""
    entry = registry.entries().get(service)
    return f"{entry.framework} ({entry.kind})" if entry and entry.framework else "-"


def _scaled(cell: Cell, factor: float | None) -> Cell:
    """`cell` in another unit: its figure and interval times `factor` (None: no figure)."""
    if factor is None:
        return dataclasses.replace(cell, missing=cell.missing or "no capacity run yet")
    figure = cell.figure
    return dataclasses.replace(cell, figure=estimates.Figure(
        figure.value * factor, figure.low * factor, figure.high * factor, figure.source,
        tuple(value * factor for value in figure.values)))


def _cell(cell: Cell, fmt: formatting.Format) -> str:
    """`median [low-high]` (`≥ median` for a bound), `(n of N)` where some repeats did not count."""
    if cell.missing:
        return cell.missing
    if cell.n == 0:
        return f"no usable repeat (0 of {cell.of})"
    text = f"≥ {fmt(cell.figure.value)}" if cell.bound else figure_text(cell.figure, fmt)
    return text + (f" ({cell.n} of {cell.of})" if cell.n < cell.of else "")


def verdict(found: list[Capacity], projections: list[Projection], target_ms: float) -> pd.DataFrame:
    """One row per service: what its search found (`_found`), its figures there, its smallest heap
    (`_heap`) and what a request costs there."""
    prices = {(p.service, f"{p.line} on {p.on.name}"): p.usd_per_million for p in projections}
    priced = list(dict.fromkeys(on for _, on in prices))
    return pd.DataFrame([{
        "service": c.service, **_found(c, target_ms),
        "req/s there": figure_text(c.throughput, number), "p99 ms": figure_text(c.p99_ms, count),
        "CPU ms/request": figure_text(c.cpu_ms, significant),
        "PostgreSQL CPU ms/request": figure_text(c.pg_cpu_ms, significant),
        "RSS MB, own heap": figure_text(c.rss_mb, number), **_heap(c),
        **{f"projected $ per 1M requests, {on}": bounded(prices[c.service, on], significant)
           if (c.service, on) in prices else "-" for on in priced},
    } for c in found])


def heaps(found: list[Capacity]) -> pd.DataFrame:
    """Per service, its peak RSS with its own heap settings and its smallest heap (`_heap`)."""
    return pd.DataFrame([{"service": c.service, "RSS MB, own heap": figure_text(c.rss_mb, number), **_heap(c)}
                         for c in found])


def capacity_runs(searched: list[Run], link: Callable[[Run], str] = lambda run: run.id) -> pd.DataFrame:
    """What each capacity run found, a row a run (`link`): its CPU placement, how its settings
    differ from the shipped ones, per service the rate found (`_capacity_found`) and the next, which
    missed; what made a rate a lower bound, and what ended a search early, each with its services."""
    found = [(run, capacity_figures.figures(run)) for run in searched]
    services = sorted({c.service for _, capacities in found for c in capacities}, key=summaries.service_order)
    rows = [{"run": link(run), "placement": run.placement, "settings": _run_settings(run),
             **{f"{c.service} it/s": _capacity_found(c) for c in capacities},
             **{f"{c.service} missed at": count(c.failed_at) for c in capacities},
             "bound by": _with_services({c.service: c.bound for c in capacities}),
             "search ended": _with_services({c.service: _search_end(c) for c in capacities if not c.complete})}
            for run, capacities in found]
    columns = ["run", "placement", "settings", *(f"{service} {what}" for service in services
                                                 for what in ("it/s", "missed at")), "bound by", "search ended"]
    return pd.DataFrame(rows, columns=columns).fillna("-")


def _run_settings(run: Run) -> str:
    """`tuned; admission limit 1,000,000`, or `shipped`."""
    differs = ["tuned"] if run.tuned else []
    if run.admission_limit != config.DEFAULT_MAX_CONCURRENT_REQUESTS:
        differs.append(f"admission limit {count(run.admission_limit)}")
    return "; ".join(differs) or "shipped"


def _with_services(values: dict[str, str]) -> str:
    """`budget ran out (java); top rate tried (go, java-virtual)`: each value with its services; `-`: none."""
    services: dict[str, list[str]] = {}
    for service, value in values.items():
        if value:
            services.setdefault(value, []).append(service)
    return "; ".join(f"{value} ({', '.join(names)})" for value, names in services.items()) or "-"


def _found(c: Capacity, target_ms: float) -> dict[str, str]:
    """What a search found (`_capacity_found`), the next rate, which missed, what made the rate a
    lower bound, and how the search ended."""
    return {f"capacity it/s at p99 <= {target_ms:g} ms": _capacity_found(c), "missed at it/s": count(c.failed_at),
            "bound by": c.bound or "-", "search": _search_end(c)}  # count(None): "-"


def _capacity_found(c: Capacity) -> str:
    """`400`, `≥ 400` (a lower bound), `none confirmed (550 held once)`, `none held`."""
    if c.rate is None:
        return "none held" if c.held_once is None else f"none confirmed ({count(c.held_once)} held once)"
    return f"≥ {count(c.rate)}" if c.bound else count(c.rate)


def _search_end(c: Capacity) -> str:
    """`complete`; else what ended it: the service's exit at its last probe, or the budget."""
    if c.complete:
        return "complete"
    return f"service exited (status {c.exited[1]}) at {count(c.exited[0])}" if c.exited else "budget ran out"


def _heap(c: Capacity) -> dict[str, str]:
    """The smallest heap that held the rate and the RSS with it; the nearest heap probed under
    it and what its probes said (`_below`)."""
    if c.heap is None:
        return {"smallest heap MB": "-", "RSS MB at it": "-", "heap below MB": "-", "at the heap below": "-"}
    below = c.below
    return {"smallest heap MB": str(c.heap.heap_mb), "RSS MB at it": figure_text(c.rss_heap_mb, number),
            "heap below MB": "none probed" if below is None else str(below.heap_mb),
            "at the heap below": "-" if below is None else _below(below)}


def _below(p: Probed) -> str:
    """`missed in 1 of 2`; where the load generator spoiled every probe or as many missed as held, undecided."""
    if p.verdict == MISSED:
        return f"missed in {p.missed} of {p.probes}"
    return "load generator fell short" if p.held == p.missed == 0 else "as many probes missed as held"


def tuning_settings(records: Iterable[tuple[str, Tuned]], made_by: Sequence[str] | None = None,
                    runs_with: dict[str, registry.Settings] | None = None) -> pd.DataFrame:
    """A row per service and make tune record: where it was tuned, the settings found, the run that
    found them (`made_by`), what TUNED=1 runs with (`runs_with`: tuned.toml now; rules change)."""
    rows = []
    for i, (service, record) in enumerate(records):
        found = "not found: the run ended first" if record.tuned is None else settings_text(record.tuned)
        where = f"{record.rate} it/s (" + (f"of capacity {record.capacity}, " if record.capacity is not None
                                           else "capacity of ") + f"{record.run})"
        heap = f"{record.heap_mb} MB (from {record.heap_run})" if record.heap_mb else \
            "as the settings say" if record.capacity is not None else "shipped"
        rows.append({"service": service, "tuned at": where, "heap": heap,
                     "settings found": found + "".join(f" ({note})" for note in knob_notes(record)),
                     **({"make tune run": made_by[i]} if made_by else {}),
                     **({"TUNED=1 runs": settings_text(runs_with[service]) if service in runs_with
                         else "the shipped settings"} if runs_with is not None else {})})
    return pd.DataFrame(rows)


def settings_text(settings: registry.Settings) -> str:
    """A service's tuned settings as a cell: `pool 16; GOGC=200, GOMEMLIMIT=64MiB`."""
    env = ", ".join(f"{name}={value}" for name, value in settings.env.items())
    return f"pool {settings.pool}" + (f"; {env}" if env else "")


def knob_notes(record: Tuned) -> list[str]:
    """Where a make tune record's knobs not searched through stand (as tuned.toml's `found_by`)."""
    counts = {k.knob: (len(k.judged), len(k.values)) for k in record.knobs if not k.complete}
    short = {knob: count for knob, count in counts.items() if count[0]}
    unswept = [knob for knob in record.not_searched if knob not in short]
    return [*(f"{knob} from {c['run']}" for knob, c in record.carried.items()),
            *(f"{k.knob} went on from {k.resumed['run']}" for k in record.knobs if k.resumed),
            *(f"{knob}: {n} of {of} values judged when the budget ran out, the one kept so far stays"
              for knob, (n, of) in short.items()),
            *([f"{', '.join(unswept)}: not searched, shipped"] if unswept else [])]


def tuning_duels(doc: Tuning) -> pd.DataFrame:
    """Every duel of a make tune run (protocol "paired"), in order: was the candidate kept, why."""
    rows = []
    for service, record in doc.services.items():
        for knob in record.knobs:
            rows += [{"service": service, "knob": knob.knob, "candidate": duel.candidate, "incumbent": duel.incumbent,
                      **{f"{who} CPU ms/request (p99 ms)": _turns(duel, getattr(duel, who))
                         for who in ("candidate", "incumbent")},
                      "effect [95 % interval]": _effect(duel),
                      "cut detectable at 80 %": _percent(duel.detectable),
                      "void": len(duel.voided) or "", "duel": "second" if duel.confirms else "first",
                      "kept": ("yes: " if duel.kept else "no: ") + duel.why} for duel in knob.duels]
            if not knob.complete:
                rows.append({"service": service, "knob": knob.knob, "candidate": "the rest",
                             "kept": "not searched: the budget ran out"})
    return pd.DataFrame(rows).fillna("")


def knob_effects(found: Iterable[tuple[Run, str, Tuned]]) -> pd.DataFrame:
    """Per service, knob and value duelled (make tune's paired runs, `tuned.found`): its effect on
    CPU per request against the incumbent with the 95 % interval, the smallest cut that duel could
    have detected at 80 % power, the second duel's effect where it won its first, and whether it
    was kept: what "no value beat the shipped one by more than X %" rests on."""
    rows = []
    for run, service, record in found:
        for knob in record.knobs:
            firsts = [duel for duel in knob.duels if not duel.confirms]
            seconds = {duel.candidate: duel for duel in knob.duels if duel.confirms}
            rows += [{"service": service, "knob": knob.knob, "value": duel.candidate, "against": duel.incumbent,
                      "effect [95 % interval]": _effect(duel), "cut detectable at 80 %": _percent(duel.detectable),
                      "second duel": _effect(seconds[duel.candidate]) if duel.candidate in seconds else "-",
                      "kept": "yes" if duel.kept else "no", "run": run.id} for duel in firsts]
    return pd.DataFrame(rows)


def _effect(duel: Duel) -> str:
    """`-8.1 % [-12.0 %, -3.9 %]`: the candidate's effect on CPU per request and its 95 % interval
    (an end it does not reach: -100 % or +∞); `-`: none measured."""
    if duel.effect is None:
        return "-"
    low = "-100 %" if duel.low is None else _percent(duel.low, "+")
    high = "+∞" if duel.high is None else _percent(duel.high, "+")
    return f"{_percent(duel.effect, '+')} [{low}, {high}]"


def _percent(value: float | None, sign: str = "") -> str:
    return "-" if value is None else f"{value:{sign}.1%}".replace("%", " %")


def _turns(duel: Duel, value: str) -> str:
    turns = [turn for turn in duel.turns if turn.value == value]
    return ", ".join(f"{'-' if t.cpu_ms is None else format(t.cpu_ms, '.3f')} ({_p99(t)})" for t in turns) or "-"


def _p99(turn: Turn) -> str:
    p99 = "-" if turn.p99_ms is None else f"{turn.p99_ms:g}"
    return p99 + (f" (missed {', '.join(turn.missed)})" if turn.missed else "")


def capacity_probes(searched: Mapping[str, Search | Tuned]) -> pd.DataFrame:
    """Every probe of a capacity or a tune run (capacity.json, tuning.json), in order."""
    rows = [{"service": service, **probe.document} for service, search in searched.items() for probe in search.probes]
    frame = pd.DataFrame(rows)
    return frame.fillna("-").astype(str) if not frame.empty else frame


def projection(projections: list[Projection], assumptions: Assumptions) -> pd.DataFrame:
    """Per service, line and instance type, what was measured and what it projects to."""
    rows = [{"service": p.service, "line": p.line, "instance": p.on.name,
             "measured": f"{bounded(p.measured, MEASURED[p.line][1])} {MEASURED[p.line][0]}",
             **{header.format(load=count(assumptions.load_rps)): bounded(getattr(p, name), fmt)
                for name, (header, fmt) in PROJECTED.items()}}
            for p in projections]
    return pd.DataFrame(rows)


def projection_assumptions(a: Assumptions, instances: Sequence[Instance]) -> pd.DataFrame:
    """What the projection onto `instances` reads and assumes, an item and its value a row (why:
    pages.PROJECTION_LIMITS)."""
    basis, on_aws = a.basis, a.basis.instance_type
    threads = ", ".join(f"{i.type}: {i.threads_per_core}" for i in instances if i.threads_per_core > 1)
    rows = [
        ("a projection", "arithmetic on the run below, not measured on these instances"),
        ("measured in run", basis.run_id),
        ("measured on", f"{on_aws} ({basis.cpu_model})" if on_aws else basis.cpu_model),
        ("CPUs", str(basis.cpus)),
        ("CPU placement", basis.placement),
        ("service CPUs", str(basis.service_cpus)),
        ("rate read", "the capacity" if a.searched else "the highest offered rate that held (not searched)"),
        ("p99 target ms", f"{a.target_ms:g}"),
        (f"{SERVICE}: req/s per vCPU", f"its requests/s at the rate / its CPUs; {AT_LEAST} where the capacity "
                                       f"is a lower bound, its instances and cost then {AT_MOST}"),
        (f"{DATABASE}: req/s per vCPU", "1000 / its CPU ms per request at the rate: a floor on its instances "
                                        "and cost"),
        *((f"CPU of {i.type}", i.processor + ("; measured on it" if i.type == on_aws else "; not corrected"))
          for i in instances),
        ("hyper-threads per core", (threads or "1") + ("; measured" if on_aws else "; not corrected")),
        ("scaling", f"linear in the vCPUs; the {SERVICE}: one process per instance; {DATABASE}: one server "
                    "over every vCPU; load balancer and network not counted"),
        ("headroom", "none: every vCPU busy (a floor)" if a.headroom == 1 else f"{a.headroom:.0%} of the vCPUs"),
        ("load req/s", count(a.load_rps)),
        *((f"price of {i.type}", f"${i.usd_per_hour}/hour on demand, Linux, {i.region}, {i.price_date} "
           f"({i.price_source})") for i in instances),
    ]
    return pd.DataFrame(rows, columns=["item", "value"])


def context(manifest: Manifest) -> pd.DataFrame:
    """What a run was measured on, from its manifest: machine, commit, versions, settings."""
    git, machine = manifest.git, manifest.machine
    rows = [
        ("run", manifest.run_id), ("created (UTC)", manifest.created_utc),
        ("environment", manifest.env),
        ("commit", f"{git.get('commit', '?')[:12]}{' (dirty tree)' if git.get('dirty') else ''}"),
        ("CPU", f"{machine.get('cpu_model')}, {machine.get('cores')} cores"),
        ("memory", f"{machine.get('memory_gb')} GB"),
        ("OS", f"{machine.get('os')}, kernel {machine.get('kernel')}"),
        *((f"version: {name}", value) for name, value in manifest.versions.items()),
        *((f"setting: {name}", _flat(value)) for name, value in manifest.settings.items()),
    ]
    return pd.DataFrame(rows, columns=["item", "value"])


def _flat(value: object) -> str:
    """A setting on one line: dicts as `key=value; ...`, lists comma-separated."""
    if isinstance(value, dict):
        return "; ".join(f"{key}={_flat(item)}" for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def failed_money(summary: pd.DataFrame) -> list[str]:
    """The levels whose money check failed."""
    return summary.loc[~summary["money_ok"].astype(bool), "level_id"].tolist()


def money_failures(run: Run) -> pd.DataFrame:
    """The levels whose money check failed, with what the check found (empty when all passed)."""
    checks = [{"level": level, **check.document} for level in failed_money(run.summary)
              if (check := files.money(run.level_dir(level))) is not None]
    return pd.DataFrame(checks, columns=["level", "ok", "clients", "sum_balances", "sum_deposits",
                                         "ledger_mismatches", "negative_balances"])


def then_and_now(summary: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Each published study next to this run (main pool), at the published user counts."""
    keys, at_pool = ["users", "service"], summary[summary["pool"] == repeats.main_pool(summary)]
    columns = {f"overall.{name}": (f"this run {header}", number)
               for name, header in THEN_AND_NOW.items()}
    ours = _text(repeats.aggregate_repeats(at_pool, list(columns)), keys, columns, each_row=False)
    wide = published.pivot(index=keys, columns="study", values=list(THEN_AND_NOW))
    shown = [(name, study) for study in published["study"].unique() for name in THEN_AND_NOW
             if wide[(name, study)].notna().any()]
    theirs = wide[shown].set_axis([f"{study} {THEN_AND_NOW[n]}" for n, study in shown], axis=1)
    ours = ours.rename(columns={REPEATS: f"this run {REPEATS}"})
    merged = theirs.reset_index().merge(ours, on=keys, how="outer")
    merged = merged[merged["users"].isin(published["users"])]
    merged = merged.fillna(dict.fromkeys(theirs, "-")).fillna("not run")
    return merged.sort_values(keys, key=summaries.sort_key, ignore_index=True)


def placement_figures(series: list[Run]) -> pd.DataFrame:
    """A series over CPU placements: per users, placement and service, its FIGURES (`_rows`)."""
    columns = {column: (name, number) for column, (name, _) in sensitivity.FIGURES.items()}
    keys, tables = ["users", "service"], []
    for rank, run in enumerate(sensitivity.ordered(series)):
        at_pool = run.summary[run.summary["pool"] == repeats.main_pool(run.summary)]
        table = _rows(_text(repeats.aggregate_repeats(at_pool, list(columns), keys=keys), keys, columns), keys)
        tables.append(table.assign(rank=rank, placement=run.placement))
    table = pd.concat(tables).sort_values(["users", "rank"], kind="stable")  # services in order within
    table["users"] = table["users"].map("{:,}".format)
    shown = ["users", "placement", "service", REPEATS, *(name for name, _ in columns.values())]
    return table[shown].reset_index(drop=True)


def placement_verdicts(series: list[Run]) -> pd.DataFrame:
    """A series over CPU placements: per users level and figure, the verdict under each placement
    (`_placement_verdict`) and whether it changes with the placement (sensitivity.changes; `n/a`
    where fewer than two placements judged it)."""
    found = sensitivity.verdicts(series)
    changed = {(c.users, c.figure) for c in sensitivity.changes(found)}
    points: dict[tuple[int, str], list[sensitivity.Verdict]] = {}
    for v in sensitivity.by_users(found):  # figures in order within each users level
        points.setdefault((v.users, v.figure), []).append(v)
    rows = [{"users": f"{users:,}", "figure": figure, **{v.placement: _placement_verdict(v) for v in judged},
             "changes": "yes" if (users, figure) in changed
             else "no" if sum(not v.limited for v in judged) > 1 else "n/a"}
            for (users, figure), judged in points.items()]
    placements = [run.placement for run in sensitivity.ordered(series)]
    return pd.DataFrame(rows, columns=["users", "figure", *placements, "changes"]).fillna("-")


def _placement_verdict(v: sensitivity.Verdict) -> str:
    """`go`, `go or java (within noise)`, `within noise`, `all 0`, `go alone`; marked where the
    load generator did not hold up in some repeat (`n/a` where in none)."""
    limited = " (load generator invalid)" if v.limited else ""
    if not v.services:
        return "n/a" + limited
    if len(v.services) < 2:
        return f"{v.services[0]} alone{limited}"
    if v.zero:
        return "all 0" + limited
    if len(v.best) == len(v.services):
        return "within noise" + limited
    return (v.best[0] if len(v.best) == 1 else f"{' or '.join(v.best)} (within noise)") + limited


def overload(outcomes: list[Outcome]) -> pd.DataFrame:
    """Per service, whether it held up past its capacity and why (bankbench.analyse.overload)."""
    def exited(exit: int | str | None) -> str:
        return "no" if exit is None else exit if exit == NOT_RECORDED else f"YES (status {exit})"

    return pd.DataFrame([{
        "service": o.service, "level": o.level_id, "base rate it/s": count(o.base_rate),
        "peak RSS MB": count(o.peak_rss_mb), "memory bound MB": count(o.bound_mb),
        "503 % in the overload": number(o.refused_pct),
        "503s from": _refused_by(o.refusals) if o.refusals else "-",
        "p99 ms of its 200s in it": count(o.p99_ok_ms),
        "answers": ", ".join(o.answers),
        f"s to p99 <= {RECOVERY_P99_MS:g} ms": "not recovered" if o.recovery_s is None else str(o.recovery_s),
        "money": "ok" if o.money_ok else "FAILED", "exited": exited(o.exit),
        "held up": _held_up(o),
    } for o in outcomes], columns=["service", "level", "base rate it/s", "peak RSS MB", "memory bound MB",
                                   "503 % in the overload", "503s from", "p99 ms of its 200s in it", "answers",
                                   f"s to p99 <= {RECOVERY_P99_MS:g} ms", "money", "exited", "held up"])


def _refused_by(r: Refusals) -> str:
    """What sent a level's 503s, from the service's own counters: the pool where every one was a
    wait at the acquire timeout; the admission limit where none was, and the pool opened no
    connection (the database may refuse one)."""
    limit = f"admission limit ({count(r.limit)})" if r.limit else "admission limit"
    if r.timeouts >= r.answered:
        return "pool acquire timeout"
    if r.created:
        return f"{limit} or a refused connection ({count(r.created)} opened)"
    return f"pool acquire timeout ({count(r.timeouts)}) and {limit}" if r.timeouts else limit


def _held_up(o: Outcome) -> str:
    """`yes`, `NO: p99, recovery` (Outcome.misses), or `not judged` where the load generator fell short."""
    if not o.generator_ok:
        return f"not judged: load generator short ({o.generator_reasons})"
    return "yes" if not (misses := o.misses()) else f"NO: {', '.join(misses)}"


def request_cost(frame: pd.DataFrame) -> pd.DataFrame:
    """request_cost.per_service's rows as the report shows them."""
    return pd.DataFrame({
        "service": frame["service"], "pool": frame["pool"], "it/s": frame["rate"], "repeats": frame["repeats"],
        "PostgreSQL CPU ms/request": frame["pg_cpu_ms_per_request"].map(significant),
        "each repeat": frame["pg_cpu_each"].map(lambda each: ", ".join(map(significant, each))),
        "service CPU ms/request": frame["service_cpu_ms_per_request"].map(significant),
        **{f"{label} ms/request": frame[name].map(significant) for name, label in (
            ("pg_backend_user_ms", "PG backends user"), ("pg_backend_system_ms", "PG backends system"),
            ("pg_background_ms", "PG other processes"), ("softirq_ms", "softirq"))},
        "backends": frame["backends"].map(count),
        "backends that ran half": frame["backends_for_half"].map(count),
        "% on the backend of the one before": (100 * frame["same_backend_share"]).map(number),
        "PostgreSQL switches/request": frame["pg_voluntary_switches"].map(number),
        **{f"{name}/request": frame[name].map(number) for name in ("Parse", "Bind", "Execute", "Sync")},
    })


def startup(f: Findings) -> pd.DataFrame:
    """make startup's newest record: per service, the seconds to its first 200 under each start."""
    return pd.DataFrame([{"service": service, **{f"start-up s {start}": _cell(cells[service], significant)
                                                 for start, cells in f.startup.items()}}
                         for service in f.services])


def framework_and_runtime(f: Findings) -> pd.DataFrame:
    """How much of a full-stack framework's gap to the standard library's service its runtime
    accounts for and how much the framework (issue 70): per full-stack service, the micro-framework
    on the same runtime (services.yaml's `class`, `runtime`) and each figure of the first table
    that compares stacks, the three services' figures and three ratios of them, each with its
    95 % interval: the gap (full stack / standard library), the runtime's part (micro-framework /
    standard library) and the framework's (full stack / micro-framework), whose product is the
    gap; the framework's share of it on a log scale where the gap is told apart."""
    shown, where = f.first_capacity
    startup = {s: _scaled(cell, 1000) for s, cell in f.startup.get(COLD, {}).items()}
    at = f" at {f.common_rate:,} it/s" if f.common_rate else ""
    figures = [(f"capacity it/s ({where})", shown, count), *(
        (f"{at_rate.FIGURES[column]}{at}", f.at_rate[column], fmt)
        for column, fmt in ((at_rate.CPU, significant), (at_rate.RSS, count)) if column in f.at_rate),
        ("start-up ms cold", startup, count)]
    rows = []
    for standard, micro, full in registry.framework_trios(f.services):
        for what, cells, fmt in figures:
            got = {s: cells.get(s, Cell(missing="not measured")) for s in (standard, micro, full)}
            if got[micro].missing:  # no run of the micro-framework has it: nothing to split (the first table's gap)
                continue
            gap, runtime, framework = (estimates.ratio(got[a].figure, got[b].figure)
                                       if got[a].counts and got[b].counts else None
                                       for a, b in ((standard, full), (standard, micro), (micro, full)))
            rows.append({"figure": what, **{kind: f"{s} {_cell(got[s], fmt)}" for kind, s in (
                             ("full stack", full), ("standard library", standard), ("micro-framework", micro))},
                         "gap: full / standard": _factor(gap), "runtime: micro / standard": _factor(runtime),
                         "framework: full / micro": _factor(framework),
                         "framework's share of the gap": _share_of(framework, gap)})
    return pd.DataFrame(rows)


def _factor(r: estimates.Ratio | None) -> str:
    return "-" if r is None else f"{formatting.with_interval(r.value, r.low, r.high, significant)}×"


def _share_of(part: estimates.Ratio | None, gap: estimates.Ratio | None) -> str:
    """`part`'s share of `gap` on a log scale (log part / log gap), where the gap is told apart."""
    if part is None or gap is None or not gap.significant:
        return "no gap told apart"
    return f"{100 * math.log(part.value) / math.log(gap.value):.0f} %"


Ranked = tuple[str, dict[str, Cell], formatting.Format, bool]  # what, its cells, their format, high is best


def _ranked(f: Findings, question: str) -> list[Ranked]:
    """The figures a section of the report ranks (`Ranked`)."""
    aot = {service: f.p99["cold"][service] if service in f.without_aot else cell
           for service, cell in f.p99["aot"].items()}
    shown, placement = f.first_capacity
    cpu = "CPU per request with PostgreSQL's" if f.passes else "CPU per request"  # over passes: its core's
    at = f", {f.users:,} users" if f.users else ""
    ranked: dict[str, list[Ranked]] = {
        "starts": [(f"p99 ms warm{at}", f.p99["warm"], count, False),
                   (f"p99 ms cold{at}", f.p99["cold"], count, False),
                   (f"p99 ms cold+AOT{at}", aot, count, False)],
        "capacity": [(f"capacity it/s, p99 ≤ {f.target_ms:g} ms, {placement}", shown, count, True),
                     (f"{cpu}, ms, at the capacity", f.cpu_ms, significant, False)],
        "tuned": [("capacity it/s at the settings make tune found", f.tuned_capacity, count, True)],
        "memory": [("peak RSS MB at the smallest heap that held", f.rss_mb, number, False)],
        "common": [(f"{header} at {f.common_rate:,} it/s", f.at_rate[column], fmt, False)
                   for column, header, fmt in ((at_rate.CPU, at_rate.FIGURES[at_rate.CPU], significant),
                                               (at_rate.RSS, at_rate.FIGURES[at_rate.RSS], count),
                                               (at_rate.USD, at_rate.FIGURES[at_rate.USD], significant))
                   if f.at_rate],
    }
    return ranked[question]


def rankings(f: Findings, question: str) -> pd.DataFrame:
    """Each figure a section ranks: the service whose median leads, and each other's factor to it
    with its 95 % interval (over passes, capacity_model.ACROSS's) and whether it differs: the
    interval excludes 1 (`estimates.Ratio.significant`; over repeats, Welch's t interval). A
    figure that does not count (a bound, no usable repeat) is left out; with fewer than two, no row."""
    rows = []
    for what, cells, fmt, high_is_best in _ranked(f, question):
        if (found := gaps(cells, high_is_best)) is None:
            continue
        leader, ratios = found
        for other, r in ratios:
            k = formatting.factor(r, high_is_best)
            rows.append({"figure": what, "leads": f"{leader} {figure_text(cells[leader].figure, fmt)}",
                         "other": f"{other} {figure_text(cells[other].figure, fmt)}",
                         "factor [95 % interval]": f"{formatting.with_interval(k.value, k.low, k.high)}×",
                         "differs": formatting.differs(r)})
    return pd.DataFrame(rows)


def _capacity(found: capacity_model.Capacity | capacity_model.Ratio | None) -> str:
    """A capacity or ratio of the model with its 95 % interval; `> 1,000`: never missed there (or
    fitted above every rate tried), `< 250`: never held; an open end `∞`."""
    if found is None:
        return "-"
    if isinstance(found, capacity_model.AboveTried | capacity_model.NoneHeld):
        sign = ">" if isinstance(found, capacity_model.AboveTried) else "<"
        return f"{sign} {count(found.rate)}"
    fmt = significant if isinstance(found, capacity_model.Ratio) else count
    return formatting.with_interval(found.value, found.low, found.high,
                                    lambda value: "∞" if value == float("inf") else fmt(value))


def _model_differs(ratio: capacity_model.Ratio | None) -> str:
    return "untold: no ratio" if ratio is None else "yes" if ratio.differs else "within noise"


def capacity_passes(passes: paired.Passes) -> pd.DataFrame:
    """Each contender's capacity in each pass, it/s, from every probe of the pass (capacity_model:
    the rate held with probability 0.5, its 95 % interval), a column a pass; last, where the pass
    had the A/A control, the twin's ratio to its service and whether the pass failed (its interval
    excludes 1)."""
    columns = dict(zip(_pass_headers(passes), passes.fits, strict=True))
    rows = [{"contender": name, **{column: _capacity(fit.capacity(name)) if name in fit.tried else "-"
                                  for column, fit in columns.items()}}
            for name in _by_contender({name for fit in passes.fits for name in fit.tried})]
    if passes.control:
        by_pass = {control.pass_id: control for control in passes.controls}
        twin, service = passes.control[1], passes.control[0]
        for what, cell in ((f"A/A: {twin} / {service}", lambda c: _capacity(c.ratio)),
                           ("A/A: the pass", lambda c: "failed" if c.failed else "held 1" if c.ratio else "no ratio")):
            rows.append({"contender": what, **{column: cell(by_pass[fit.pass_id]) if fit.pass_id in by_pass else "-"
                                               for column, fit in columns.items()}})
    return pd.DataFrame(rows)


def long_levels(passes: paired.Passes) -> pd.DataFrame:
    """Per contender and pass, whether the long level at the rate found held the target (`-`: none
    measured there): where it missed, the capacity there held only the short probes."""
    held = {(name, number): ok for name, number, ok in passes.long_held}
    return pd.DataFrame([{"contender": name, **{
        column: "-" if (name, number) not in held else "held" if held[name, number] else "missed"
        for number, column in enumerate(_pass_headers(passes), 1)}}
        for name in _by_contender({name for name, _, _ in passes.long_held})])


def _pass_headers(passes: paired.Passes) -> list[str]:
    """`pass 1: 20261129T143545Z`: a column a pass, in the runs' order."""
    return [f"pass {i}: {run.id.split('-')[0]}" for i, run in enumerate(passes.runs, 1)]


def _by_contender(names: Iterable[str]) -> list[str]:
    """Contenders (`go`, `go tuned`, `go-again`, `java pool16`) in the registry's order of their services."""
    return sorted(names, key=lambda name: (summaries.service_order(name.split()[0].removesuffix("-again")), name))


def capacity_beside(passes: paired.Passes) -> pd.DataFrame:
    """Over the passes (capacity_model.ACROSS), each contender entered beside a service against it:
    the A/A twin (the instrument's noise) and each pool beside the shipped one; then how often the
    A/A control failed, with the rate's exact 95 % interval."""
    rows = []
    for name in passes.beside:
        service = passes.control[0] if passes.control and name == passes.control[1] else name.split()[0]
        ratio = capacity_model.across_passes(passes.fits, name, service)
        rows.append({"contender": name, "against": service,
                     "capacity ratio [95 % interval]": f"{_capacity(ratio)}×" if ratio else "-",
                     "passes": ratio.passes if ratio else 0, "differs": _model_differs(ratio)})
    if passes.control:
        rate = passes.false_positives
        share = formatting.with_interval(100 * rate.rate, 100 * rate.low, 100 * rate.high, whole)
        rows.append({"contender": "A/A control: failed passes", "against": passes.control[0],
                     "capacity ratio [95 % interval]": f"{rate.failed} of {rate.passes}: {share} %"
                     if rate.passes else "-", "passes": rate.passes, "differs": "5 % expected by design"})
    return pd.DataFrame(rows)


def at_one_rate(f: Findings) -> pd.DataFrame:
    """Per service, each figure of `at_rate.FIGURES` at the common rate (median [95 % interval] over
    its repeats)."""
    formats = {at_rate.RSS: count}
    return pd.DataFrame([{"service": service, "stack": _stack(service),
                          **{header: _cell(f.at_rate[column][service], formats.get(column, significant))
                             for column, header in at_rate.FIGURES.items()}} for service in f.services])


def sources(f: Findings, link: Callable[[Run], str] = lambda run: run.id) -> pd.DataFrame:
    """Where the first table's figures come from: per group of columns its runs (`link`: a run's
    link), their commits, days and kernels, so that figures of different days and builds say so."""
    def row(figures: str, found: list[Run]) -> dict[str, str]:
        return {"figures": figures, "runs": ", ".join(link(run) for run in found),
                "commits": ", ".join(dict.fromkeys(run.manifest.git.get("commit", "")[:8] for run in found)),
                "days": ", ".join(dict.fromkeys(_day(run.id) for run in found)),
                "kernels": ", ".join(dict.fromkeys(run.manifest.machine.get("kernel", "") for run in found))}

    groups = [("p99", list(f.start_runs.values())),
              ("req/s, it/s", list(f.passes.runs) if f.passes else [f.capacity_run] if f.capacity_run else []),
              ("RSS, CPU, cost", [f.verdict.measured] if f.verdict and f.verdict.measured else [])]
    rows = [row(figures, found) for figures, found in groups if found]
    if f.startup_stamp:
        rows.insert(1, {"figures": "start-up", "runs": f"results/startup/{f.startup_stamp}.json",
                        "commits": f.startup_commit[:8], "days": _day(f.startup_stamp), "kernels": ""})
    return pd.DataFrame(rows, columns=["figures", "runs", "commits", "days", "kernels"])


def _day(stamp: str) -> str:
    """`2026-11-29` of a run id or record stamp (`20261129T143545Z...`)."""
    return f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}"
