"""What a finished level keeps in git: its raw files folded and compressed.

Per results/LAYOUT.md: its load generator's raw samples folded into histograms, the service's log
gzipped and its own metrics xz-compressed; the raw samples stay beside them, ignored by git, until
`make clean-raw`.

See docs/method.md#where-results-go."""

import gzip
import lzma
import shutil
from pathlib import Path

from bankbench.load import generators
from bankbench.results import files, histograms
from bankbench.results.documents import LevelRecord

# Written as the level runs, compressed when it ends (readers infer the compression from the
# name). xz, whose header holds no time, for the metrics: a second of scrapes repeats the names
# of every series, which xz's window finds (an overload level's 18 KB gzipped, 11 KB so).
GZIPPED = "service.log"


def compact(level_dir: Path, level: LevelRecord | None = None) -> None:
    """Compacts a level (module doc; `level`: its record, where it is not on disk yet); a compacted
    one is left as is."""
    raw = generators.level_samples(level_dir)
    if raw is not None and not (level_dir / histograms.FILE).exists():
        level = level or files.level_record(level_dir)
        histograms.convert(raw, level.measure_from_ms, level_dir / histograms.FILE)
    if (plain := level_dir / GZIPPED).exists():
        # No time in the gzip header: the same log gives the same bytes.
        with open(plain, "rb") as src, gzip.GzipFile(plain.with_name(GZIPPED + ".gz"), "wb", mtime=0) as dst:
            shutil.copyfileobj(src, dst)
        plain.unlink()
    if (scrapes := files.scrapes_path(level_dir)).exists():
        with open(scrapes, "rb") as src, lzma.open(level_dir / files.SERVICE_METRICS, "wb") as dst:
            shutil.copyfileobj(src, dst)
        scrapes.unlink()


def compact_run(run_dir: Path) -> None:
    """`compact` on every level of a run (`make migrate`: a level the runner left uncompacted)."""
    for level_dir in files.level_dirs(run_dir):
        compact(level_dir)
