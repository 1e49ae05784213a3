"""The tuned settings: where make tune tunes each service and what its runs left.

make tune tunes each service below its capacity rate at the shipped settings; the report shows what
each knob's newest run left and every make tune run's settings.

See docs/benchmarks.md#each-stack-at-its-best-settings-make-tune-then-tunedboth."""

from pathlib import Path

from bankbench import paths, registry
from bankbench.results.probes import Basis, Searched, Searches, Tuned, Tuning
from bankbench.results.runs import CAPACITY_FILE, PAIRED, TUNING_FILE, Run, newest_first


def bases(placement: str, root: Path = paths.RUNS) -> dict[str, Basis]:
    """Per service, its rate and target in the newest shipped capacity run under `placement`."""
    found: dict[str, Basis] = {}
    for path, manifest in newest_first(CAPACITY_FILE, root):
        if manifest.tuned or manifest.placement != placement:
            continue
        doc = Searches.read(path)
        for service, search in doc.shipped.items():
            if search.found is not None:
                found.setdefault(service, Basis(search.found, doc.target, path.name))
    return found


def found(selected: list[Run]) -> list[tuple[Run, str, Tuned]]:
    """Each service tuned by a paired make tune run among `selected` (an older one's probes are not
    duels) and its record there, by service then oldest run first (KNOBS= runs: some knobs each)."""
    docs = [(run, Tuning.read(run.path)) for run in sorted(selected, key=lambda r: r.id) if run.swept]
    order = {name: i for i, name in enumerate(registry.names())}
    return sorted(((run, service, record) for run, doc in docs if doc.protocol == PAIRED
                   for service, record in doc.services.items() if record.tuned is not None),
                  key=lambda found: order.get(found[1], len(order)))


def searched(service: str, placement: str, root: Path = paths.RUNS) -> dict[str, Searched]:
    """Each knob of `service` as the newest paired make tune run under `placement` left it."""
    found: dict[str, Searched] = {}
    for path, manifest in newest_first(TUNING_FILE, root):
        if manifest.placement != placement:
            continue
        doc = Tuning.read(path)
        record = doc.services.get(service) if doc.protocol == PAIRED else None
        if record is None:
            continue
        for knob in record.knobs:
            others = {name: value for name, value in record.chosen.items() if name != knob.knob}
            found.setdefault(knob.knob, Searched(knob.chosen, path.name, knob.complete, knob.judged, others))
    return found
