"""`make capacity`'s search: each contender's probes in turn, then its smallest heap.

Per contender, probes of open-model rates against a latency target
(bankbench.results.probes.Target), every one kept for a model of P(hold | rate): a staircase about
the rate held half the time (bankbench.run.experiments.bisection), the contenders in turn, each warm
in a process of its own; then at a rate it held, the smallest heap at which it still does. The
contenders: each service at its shipped or tuned settings, the A/A control (one of them entered
again under another name) and the pools beside the shipped one. capacity.json is rewritten after
each probe.

See docs/method.md#capacity-the-searchs-design."""

import copy
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from bankbench import config, registry
from bankbench.analyse import levels
from bankbench.errors import UserError
from bankbench.load import profiles, validity
from bankbench.load.profiles import Level, Profile
from bankbench.results import files, versions
from bankbench.results.probes import LOADGEN, Target
from bankbench.results.runs import AS_SHIPPED, CAPACITY_FILE, SHIPPED_SECTION, TUNED_SECTION
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import bisection, warmup
from bankbench.run.runner import Session

PROFILE = "capacity"  # profiles.toml: the shape of each probe, the ladder (`users`) and the `search` table
# Per placement, a bound: 7 contenders of 12 probes of 65 s and a long level of 105 s take 103 min,
# their warm-ups up to 35 more, then the heap sweep about 30 (make plan PROFILE=capacity).
BUDGET_MIN = 170
HEAPS_MB = (64, 128, 256, 512, 1024)  # the heap sweep
LEVEL_OVERHEAD_S = 15  # emptying the tables, the load generator's start, the money check
LONG_S = 60  # the measured window of the level at the rate found, after the staircase
RATES_SHARE = 0.85  # of the budget, for the rate searches when heaps are swept after them
AGAIN = "again"  # the A/A twin: `<service>-again`, and the settings tag of its levels
SEARCH_KEYS = ("probes", "step_pct", "control", "pools_beside")  # the capacity profile's `search` table


@dataclass(frozen=True)
class Contender:
    """A service at its shipped or tuned settings ([tuned.<service>] of tuned.toml); `pool`: a pool
    beside the shipped one (`pools_beside`); `twin`: the A/A control's second entry, the same
    settings under another name, in a process of its own."""

    service: str
    tuned: bool = False
    pool: int | None = None
    twin: bool = False

    @property
    def key(self) -> str:
        """Its entry in its section of capacity.json: `go`, `go-again`, `java pool16`."""
        name = f"{self.service}-{AGAIN}" if self.twin else self.service
        return f"{name} pool{self.pool}" if self.pool else name

    @property
    def name(self) -> str:
        return f"{self.key} tuned" if self.tuned else self.key

    @property
    def main(self) -> bool:
        """The service itself: neither the twin nor a pool beside."""
        return not self.twin and self.pool is None

    def pool_in(self, profile: Profile) -> int:
        """The pool its levels run with."""
        return self.pool or (profile.tuned[self.service].pool if self.tuned else profile.pools[0])


@dataclass(frozen=True)
class Setup:
    """The capacity profile's `search` table (profiles.toml): the staircase's `design`, the A/A
    `control` (None: none, or not among the services) and the `pools_beside` the shipped one, per
    service."""

    design: bisection.Design
    control: str | None = None
    pools_beside: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, profile: Profile, control: str | None = None, probes: int | None = None) -> "Setup":
        """`control` ("": none) and `probes` over the table's."""
        table = profile.search
        if unknown := sorted(set(table) - set(SEARCH_KEYS)):
            raise UserError(f"profile {profile.name!r}: unknown keys {unknown} in `search`: it takes "
                            f"{', '.join(SEARCH_KEYS)}")
        pools = table.get("pools_beside", {})
        if not (isinstance(pools, dict) and all(isinstance(p, list) and all(isinstance(n, int) and n > 0 for n in p)
                                                for p in pools.values())):
            raise UserError(f"profile {profile.name!r}: `pools_beside` must be a table of lists of pools above 0, "
                            "by service")
        chosen = table.get("control") if control is None else control
        if chosen and chosen not in registry.names():
            raise UserError(f"the A/A control {chosen!r} is not a service: choose from {', '.join(registry.names())}")
        if control and control not in profile.services:
            raise UserError(f"the A/A control {control!r} is not among the services probed: "
                            f"{', '.join(profile.services)}")
        probes = table.get("probes", bisection.Design.probes) if probes is None else probes
        design = bisection.Design(tuple(profile.users), int(probes),
                                  float(table.get("step_pct", bisection.Design.step * 100)) / 100)
        return cls(design, chosen if chosen in profile.services else None,  # the table's, if among them
                   {service: tuple(p) for service, p in pools.items()})

    def contenders(self, profile: Profile, tuned: bool, with_tuned: bool) -> list[Contender]:
        return contenders(profile.services, tuned, with_tuned, profile.tuned, self.control, self.pools_beside)

    def as_dict(self) -> dict:
        return {"ladder": list(self.design.ladder), "probes": self.design.probes,
                "step_pct": round(self.design.step * 100, 3), "control": self.control,
                "pools_beside": {service: list(p) for service, p in self.pools_beside.items()}}


def contenders(services: list[str], tuned: bool, with_tuned: bool, tables: dict[str, registry.Settings],
               control: str | None = None, pools_beside: dict[str, tuple[int, ...]] | None = None) -> list[Contender]:
    """The services at the shipped or the tuned settings (`tables`: tuned.toml's); at the shipped
    ones, each of `pools_beside` it does not ship with; the twin of `control` (if among them); and
    (`with_tuned`) each at its tuned settings, unless they are the shipped ones (probed once)."""
    everyone = tuned and not with_tuned  # TUNED=1: every contender at its tuned settings
    shipped = [Contender(service, everyone) for service in services]
    beside = [] if everyone else [
        Contender(service, pool=pool) for service in services
        for pool in dict.fromkeys((pools_beside or {}).get(service, ())) if pool != config.DEFAULT_POOL_SIZE]
    twin = [Contender(control, everyone, twin=True)] if control in services else []
    return shipped + beside + twin + ([Contender(service, True) for service in services
                                       if service in tables and not profiles.is_shipped(service, tables[service])]
                                      if with_tuned else [])


def as_shipped(doc: dict) -> None:
    """Copies into the tuned section, marked `as_shipped`, each service probed once."""
    for key, record in doc[SHIPPED_SECTION].items():
        if record["service"] == key and key not in doc[TUNED_SECTION]:  # not the twin nor a pool beside
            doc[TUNED_SECTION][key] = {**copy.deepcopy(record), AS_SHIPPED: True}


def describe(profile: Profile, entrants: list[Contender], setup: Setup, heaps: tuple[int, ...], budget_s: float,
             long_s: int = LONG_S) -> str:
    """What a pass would run, and how long its load takes at most (`make plan PROFILE=capacity`)."""
    design, probe_s = setup.design, Level("go", 1, 1, 1, profile).expected_s + LEVEL_OVERHEAD_S
    long_level_s = Level("go", 1, 1, 1, replace(profile, duration_s=long_s)).expected_s + LEVEL_OVERHEAD_S
    swept = [c.service for c in entrants if c.main and not c.tuned and registry.get(c.service).heap] if heaps else []
    sweep_probes = 1 + math.ceil(math.log2(len(heaps))) + profile.repeat if heaps else 0
    load_s = len(entrants) * (design.probes * probe_s + (long_level_s if long_s else 0)) \
        + len(swept) * sweep_probes * probe_s
    rungs = ", ".join(map(str, design.ladder))
    return "\n".join([
        f"make capacity: {len(entrants)} contenders in turn, a probe each at a time: "
        f"{', '.join(c.name for c in entrants)}"
        + ("" if any(c.twin for c in entrants) else " (no A/A control among them)"),
        f"  each: up {rungs} it/s (on at its last ratio) to the first miss, then a staircase of "
        f"{design.step:.0%} steps (down after a miss, up after a hold), {design.probes} probes of up to {probe_s} s "
        f"in all" + (f", then one of {long_s} measured s (up to {long_level_s} s)" if long_s else ""),
        *([f"  then the heap sweep ({', '.join(map(str, heaps))} MB) under the first placement: up to "
           f"{sweep_probes} probes each of {', '.join(swept)}"] if swept else []),
        f"load time up to {load_s // 60} min {load_s % 60} s per placement, plus a warm-up of up to "
        f"{warmup.MAX_S // 60} min per contender; the budget (CAPACITY_MIN, default {budget_s / 60:.0f} min) stops it"])


def run(opts: Options, entrants: list[Contender], setup: Setup, target: Target, budget_s: float,
        heaps: tuple[int, ...] = HEAPS_MB, long_s: int = LONG_S) -> Path:
    """Probes the contenders' rates in turn (`setup`'s staircase), each then at the rate it held for
    `long_s` measured seconds, in turn too; then sweeps the heaps."""
    with Session(opts, warm_processes=len(entrants)) as session:
        doc = {versions.KEY: versions.CAPACITY, "target": asdict(target), "budget_s": budget_s,
               "heaps_mb": list(heaps), "design": setup.as_dict(), "in_turn": [c.name for c in entrants],
               "long_s": long_s,
               SHIPPED_SECTION: {}, **({TUNED_SECTION: {}} if opts.with_tuned else {})}
        print(f"bankbench capacity: {', '.join(c.name for c in entrants)} in turn, p99 <= {target.p99_ms:g} ms and "
              f"errors under {target.max_error_pct:g} %, {setup.design.probes} probes each, within "
              f"{budget_s / 60:.0f} min -> {session.run_dir}", flush=True)
        ends = time.monotonic() + budget_s
        sweeps = heaps and any(c.main and not c.tuned and registry.get(c.service).heap for c in entrants)
        deadline = time.monotonic() + budget_s * (RATES_SHARE if sweeps else 1)
        searches = {c.name: _Service(session, c, target, deadline, doc) for c in entrants}
        over = next(iter(searches.values())).over
        rates = {name: bisection.staircase(setup.design) for name in searches}
        found = bisection.in_turn(rates, lambda name, rate: not searches[name].misses(rate), over)
        for name, search in searches.items():
            search.searched(found[name])
        for search in searches.values():
            search.confirm(long_s, ends)
        if opts.with_tuned:
            as_shipped(doc)
            files.write_record(session.run_dir, CAPACITY_FILE, doc)
        for search, deadline in shares([s for s in searches.values() if s.sweeps(heaps)], ends - time.monotonic()):
            search.sweep(heaps, deadline)
    return session.final


def shares(items: list, budget_s: float) -> Iterator[tuple]:
    """Each item with the deadline of an equal share of what is left of the budget at its turn."""
    deadline = time.monotonic() + budget_s
    for i, item in enumerate(items):
        yield item, time.monotonic() + (deadline - time.monotonic()) / (len(items) - i)


class Prober:
    """Probes of one service (make tune's too), recorded in `record`; over() once `deadline` leaves
    no time for a level (a warm-up, at most warmup.MAX_S, may come on top)."""

    def __init__(self, session: Session, service: str, target: Target, deadline: float, doc: dict,
                 record: dict, file: str = CAPACITY_FILE):
        self.session, self.service, self.target, self.deadline = session, service, target, deadline
        self.profile = session.opts.profile
        self.doc, self.record, self.file = doc, record, file
        self.runs: Counter[str] = Counter()  # the levels run, by their settings (a level's id but its repeat)
        self.label = service  # what its progress lines name
        self.record["probes"] = []
        self.level_s = Level(service, 1, 1, 1, self.profile).expected_s + LEVEL_OVERHEAD_S

    def over(self) -> bool:
        return time.monotonic() + self.level_s > self.deadline

    def run(self, level: Level, may_fail_to_start: bool = False, **about) -> dict:
        """Runs `level` as the next repeat of its settings; returns its record, `missed` what of the
        target it missed (or "start": with `may_fail_to_start`, the service did not start)."""
        settings = replace(level, repeat=0).id
        self.runs[settings] += 1
        level = replace(level, repeat=self.runs[settings])
        rate, tag = level.users, f"[{self.label} probe {len(self.record['probes']) + 1}]"
        calibrated = self.session.where.calibrate([level], self.session.run_dir).get(rate)  # cached per rate
        if beyond := validity.beyond_calibration(calibrated, None, validity.name(level.profile.generator)):
            # Even a free target would not get this rate: the level would measure the generator.
            print(f"{tag} {level.id}: not run, {beyond}: the load generator's limit", flush=True)
            return self._add(level, about, {"valid": False, "missed": [LOADGEN], "not_run": beyond})
        try:
            out = self.session.run_level(level, tag, self.deadline - time.monotonic(), calibrated)
        except UserError as err:
            if not may_fail_to_start or files.money(files.level_dir(self.session.run_dir, level.id)) is not None:
                raise  # a service that cannot start with its own settings, or lost money: stop loudly
            print(f"{tag} {level.id}: did not start ({err})", flush=True)
            return self._add(level, about, {"failed": str(err).splitlines()[0], "missed": ["start"]})
        summary = levels.judged(out)
        misses = self.target.misses(summary)
        o, loadgen, cost = summary.overall, summary.loadgen, summary.efficiency
        verdict = f"missed the target ({', '.join(misses)})" if misses else "held the target"
        print(f"{tag} {level.id}: p99 {o.p99_ms} ms, errors {o.error_pct} %, offered "
              f"{loadgen.offered_pct} % of {rate} iterations/s: {verdict}; "
              f"{max(self.deadline - time.monotonic(), 0) / 60:.1f} min left for {self.label}", flush=True)
        return self._add(level, about, {"p99_ms": o.p99_ms, "error_pct": o.error_pct,
                                        "offered_pct": loadgen.offered_pct, "valid": loadgen.valid,
                                        "service_cpu_ms": cost.service_cpu_ms_per_request,
                                        "pg_cpu_ms": cost.pg_cpu_ms_per_request, "missed": misses})

    def _add(self, level: Level, about: dict, figures: dict) -> dict:
        probe = {"level": level.id, "rate": level.users, "heap_mb": level.heap_mb, **about,
                 "held": not figures["missed"], **figures}
        self.record["probes"].append(probe)
        self.write()
        return probe

    def write(self) -> None:
        files.write_record(self.session.run_dir, self.file, self.doc)


class _Service(Prober):
    """The searches of one contender, recorded in its section's entry of `doc` (capacity.json)."""

    def __init__(self, session: Session, contender: Contender, target: Target, deadline: float, doc: dict):
        section = TUNED_SECTION if TUNED_SECTION in doc and contender.tuned else SHIPPED_SECTION
        self.contender, self.pool = contender, contender.pool_in(session.opts.profile)
        doc[section][contender.key] = {"service": contender.service, "contender": contender.name, "pool": self.pool,
                                       **({"twin_of": replace(contender, twin=False).name} if contender.twin else {})}
        super().__init__(session, contender.service, target, deadline, doc, doc[section][contender.key])
        self.label, self.staircase, self.long_skipped = contender.name, bisection.Found(), False
        self.rate: int | None = None  # the rate found (_settle)

    def searched(self, staircase: bisection.Found) -> None:
        self.staircase = staircase
        self._settle()

    def _settle(self) -> None:
        """The rate found (`bisection.provisional`) over every probe at the contender's own heap."""
        own = [(p["rate"], p["held"]) for p in self.record["probes"] if p["heap_mb"] is None]
        self.rate, failed_at = bisection.provisional(own)
        self.record["rate"] = {"found": self.rate, "failed_at": failed_at,
                               "confirmations": sum(1 for rate, held in own if rate == self.rate and held),
                               "staircase": self.staircase.estimate,
                               "complete": self.staircase.complete and not self.long_skipped}
        self.write()

    def confirm(self, long_s: int, ends: float) -> None:
        """The rate found held for `long_s` measured seconds, not only for a probe's window: a probe
        like the others (`long` true), which may move the rate found. None where the budget (`ends`)
        leaves no time for it: the search is then not complete."""
        if self.rate is None or not long_s:
            return
        level = self._level(self.rate, duration_s=long_s)
        self.long_skipped = time.monotonic() + level.expected_s + LEVEL_OVERHEAD_S > ends
        if not self.long_skipped:
            self.record["long"] = self.run(level, long=True)
        self._settle()

    def sweeps(self, heaps: tuple[int, ...]) -> bool:
        """The service itself at the shipped settings (the tuned ones hold their own), a rate found,
        a heap to set."""
        return bool(heaps) and self.contender.main and not self.contender.tuned and self.rate is not None \
            and bool(registry.get(self.service).heap)

    def sweep(self, heaps: tuple[int, ...], deadline: float) -> None:
        self.deadline = deadline
        rate = self.rate
        assert rate is not None  # sweeps(): a rate was found; the heaps' probes leave it as it is

        def holds(mb: int) -> bool:
            return held_heap(lambda: self.misses(rate, mb), self.profile.repeat, self.over)

        heap = bisection.smallest(holds, heaps, self.profile.repeat, self.over)
        self.record["heap"] = {**_found(heap), "rate": self.rate}
        self.write()

    def misses(self, rate: int, heap_mb: int | None = None) -> list[str]:
        """What a level at `rate` (and `heap_mb`: it may not start) missed of the target."""
        return self.run(self._level(rate, heap_mb), may_fail_to_start=heap_mb is not None)["missed"]

    def _level(self, rate: int, heap_mb: int | None = None, **profile_changes) -> Level:
        """The contender's level: its settings and pool; the twin's tagged, so that its id and its
        process are its own."""
        profile = replace(self.profile, **profile_changes)
        if self.contender.tuned:
            level = profile.level(self.service, rate, profile.pools[0], 0, heap_mb)
        else:
            level = Level(self.service, rate, self.pool, 0, profile, heap_mb=heap_mb)
        if self.contender.twin:
            return replace(level, settings_tag="-".join(filter(None, (level.settings_tag, AGAIN))))
        return level


def held_heap(measure: Callable[[], list[str]], retries: int, over: Callable[[], bool]) -> bool:
    """Whether a heap held the target (`measure`: one level's misses). A miss by the load generator
    alone says nothing of the heap, so it is measured again, up to `retries` times in the budget."""
    for _ in range(1 + retries):
        misses = measure()
        if misses != [LOADGEN] or over():
            break
    return not misses


def _found(found: bisection.Found) -> dict:
    return {"found": found.good, "failed_at": found.bad, "confirmations": found.confirmations(),
            "complete": found.complete}
