"""`make tune`: per service, at its capacity rate (bankbench.results.probes.Basis), the settings an
expert would tune, one knob at a time, each swept at the values chosen before it and the best
value kept (bankbench.run.experiments.sweep): the pool size first, then the knobs of the service's
registry entry (`tune` in services.yaml: a JVM's collector, Go's GOGC), with the heap limited to
the smallest that held a capacity rate in make capacity's sweep (the shipped heap where none did).

Each probe is a level of profile `tune` (make capacity's, profiles.toml) run and recorded as make
capacity runs its probes (bankbench.run.experiments.capacity_search.Prober), at the service's
capacity rate and its capacity run's target, on a warm service: a new service process for each
value. tuning.json in the run folder is rewritten after every probe (results/LAYOUT.md): every
probe, each knob's values with the probes that counted, the value kept and why, and per service
the tuned settings, `pool` and `env`, as profiles.toml's [tuned.<service>] table takes them
(tables()). The time budget is shared among the services as make capacity's is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from bankbench import config, registry
from bankbench.load import profiles
from bankbench.load.profiles import Level
from bankbench.results.probes import Basis, Target
from bankbench.results.runs import TUNING_FILE
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import sweep
from bankbench.run.experiments.capacity_search import Prober, shares
from bankbench.run.runner import Session

POOL = "pool"  # the first knob: the pool size, a value of the level rather than of its environment


def run(opts: Options, bases: dict[str, Basis], budget_s: float, pools: Sequence[int],
        p99_ms: float | None = None) -> Path:
    """Tunes every service of the profile at its basis, over `pools` and its entry's knobs (with
    `p99_ms`, that latency target instead of its capacity run's); returns the run folder."""
    services = opts.profile.services
    with Session(opts) as session:
        doc = {"budget_s": budget_s, "pools": list(pools), "services": {}}
        print(f"bankbench tune: {', '.join(services)} at their capacity rates, one knob at a time, within "
              f"{budget_s / 60:.0f} min -> {session.run_dir}", flush=True)
        for service, deadline in shares(services, budget_s):
            basis = bases[service]
            target = basis.target if p99_ms is None else replace(basis.target, p99_ms=p99_ms)
            _Tuner(session, service, basis, target, deadline, doc).tune(pools)
    return session.final


class _Tuner(Prober):
    """The sweeps of one service, recording each probe and choice into `doc` (tuning.json)."""

    def __init__(self, session: Session, service: str, basis: Basis, target: Target, deadline: float, doc: dict):
        record = doc["services"].setdefault(service, {**asdict(basis), "target": asdict(target)})
        super().__init__(session, service, target, deadline, doc, record, TUNING_FILE)
        self.basis = basis

    def tune(self, pools: Sequence[int]) -> None:
        shipped = config.DEFAULT_POOL_SIZE  # what the services ship with, as tuned.is_shipped reads it
        knobs = {POOL: [str(pool) for pool in (shipped, *(p for p in pools if p != shipped))],
                 **{knob: list(values) for knob, values in registry.get(self.service).tune.items()}}
        chosen = {knob: values[0] for knob, values in knobs.items()}  # the shipped settings
        self.record["knobs"] = []
        for knob, values in knobs.items():
            def probe(value: str, knob: str = knob) -> sweep.Outcome:
                found = self.run(self._level({**chosen, knob: value}), may_fail_to_start=True, knob=knob, value=value)
                return sweep.Outcome(tuple(found["missed"]), found.get("p99_ms"))

            choice = sweep.sweep(probe, values, self.profile.repeat, self.over)
            chosen[knob] = choice.chosen
            print(f"[{self.service}] {knob}: {choice.chosen} ({choice.why})", flush=True)
            self.record["knobs"].append({
                "knob": knob, "values": values, "chosen": choice.chosen, "why": choice.why,
                "complete": choice.complete,
                "measured": {value: [asdict(o) for o in outcomes] for value, outcomes in choice.measured.items()}})
            self.write()
        tuned = self._level(chosen)
        self.record["chosen"] = chosen
        self.record["tuned"] = {"pool": tuned.pool, "env": tuned.service_env()}
        self.write()

    def _level(self, chosen: dict[str, str]) -> Level:
        """A probe of the `chosen` values at the capacity rate, with the heap of the basis; its
        id names the values of the environment's knobs."""
        knobs = registry.get(self.service).tune
        return Level(self.service, self.basis.rate, int(chosen[POOL]), 0, self.profile, heap_mb=self.basis.heap_mb,
                     settings=registry.combine(*(values[chosen[knob]] for knob, values in knobs.items())),
                     settings_tag="-".join(chosen[knob] for knob in knobs))


def tables(doc: dict, run_id: str) -> str:
    """The [tuned.<service>] tables of a tuning.json, for profiles.toml, naming the run."""
    blocks = []
    for service, record in doc["services"].items():
        if "tuned" not in record:
            continue
        unswept = [k["knob"] for k in record["knobs"] if not k["complete"]]
        note = f"; the budget ran out before {', '.join(unswept)} was swept: shipped" if unswept else ""
        blocks.append(profiles.tuned_table(service, record["tuned"], f"make tune, run {run_id}, at "
                                           f"{record['rate']} it/s of {record['run']}{note}"))
    return "\n\n".join(blocks)
