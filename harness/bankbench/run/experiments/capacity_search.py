"""`make capacity`: per service, the highest open-model rate at which it meets a latency target
(bankbench.results.probes.Target), and at that rate the smallest heap at which it still does.
Each probe is a short level on a warm service; capacity.json is rewritten after each one."""

import copy
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from bankbench import registry
from bankbench.errors import UserError
from bankbench.load import profiles, validity
from bankbench.load.profiles import Level
from bankbench.results import files, levels
from bankbench.results.probes import LOADGEN, Target
from bankbench.results.runs import AS_SHIPPED, CAPACITY_FILE, SHIPPED_SECTION, TUNED_SECTION
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import bisection
from bankbench.run.runner import Session

HEAPS_MB = (64, 128, 256, 512, 1024)  # the heap sweep
PRECISION = 0.1  # the rate search stops when the failing rate is within 10 % of the passing one
LEVEL_OVERHEAD_S = 15  # emptying the tables, the load generator's start, the money check
LONG_S = 60  # the measured window of the level that confirms each rate found
RATES_SHARE = 0.7  # of the budget, for the rate searches when heaps are swept after them


@dataclass(frozen=True)
class Contender:
    """A service at its shipped or its tuned settings ([tuned.<service>] of tuned.toml)."""

    service: str
    tuned: bool = False

    @property
    def name(self) -> str:
        return f"{self.service} tuned" if self.tuned else self.service


def contenders(services: list[str], tuned: bool, with_tuned: bool, tables: dict[str, dict]) -> list[Contender]:
    """The services at the shipped or the tuned settings (`tables`: tuned.toml's), or (`with_tuned`)
    both, the shipped first; one whose tuned settings are the shipped ones is probed once."""
    shipped = [Contender(service, tuned and not with_tuned) for service in services]
    return shipped + ([Contender(service, True) for service in services
                       if service in tables and not profiles.is_shipped(service, tables[service])]
                      if with_tuned else [])


def as_shipped(doc: dict) -> None:
    """Copies into the tuned section, marked `as_shipped`, each service probed once."""
    for service, record in doc[SHIPPED_SECTION].items():
        if service not in doc[TUNED_SECTION]:
            doc[TUNED_SECTION][service] = {**copy.deepcopy(record), AS_SHIPPED: True}


def run(opts: Options, target: Target, budget_s: float, heaps: tuple[int, ...] = HEAPS_MB,
        long_s: int = LONG_S) -> Path:
    """Searches the contenders' rates in turn, confirms each (`long_s`), then sweeps the heaps."""
    profile, with_tuned = opts.profile, opts.with_tuned
    entrants = contenders(profile.services, bool(profile.tuned), with_tuned, profile.tuned)
    with Session(opts, warm_processes=len(entrants)) as session:
        doc = {"target": asdict(target), "budget_s": budget_s, "heaps_mb": list(heaps),
               "precision": PRECISION, "in_turn": [c.name for c in entrants], "long_s": long_s,
               SHIPPED_SECTION: {}, **({TUNED_SECTION: {}} if with_tuned else {})}
        print(f"bankbench capacity: {', '.join(c.name for c in entrants)} in turn, p99 <= {target.p99_ms:g} ms and "
              f"errors under {target.max_error_pct:g} %, within {budget_s / 60:.0f} min -> {session.run_dir}",
              flush=True)
        ends = time.monotonic() + budget_s
        sweeps = heaps and any(not c.tuned and registry.get(c.service).heap for c in entrants)
        deadline = time.monotonic() + budget_s * (RATES_SHARE if sweeps else 1)
        searches = {c.name: _Service(session, c, target, deadline, doc) for c in entrants}
        over = next(iter(searches.values())).over
        rates = {name: bisection.rate_search(profile.users, PRECISION, profile.repeat)
                 for name in searches}
        found = bisection.in_turn(rates, lambda name, rate: not searches[name].misses(rate), over)
        for name, search in searches.items():
            search.found(found[name])
        for search in searches.values():
            search.confirm(long_s)
        if with_tuned:
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
        self.doc, self.record, self.file, self.runs = doc, record, file, Counter()
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
            if not may_fail_to_start or files.money(files.level_dir(self.session.run_dir, level.id)):
                raise  # a service that cannot start with its own settings, or lost money: stop loudly
            print(f"{tag} {level.id}: did not start ({err})", flush=True)
            return self._add(level, about, {"failed": str(err).splitlines()[0], "missed": ["start"]})
        summary = levels.level_summary(out, intervals=False)
        misses = self.target.misses(summary)
        o, loadgen, cost = summary["overall"], summary["loadgen"], summary["efficiency"]
        verdict = f"missed the target ({', '.join(misses)})" if misses else "held the target"
        print(f"{tag} {level.id}: p99 {o['p99_ms']} ms, errors {o['error_pct']} %, offered "
              f"{loadgen.get('offered_pct')} % of {rate} iterations/s: {verdict}; "
              f"{max(self.deadline - time.monotonic(), 0) / 60:.1f} min left for {self.label}", flush=True)
        return self._add(level, about, {"p99_ms": o["p99_ms"], "error_pct": o["error_pct"],
                                        "offered_pct": loadgen.get("offered_pct"), "valid": loadgen["valid"],
                                        "service_cpu_ms": cost["service_cpu_ms_per_request"],
                                        "pg_cpu_ms": cost["pg_cpu_ms_per_request"], "missed": misses})

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
        super().__init__(session, contender.service, target, deadline, doc,
                         doc[section].setdefault(contender.service, {}))
        self.contender, self.label = contender, contender.name

    def found(self, rate: bisection.Found) -> None:
        self.rate = rate.good
        self.record["rate"] = _found(rate)
        self.write()

    def confirm(self, long_s: int) -> None:
        """The rate found held for `long_s` measured seconds, not only for a probe's window."""
        if self.rate is not None and long_s:
            self.record["long"] = self.run(self._level(self.rate, duration_s=long_s), long=True)
            self.write()

    def sweeps(self, heaps: tuple[int, ...]) -> bool:
        """At the shipped settings (the tuned ones hold their own), a rate found, a heap to set."""
        return bool(heaps) and not self.contender.tuned and self.rate is not None \
            and bool(registry.get(self.service).heap)

    def sweep(self, heaps: tuple[int, ...], deadline: float) -> None:
        self.deadline = deadline
        def holds(mb: int) -> bool:
            return held_heap(lambda: self.misses(self.rate, mb), self.profile.repeat, self.over)

        heap = bisection.smallest(holds, heaps, self.profile.repeat, self.over)
        self.record["heap"] = {**_found(heap), "rate": self.rate}
        self.write()

    def misses(self, rate: int, heap_mb: int | None = None) -> list[str]:
        """What a level at `rate` (and `heap_mb`: it may not start) missed of the target."""
        return self.run(self._level(rate, heap_mb), may_fail_to_start=heap_mb is not None)["missed"]

    def _level(self, rate: int, heap_mb: int | None = None, **profile_changes) -> Level:
        profile = replace(self.profile, **profile_changes)
        if self.contender.tuned:
            return profile.level(self.service, rate, profile.pools[0], 0, heap_mb)
        return Level(self.service, rate, profile.pools[0], 0, profile, heap_mb=heap_mb)


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
