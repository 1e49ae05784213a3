"""make startup's records (results/startup/<stamp>.json).

Per service and start, the seconds from each process's start to its first 200 on GET /health. The
report's first table reads the newest.

See results/LAYOUT.md#start-up-records."""

from dataclasses import dataclass
from pathlib import Path

from bankbench import paths
from bankbench.results import versions
from bankbench.results.files import read_json, write_json

FOLDER = paths.RESULTS / "startup"
COLD, AOT = "cold", "cold+AOT"  # the starts measured: a new process, and a JVM's from its AOT cache


@dataclass(frozen=True)
class Startup:
    """A record's stamp, the commit it measured, and per service and start each process's seconds."""

    stamp: str
    commit: str
    seconds: dict[str, dict[str, list[float]]]


def write(stamp: str, document: dict) -> Path:
    FOLDER.mkdir(parents=True, exist_ok=True)
    path = FOLDER / f"{stamp}.json"
    write_json(path, versions.stamped(document, versions.STARTUP))
    return path


def records(folder: Path = FOLDER) -> list[Path]:
    """Every record, oldest first."""
    return sorted(folder.glob("*.json"))


def newest(folder: Path = FOLDER) -> Startup | None:
    """The newest record, refused unless of this version; None where none was made."""
    if not (found := records(folder)):
        return None
    document = versions.check(found[-1], read_json(found[-1]), versions.STARTUP)
    return Startup(found[-1].stem, document["git"]["commit"], document["seconds"])
