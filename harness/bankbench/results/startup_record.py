"""make startup's records (results/startup/<stamp>.json).

Per service and start, the seconds from each process's start to its first 200 on GET /health. The
report's first table reads the newest.

See results/LAYOUT.md#start-up-records."""

from pathlib import Path

from bankbench import paths
from bankbench.results.files import read_json, write_json

FOLDER = paths.RESULTS / "startup"
COLD, AOT = "cold", "cold+AOT"  # the starts measured: a new process, and a JVM's from its AOT cache


def write(stamp: str, document: dict) -> Path:
    FOLDER.mkdir(parents=True, exist_ok=True)
    path = FOLDER / f"{stamp}.json"
    write_json(path, document)
    return path


def newest(folder: Path = FOLDER) -> tuple[str, dict] | None:
    """The newest record's stamp and contents; None where none was made."""
    found = sorted(folder.glob("*.json"))
    return (found[-1].stem, read_json(found[-1])) if found else None
