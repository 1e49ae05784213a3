"""The verdict in at most five sentences, each computed from `findings.Findings`: who is ahead on
what and by how much with the 95 % interval of the ratio, under which start and load; what is
within noise; what this test bed cannot tell.

A service leads only where the interval of its ratio to the other's excludes 1 (and Welch's test
agrees, `estimates.Ratio.significant`), and only with a figure that counts (`Cell.counts`): a figure
the load generator capped, or one without a usable repeat, never leads, whatever its median.
"""

from __future__ import annotations

from collections.abc import Callable

from bankbench import estimates
from bankbench.analyse import narrative
from bankbench.analyse.capacity_figures import BUDGET_PLACEMENT
from bankbench.analyse.findings import BED_BOUND, GENERATOR_BOUND, START_NAMES, Cell, Findings
from bankbench.analyse.formatting import Format, count, number, significant, with_interval
from bankbench.load.profiles import STARTS
from bankbench.tools.placement import SPLIT_WORDS

Show = Callable[[Cell], str]  # a cell's figure in a sentence


def sentences(f: Findings) -> list[str]:
    """Warm, cold (and with the AOT cache), capacity and cost, memory, and the test bed's limits:
    one sentence each, those with figures to tell."""
    return [text for text in (warm(f), cold(f), cost(f), memory(f), limits(f)) if text]


def figure(unit: str, fmt: Format = number) -> Show:
    """`6.00 [6.00-13.0] ms`: the median and its interval."""
    return lambda cell: f"{with_interval(cell.figure.value, cell.figure.low, cell.figure.high, fmt)} {unit}"


def rate(cell: Cell, unit: str = "iterations/s") -> str:
    """`400 iterations/s (450 missed)`, `≥ 93 iterations/s (load generator)`."""
    found = " ".join(filter(None, ("≥" if cell.bound else "", count(cell.figure.value), unit)))
    return f"{found} ({cell.bound or f'{count(cell.figure.high)} missed'})"


def ranking(cells: dict[str, Cell], what: str, show: Show, high_is_best: bool) -> str | None:
    """`go's p99 was lowest, 6.00 [6.00-13.0] ms: 575× lower than java's (95 % interval ...)`,
    or that the figures were within noise; the services whose figure does not count named apart.
    None with fewer than two figures that count."""
    counted = {service: cell for service, cell in cells.items() if cell.counts}
    if len(counted) < 2:
        return None
    leader, gaps = estimates.leader({service: cell.figure for service, cell in counted.items()}, high_is_best)
    apart = _apart(cells)
    if not any(r.significant for _, r in gaps):
        values = ", ".join(f"{service} {show(cell)}" for service, cell in counted.items())
        return f"the services' {what} was within noise ({values}){apart}"
    # Welch's p left to the runs' pages: the verdict reads in a sitting.
    parts = [f"{narrative.times(r, high_is_best)} than {service}'s ({narrative.interval(r, high_is_best, welch=False)})"
             if r.significant else f"within noise of {service}'s ({narrative.times(r, high_is_best)}, "
                                   f"{narrative.interval(r, high_is_best, welch=False)})"
             for service, r in gaps]
    return (f"{leader}'s {what} was {'highest' if high_is_best else 'lowest'}, {show(counted[leader])}: "
            f"{' and '.join(parts)}{apart}")


def warm(f: Findings) -> str | None:
    told = ranking(f.p99["warm"], "p99", figure("ms"), high_is_best=False)
    return told and f"Warm ({_start('warm')}), at {f.users:,} users of the articles' plan, {told}."


def cold(f: Findings) -> str | None:
    """Cold, then with the JDK's AOT cache; a service that is not a JVM, which has no such cache,
    stands with its cold figure there."""
    told = ranking(f.p99["cold"], "p99", figure("ms"), high_is_best=False)
    if not told:
        return None
    aot = {service: f.p99["cold"][service] if service in f.without_aot else cell
           for service, cell in f.p99["aot"].items()}
    with_cache = ranking(aot, "p99", figure("ms"), high_is_best=False)
    native = (f" ({' and '.join(sorted(f.without_aot))} cold: only a JVM has an AOT cache)"
              if f.without_aot else "")
    return (f"Cold ({_start('cold')}), at {f.users:,} users, {told}"
            + (f"; with the JDK's AOT cache{native}, {with_cache}" if with_cache else "") + ".")


def cost(f: Findings) -> str | None:
    """Capacity at the latency target, CPU per request there, and what the projected cost follows:
    the capacity for the service, PostgreSQL's CPU time for the database's line. Where PostgreSQL
    and the load generator capped a capacity under service-alone, the services ranked by their
    capacity under split (`Findings.split_capacity`)."""
    if f.capacity_run is None:
        return None
    capped = {service: cell for service, cell in f.capacity.items() if cell.bound}
    if capped:
        rates = ", ".join(f"{service} {rate(cell)}" for service, cell in capped.items())
        capacity = f"no capacity is told apart ({rates}: lower bounds the test bed set, not the services' limits)"
        beside_pg = any(cell.bound == BED_BOUND for cell in capped.values())
        split = ranking(f.split_capacity, "capacity", rate, high_is_best=True) if beside_pg else None
    else:
        capacity, split = ranking(f.capacity, "capacity", rate, high_is_best=True), None
    if not capacity:
        return None
    cpu = ranking(f.cpu_ms, "CPU time per request", figure("ms", significant), high_is_best=False)
    priced = ""
    if any(not cell.missing for cell in f.cost.values()):
        bound = " (an upper bound where that is a lower one)" if capped else ""
        which = f"{f.capacity_run.placement} " if split else ""
        priced = (f"; the projected cost per million requests on {f.instance} follows the {which}capacity{bound}, "
                  f"PostgreSQL's on {f.database_instance} its CPU time, a line of its own")
    return (f"At p99 <= {f.target_ms:g} ms ({f.capacity_run.placement} placement), {capacity}"
            + (f"; at those rates {cpu}" if cpu else "")
            + (f"; with {SPLIT_WORDS} (split placement), {split}" if split else "")
            + priced + ".")


def memory(f: Findings) -> str | None:
    heaps = ", ".join(f"{service} {mb}" for service, mb in f.heap_mb.items() if mb)
    told = ranking(f.rss_mb, "peak RSS", figure("MB"), high_is_best=False)
    return told and f"At the smallest heap that held the target ({heaps} MB), {told}."


def limits(f: Findings) -> str:
    """What the figures above cannot say, from what is capped, missing or left out."""
    parts = []
    bounds = {cell.bound for cell in f.capacity.values()}
    if BED_BOUND in bounds:
        parts.append("the capacity of a service alone on its CPUs (PostgreSQL and the load generator, on the "
                     "others, ran out of them first)")
    if GENERATOR_BOUND in bounds | {cell.bound for cell in f.split_capacity.values()}:
        parts.append("a capacity beyond what the load generator could offer")
    if f.capacity_run is not None and f.capacity_run.placement != BUDGET_PLACEMENT:
        parts.append(f"the capacity of a service alone on its core, nor its cost (the capacity run is "
                     f"{f.capacity_run.placement}; no {BUDGET_PLACEMENT} run yet)")
    missing = [START_NAMES[start] for start, cells in f.p99.items()
               if all(cell.missing == "no run yet" for cell in cells.values())]
    if missing:
        parts.append(f"the p99 after a {' or '.join(missing)} start (no run yet)")
    if (p := f.placements) is not None:
        if p.limited:
            parts.append(f"whether the verdict holds under other CPU placements at "
                         f"{' and '.join(f'{u:,}' for u in p.limited)} users (the load generator fell short there)")
        if p.changes:
            parts.append(f"a verdict that holds whatever the placement: it changes with it ({'; '.join(p.changes)})")
    cores = f"{f.cores} cores" if f.cores else "the cores"
    parts.append(f"absolute figures on other hardware ({cores} shared by the load generator, the services "
                 "and PostgreSQL: compare the services with each other)")
    return f"This test bed cannot tell {_listed(parts)}."


def _start(start: str) -> str:
    """The question a start answers: the end of its profiles.STARTS entry ("a new task scaling out")."""
    return STARTS[start].rsplit(": ", 1)[-1]


def _apart(cells: dict[str, Cell]) -> str:
    """The services whose figure does not count, and why."""
    out = [f"{service}: {cell.missing or ('a lower bound' if cell.bound else 'no usable repeat')}"
           for service, cell in cells.items() if not cell.counts]
    return f" ({'; '.join(out)})" if out else ""


def _listed(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{'; '.join(parts[:-1])}; or {parts[-1]}"
