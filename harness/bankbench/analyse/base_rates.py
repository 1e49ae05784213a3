"""The rates the profiles run at a share of: per service, its capacity over capacity.toml's passes.

make overload, make soak and make tune run each service at a share of its capacity under their CPU
placement: the geometric mean of its capacities over the passes under that placement, as the
report's first table takes it (bankbench.results.capacities reads the passes).

See docs/benchmarks.md#what-a-request-costs."""

import statistics
from collections.abc import Sequence

from bankbench.results.capacities import Pass, Rates, read


def rates(placement: str, tuned: bool = False, passes: Sequence[Pass] | None = None) -> Rates | None:
    """Per service its capacity over the passes under `placement` (at the `tuned` settings): the
    geometric mean of those that give one; None where no pass under it does."""
    under = [p for p in (read() if passes is None else passes) if p.placement == placement and p.section(tuned)]
    if not under:
        return None
    services = dict.fromkeys(service for p in under for service in p.section(tuned))
    found = {service: round(statistics.geometric_mean(p.section(tuned)[service] for p in under
                                                      if service in p.section(tuned))) for service in services}
    return Rates(found, tuple(p.run for p in under), placement, under[-1].target)
