"""What a figure of the report rests on, in words, and which figures may lead a ranking.

The words of what a figure rests on (placements, capacity searches, the cost projection, the
settings make tune found, what sent the 503s). The rankings are tables (publish.tables.rankings)
and the verdict is written by hand (results/verdict.md, see docs/method.md#the-report). A service
leads only where the interval of its ratio to the other's excludes 1 and Welch's test agrees
(`estimates.Ratio.significant`), and only with a figure that counts (`Cell.counts`): a figure the
load generator capped, or one without a usable repeat, never leads, whatever its median."""

from collections.abc import Sequence

from bankbench import capacity_model, estimates
from bankbench.analyse import at_rate, sensitivity
from bankbench.analyse.capacity_figures import BUDGET_PLACEMENT, MISSED, NOT_ALONE, Capacity
from bankbench.analyse.findings import BED_BOUND, Cell, Findings, Verdict
from bankbench.analyse.overload import Outcome, Refusals
from bankbench.analyse.projection import AT_LEAST, AT_MOST, DATABASE, SERVICE, Assumptions, Instance
from bankbench.machine.placement import SERVICE_ALONE, SHARED, SPLIT
from bankbench.results.runs import Run

START_NAMES = {"cold": "cold", "aot": "cold+AOT", "warm": "warm"}  # profiles.STARTS, as the report names them
# Where the service ran, as a sentence of the verdict says it (tools.placement's modes)
PLACED = {SPLIT: "beside PostgreSQL", SERVICE_ALONE: "alone on its CPUs", SHARED: "with every process on every CPU"}


def gaps(cells: dict[str, Cell], high_is_best: bool) -> tuple[str, list[tuple[str, estimates.Ratio]]] | None:
    """`estimates.leader` over the cells whose figure counts; None with fewer than two."""
    counted = {service: cell.figure for service, cell in cells.items() if cell.counts}
    return estimates.leader(counted, high_is_best) if len(counted) > 1 else None




def first_capacity(f: Findings) -> tuple[dict[str, Cell], str]:
    """The capacities the verdict ranks, and their placement: under split where PostgreSQL beside
    the load generator capped one under service-alone and a split run is shown, else the run's."""
    if f.passes or (f.split_capacity and any(cell.bound == BED_BOUND for cell in f.capacity.values())):
        return f.split_capacity, SPLIT
    return f.capacity, f.capacity_run.placement if f.capacity_run else ""






def cpu_what(f: Findings) -> str:
    """What Findings.cpu_ms counts: over make capacity's passes, PostgreSQL's with the service's."""
    return "CPU per request with PostgreSQL's" if f.passes else "CPU per request"




def refused_by(r: Refusals) -> str:
    """What sent a level's 503s, from the service's own counters (overload.Refusals)."""
    limit = f"{r.limit:,} requests at once" if r.limit else "MAX_CONCURRENT_REQUESTS"
    if r.timeouts >= r.answered:
        return "the pool: no connection within the acquire timeout"
    if r.created:
        return f"the admission limit ({limit}) or a connection the database refused (the pool opened {r.created:,})"
    if r.timeouts:
        return f"the pool's acquire timeout ({r.timeouts:,}) and the admission limit ({limit})"
    return f"the admission limit ({limit}: no pool wait timed out)"


def machine(f: Findings) -> str:
    cpu = f" ({f.cpu_model})" if f.cpu_model else ""
    return (f"Measured on one machine, {f'{f.cores} cores' if f.cores else 'its cores'}{cpu} shared by the load "
            "generator, the services and PostgreSQL: compare the services with each other, not with other hardware.")


def legend(f: Findings, cells: list[Cell]) -> str:
    """What the first table's brackets and counts (`cells`) are, in at most 100 words."""
    p99 = [cell for start in ("warm", "cold", "aot") for cell in f.p99[start].values() if cell.of]
    repeats = "/".join(map(str, sorted({cell.of for cell in p99}))) or "its"
    starts = "/".join(map(str, sorted({cell.of for cells in f.startup.values() for cell in cells.values() if cell.of})))
    short = next((cell for cell in cells if 0 < cell.n < cell.of), None)
    counted = (f'"{short.n} of {short.of}": {short.n} of {short.of} counted' if short
               else "Every repeat counted")
    capacity = (f"capacity at p99 ≤ {f.target_ms:g} ms over {len(f.passes.runs)} passes ({capacity_model.ACROSS}), "
                "each pass's from all its probes" if f.passes
                else f"capacity at p99 ≤ {f.target_ms:g} ms from the rate that held to the next, which missed")
    per = (f"; req/s: it/s × {f.requests_per_iteration:.3g} requests per iteration"
           if f.requests_per_iteration else "")
    rate = (f"at {f.common_rate:,} it/s (CPU: the service's and PostgreSQL's per request; $/M req: that CPU "
            f"time per million requests on {at_rate.priced_on()})") if f.common_rate else "at one rate"
    return (f"Cells: the median [95 % interval]: p99 over {repeats} repeats, start-up over {starts or 'its'} "
            "processes (start to first 200), "
            f"{capacity}{per}; RSS, CPU and cost over the repeats {rate}. "
            f"{counted} (money check passed, load generator kept up). Headers link to sections.")


def names(services: list[str]) -> str:
    """`go, java and java-virtual`."""
    return " and ".join([", ".join(services[:-1]), services[-1]] if len(services) > 2 else services)


def held_up(o: Outcome) -> str:
    """Whether the level judged the service and how it fared past its capacity (Outcome.misses)."""
    if not o.generator_ok:
        return f"not judged: the load generator fell short ({o.generator_reasons})"
    return "yes" if not (misses := o.misses()) else f"NO: {', '.join(misses)}"


def placement_verdict(v: sensitivity.Verdict) -> str:
    """A placement's verdict on a figure: `go`, `go or java (within noise)`, `within noise`, ..."""
    if not v.services and v.limited:
        return "n/a"  # no repeat the load generator held up in
    if len(v.services) < 2:
        return f"{''.join(v.services) or 'no service'} alone"
    if v.zero:
        return "all 0"
    if len(v.best) == len(v.services):
        return "within noise"
    return v.best[0] if len(v.best) == 1 else f"{' or '.join(v.best)} (within noise)"


def change(c: sensitivity.Change) -> str:
    """`at 10,000 users, p99 ms: go under split, within noise under shared`."""
    return f"at {c.users:,} users, {c.figure}: " + ", ".join(
        f"{placement_verdict(v)} under {v.placement}" for v in c.verdicts)


def placements(series: list[Run]) -> str:
    """Whether the verdict changes with the CPU placement over a series of runs (sensitivity)."""
    found = sensitivity.verdicts(series)
    modes = ", ".join(run.placement for run in sensitivity.ordered(series))
    if len(series) < 2:
        return f"Only one placement ({modes}) was measured: nothing to compare."
    limited = "; ".join(dict.fromkeys(f"{v.users:,} users under {v.placement}"
                                      for v in sensitivity.by_users(found) if v.limited))
    users = sorted({v.users for v in found if not v.limited})
    if not users:
        return f"No verdict to compare: the load generator did not hold up at any level ({limited})."
    left_out = f" Left out, as the load generator did not hold up there: {limited}." if limited else ""
    if diff := sensitivity.changes(found):
        return f"The verdict changes with the CPU placement ({modes}): {'; '.join(map(change, diff))}.{left_out}"
    return (f"The verdict is the same under every placement ({modes}) at {' and '.join(f'{u:,}' for u in users)} "
            f"users, on {', '.join(n for n, _ in sensitivity.FIGURES.values())}.{left_out}")


def rate_text(c: Capacity) -> str:
    """`400 (450 missed)`: the rate found and the next, which missed (or why none); why it ended."""
    why = ""
    if not c.complete:
        why = (f"the service exited (status {c.exited[1]}) at {c.exited[0]:,}, which ended the search"
               if c.exited else "budget ran out")
    if c.rate is None:
        held = f"none confirmed: {c.held_once:,} held" if c.held_once else "none held"
        return held + (f"; {why}" if why else "")
    if c.generator_bound:
        return f">= {c.rate:,} (at {c.failed_at:,} the {c.bound_by} fell short)" + (f", {why}" if why else "")
    above = f" ({c.failed_at:,} missed)" if c.failed_at else " (the top rate tried)"
    return f"{c.rate:,}{above}" + (f", {why}" if why else "")


def heap_text(c: Capacity) -> str:
    """`256 (128 missed)`, `256 (at 128 the load generator fell short)`; `-` where no heap held."""
    if c.heap is None:
        return "-"
    if (below := c.below) is None:
        return f"{c.heap.heap_mb} (none smaller probed)"
    if below.verdict == MISSED:
        return f"{c.heap.heap_mb} ({below.heap_mb} missed in {below.missed} of {below.probes})"
    if below.held == below.missed == 0:
        return f"{c.heap.heap_mb} (at {below.heap_mb} the load generator fell short)"
    return f"{c.heap.heap_mb} (at {below.heap_mb} as many probes missed as held)"


def unprojected(verdict: Verdict) -> str:
    """Why the verdict has no cost projection, "" where it has one."""
    if verdict.unprojected == NOT_ALONE and verdict.searched is not None:
        return (f"No cost projection: the capacity run shown ran under CPU placement {verdict.searched.placement}, "
                f"where its requests/s are not the service's alone; the projection reads a capacity under "
                f"{BUDGET_PLACEMENT} (the service alone on its CPU), and none is shown.")
    return "No cost projection: no service held the target." if verdict.unprojected else ""


def settings_text(settings: dict) -> str:
    """A [tuned.<service>] table in words: `pool 16; GOGC=200, GOMEMLIMIT=64MiB`."""
    env = ", ".join(f"{name}={value}" for name, value in settings["env"].items())
    return f"pool {settings['pool']}" + (f"; {env}" if env else "")


def assumptions(a: Assumptions, instances: Sequence[Instance]) -> list[tuple[str, str]]:
    """What the projection onto `instances` assumes, an (item, value) row each."""
    basis, on_aws = a.basis, a.basis.instance_type
    at = (f"at its capacity for p99 <= {a.target_ms:g} ms" if a.searched else
          f"at the highest offered rate at which it held p99 <= {a.target_ms:g} ms (not searched further)")
    where = (f"on AWS, the service on an {on_aws} ({basis.cpu_model})" if on_aws
             else f"on {basis.cpu_model}, {basis.cpus} CPUs as the kernel saw them")
    headroom = ("none: the service at the rate that held the latency target, PostgreSQL's vCPUs busy all "
                "the time (a floor on its instances and cost: the latency at that load is not known)"
                if a.headroom == 1 else f"each line uses {a.headroom:.0%} of its instances' vCPUs")
    cpus = f"{basis.service_cpus} CPU" + ("" if basis.service_cpus == 1 else "s")
    shared = ", ".join(f"{i.type}: {i.threads_per_core} per core" for i in instances if i.threads_per_core > 1)
    threads = (f"measured in the vCPUs of an {on_aws}, each one hyper-thread ({shared}): no correction" if on_aws
               else f"a vCPU is one hyper-thread of a core ({shared}), which does less while its sibling is "
                    "busy; no correction (not measured): where the measured CPUs were whole cores, the "
                    "projection is optimistic by what a hyper-thread loses")
    return [
        ("a projection", "arithmetic on what the run below measured, not measured on these instances"),
        ("measured", f"run {basis.run_id}, {where}"),
        (f"{SERVICE}: req/s per vCPU", f"its requests/s {at} ({basis.placement}) over its {cpus}; where that "
         f"is a lower bound ({AT_LEAST}), so is this, and its instances and cost are upper bounds ({AT_MOST})"),
        (f"{DATABASE}: req/s per vCPU", f"1000 / its CPU ms per request {at}, its own processes: CPU time "
         "extrapolated to a whole vCPU, for no capacity of its own was measured; a floor on its instances and cost"),
        *((f"CPU of {i.type}", f"{i.processor}: measured on it" if i.type == on_aws else
           f"{i.processor}; no correction from {basis.cpu_model}: a CPU measured there is taken to be a vCPU "
           "here (not measured)") for i in instances),
        ("hyper-threads", threads),
        ("scaling", f"the {SERVICE}: one process per instance, its requests/s linear in the vCPUs; "
                    f"{DATABASE}: its work spread over every vCPU linearly (one server does not scale "
                    "out: its instances are the vCPUs it needs); the load balancer and the network are "
                    "not counted"),
        ("headroom", headroom),
        ("load", f"{a.load_rps:,.0f} requests/s"),
        *((f"price of {i.type}", f"${i.usd_per_hour}/hour on demand, Linux, {i.region}, as of {i.price_date} "
           f"({i.price_source})") for i in instances),
    ]
