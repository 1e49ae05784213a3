"""When a service is warm: the rule that `quick-bench` and the benchmark's warm start share.

A warm-up runs in rounds of ROUND_S. It ends when a round's throughput no longer climbs (at most
STEADY above the round before) and, for a service with a JIT, its compilations took less than
JIT_QUIET of the round (series `jit_ms` of api/metrics.yaml; the JVM's is Micrometer's
jvm_compilation_time_ms_total: elapsed time, so a compiler thread waiting for a core counts too).
Throughput alone is not enough: on platform threads the compiler threads share two cores with 64
request threads, and throughput sits on a plateau for a minute or more before C2 has compiled the
hot paths. A round slower than the one before ends it too: a closed loop of 64 users on two
cores moves by 10 % or more from round to round once warm (Go's 3,128-3,894 req/s over 50 s), so
a rule that asked for two rounds within 5 % of each other waited on that noise, not on a warm-up.
"""

from __future__ import annotations

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
