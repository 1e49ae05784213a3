"""When a service is warm: the rule quick-bench and the warm start share.

The rule (docs/benchmarks.md#cold-cold-with-the-aot-cache-warm): a ROUND_S round whose throughput
climbed by at most STEADY and, with a JIT, that compiled (`jit_ms`) under JIT_QUIET of it, since
throughput plateaus a minute or more before C2 has compiled the hot paths; or a slower round: a warm
closed loop on two cores moves by 10 % or more between rounds."""

from dataclasses import asdict, dataclass

import httpx

from bankbench.measure.scrape import REQUESTS_KEY, selectors, values

ROUND_S = 10
STEADY = 0.05
JIT_QUIET = 0.02
JIT = "jit_ms"


@dataclass(frozen=True)
class Round:
    rps: float
    jit_ms: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def is_warm(rounds: list[Round]) -> bool:
    """Whether the last round ends the warm-up by the rule (not by a time limit)."""
    if len(rounds) < 2:
        return False
    last, before = rounds[-1], rounds[-2]
    return last.rps <= (1 + STEADY) * before.rps and last.jit_ms <= JIT_QUIET * ROUND_S * 1000


class Meter:
    """The service's requests answered and JIT ms so far (0 without a JIT), from /metrics."""

    def __init__(self, service: str, url: str):
        wanted = selectors(service)
        self.wanted = {key: wanted[key] for key in (REQUESTS_KEY, JIT) if key in wanted}
        self.url = f"{url}/metrics"

    def read(self) -> tuple[float, float]:
        figures = values(httpx.get(self.url, timeout=10).text, self.wanted)
        return figures.get(REQUESTS_KEY, 0.0), figures.get(JIT, 0.0)
