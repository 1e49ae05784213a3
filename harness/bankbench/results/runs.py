"""Finding and loading run folders, and the series they make up.

Run folders: results/LAYOUT.md. A series, the runs of one `bench` over several CPU placements, is
named in their manifests (`settings.series`): readers take it whole."""

from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

import pandas as pd

from bankbench import paths
from bankbench.errors import UserError
from bankbench.load.profiles import STARTS, Level
from bankbench.results import files, summaries
from bankbench.results.documents import LevelRecord, Manifest
from bankbench.results.files import write_json

# The run folders kept in git and why (results/LAYOUT.md): the report shows these and no other.
PUBLISHED_CSV = paths.RESULTS / "published.csv"
CAPACITY_FILE = "capacity.json"  # what make capacity's searches found (bankbench.analyse.capacity_figures)
# capacity.json's sections: the contenders at the shipped settings, and (TUNED=both) at the tuned ones
SHIPPED_SECTION, TUNED_SECTION = "services", "tuned"
AS_SHIPPED = "as_shipped"  # a tuned section's record copied from the shipped one: probed once
TUNING_FILE = "tuning.json"  # what make tune chose (bankbench.run.experiments.tuning)
PAIRED = "paired"  # tuning.json's `protocol`: its values in duels, by CPU per request
INCOMPLETE = ".incomplete"  # the name suffix of a run being written, or interrupted (see runner)


@dataclass(frozen=True)
class Run:
    """A run folder with its manifest and its summary.csv frame (one row per level)."""

    path: Path
    manifest: Manifest
    summary: pd.DataFrame

    # The manifest's figures, by the same names (Manifest says what each is).
    profile = property(attrgetter("manifest.profile"))
    placement = property(attrgetter("manifest.placement"))
    admission_limit = property(attrgetter("manifest.admission_limit"))
    series = property(attrgetter("manifest.series"))
    tuned = property(attrgetter("manifest.tuned"))  # TUNED=1: per service, its `pool` and `env`
    settings = property(attrgetter("manifest.recorded_profile"))  # the profile's settings by name

    @property
    def id(self) -> str:
        """The run id, e.g. 20261122T013000Z-native-local."""
        return self.manifest.run_id or self.path.name

    def level_dir(self, level: str) -> Path:
        """The folder of one level, by name (go-u1000-p95-r1)."""
        return files.level_dir(self.path, level)

    @property
    def searched(self) -> bool:
        """Whether the run is make capacity's: its levels are the probes of a search."""
        return (self.path / CAPACITY_FILE).is_file()

    @property
    def swept(self) -> bool:
        """Whether the run is make tune's: its levels are the probes of its sweeps."""
        return (self.path / TUNING_FILE).is_file()

    @property
    def start(self) -> str:
        """How the run's services started (profiles.STARTS; cold, the Profile's default, where unnamed)."""
        return self.settings.get("start", "cold")

    @property
    def generator(self) -> str:
        """The load generator of the run's levels (profiles.GENERATORS; the Profile's default where unnamed)."""
        return self.settings.get("generator", "jmeter")

    @property
    def family(self) -> str:
        """The profile the run's profile was written over (its `base`), or its own."""
        return self.settings.get("base") or self.profile


def level_record(level: Level, started_ms: int, ended_ms: int, pg_max_connections: int, **extra) -> LevelRecord:
    """level.json in every environment: the level as planned, its load's window, and `extra`."""
    return LevelRecord.of({**{k: v for k, v in level.as_dict().items() if k != "id"},
                           "pg_max_connections": pg_max_connections,
                           "started_ms": started_ms,
                           "measure_from_ms": started_ms + 1000 * level.measure_offset_s,
                           "ended_ms": ended_ms,
                           **extra})


def find_runs(root: Path = paths.RUNS) -> list[Path]:
    """Every complete run folder under `root`, oldest first (names start with the UTC time stamp)."""
    return sorted(p.parent for p in root.glob("*/manifest.json") if not p.parent.name.endswith(INCOMPLETE))


def newest_first(record: str, root: Path = paths.RUNS) -> list[tuple[Path, Manifest]]:
    """The complete runs under `root` with `record` (capacity.json...), newest first, manifests."""
    return [(path, files.manifest(path)) for path in reversed(find_runs(root)) if (path / record).is_file()]


def incomplete_dir(final: Path) -> Path:
    """Where a run is written until its last level is done; then it is renamed to `final`."""
    return final.with_name(final.name + INCOMPLETE)


def mark_incomplete(run_dir: Path, reason: str) -> None:
    """Says in the run folder why it stopped (its name already says that it did)."""
    done = sum(1 for _ in run_dir.glob("levels/*/level.json"))
    write_json(run_dir / "incomplete.json", {"reason": reason, "levels_done": done})


def latest_per_profile(root: Path = paths.RUNS) -> list[Path]:
    """The newest run under `root` per profile, env and TUNED=1 or not, in profile order, with its
    series' other runs as they ran; never make tune's (its probes are candidates)."""
    latest: dict[tuple[str, str, bool], tuple[str, list[Path]]] = {}  # -> (series, its runs so far)
    for path in find_runs(root):  # oldest first
        if (path / TUNING_FILE).is_file():
            continue
        manifest = files.manifest(path)
        key = (manifest.profile, manifest.env, bool(manifest.tuned))
        name = manifest.series
        same = name and key in latest and latest[key][0] == name
        latest[key] = (name, [*latest[key][1], path] if same else [path])
    return [path for key in sorted(latest) for path in latest[key][1]]


def listed(listing: Path = PUBLISHED_CSV) -> dict[Path, str]:
    """Every folder `listing` names (relative to it), resolved, with why it is kept, in order."""
    rows = pd.read_csv(listing) if listing.is_file() else pd.DataFrame(columns=["run", "why"])
    return {(listing.parent / run).resolve(): why for run, why in zip(rows["run"], rows["why"], strict=True)}


def published(root: Path = paths.RUNS, listing: Path = PUBLISHED_CSV) -> list[Path]:
    """The complete runs under `root` that `listing` names, by profile and env, oldest first."""
    named = listed(listing)
    found = [path for path in find_runs(root) if path.resolve() in named]
    return sorted(found, key=lambda path: attrgetter("profile", "env")(files.manifest(path)))


def kept_beside(root: Path = paths.RUNS, listing: Path = PUBLISHED_CSV) -> list[Path]:
    """The folders `listing` names outside `root`, in its order: experiments kept beside the runs
    (results/placement, ...). None where `root` holds no run it names (BANKBENCH_RUNS elsewhere)."""
    outside = [path for path in listed(listing) if not path.is_relative_to(root.resolve())]
    return outside if published(root, listing) else []


def unpublished(root: Path = paths.RUNS, listing: Path = PUBLISHED_CSV) -> list[Path]:
    """The complete run folders under `root` that `listing` does not name (a run just made, say)."""
    shown = set(published(root, listing))
    return [path for path in find_runs(root) if path not in shown]


def default_selection(root: Path = paths.RUNS) -> list[Path]:
    """The runs shown by default: the published under `root`, else the latest of each profile."""
    return published(root) or latest_per_profile(root)


def newest(root: Path = paths.RUNS) -> list[Path]:
    """The newest complete run under `root` with the other complete runs of its series, if any."""
    found = find_runs(root)
    name = files.manifest(found[-1]).series if found else ""
    return [path for path in found if files.manifest(path).series == name] if name else found[-1:]


def by_series(selected: list[Run]) -> tuple[dict[str, list[Run]], list[Run]]:
    """The runs of each series among `selected`, and the other runs, each in their order. make
    capacity's series are of searches, not of the same levels: each of its runs stands alone."""
    series: dict[str, list[Run]] = {}
    for run in selected:
        if run.series and not run.searched:
            series.setdefault(run.series, []).append(run)
    return series, [run for run in selected if not run.series or run.searched]


def by_start(selected: list[Run]) -> dict[str, dict[str, Run]]:
    """For each profile family and environment run with more than one start (article, article-aot,
    article-warm): its newest run of each start, in profiles.STARTS' order; series left out."""
    by_family: dict[tuple[str, str], dict[str, Run]] = {}
    for run in selected:
        if not run.series:
            by_family.setdefault((run.family, run.manifest.env), {})[run.start] = run
    return {family: {start: group[start] for start in STARTS if start in group}
            for (family, _env), group in by_family.items() if len(group) > 1}


def load_run(path: Path, services: list[str] | None = None) -> Run:
    """Loads a summarized run (`bankbench summarize`); `services` keeps only those services."""
    if not (path / files.MANIFEST).is_file():
        raise UserError(f"{path} is not a run folder (no manifest.json)")
    manifest = files.manifest(path)
    summary = summaries.read_summary(path)
    if services is not None:
        summary = summary[summary["service"].isin(services)].reset_index(drop=True)
    return Run(path, manifest, summary)


def load_runs(dirs: list[Path] | None = None, services: list[str] | None = None) -> list[Run]:
    """Loads `dirs`, by default `default_selection()`."""
    dirs = default_selection() if dirs is None else dirs
    if not dirs:
        raise UserError(f"no runs under {paths.RUNS}: run `make bench` first")
    return [load_run(Path(path), services) for path in dirs]


def read_articles(path: Path = paths.RESULTS / "articles.csv") -> pd.DataFrame:
    """The figures the 2018 and 2019 articles published, as text: shown exactly as published."""
    try:
        return pd.read_csv(path, dtype={"mean_ms": str, "p99_ms": str, "error_pct": str})
    except OSError as err:
        raise UserError(f"cannot read {path}: {err}") from err
