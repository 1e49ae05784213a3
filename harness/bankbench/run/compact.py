"""What a finished level keeps in git (results/LAYOUT.md): its load generator's raw samples
folded into histograms (bankbench.load.histograms), the service's log and its own metrics
gzipped. The raw samples stay beside them, ignored by git, until `make clean-raw`. Levels
written before carry raw samples alone (layout version 3) or the histograms of version 4."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from bankbench.analyse.rawdata import read_json
from bankbench.load import generators, histograms

# Written as the level runs, gzipped when it ends (readers infer the compression from the name).
GZIPPED = ("service.log", "service_metrics.csv")


def compact(level_dir: Path) -> None:
    """Writes a level's histograms where it has raw samples and none yet, or converts those of
    layout version 4, and gzips its service's log and metrics; a level compacted already is left
    as it is."""
    if (level_dir / histograms.V4_FILE).exists():
        histograms.upgrade(level_dir)
    raw = generators.level_samples(level_dir)
    if raw is not None and not (level_dir / histograms.FILE).exists():
        level = read_json(level_dir / "level.json")
        histograms.convert(raw, level["measure_from_ms"], level_dir / histograms.FILE)
    for name in GZIPPED:
        plain = level_dir / name
        if plain.exists():
            # No time in the gzip header: the same log gives the same bytes.
            with open(plain, "rb") as src, gzip.GzipFile(plain.with_name(name + ".gz"), "wb", mtime=0) as dst:
                shutil.copyfileobj(src, dst)
            plain.unlink()


def compact_run(run_dir: Path) -> None:
    """`compact` on every level of a run (runs written before layout version 5)."""
    for level_dir in sorted((run_dir / "levels").glob("*")):
        if (level_dir / "level.json").is_file():
            compact(level_dir)
