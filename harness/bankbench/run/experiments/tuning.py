"""`make tune`: per service, one knob at a time, each value in a duel.

The settings each camp's experts name, one knob at a time (the pool size first, then `tune` of its
entry in services.yaml), each value in a duel with the incumbent (sweep), at RATE_SHARE of the
capacity at the shipped settings. A value that wins its duel is duelled again, afresh, and kept only
if it wins that one too: one duel at 2.5 % has a false win in forty, a knob of several values
several such chances. The incumbent's process and the candidate's are both kept warm, so each turn
of a duel finds its process as the last one left it.

See docs/benchmarks.md#each-stack-at-its-best-settings-make-tune-then-tunedboth."""

from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from bankbench import config, registry
from bankbench.analyse import duel_stats, levels
from bankbench.load.profiles import Level
from bankbench.measure import steady
from bankbench.results import files, versions
from bankbench.results.probes import Basis, Searched
from bankbench.results.runs import PAIRED, TUNING_FILE
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import sweep
from bankbench.run.experiments.capacity_search import Prober, shares
from bankbench.run.runner import Session

POOL = "pool"  # the first knob: the pool size, a value of the level rather than of its environment
# Where capacity is decided (issue 69): at 0.6, fixed per-second costs (scrapes, GC, JIT, pollers)
# weigh more in CPU per request than near capacity. At 0.8 of go's 600 it/s p99 passed 50 ms in 6 of
# 13 probes (2026-11-28): the target decides a duel only where most of a value's probes missed it.
RATE_SHARE = 0.8


def run(opts: Options, bases: dict[str, Basis], budget_s: float, pools: Sequence[int],
        knobs: Sequence[str] | None = None, earlier: dict[str, dict[str, Searched]] | None = None) -> Path:
    """Tunes each service over `pools` and its knobs (`knobs` only, if given); returns the run."""
    services = opts.profile.services
    with Session(opts, warm_processes=2) as session:
        doc = {versions.KEY: versions.TUNING, "protocol": PAIRED, "duel": duel_stats.METHOD,
               "budget_s": budget_s, "pools": list(pools), "rate_share": RATE_SHARE,
               **({"knobs": list(knobs)} if knobs else {}), "services": {}}
        print(f"bankbench tune: {', '.join(services)} at {RATE_SHARE:.0%} of their capacities, each value against "
              f"the incumbent in turn, within {budget_s / 60:.0f} min -> {session.run_dir}", flush=True)
        for service, deadline in shares(services, budget_s):
            _Tuner(session, service, bases[service], deadline, doc).tune(pools, knobs, (earlier or {}).get(service))
    return session.final


class _Tuner(Prober):
    """The duels of one service, recording each probe and choice into `doc` (tuning.json)."""

    def __init__(self, session: Session, service: str, basis: Basis, deadline: float, doc: dict):
        self.rate = max(1, round(basis.rate * RATE_SHARE))
        record = doc["services"].setdefault(service, {"rate": self.rate, "capacity": basis.rate, "run": basis.run,
                                                      "target": asdict(basis.target)})
        super().__init__(session, service, basis.target, deadline, doc, record, TUNING_FILE)

    def tune(self, pools: Sequence[int], wanted: Sequence[str] | None = None,
             earlier: dict[str, Searched] | None = None) -> None:
        """Each knob (`wanted`'s, if given) in turn; one left out starts where the newest run of it
        ended (`earlier`, if complete), one it left unfinished goes on if the others match."""
        earlier = earlier or {}
        shipped = str(config.DEFAULT_POOL_SIZE)  # what the services ship with, as profiles.is_shipped reads it
        knobs = {POOL: [shipped, *(str(pool) for pool in pools if str(pool) != shipped)],
                 **{knob: list(values) for knob, values in registry.get(self.service).tune.items()}}
        chosen = {knob: values[0] for knob, values in knobs.items()}  # the shipped settings
        carried = {knob: {"value": found.value, "run": found.run} for knob, found in earlier.items()
                   if wanted is not None and knob not in wanted and found.complete
                   and found.value in knobs.get(knob, ())}
        chosen.update({knob: found["value"] for knob, found in carried.items()})
        self.record["carried"] = carried
        self.record["knobs"] = [{"knob": knob, "values": values, "chosen": chosen[knob], "complete": False,
                                 "duels": []} for knob, values in knobs.items() if wanted is None or knob in wanted]
        for entry in self.record["knobs"]:
            knob, before = entry["knob"], earlier.get(entry["knob"])
            if before and not before.complete and before.judged and \
                    before.others == {k: v for k, v in chosen.items() if k != knob}:
                entry["resumed"] = {"run": before.run, "judged": list(before.judged)}
                chosen[knob] = before.value
            entry["complete"] = self._knob(entry, chosen)
            entry["chosen"] = chosen[knob]
            print(f"[{self.service}] {knob}: {entry['chosen']}", flush=True)
            self.write()
            if not entry["complete"]:
                break
        tuned = self._level(chosen)
        done = {entry["knob"] for entry in self.record["knobs"] if entry["complete"]} | set(carried)
        self.record.update(not_searched=[knob for knob in knobs if knob not in done], chosen=chosen,
                           tuned={"pool": tuned.pool, "env": tuned.service_env()})
        self.write()

    def _knob(self, entry: dict, chosen: dict[str, str]) -> bool:
        """Duels each value of the knob with `chosen`'s (updated); whether all were judged."""
        knob = entry["knob"]

        def probe(value: str) -> sweep.Outcome:
            found = self.run(self._level({**chosen, knob: value}), may_fail_to_start=True, knob=knob, value=value)
            cpu = None if None in (found.get("service_cpu_ms"), found.get("pg_cpu_ms")) else \
                round(found["service_cpu_ms"] + found["pg_cpu_ms"], 4)
            return sweep.Outcome(tuple(found["missed"]), found.get("p99_ms"), cpu, self._compiling(found))

        for value in entry["values"]:
            if value == chosen[knob] or value in entry.get("resumed", {}).get("judged", ()):
                continue
            kept, complete = self._duels(entry, probe, chosen[knob], value)
            if kept:
                chosen[knob] = value
            if not complete:
                return False
        return True

    def _duels(self, entry: dict, probe: Callable[[str], sweep.Outcome], incumbent: str,
               candidate: str) -> tuple[bool, bool]:
        """The candidate's duel and, if it won, a second, independent one (module doc); whether it is
        kept (both won) and whether its duels ended. Each is recorded (tuning.json) with `won`, its
        own verdict, and `kept`, the value's: a first duel won reads kept only once the second is."""
        records = []
        for confirms in (False, True):
            duel = sweep.duel(probe, incumbent, candidate, self.profile.repeat, self.over, confirms)
            records.append({**asdict(duel), "probes": [{"value": v, **asdict(o)} for v, o in duel.probes],
                            "voided": [{"value": v, **asdict(o)} for v, o in duel.voided], "kept": False})
            entry["duels"].append(records[-1])
            print(f"[{self.service}] {entry['knob']} {candidate} against {incumbent}{' again' if confirms else ''}: "
                  f"{'won' if duel.won else 'lost'}, {duel.why}", flush=True)
            if not (duel.won and duel.complete):
                break
        kept = len(records) == 2 and all(r["won"] and r["complete"] for r in records)
        complete = records[-1]["complete"]
        for record in records:
            record["kept"], record["complete"] = kept, complete  # the value's judgement, over both
        self.write()
        return kept, complete

    def _compiling(self, found: dict) -> bool:
        """Whether the JIT compiled through the probe's measured window, above steady.JIT_QUIET of
        it (the warm-up's own rule); a probe not run, or of a service without a JIT: no."""
        if "p99_ms" not in found or "level" not in found:
            return False
        share = levels.jit_share(files.level_dir(self.session.run_dir, found["level"]))
        return share is not None and share > steady.JIT_QUIET

    def _level(self, chosen: dict[str, str]) -> Level:
        """A probe of the `chosen` values at the tuning rate, its id naming the knobs' values."""
        knobs = registry.get(self.service).tune
        return Level(self.service, self.rate, int(chosen[POOL]), 0, self.profile,
                     settings=registry.combine(*(values[chosen[knob]] for knob, values in knobs.items())),
                     settings_tag="-".join(chosen[knob] for knob in knobs))
