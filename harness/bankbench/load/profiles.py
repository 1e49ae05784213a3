"""Load profiles (profiles.toml) and the benchmark levels they expand into.

See docs/benchmarks.md#profiles."""

import itertools
import json
import tomllib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from bankbench import config, paths, registry
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.machine import placement

LOAD_MODELS = {  # each model in words, for the manifest and the progress
    "article": "closed model, one iteration per user, users started linearly over the ramp-up: "
               "an arrival rate of users/rampup iterations per second, not `users` requests in flight",
    "sustained": "closed model: `users` threads loop without pause other than think time for the "
                 "measured duration after ramp-up and warm-up",
    "open": "open model: `users` iterations start per second (Poisson arrivals) whatever the latency",
}
MODELS = tuple(LOAD_MODELS)
SCENARIOS = ("rematch", "contention")
STARTS = {  # how each level's service starts, and the question its figures answer
    "cold": "a fresh process per level, measured from its first request: a new task scaling out",
    "aot": "a fresh JVM per level with the JDK's AOT cache of a training run: a new task that "
           "ships its cache",
    "warm": "one process per service and repeat that has served the scenario until it is steady "
            "(JIT quiet), then kept for its levels, the tables emptied before each: a service in "
            "steady state",
}
# JMeter drives every model, Gatling the open model at a sixth of its CPU (gatling/README.md).
GENERATORS = {"jmeter": "JMeter", "gatling": "Gatling"}
OPEN_DRAIN_S = 10  # open model: seconds after the last arrival; an iteration still running errs
TUNED = "tuned"  # TUNED=1's tables of tuned.toml, [tuned.<service>], and its levels' tag
TUNED_FILE_HEAD = """\
# The settings `make tune` found, one table per service, which TUNED=1 runs with (make bench, make
# capacity): `pool`; `env`, what it adds to the service's environment (JAVA_OPTS after
# bank-java/jvm.options); `found_by`, the tune run and where it tuned. make tune rewrites the tables
# of the services it tuned and keeps the others."""


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    model: str
    services: list[str]
    users: list[int]
    pools: list[int]
    repeat: int
    scenario: str
    hot_accounts: int
    think_ms: int
    rampup_s: int
    warmup_s: int
    duration_s: int
    placements: list[str]  # CPU placements, a run each; none: the machine's default
    start: str = "cold"  # a key of STARTS
    generator: str = "jmeter"  # a key of GENERATORS
    base: str | None = None  # the profile it was written over, its sibling in the report
    phases: list[list[float]] = field(default_factory=list)  # [seconds, multiple of the base rate]
    rates: dict[str, int] = field(default_factory=dict)  # phased: base rates, set by with_rates
    rate_source: str = ""
    tuned: dict[str, registry.Settings] = field(default_factory=dict)  # TUNED=1: per service its table
    search: dict[str, Any] = field(default_factory=dict)  # make capacity's design (capacity_search.Design)

    @property
    def phased(self) -> bool:
        """Whether its arrivals come in phases (a warm-up's closed loop over it is not)."""
        return self.model == "open" and bool(self.phases)

    def level(self, service: str, users: int, pool: int, repeat: int, heap_mb: int | None = None) -> "Level":
        """A level of `service`; under TUNED at its tuned pool and settings, in place of `pool`."""
        if (tuned := self.tuned.get(service)) is None:
            return Level(service, users, pool, repeat, self, heap_mb=heap_mb)
        return Level(service, users, tuned.pool, repeat, self, heap_mb=heap_mb, settings=dict(tuned.env),
                     settings_tag=TUNED)


@dataclass(frozen=True)
class Level:
    """One measured point: a service at a load and a pool size, in one repetition."""

    service: str
    users: int
    pool: int
    repeat: int
    profile: Profile = field(repr=False)
    heap_mb: int | None = None  # the service's heap limited so (`make capacity`); None: its own settings
    settings: dict[str, str] = field(default_factory=dict)  # make tune's candidate, TUNED's
    settings_tag: str = ""

    @property
    def id(self) -> str:
        heap = "" if self.heap_mb is None else f"-h{self.heap_mb}"
        tag = f"-{self.settings_tag}" if self.settings_tag else ""
        return f"{self.service}-u{self.users}-p{self.pool}{heap}{tag}-r{self.repeat}"

    @property
    def process(self) -> tuple:
        """What its service process starts with: a warm one serves only levels alike (a tag apart:
        make capacity's A/A twin, the same settings in a process of its own)."""
        return self.service, self.pool, self.heap_mb, tuple(sorted(self.settings.items())), self.settings_tag

    def service_env(self) -> dict[str, str]:
        """Its settings, then its heap limit (registry.combine: -Xmx after a collector)."""
        heap = {} if self.heap_mb is None else registry.get(self.service).heap_env(self.heap_mb)
        return registry.combine(self.settings, heap)

    @property
    def expected_s(self) -> int:
        """How long the load runs at most (for progress and time bounds)."""
        p = self.profile
        if p.model == "article":
            return p.rampup_s + p.duration_s
        drain = OPEN_DRAIN_S if p.model == "open" else 0
        return p.rampup_s + p.warmup_s + p.duration_s + drain

    @property
    def measured_s(self) -> int:
        """Seconds from the measured window's start to the load's last arrival (no drain)."""
        drain = OPEN_DRAIN_S if self.profile.model == "open" else 0
        return self.expected_s - drain - self.measure_offset_s

    @property
    def measure_offset_s(self) -> int:
        """Seconds from the start of the load to the measured window; the article model's ramp-up
        is its whole load (each user runs once as it starts), so only its warm-up is left out."""
        p = self.profile
        return p.warmup_s + (0 if p.model == "article" else p.rampup_s)

    @property
    def arrivals(self) -> dict[str, Any] | None:
        """Iterations started per second and over how long; None for sustained, a closed loop."""
        p = self.profile
        if p.model == "article":
            return {"rate": round(self.users / p.rampup_s, 3), "window_s": p.rampup_s}
        if p.phased:  # the mean rate: rate x window is the planned arrivals
            window_s = sum(seconds for seconds, _ in self.schedule())
            return {"rate": round(sum(s * r for s, r in self.schedule()) / window_s, 3), "window_s": window_s}
        if p.model == "open":
            return {"rate": self.users, "window_s": p.warmup_s + p.duration_s}
        return None

    def schedule(self) -> list[tuple[int, float]]:
        """A phased level's (seconds, rate): the warm-up at the first phase's, then each phase's."""
        rates = [(int(seconds), multiple * self.users) for seconds, multiple in self.profile.phases]
        return ([(self.profile.warmup_s, rates[0][1])] if self.profile.warmup_s else []) + rates

    def load_properties(self) -> dict[str, Any]:
        """The generator's properties (jmeter/README.md), host and port aside; JMeter's thread
        group of the other model gets no users and no arrivals, so it ends at once."""
        p = self.profile
        common = {"think_ms": p.think_ms, "scenario": p.scenario, "hot_accounts": p.hot_accounts}
        if p.phased:  # Gatling's `phases` (gatling/README.md) replace its one rate
            return {**common, "users": 0, "rate": 0, "arrivals_s": 0, "drain_s": OPEN_DRAIN_S,
                    "phases": ",".join(f"{seconds}:{rate:.3f}".rstrip("0").rstrip(".")
                                       for seconds, rate in self.schedule())}  # rates as 186, 46.5
        if p.model == "open":
            arrivals = self.arrivals
            assert arrivals is not None  # an open level's always are
            return {**common, "users": 0, "rate": self.users,
                    "arrivals_s": arrivals["window_s"], "drain_s": OPEN_DRAIN_S}
        return {**common, "users": self.users, "rampup": p.rampup_s,
                "duration": self.expected_s, "loops": 1 if p.model == "article" else -1,
                "rate": 0, "arrivals_s": 0, "drain_s": 0}

    def as_dict(self) -> dict[str, Any]:
        p = self.profile
        return {"id": self.id, "service": self.service, "users": self.users, "pool": self.pool,
                "repeat": self.repeat, "profile": p.name, "model": p.model, "scenario": p.scenario,
                "start": p.start, "generator": p.generator, "warmup_s": p.warmup_s,
                "rampup_s": p.rampup_s, "duration_s": p.duration_s,
                "measure_offset_s": self.measure_offset_s, "expected_s": self.expected_s,
                **({} if self.heap_mb is None else {"heap_mb": self.heap_mb}),
                **({"base_rate": {"rate": self.users, "source": p.rate_source},
                    "phases": [{"seconds": int(seconds), "multiple": multiple,
                                "rate": multiple * self.users} for seconds, multiple in p.phases]}
                   if p.phased else {}),
                **({"settings": self.settings, "settings_tag": self.settings_tag}
                   if self.settings or self.settings_tag else {}),
                "arrivals": self.arrivals, "load_properties": self.load_properties()}


def load(name: str, overrides: dict[str, Any] | None = None, path: Path = paths.PROFILES,
         tuned: bool = False, tuned_path: Path = paths.TUNED) -> Profile:
    """The profile `name` over the defaults and its `base`, then `overrides`; `tuned`: TUNED=1."""
    doc = tomllib.loads(path.read_bytes().decode())
    profiles = doc.get("profiles", {})
    if name not in profiles:
        raise UserError(f"unknown profile {name!r}: choose from {', '.join(profiles)}")
    base = profiles[name].get("base")
    if base is not None and (base not in profiles or "base" in profiles[base]):
        raise UserError(f"profile {name!r}: base {base!r} must be a profile without a base")
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    layers = [doc.get("defaults", {}), profiles.get(base, {}), profiles[name], overrides]
    merged = {"services": list(registry.names()), "pools": [config.DEFAULT_POOL_SIZE], "placements": [],
              **{k: v for layer in layers for k, v in layer.items()}}
    if merged.get("start") == "aot" and not any("services" in layer for layer in layers):
        merged["services"] = [s for s in registry.names() if processes.has_aot_cache(s)]  # every JVM's
    if tuned:
        if any("pools" in layer for layer in layers):
            raise UserError(f"TUNED=1 runs each service at its tuned pool: not with POOL= or profile {name!r}'s "
                            "pools")
        tables = read_tuned(tuned_path)
        if missing := [service for service in merged["services"] if service not in tables]:
            raise UserError(f"TUNED=1: {tuned_path.name} has no [{TUNED}.<service>] table for "
                            f"{', '.join(missing)}: run `make tune` (it writes them), or run without TUNED (the "
                            "shipped settings)")
        merged[TUNED] = {service: tables[service] for service in merged["services"]}
    try:
        profile = Profile(name=name, **merged)
    except TypeError as err:
        raise UserError(f"profile {name!r} in {path.name}: {err}") from None
    _validate(profile)
    if not profile.phases:
        return profile
    if "duration_s" in overrides:
        raise UserError(f"profile {name!r}: its phases set the measured duration; DURATION= cannot")
    return replace(profile, duration_s=sum(int(seconds) for seconds, _ in profile.phases))


def read_tuned(path: Path = paths.TUNED) -> dict[str, registry.Settings]:
    """The [tuned.<service>] tables of tuned.toml: none before make tune wrote one."""
    tables = tomllib.loads(path.read_bytes().decode()).get(TUNED, {}) if path.is_file() else {}
    return {service: registry.Settings.of(table, f"[{TUNED}.{service}]") for service, table in tables.items()}


def write_tuned(found: dict[str, registry.Settings], path: Path = paths.TUNED) -> None:
    """Writes the tables `found` over tuned.toml's."""
    def toml(value: object) -> str:  # the file's values: numbers, strings, tables of strings
        if isinstance(value, dict):
            return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in value.items()) + " }" if value else "{}"
        return json.dumps(value)

    tables = {**read_tuned(path), **found}
    blocks = [f"[{TUNED}.{service}]\n" + "\n".join(f"{key} = {toml(value)}" for key, value in asdict(table).items())
              for service, table in tables.items()]
    path.write_text("\n\n".join([TUNED_FILE_HEAD, *blocks]) + "\n")


def is_shipped(service: str, settings: registry.Settings) -> bool:
    """Whether a service's tuned settings are the shipped pool and each knob's first value."""
    shipped = registry.combine(*(next(iter(values.values())) for values in registry.get(service).tune.values()))
    return settings.pool == config.DEFAULT_POOL_SIZE and settings.env == shipped


def _validate(p: Profile) -> None:
    problems = []
    for name, choices in (("model", MODELS), ("scenario", SCENARIOS), ("generator", GENERATORS)):
        if getattr(p, name) not in choices:
            problems.append(f"{name} must be one of {tuple(choices)}")
    if p.generator == "gatling" and p.model != "open":
        problems.append(f"{GENERATORS[p.generator]} drives the open model only")
    if p.start not in STARTS:
        problems.append(f"start must be one of {tuple(STARTS)}")
    elif p.start == "aot" and (no_cache := [s for s in p.services if not processes.has_aot_cache(s)]):
        problems.append(f"start aot needs a JVM service: {', '.join(no_cache)} has no AOT cache")
    if p.phases:
        if p.model != "open" or p.generator != "gatling":
            problems.append("phases need the open model and generator gatling "
                            "(JMeter's plan has one rate)")
        if not all(isinstance(phase, list) and len(phase) == 2 and isinstance(phase[0], int)
                   and phase[0] > 0 and isinstance(phase[1], int | float) and phase[1] > 0
                   for phase in p.phases):
            problems.append("each phase must be [seconds, multiple]: whole seconds > 0, a multiple "
                            "of the base rate > 0")
        if p.users:
            problems.append("a profile with phases takes each service's base rate from RATE= or "
                            "from make capacity's run, not from users")
        if bad := [f"{service}: {rate}" for service, rate in p.rates.items()
                   if not isinstance(rate, int) or rate <= 0]:
            problems.append(f"base rates must be whole iterations/s > 0 ({', '.join(bad)})")
    elif not p.users or any(u <= 0 for u in p.users):
        problems.append("users must be positive")
    if unknown := set(p.services) - set(registry.names()):
        problems.append(f"unknown services {sorted(unknown)}: choose from {', '.join(registry.names())}")
    if not p.pools or any(n <= 0 for n in p.pools):
        problems.append("pools must be positive")
    if p.repeat < 1 or p.duration_s <= 0 or min(p.rampup_s, p.warmup_s, p.think_ms) < 0:
        problems.append("repeat and duration_s must be positive, the rest not negative")
    if p.model == "article" and p.rampup_s <= 0:
        problems.append("the article model needs rampup_s > 0: its arrival rate is users/rampup_s")
    if p.scenario == "contention" and p.hot_accounts < 2:
        problems.append("contention needs hot_accounts >= 2")
    if unknown_modes := [mode for mode in p.placements if mode not in placement.MODES]:
        problems.append(f"unknown placements {unknown_modes}: choose from {', '.join(placement.MODES)}")
    if len(set(p.placements)) < len(p.placements):
        problems.append("placements must not repeat")
    if problems:
        raise UserError(f"profile {p.name!r}: " + "; ".join(problems))


def with_rates(profile: Profile, rates: dict[str, int], source: str) -> Profile:
    """A phased `profile` with its services' base rates (iterations/s) and their `source`."""
    if missing := [service for service in profile.services if service not in rates]:
        raise UserError(f"profile {profile.name!r}: no base rate for {', '.join(missing)} in {source}: "
                        "pass RATE= (iterations/s) or run `make capacity` for it")
    found = replace(profile, rates={service: rates[service] for service in profile.services}, rate_source=source)
    _validate(found)
    return found


def rates_text(rates: dict[str, int], source: str) -> str:
    """A phased profile's `rates` and `rate_source` in words: the progress, the plan, the report."""
    return f"{', '.join(f'{service} {rate:,}' for service, rate in rates.items())} iterations/s ({source})"


def levels(profile: Profile) -> list[Level]:
    """Every level: each repetition sweeps the matrix, the services in turn at each point, so a
    drift of the machine hits them alike; warm starts run a service's levels in a row instead."""
    repeats = range(1, profile.repeat + 1)
    if profile.phased:
        if not profile.rates:
            raise UserError(f"profile {profile.name!r} has no base rates: pass RATE= or run `make capacity`")
        return [profile.level(service, profile.rates[service], pool, repeat)
                for repeat, pool, service in itertools.product(repeats, profile.pools, profile.services)]
    if profile.start == "warm":
        return [profile.level(service, users, pool, repeat) for repeat, pool, service, users in
                itertools.product(repeats, profile.pools, profile.services, profile.users)]
    return [profile.level(service, users, pool, repeat) for repeat, pool, users, service in
            itertools.product(repeats, profile.pools, profile.users, profile.services)]


def int_list(text: str | None) -> list[int] | None:
    """Parses a make-style comma list ("1000,4000") into ints; None stays None."""
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"not a comma list of whole numbers: {text!r}") from None
