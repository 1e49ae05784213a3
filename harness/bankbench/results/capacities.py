"""capacity.toml: the capacities make capacity found, the rates of the profiles run at a share of them.

make capacity appends a [[pass]] table for each run it makes (bankbench.analyse.paired.record): per
contender at the shipped and at the tuned settings, its capacity in that pass as the model has it
(the rate held with probability 0.5; where it never missed, the highest rate tried, a lower bound),
and the pass's target. make overload, make soak and make tune take their rates from here
(bankbench.analyse.base_rates): the file is where those rates come from, as tuned.toml is for the
tuned settings; no reader scans run folders.

See docs/benchmarks.md#what-a-request-costs."""

import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import tomli_w

from bankbench import paths
from bankbench.errors import UserError
from bankbench.results.probes import Target

HEAD = """\
# The capacities `make capacity` found, a [[pass]] table per run (bankbench.results.capacities): per
# contender at the shipped and at the tuned settings, its capacity in that pass, iterations/s, the
# model's rate held with probability 0.5 (docs/method.md#capacity-the-model); `at_least` names those
# that never missed, whose figure is the highest rate tried. make overload, make soak and make tune
# take each service's rate from here: the geometric mean over the passes under their CPU placement.
# make capacity appends a table; delete one to forget its pass.

"""


@dataclass(frozen=True)
class Pass:
    """One make capacity run's capacities, by service (`tuned`: its contenders at tuned.toml's)."""

    run: str
    placement: str
    target: Target
    shipped: dict[str, float] = field(default_factory=dict)
    tuned: dict[str, float] = field(default_factory=dict)
    at_least: tuple[str, ...] = ()  # contenders (`go`, `go tuned`) whose figure is a lower bound

    def section(self, tuned: bool) -> dict[str, float]:
        return self.tuned if tuned else self.shipped


@dataclass(frozen=True)
class Rates:
    """Per service the rate a profile runs at a share of, iterations/s, and where it comes from."""

    rates: dict[str, int]
    runs: tuple[str, ...]  # the passes, oldest first
    placement: str
    target: Target  # the newest pass's

    @property
    def passes(self) -> str:
        """`run 2026...-native-capacity`, or `3 passes, runs <first> to <last>`."""
        return f"run {self.runs[0]}" if len(self.runs) == 1 else \
            f"{len(self.runs)} passes, runs {self.runs[0]} to {self.runs[-1]}"

    @property
    def source(self) -> str:
        """Where the rates come from, as a run's settings record it."""
        return (f"the capacity make capacity found ({self.passes}; {paths.CAPACITIES.name}), "
                f"CPU placement {self.placement}")


def read(path: Path | None = None) -> list[Pass]:
    """Every pass of capacity.toml, oldest first; none before make capacity wrote one."""
    path = path or paths.CAPACITIES
    if not path.is_file():
        return []
    try:
        tables = tomllib.loads(path.read_text()).get("pass", [])
        return [Pass(t["run"], t["placement"], Target(**t["target"]), t.get("shipped", {}), t.get("tuned", {}),
                     tuple(t.get("at_least", ()))) for t in tables]
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as err:
        raise UserError(f"{path} is malformed ({err}): it is make capacity's; delete the table at fault") from None


def append(found: Pass, path: Path | None = None) -> None:
    """Adds `found` to capacity.toml (written anew: its head, then every pass)."""
    path = path or paths.CAPACITIES
    passes = [p for p in read(path) if p.run != found.run] + [found]
    tables = [{**asdict(p), "at_least": list(p.at_least)} for p in passes]
    path.write_text(HEAD + tomli_w.dumps({"pass": tables}))
