"""The charts of a run as matplotlib Figures, drawing only what the analysis computed.

The object API (no pyplot state) works headless and in a notebook. Vs-users charts draw each
service's medians of `repeats.aggregate_levels`, 95 % intervals as bars; a closed loop's capped
throughput is hollow.

See docs/method.md#the-report."""

import itertools

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator

from bankbench import registry
from bankbench.analyse import overload, standing
from bankbench.analyse.capacity_figures import MISSED, UNDECIDED, Capacity
from bankbench.analyse.repeats import P99, main_pool
from bankbench.analyse.timelines import Timeline
from bankbench.results.summaries import THROUGHPUT, by_service

# Okabe-Ito colours (colour-blind safe): a service keeps its colour and marker in every chart,
# taken by its place in services.yaml; services beyond them, or no longer in it, are grey.
COLOURS = ("#0072B2", "#D55E00", "#009E73")
MARKERS = ("o", "s", "^")
OTHER_COLOUR, OTHER_MARKER = "#777777", "D"
LOG_RANGE = 30  # from this max/min ratio on, a linear axis flattens the small values: use log
PERCENTILE_PANELS = {"overall.p50_ms": "p50", "overall.p90_ms": "p90", "overall.p99_ms": "p99"}
# Failed requests by answer: Okabe-Ito colours the services do not use, then greys.
STATUS_COLOURS = {"503": "#E69F00", "500": "#CC79A7", "assertion": "#56B4E9", "no response": "#000000"}
OTHER_STATUS_COLOURS = ("#999999", "#F0E442", "#444444", "#BBBBBB")
SERVICE_PANELS = {  # axis label -> its service_metrics.per_second columns and their line styles
    "throughput (requests/s, service's count)": {"requests_per_s": "-"},
    "pool: in use solid, waiting dashed": {"pool_active": "-", "pool_pending": "--"},
    "GC pauses (% of wall time)": {"gc_pct": "-"}, "heap in use (MB)": {"heap_mb": "-"},
}
# A level's latency over time: axis label -> its timeline columns and line styles
TIME_PANELS = {"latency (ms): p99 solid, p50 dashed": {"p99_ms": "-", "p50_ms": "--"},
               "throughput (requests/s)": {"requests_per_s": "-"}}
RATE_AXIS = "offered rate (iterations/s, open model)"
# make soak's minutes (soak_figures.minutes_frame): axis label -> its columns and line styles
SOAK_PANELS = {"p99 latency (ms)": {"p99_ms": "-"}, "RSS (MB)": {"rss_mb": "-"},
               "pool: busy solid, idle dashed": {"pool_active": "-", "pool_idle": "--"}}
SOAK_MORE_PANELS = {
    "throughput (requests/s)": {"throughput_rps": "-"}, "GC pauses (% of wall time)": {"gc_pct": "-"},
    "heap in use (MB)": {"heap_mb": "-"}, "threads or goroutines": {"threads": "-"},
    "PostgreSQL connections (active dashed)": {"pg_connections": "-", "pg_active": "--"},
    "tables with their indexes (MB)": {"tables_mb": "-"},
}
# overload_timeline's panels: axis label -> column -> (legend, colour, style); REFUSED: 503 answers
OVERLOAD_PANELS = {
    "requests/s": {"requests": ("sent", "#000000", "-"), "answered": ("answered", "#0072B2", "-"),
                   overload.REFUSED: ("answered 503", STATUS_COLOURS["503"], "-")},
    "latency of the 200s (ms)": {"p99_ms": ("p99", "#0072B2", "-"), "p50_ms": ("p50", "#0072B2", "--")},
    "requests held": {"in_flight": ("held (the admission limit's count)", "#009E73", "-"),
                      "pool_pending": ("waiting for a connection", "#CC79A7", "--")},
    "memory (MB)": {"rss_mb": ("RSS", "#D55E00", "-"), "heap_mb": ("heap in use", "#56B4E9", "--")},
}
USERS = "users"  # summaries.load_unit of the closed and article models; an open model's is a rate
# Mean column -> axis label; the max is drawn dotted beside it
RESOURCE_PANELS = {"resources.service_cpu_mean": "service CPU (% of one core)",
                   "resources.service_rss_mean_mb": "service RSS (MB)",
                   "resources.pg_cpu_mean": "PostgreSQL CPU (% of one core)",
                   "resources.pg_rss_mean_mb": "PostgreSQL RSS (MB)"}
START_COLOURS = {"cold": "#CC79A7", "aot": "#E69F00", "warm": "#56B4E9"}  # Okabe-Ito, apart from the services'


def latency_percentiles(levels: pd.DataFrame, unit: str = USERS) -> Figure:
    """p50, p90 and p99 latency vs the load (users, or an open model's rate: `unit`)."""
    levels, pool = _at_main_pool(levels)
    fig, axes = _figure(ncols=3, width=12, sharey=True)
    for ax, (column, name) in zip(axes, PERCENTILE_PANELS.items(), strict=True):
        _draw_services(ax, levels, "users", column)
        _level_axis(ax, levels["users"], _load(unit, axis=True))
        ax.set_title(name)
    _value_axis(axes[0], "latency (ms)", levels[list(PERCENTILE_PANELS)])
    axes[0].legend(title="service")
    fig.suptitle(f"Latency percentiles vs {_load(unit)} (pool {pool}, measured window)")
    return fig


def throughput(levels: pd.DataFrame, unit: str = USERS) -> Figure:
    """Measured throughput vs the load; where the load generator capped it, a hollow marker."""
    return _one_vs_users(levels, THROUGHPUT, "throughput (requests/s)", "Throughput", unit, log=True, floors=True)


def errors(levels: pd.DataFrame, unit: str = USERS) -> Figure:
    """Error percentage vs the load (linear: zero is the usual value)."""
    return _one_vs_users(levels, "overall.error_pct", "errors (% of requests)", "Errors", unit, log=False)


def resources(levels: pd.DataFrame, unit: str = USERS) -> Figure:
    """CPU and RSS of the service and of PostgreSQL vs the load: mean solid, max dotted."""
    levels, pool = _at_main_pool(levels)
    fig, axes = _figure(nrows=2, ncols=2, width=11, height=7, sharex=True)
    for i, (ax, (column, label)) in enumerate(zip(axes, RESOURCE_PANELS.items(), strict=True)):
        peak = column.replace("_mean", "_max")
        _draw_services(ax, levels, "users", column)
        _draw_services(ax, levels, "users", peak, linestyle=":", label="_nolegend_", alpha=0.7)
        # The bottom row says it.
        _level_axis(ax, levels["users"], _load(unit, axis=True) if i >= 2 else "")
        _value_axis(ax, label)
    axes[0].legend(title="service under load")
    fig.suptitle(f"Resources vs {_load(unit)} (pool {pool}): mean solid, max dotted")
    return fig


def pool_wait(levels: pd.DataFrame, unit: str = USERS) -> Figure:
    """Requests waiting for a pooled connection and the mean wait of an acquire vs the load."""
    levels, pool = _at_main_pool(levels)
    fig, (waiting, wait) = _figure(ncols=2, width=12)
    _draw_services(waiting, levels, "users", "service_metrics.pool_pending_mean")
    _draw_services(waiting, levels, "users", "service_metrics.pool_pending_max", linestyle=":",
                   label="_nolegend_", alpha=0.7)
    _draw_services(wait, levels, "users", "service_metrics.pool_acquire_mean_ms")
    for ax, label in ((waiting, "requests waiting for a connection"), (wait, "wait per acquire (ms)")):
        _level_axis(ax, levels["users"], _load(unit, axis=True))
        _value_axis(ax, label)
    waiting.legend(title="service")
    fig.suptitle(f"Pool wait vs {_load(unit)} (pool {pool}, measured window): waiting mean solid, max dotted")
    return fig


def gc_time(levels: pd.DataFrame, unit: str = USERS) -> Figure:
    """Time in garbage-collection pauses, in % of wall time, vs the load."""
    return _one_vs_users(levels, "service_metrics.gc_pct", "GC pauses (% of wall time)", "GC pause time", unit,
                         log=False)


def errors_by_status(statuses: pd.DataFrame, names: list[str], unit: str = USERS) -> Figure:
    """Failed requests by answer vs the load, stacked bars in % of requests, a panel per service."""
    statuses, pool = _at_main_pool(statuses)
    users = sorted(statuses["users"].unique())
    others = itertools.cycle(OTHER_STATUS_COLOURS)  # for the unusual answers, in turn
    colours = {name: STATUS_COLOURS.get(name) or next(others) for name in names}
    services = list(by_service(statuses))
    fig, axes = _figure(ncols=len(services), width=4 + 3.5 * len(services), sharey=True)
    top = 0.0
    for ax, (service, frame) in zip(axes, services, strict=True):
        frame = frame.set_index("users").reindex(users)
        bottom = np.zeros(len(users))
        for name in names:
            height = frame[name].fillna(0).to_numpy()
            ax.bar(range(len(users)), height, bottom=bottom, color=colours[name], label=name)
            bottom += height
        top = max(top, bottom.max(initial=0))
        ax.set_xticks(range(len(users)), [_tick(u) for u in users])
        ax.set_xlabel(_load(unit, axis=True))
        ax.set_title(service, color=_style(service)["color"])
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylim(0, top * 1.05 if top > 0 else 1)  # shared: the tallest stack of any panel
    axes[0].set_ylabel("failed requests (% of requests)")
    axes[0].legend(title="answer")
    fig.suptitle(f"Errors by answer vs {_load(unit)} (pool {pool}, measured window): 503 = no pooled "
                 "connection in time, or no database")
    return fig


def pool_sweep(levels: pd.DataFrame, unit: str = USERS) -> Figure:
    """Throughput and errors vs pool size, with the PostgreSQL max_connections cliff marked."""
    max_connections = levels["pg_max_connections"].max()
    fig, axes = _figure(ncols=2, width=12, height=4.8)
    several_users = levels["users"].nunique() > 1
    styles = ("-", "--", "-.", ":")  # one per users level, then again
    for (users, at_users), style in zip(levels.groupby("users"), itertools.cycle(styles)):
        for ax, column in zip(axes, ("overall.throughput_rps", "overall.error_pct"), strict=True):
            _draw_services(ax, at_users, "pool", column, linestyle=style,
                           suffix=f" {users:,} {unit}" if several_users else "")
    for ax, label in zip(axes, ("throughput (requests/s)", "errors (% of requests)"), strict=True):
        _level_axis(ax, levels["pool"], "pool size (connections per service instance)")
        _value_axis(ax, label)
        if max_connections > 0:
            ax.axvline(max_connections, color="black", linestyle="--", linewidth=1,
                       label=f"PostgreSQL max_connections = {max_connections}")
    # Below the panels: the curves fill them from side to side.
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=4)
    fig.suptitle("Pool size sweep: throughput and errors")
    return fig


def over_time(timelines: dict[str, Timeline], title: str,
              panels: dict[str, dict[str, str]]) -> Figure:
    """`panels` (TIME_PANELS, SERVICE_PANELS) per second of one level per service, in two rows."""
    ncols = len(panels) // 2
    fig, axes = _figure(nrows=2, ncols=ncols, width=11, height=7, sharex=True)
    for i, (ax, (label, lines)) in enumerate(zip(axes, panels.items(), strict=True)):
        for service, timeline in timelines.items():
            for j, (column, linestyle) in enumerate(lines.items()):
                style = _style(service) | {"marker": None, "linestyle": linestyle}
                ax.plot(timeline.frame["t_s"], timeline.frame[column],
                        **style | ({"label": "_nolegend_"} if j else {}))
        _mark_phases(ax, timelines)
        frames = [timeline.frame[list(lines)] for timeline in timelines.values()]
        _value_axis(ax, label, pd.concat(frames) if label.startswith("latency") else None)
        if i >= len(axes) - ncols:  # the bottom row says it
            ax.set_xlabel("time since level start (s)")
    axes[0].legend()
    fig.suptitle(title)
    return fig


def per_minute(frames: dict[str, pd.DataFrame], panels: dict[str, dict[str, str]], title: str,
               target_ms: float | None = None, ncols: int = 1) -> Figure:
    """`panels` per minute of each service's soak (`frames`), the p99 target drawn where p99 is."""
    nrows = -(-len(panels) // ncols)
    fig, axes = _figure(nrows=nrows, ncols=ncols, width=5.5 * ncols, height=2.6 * nrows + 0.6, sharex=True)
    for i, (ax, (label, lines)) in enumerate(zip(axes, panels.items(), strict=True)):
        drawn = [frame[[c for c in lines if c in frame]] for frame in frames.values()]
        for service, frame in frames.items():
            for j, (column, linestyle) in enumerate((c, style) for c, style in lines.items() if c in frame):
                ax.plot(frame["minute"], frame[column], markersize=3,
                        **_style(service) | {"linestyle": linestyle} | ({"label": "_nolegend_"} if j else {}))
        if target_ms is not None and "p99_ms" in lines:
            ax.axhline(target_ms, color="black", linestyle=":", label=f"target {target_ms:g} ms")
        _value_axis(ax, label, pd.concat(drawn) if "p99_ms" in lines else None)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if i >= len(axes) - ncols:
            ax.set_xlabel("minute of the measured window")
    axes[0].legend(fontsize="small")
    fig.suptitle(title)
    return fig


def _mark_phases(ax: Axes, timelines: dict[str, Timeline]) -> None:
    """Shades the excluded warm-up; marks each fault (chaos) at its strike, shaded till recovery."""
    warmup_end = max((timeline.warmup_end_s for timeline in timelines.values()), default=0)
    if warmup_end > 0:
        ax.axvspan(0, warmup_end, color="grey", alpha=0.2, label="ramp-up + warm-up (excluded)")
    for service, timeline in timelines.items():
        colour = _style(service)["color"]
        for fault, at_s, recovery_s in timeline.faults:
            ax.axvline(at_s, color=colour, linestyle=":", linewidth=1.5,
                       label=f"{service}: {fault}, recovered in {recovery_s:g} s")
            ax.axvspan(at_s, at_s + recovery_s, color=colour, alpha=0.15)


def _one_vs_users(levels: pd.DataFrame, column: str, label: str, title: str, unit: str, log: bool,
                  floors: bool = False) -> Figure:
    levels, pool = _at_main_pool(levels)
    fig, (ax,) = _figure()
    _draw_services(ax, levels, "users", column)
    bounds = _floors(levels, column) if floors else levels.iloc[:0][["service", "users", column]]
    _draw_services(ax, bounds, "users", column, ": at least (load generator the limit)", linestyle="none",
                   markerfacecolor="none", markersize=9)
    _level_axis(ax, levels["users"], _load(unit, axis=True))
    _value_axis(ax, label, pd.concat([levels[[column]], bounds[[column]]]) if log else None)
    ax.legend(title="service")
    fig.suptitle(f"{title} vs {_load(unit)} (pool {pool}, measured window)")
    return fig


def _load(unit: str, axis: bool = False) -> str:
    """What a chart calls the load: users, or an open model's offered rate (its unit on an axis)."""
    return USERS if unit == USERS else RATE_AXIS if axis else "offered rate"


def _figure(nrows: int = 1, ncols: int = 1, width: float = 7, height: float = 4.2,
            sharex: bool = False, sharey: bool = False) -> tuple[Figure, np.ndarray]:
    fig = Figure(figsize=(width, height), layout="constrained", dpi=100)
    return fig, fig.subplots(nrows, ncols, squeeze=False, sharex=sharex, sharey=sharey).ravel()


def _at_main_pool(levels: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """User sweeps are drawn at one pool size: with several, the one most levels ran with."""
    pool = main_pool(levels)
    return levels[levels["pool"] == pool], pool


def _style(service: str) -> dict:
    known = registry.names()
    at = known.index(service) if service in known else len(COLOURS)
    return {"color": COLOURS[at] if at < len(COLOURS) else OTHER_COLOUR,
            "marker": MARKERS[at] if at < len(MARKERS) else OTHER_MARKER, "label": service}


def _draw_services(ax: Axes, levels: pd.DataFrame, x: str, column: str, suffix: str = "", **style) -> None:
    """Each service's medians of `column` along `x`, with bars for their 95 % intervals."""
    for service, frame in by_service(levels):
        frame = frame.dropna(subset=[column]).sort_values(x)
        y = frame[column]
        bounded = f"{column}.low" in frame and frame[f"{column}.low"].notna().any()
        spread = np.array([(y - frame[f"{column}.low"]).fillna(0),
                           (frame[f"{column}.high"] - y).fillna(0)]) if bounded else None
        look = _style(service) | {"label": service + suffix} | style
        ax.errorbar(frame[x], y, yerr=spread, capsize=3, **look)


def _floors(levels: pd.DataFrame, column: str) -> pd.DataFrame:
    """`column`'s lower bound (`standing.floor`) where the load generator capped a level."""
    bounds = [standing.floor(marks, each)
              for marks, each in zip(levels["verdicts"], levels[f"{column}.each"], strict=True)]
    return levels[["service", "users"]].assign(**{column: bounds}).dropna(subset=[column])


def _level_axis(ax: Axes, measured: pd.Series, label: str) -> None:
    """An x axis ticked at the measured values (users, pool sizes), log-spaced over LOG_RANGE."""
    values = sorted(measured.unique())
    if values and values[-1] / values[0] >= LOG_RANGE:
        ax.set_xscale("log")
    ax.set_xticks(values)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _tick(v)))
    ax.set_xlabel(label)
    ax.grid(True, alpha=0.3)


def _tick(value: float) -> str:
    """10k for 10,000 users, but 1024 for a 1,024 MB heap."""
    return f"{value / 1000:g}k" if value >= 1000 and value % 1000 == 0 else f"{value:g}"


def _value_axis(ax: Axes, label: str, values: pd.DataFrame | None = None) -> None:
    """Log if positive `values` span LOG_RANGE, else linear from 0: a 1 % gap must not fill it."""
    positive = np.array([]) if values is None else values.to_numpy(dtype=float).ravel()
    positive = positive[np.isfinite(positive) & (positive > 0)]
    if positive.size and positive.max() / positive.min() >= LOG_RANGE:
        ax.set_yscale("log")
        # 1-2-5 ticks labelled as plain numbers: 10^2 is harder to read off than 100.
        ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    else:  # set_ylim freezes both ends: the top gets the headroom autoscaling would give
        tops = [shared.dataLim.y1 for shared in ax.get_shared_y_axes().get_siblings(ax)]  # panels sharing it
        top = max((y for y in tops if np.isfinite(y)), default=0)
        ax.set_ylim(0, top * 1.05 if top > 0 else 1)
    ax.set_ylabel(label)
    ax.grid(True, alpha=0.3)


def cpu_per_request(levels: pd.DataFrame) -> Figure:
    """The service's and PostgreSQL's CPU ms per request vs the offered rate (open model)."""
    fig, (own, pg) = _figure(ncols=2, width=12, sharey=True)
    for ax, column, title in ((own, "efficiency.service_cpu_ms_per_request", "the service's own processes"),
                              (pg, "efficiency.pg_cpu_ms_per_request", "PostgreSQL")):
        _draw_services(ax, levels, "users", column)
        _level_axis(ax, levels["users"], RATE_AXIS)
        ax.set_title(title)
    _value_axis(own, "CPU ms per request")
    own.legend(title="service")
    fig.suptitle("CPU per request vs rate (valid levels; median and 95 % interval over repeats)")
    return fig


def p99_vs_rate(levels: pd.DataFrame, target_ms: float) -> Figure:
    """p99 latency vs the offered rate with the capacity target as a line."""
    fig, (ax,) = _figure()
    _draw_services(ax, levels, "users", "overall.p99_ms")
    ax.axhline(target_ms, color="black", linestyle="--", linewidth=1, label=f"target: p99 <= {target_ms:g} ms")
    _level_axis(ax, levels["users"], RATE_AXIS)
    _value_axis(ax, "p99 latency (ms)", levels[["overall.p99_ms"]].assign(target=target_ms))
    ax.legend()
    fig.suptitle("p99 vs rate (valid levels; median and 95 % interval over repeats)")
    return fig


def rss_vs_heap(frame: pd.DataFrame) -> Figure:
    """Peak RSS at each heap limit of the sweep at the capacity rate; own settings dashed."""
    fig, (ax,) = _figure()
    swept = frame[frame["heap_mb"].notna()]
    _draw_services(ax, swept, "heap_mb", "rss_mb", linestyle=":")
    for service, rows in by_service(frame):
        colour = _style(service)["color"]
        for own in rows.loc[rows["heap_mb"].isna(), "rss_mb"]:
            ax.axhline(own, color=colour, linestyle="--", linewidth=1, label=f"{service}: own settings")
        for verdict, look in ((MISSED, {"facecolors": "white", "edgecolors": colour}),
                              (UNDECIDED, {"marker": "x", "color": "black"})):
            marked = swept[(swept["service"] == service) & (swept["verdict"] == verdict)]
            ax.scatter(marked["heap_mb"], marked["rss_mb"], s=90, zorder=3, **look)
    if not swept.empty:
        _level_axis(ax, swept["heap_mb"], "heap limit (MB)")
    _value_axis(ax, "peak RSS (MB)")
    if ax.get_legend_handles_labels()[0]:  # nothing labelled where no heap was swept and no own settings kept
        ax.legend(fontsize="small")
    fig.suptitle("RSS vs heap limit at the capacity rate (hollow: missed the target; x: undecided)")
    return fig


def starts(frame: pd.DataFrame, names: dict[str, str]) -> Figure:
    """The headline: p99 vs users under each start of `names`, a panel per service."""
    services = list(by_service(frame))
    fig, axes = _figure(ncols=len(services), width=4 + 3.5 * len(services), sharey=True)
    for ax, (service, rows) in zip(axes, services, strict=True):
        for start, name in names.items():
            line = rows[rows["start"] == start].dropna(subset=[P99]).sort_values("users")
            if line.empty:
                continue
            colour = START_COLOURS.get(start, OTHER_COLOUR)
            ax.plot(line["users"], line[P99], marker="o", color=colour, label=name)
            ax.fill_between(line["users"], line[f"{P99}.low"], line[f"{P99}.high"], color=colour, alpha=0.2,
                            linewidth=0)
        _level_axis(ax, frame["users"], USERS)
        ax.set_title(service, color=_style(service)["color"])
    _value_axis(axes[0], "p99 latency (ms)", frame[[P99, f"{P99}.low", f"{P99}.high"]])
    drawn = {label: handle for ax in axes for handle, label in zip(*ax.get_legend_handles_labels(), strict=True)}
    axes[0].legend([drawn[name] for name in names.values() if name in drawn],
                   [name for name in names.values() if name in drawn], title="start")  # every start, in order
    fig.suptitle("p99 vs users by start (median, 95 % interval as a band)")
    return fig


def capacity(frame: pd.DataFrame, found: list[Capacity], target_ms: float) -> Figure:
    """p99 vs the offered rate of a capacity search's probes (own heap), a panel per service."""
    fig, axes = _figure(ncols=len(found), width=4 + 3.5 * len(found), sharey=True)
    for ax, c in zip(axes, found, strict=True):
        rows = frame[frame["service"] == c.service]
        _draw_services(ax, rows, "rate", P99)
        short = rows[rows["short"]]
        ax.scatter(short["rate"], [target_ms] * len(short), marker="x", color="black", zorder=3,
                   label="load generator fell short")
        ax.axhline(target_ms, color="black", linestyle="--", linewidth=1, label=f"target: p99 <= {target_ms:g} ms")
        if c.rate is not None:
            ax.axvline(c.rate, color=_style(c.service)["color"], linestyle=":",
                       label=f"capacity: {'≥ ' if c.generator_bound else ''}{c.rate:,} it/s")
        _level_axis(ax, rows["rate"], RATE_AXIS)
        ax.set_title(c.service, color=_style(c.service)["color"])
        ax.legend(fontsize="small")
    _value_axis(axes[0], "p99 latency (ms)", frame[[P99]].assign(target=target_ms))
    fig.suptitle("Capacity: p99 vs offered rate, the service's own heap (median, 95 % interval)")
    return fig


def overload_timeline(timeline: overload.Timeline, bound_mb: float | None, target_ms: float) -> Figure:
    """A phased level second by second: OVERLOAD_PANELS, the latency target and the memory bound."""
    frame = timeline.frame.assign(**{overload.REFUSED: timeline.answers.get(overload.REFUSED)})
    fig, axes = _figure(nrows=len(OVERLOAD_PANELS), width=11, height=11, sharex=True)
    for ax, (label, lines) in zip(axes, OVERLOAD_PANELS.items(), strict=True):
        drawn = [column for column in lines if column in frame and frame[column].notna().any()]
        for column in drawn:
            name, colour, linestyle = lines[column]
            ax.plot(frame.index, frame[column], label=name, color=colour, linestyle=linestyle)
        if label.startswith("latency"):
            ax.axhline(target_ms, color="black", linestyle=":", label=f"target {target_ms:g} ms")
        if label.startswith("memory") and bound_mb is not None:
            ax.axhline(bound_mb, color="black", linestyle=":", label=f"bound {bound_mb:,.0f} MB")
        _shade_phases(ax, timeline)
        _value_axis(ax, label, frame[drawn] if label.startswith("latency") else None)
        ax.legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel("time since the first phase began (s)")
    fig.suptitle(f"{timeline.service} past its capacity, per second: {timeline.level_id}")
    return fig


def _shade_phases(ax: Axes, timeline: overload.Timeline) -> None:
    """The warm-up grey, each phase above the base rate orange, labelled with its multiple."""
    if timeline.frame.index.min() < 0:
        ax.axvspan(timeline.frame.index.min(), 0, color="grey", alpha=0.2)
    for phase in timeline.phases:
        if phase.multiple > 1:
            ax.axvspan(phase.start_s, phase.end_s, color=STATUS_COLOURS["503"], alpha=0.12)
            ax.text(phase.start_s, 1, f" {phase.multiple:g}x", transform=ax.get_xaxis_transform(), va="top",
                    fontsize="small")
