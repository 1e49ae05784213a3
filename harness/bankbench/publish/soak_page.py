"""make soak's lines, tables and charts, on its run's page.

A line per service as it is judged, the table the run ends with, and what a soak run's page shows
(bankbench.publish.pages): the rule, each service's minutes and trends, and the charts per minute.

See docs/benchmarks.md#endurance-make-soak."""

from matplotlib.figure import Figure
from tabulate import tabulate

from bankbench.analyse import soak_figures, trends
from bankbench.publish import charts
from bankbench.results.soak_record import Failure, Soak, Trend, Watched

# A figure's name and its trend's unit per hour
FIGURES = {"rss_mb": ("RSS", "MB/h"), "pool_active": ("pool busy", "connections/h"),
           "heap_mb": ("heap in use", "MB/h"), "threads": ("threads", "threads/h"),
           "pg_connections": ("PostgreSQL connections", "connections/h")}
CHECKS = {trends.P99: "p99 over the target", trends.ERRORS: "errors at the bound", trends.MONEY: "money lost",
          trends.LOADGEN: "load generator short", trends.EXIT: "service exited", trends.RUN: "run failed"}
RULE = """\
A service passes when its p99 stays at or under {p99:g} ms and its errors under {errors:g} % in every
minute of the measured window, the upper end of the 95 % interval of its RSS's slope stays under
{rss:g} MB/h and of its connections in use under {pool:g} an hour (least squares over its minute
means: `harness/bankbench/analyse/soak_figures.py` says why those bounds, `trends.py` how),
the money check passes at the midpoint, under load, and at the end, the load generator holds up
and the service does not exit. A soak under {short} minutes fits its trends over {step} s means
and shows them without judging them."""


def verdict_line(found: Watched, soak: Soak) -> str:
    """`found` in a line: its verdict, then its figures."""
    return f"[soak] {found.service} {_verdict(found)}: {_brief(found, soak)}"


def table(soak: Soak, fmt: str = "simple") -> str:
    """A row per service: rate, p99 and errors per minute, the judged trends, money, verdict."""
    rows = [[w.service, f"{w.rate:,.0f}", _range([m.p99_ms for m in w.minutes]),
             _top([m.error_pct for m in w.minutes]),
             *(_trend(w.trend(figure)) for figure in soak_figures.TOLERANCES), _money(w), _verdict(w)]
            for w in soak.services.values()]
    headers = ["service", "it/s", "p99 ms per minute", "errors % (worst minute)",
               *(f"{FIGURES[f][0]} {FIGURES[f][1]} [95 %]" for f in soak_figures.TOLERANCES), "money", "verdict"]
    return tabulate(rows, headers, tablefmt=fmt, disable_numparse=True, stralign="right")


def figures(soak: Soak) -> dict[str, Figure]:
    """The charts per minute, by name (none where no service has a minute)."""
    frames = {w.service: frame for w in soak.services.values()
              if not (frame := soak_figures.minutes_frame(w)).empty}
    if not frames:
        return {}
    return {"soak-minutes": charts.per_minute(frames, charts.SOAK_PANELS, f"Soak per minute ({soak.placement})",
                                              soak.p99_ms),
            "soak-more": charts.per_minute(frames, charts.SOAK_MORE_PANELS, "Soak per minute: the rest", ncols=2)}


def parts(soak: Soak) -> list[str]:
    """The page's text and tables: the rate, the rule, each service's row, each trend per hour."""
    trend_rows = [[w.service, FIGURES[t.figure][0], _trend(t), f"{t.points} x {t.step_s} s",
                   "-" if t.tolerance is None else f"< {t.tolerance:g}",
                   _judged(t)]
                  for w in soak.services.values() for t in w.trends]
    share = "the same rate" if soak.share is None else f"{soak.share * 100:g} % of its capacity"
    return [
        f"{soak.minutes} minute{'s' * (soak.minutes != 1)} per service at {share}: "
        f"{', '.join(f'{w.service} {w.rate:,.0f}' for w in soak.services.values())} iterations/s "
        f"({soak.rate_source}); CPU placement {soak.placement}.",
        RULE.format(p99=soak.p99_ms, errors=soak.max_error_pct, rss=soak.tolerances.get("rss_mb", 0),
                    pool=soak.tolerances.get("pool_active", 0), short=trends.MIN_POINTS, step=trends.STEP_S),
        table(soak, "github"),
        "Each trend per hour, with its 95 % interval:",
        tabulate(trend_rows, ["service", "figure", "slope per hour [95 %]", "points", "tolerance", "verdict"],
                 tablefmt="github", disable_numparse=True),
    ]


def _judged(t: Trend) -> str:
    """A trend's verdict in words: "rising" only where its whole interval is above 0; one that fails
    the rule with 0 in its interval has a climb as steep as its tolerance not ruled out, no more."""
    if t.tolerance is None:
        return "not judged"
    if not t.rising:
        return "held"
    return "rising" if _climbs(t) else f"{t.tolerance:g}/h not ruled out"


def _climbs(t: Trend) -> bool:
    return t.rising and t.low is not None and t.low > 0


def _verdict(found: Watched) -> str:
    if found.passed:
        return "passed" if found.judged_trends else "passed, trends not judged"
    minutes = [minute for f in found.failures if (minute := _minute(found, f)) is not None]
    where = f" in minute {min(minutes)}" if minutes else ""
    missed = ", ".join(_failure(found, f) for f in found.failures)
    return f"FAILED{where} ({missed})"


def _minute(found: Watched, failure: Failure) -> int | None:
    """The minute a check first missed in; a trend's onset, where it climbs."""
    if failure.check in CHECKS:
        return failure.minute
    trend = _trend_of(found, failure)
    return trend.onset_minute if _climbs(trend) else None


def _trend_of(found: Watched, failure: Failure) -> Trend:
    trend = found.trend(failure.check)
    assert trend is not None, failure  # trends.failures names only the trends it judged
    return trend


def _failure(found: Watched, failure: Failure) -> str:
    """A check in the minute it first missed (and how many it missed); a trend as `_judged` words
    it, a climb from its onset."""
    if failure.check not in CHECKS:
        trend, minute = _trend_of(found, failure), _minute(found, failure)
        return f"{FIGURES[failure.check][0]} {_judged(trend)}" + ("" if minute is None else f" from minute {minute}")
    if failure.minute is None:
        return CHECKS[failure.check]
    where = f"{failure.count} minutes, the first {failure.minute}" if failure.count > 1 else f"minute {failure.minute}"
    return f"{CHECKS[failure.check]} in {where}"


def _brief(found: Watched, soak: Soak) -> str:
    if not found.minutes:
        return found.error or "no figures"
    return (f"{found.rate:,.0f} it/s, p99 {_range([m.p99_ms for m in found.minutes])} ms per minute, errors "
            f"{_top([m.error_pct for m in found.minutes])} % at most, "
            + ", ".join(f"{FIGURES[f][0]} {_trend(found.trend(f))} {FIGURES[f][1]}" for f in soak.tolerances)
            + ("" if found.judged_trends else f" (over {trends.STEP_S} s means, not judged)")
            + f", money {_money(found)}" + (f"; {found.error}" if found.error else ""))


def _trend(found: Trend | None) -> str:
    if found is None or found.slope_per_h is None:
        return "-"
    return f"{found.slope_per_h:+,.1f} [{found.low:+,.1f}, {found.high:+,.1f}]"


def _range(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{min(known):,.0f}-{max(known):,.0f}" if known else "-"


def _top(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{max(known):.2f}" if known else "-"


def _money(found: Watched) -> str:
    return ", ".join(f"{check.at} {'ok' if check.ok else 'LOST'}" for check in found.money) or "-"
