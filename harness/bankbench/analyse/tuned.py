"""The tuned settings: where make tune tunes each service and what its runs left.

make tune tunes each service below its capacity at the shipped settings (capacity.toml's,
bankbench.results.capacities); the report shows what each knob's newest run left and every make tune
run's settings.

See docs/benchmarks.md#each-stack-at-its-best-settings-make-tune-then-tunedboth."""

from collections.abc import Sequence
from pathlib import Path

from bankbench import paths, registry
from bankbench.analyse import base_rates
from bankbench.results import capacities
from bankbench.results.probes import Basis, Searched, Tuned, Tuning
from bankbench.results.runs import TUNING_FILE, Run, newest_first


def bases(placement: str, passes: Sequence[capacities.Pass] | None = None) -> dict[str, Basis]:
    """Per service, its capacity at the shipped settings under `placement` (capacity.toml's, over
    its passes there) and their target; none without a pass there."""
    found = base_rates.rates(placement, passes=passes)
    return {service: Basis(rate, found.target, found.passes) for service, rate in found.rates.items()} if found else {}


def found(selected: list[Run]) -> list[tuple[Run, str, Tuned]]:
    """Each service tuned by a make tune run among `selected` and its record there, by service then
    oldest run first (KNOBS= runs: some knobs each)."""
    docs = [(run, Tuning.read(run.path)) for run in sorted(selected, key=lambda r: r.id) if run.swept]
    order = {name: i for i, name in enumerate(registry.names())}
    return sorted(((run, service, record) for run, doc in docs
                   for service, record in doc.services.items() if record.tuned is not None),
                  key=lambda found: order.get(found[1], len(order)))


def searched(service: str, placement: str, root: Path = paths.RUNS) -> dict[str, Searched]:
    """Each knob of `service` as the newest make tune run under `placement` left it."""
    found: dict[str, Searched] = {}
    for path, manifest in newest_first(TUNING_FILE, root):
        if manifest.placement != placement:
            continue
        record = Tuning.read(path).services.get(service)
        if record is None:
            continue
        for knob in record.knobs:
            others = {name: value for name, value in record.chosen.items() if name != knob.knob}
            found.setdefault(knob.knob, Searched(knob.chosen, path.name, knob.complete, knob.judged, others))
    return found
