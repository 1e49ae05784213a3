"""The load generators by name: JMeter and Gatling, run alike.

Named in profiles.GENERATORS, each runs a level's load properties, prints JMeter's console lines
(bankbench.load.console) and writes its samples in JMeter's CSV columns.

See docs/benchmarks.md#two-load-generators."""

from pathlib import Path

from bankbench.load import gatling, jmeter
from bankbench.load.console import Driver

MODULES = {"jmeter": jmeter, "gatling": gatling}  # by the names of profiles.GENERATORS
# A level's raw samples, gzipped, by generator: git ignores them, the analysis reads histograms.
LEVEL_SAMPLES = {name: module.SAMPLES + ".gz" for name, module in MODULES.items()}


def start(generator: str, properties: dict[str, object], out: Path, dashboard: bool = False) -> Driver:
    """Starts `generator` on `properties` (host and port included), its files into `out`."""
    if generator == "gatling":
        return gatling.Run(properties, out)
    return jmeter.Run(properties, out, dashboard=dashboard)


def cache_inputs(generator: str) -> tuple[dict[str, object], tuple[Path, ...]]:
    """What a calibration of `generator` depends on besides the load, and the files it reads."""
    return MODULES[generator].cache_inputs()


def level_samples(level_dir: Path) -> Path | None:
    """The raw samples a level keeps, whichever generator took them; None where there are none."""
    return next((level_dir / name for name in LEVEL_SAMPLES.values() if (level_dir / name).exists()), None)
